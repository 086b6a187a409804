/* The qrels join of a run's docnos: each line's grade, found in per-topic tables of the
 * judgments' docno fingerprints and confirmed on the bytes, with the check that no
 * docno repeats within a topic (pooltool.measures.arrow_run calls it); and the same
 * pass without judgments, the check and trec_eval's order alone (trec_order: the
 * store's import, pooltool/formats/run_pass.py).
 *
 * A run file comes topic by topic: one topic's lines (a stretch) are looked up in
 * that topic's table and checked for repeats in a set of that stretch alone, both
 * small enough to stay in the core's cache (the vectorised join in
 * pooltool/formats/fingerprint.py probes tables of the whole file and the whole
 * qrels, mostly cache misses). A topic in two stretches, two docnos of one topic with
 * one fingerprint (a repeat or a collision), or buffers that do not fit: declined. */
#include "runpass.h" /* first: Python.h sets the feature macros (locale_t, strtod_l) */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A slot of a topic's table: a judgment's docno fingerprint and its row (-1: free). */
typedef struct {
    uint64_t print;
    int64_t row;
} Slot;

static int64_t table_size(int64_t count) {
    int64_t size = 1;
    while (size < 2 * count) {
        size *= 2;
    }
    return size;
}

static int strings_fit(const Strings *strings) {
    if (strings->offsets[0] < 0) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < strings->count; i++) {
        if (strings->offsets[i] > strings->offsets[i + 1]) {
            return 0;
        }
    }
    return strings->offsets[strings->count] <= strings->text_size;
}

static int same_string(const Strings *a, Py_ssize_t i, const Strings *b, Py_ssize_t j) {
    int32_t length = a->offsets[i + 1] - a->offsets[i];
    return length == b->offsets[j + 1] - b->offsets[j]
           && memcmp(a->text + a->offsets[i], b->text + b->offsets[j], (size_t)length) == 0;
}

/* Buffer views: each released by release_views. */
typedef struct {
    Py_buffer views[8];
    int held;
} Views;

static const void *take_view(Views *views, PyObject *object, Py_ssize_t item, Py_ssize_t *count) {
    Py_buffer *view = &views->views[views->held];
    if (PyObject_GetBuffer(object, view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    views->held++;
    if (view->len % item != 0) {
        PyErr_SetString(PyExc_ValueError, "a buffer of the wrong size");
        return NULL;
    }
    *count = view->len / item;
    return view->buf;
}

static void release_views(Views *views) {
    for (int i = 0; i < views->held; i++) {
        PyBuffer_Release(&views->views[i]);
    }
}

/* Strings from an int32 offsets buffer (n + 1) and a bytes buffer; 0 with an exception
 * when they do not fit. */
static int take_strings(Views *views, PyObject *offsets, PyObject *text, Strings *strings) {
    Py_ssize_t count, size;
    strings->offsets = take_view(views, offsets, 4, &count);
    strings->text = strings->offsets == NULL ? NULL : take_view(views, text, 1, &size);
    if (strings->text == NULL) {
        return 0;
    }
    strings->count = count - 1;
    strings->text_size = size;
    if (count < 1 || !strings_fit(strings)) {
        PyErr_SetString(PyExc_ValueError, "string offsets out of their bytes");
        return 0;
    }
    return 1;
}

/* --- the judgments' tables --- */

const char runpass_judged_index_doc[] =
"judged_index(topic, offsets, text, topics) -> bytes\n\n"
"The judgments' per-topic tables, for join_grades: judgment row j has topic position\n"
"topic[j] (int64, m, each in [0, topics)) and docno text[offsets[j]:offsets[j + 1]]\n"
"(int32 offsets, m + 1). Returns topics + 1 int64 slot starts, then the slots\n"
"(uint64 fingerprint, int64 row or -1), each topic's table a power of two at least\n"
"twice its judgments. Raises ValueError on buffers that do not fit.";

static void fill_tables(const int64_t *topic, const Strings *judged, int64_t *starts, Slot *slots,
                        int64_t topics) {
    for (int64_t t = 0; t < topics; t++) {
        for (int64_t s = starts[t]; s < starts[t + 1]; s++) {
            slots[s] = (Slot){0, -1};
        }
    }
    for (Py_ssize_t j = 0; j < judged->count; j++) {
        int64_t t = topic[j], mask = starts[t + 1] - starts[t] - 1;
        uint64_t print = runpass_fingerprint(judged->text + judged->offsets[j], judged->offsets[j + 1] - judged->offsets[j]);
        int64_t s = (int64_t)(print & (uint64_t)mask);
        while (slots[starts[t] + s].row >= 0) {
            s = (s + 1) & mask;
        }
        slots[starts[t] + s] = (Slot){print, j};
    }
}

PyObject *runpass_judged_index(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *topic_object, *offsets_object, *text_object;
    long long topics;
    if (!PyArg_ParseTuple(args, "OOOL", &topic_object, &offsets_object, &text_object, &topics)) {
        return NULL;
    }
    Views views = {.held = 0};
    Strings judged;
    Py_ssize_t count;
    PyObject *result = NULL;
    const int64_t *topic = take_view(&views, topic_object, 8, &count);
    if (topic == NULL || !take_strings(&views, offsets_object, text_object, &judged)) {
        goto done;
    }
    int64_t *per_topic = topics >= 0 && topics < (1LL << 40) ? calloc((size_t)topics + 1, sizeof(int64_t)) : NULL;
    if (per_topic == NULL || count != judged.count) {
        free(per_topic);
        PyErr_SetString(PyExc_ValueError, "judged_index: inconsistent buffers");
        goto done;
    }
    for (Py_ssize_t j = 0; j < count; j++) {
        if (topic[j] < 0 || topic[j] >= topics) {
            free(per_topic);
            PyErr_SetString(PyExc_ValueError, "judged_index: a topic out of range");
            goto done;
        }
        per_topic[topic[j]]++;
    }
    int64_t total = 0;
    for (int64_t t = 0; t < topics; t++) { /* counts -> starts, in place */
        int64_t size = table_size(per_topic[t]);
        per_topic[t] = total;
        total += size;
    }
    per_topic[topics] = total;
    char *space;
    result = runpass_new_bytes((Py_ssize_t)((topics + 1) * 8 + total * 16), &space);
    if (result != NULL) {
        memcpy(space, per_topic, (size_t)(topics + 1) * 8);
        fill_tables(topic, &judged, (int64_t *)space, (Slot *)(space + (topics + 1) * 8), topics);
    }
    free(per_topic);
done:
    release_views(&views);
    return result;
}

/* --- the join --- */

typedef struct {
    Strings docnos;            /* the run's, n */
    const int64_t *topic_key;  /* n: the qrels topic position, or >= topics when unjudged */
    const int64_t *starts;     /* judged_index's: topics + 1 */
    const Slot *slots;
    int64_t topics, slot_count;
    Strings judged;            /* m */
    const int64_t *judged_grade;
    int64_t unjudged;
    const double *score;       /* n */
    int64_t *grade;            /* out: n, or NULL: not asked for */
    int64_t *order, *rank, *ties; /* out: n, trec_eval's order (runpass_order.c); rank, ties NULL: not asked */
    int ordered;               /* out: whether every stretch was written in score order */
    uint64_t *seen;            /* scratch: the stretch's set of fingerprints, then its fingerprints */
    int64_t seen_size;
} Join;

static int64_t find_grade(const Join *join, int64_t topic, uint64_t print, Py_ssize_t line) {
    if (topic >= join->topics) {
        return join->unjudged;
    }
    int64_t start = join->starts[topic], mask = join->starts[topic + 1] - start - 1;
    for (int64_t probe = 0, s = (int64_t)(print & (uint64_t)mask); probe <= mask; probe++, s = (s + 1) & mask) {
        const Slot *slot = &join->slots[start + s];
        if (slot->row < 0) {
            break;
        }
        if (slot->print == print && slot->row < join->judged.count
                && same_string(&join->docnos, line, &join->judged, slot->row)) {
            return join->judged_grade[slot->row];
        }
    }
    return join->unjudged;
}

/* Whether print was not seen yet in the stretch (it is now); 0 is kept as 1, so that
 * the two look alike: a false repeat only declines. */
static int first_sight(Join *join, uint64_t print, int64_t mask) {
    uint64_t stored = print ? print : 1;
    for (int64_t s = (int64_t)((stored >> 32) & (uint64_t)mask);; s = (s + 1) & mask) {
        if (join->seen[s] == stored) {
            return 0;
        }
        if (join->seen[s] == 0) {
            join->seen[s] = stored;
            return 1;
        }
    }
}

/* One topic's lines [first, end): 1 joined, 0 declined (a repeat or a collision). The
 * fingerprints first, in a loop of independent lines the core overlaps, then the
 * probes, each waiting on its own loads. */
static int join_stretch(Join *join, Py_ssize_t first, Py_ssize_t end) {
    int64_t size = table_size(end - first), topic = join->topic_key[first];
    if (size + (end - first) > join->seen_size) {
        free(join->seen);
        join->seen = malloc((size_t)(size + (end - first)) * sizeof(uint64_t));
        join->seen_size = join->seen == NULL ? 0 : size + (end - first);
        if (join->seen == NULL) {
            return 0;
        }
    }
    uint64_t *prints = join->seen + size;
    const Strings *docnos = &join->docnos;
    for (Py_ssize_t i = first; i < end; i++) {
        prints[i - first] = runpass_fingerprint(docnos->text + docnos->offsets[i], docnos->offsets[i + 1] - docnos->offsets[i]);
    }
    memset(join->seen, 0, (size_t)size * sizeof(uint64_t));
    for (Py_ssize_t i = first; i < end; i++) {
        if (!first_sight(join, prints[i - first], size - 1)) {
            return 0;
        }
        if (join->grade != NULL) {
            join->grade[i] = find_grade(join, topic, prints[i - first], i);
        }
    }
    join->ordered = join->ordered && runpass_order_stretch(join->score, &join->docnos, first, end, join->order,
                                                           join->rank, join->ties);
    return 1;
}

static int join_lines(Join *join) {
    int64_t most = 0;
    for (Py_ssize_t i = 0; i < join->docnos.count; i++) {
        if (join->topic_key[i] < 0 || join->topic_key[i] > (1LL << 40)) {
            return 0;
        }
        most = join->topic_key[i] > most ? join->topic_key[i] : most;
    }
    unsigned char *visited = calloc((size_t)most + 1, 1);
    int joined = visited != NULL;
    for (Py_ssize_t first = 0, end; joined && first < join->docnos.count; first = end) {
        int64_t topic = join->topic_key[first];
        for (end = first + 1; end < join->docnos.count && join->topic_key[end] == topic; end++) {
        }
        joined = !visited[topic] && join_stretch(join, first, end); /* a topic in two stretches: declined */
        visited[topic] = 1;
    }
    free(visited);
    free(join->seen);
    return joined;
}

static int index_fits(const Join *join) {
    if (join->starts[0] != 0 || join->starts[join->topics] != join->slot_count) {
        return 0;
    }
    for (int64_t t = 0; t < join->topics; t++) {
        int64_t size = join->starts[t + 1] - join->starts[t];
        if (size < 1 || (size & (size - 1)) != 0) {
            return 0;
        }
    }
    return 1;
}

const char runpass_join_grades_doc[] =
"join_grades(offsets, text, topic_key, score, index, topics, judged_offsets,\n"
"            judged_text, judged_grade, unjudged) -> tuple | None\n\n"
"Each line's grade and trec_eval's order, or None (declined: a docno fingerprint\n"
"twice within a topic, a repeat or a collision, or a topic in two stretches).\n\n"
"offsets: int32 (n + 1) into text, the run's docnos; topic_key: int64 (n), a line's\n"
"topic position in the qrels, or >= topics for a topic without judgments; score:\n"
"float64 (n), no NaN; index: judged_index's bytes for the judgments; judged_offsets\n"
"(int32, m + 1) and judged_text: their docnos; judged_grade: int64 (m).\n"
"Returns (grade, order, rank, ties): n int64 grades, the judgment's where one has\n"
"the line's topic and docno, unjudged elsewhere; and, when every topic's lines are\n"
"written best score first (else three None), n int64 each: the rows in trec_eval's\n"
"order (runpass_order.c), each position's 1-based rank in its topic and its tie\n"
"code. Raises ValueError on buffers that do not fit.";

/* The outputs: grade, order, rank, ties (n int64 each). */
static int make_outputs(Join *join, PyObject **outputs) {
    int64_t **spaces[4] = {&join->grade, &join->order, &join->rank, &join->ties};
    for (int i = 0; i < 4; i++) {
        char *space;
        outputs[i] = runpass_new_bytes(join->docnos.count * 8, &space);
        if (outputs[i] == NULL) {
            return 0;
        }
        *spaces[i] = (int64_t *)space;
    }
    return 1;
}

PyObject *runpass_join_grades(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *objects[9], *outputs[4] = {NULL, NULL, NULL, NULL}, *result = NULL;
    long long topics, unjudged;
    if (!PyArg_ParseTuple(args, "OOOOOLOOOL", &objects[0], &objects[1], &objects[2], &objects[3], &objects[4],
                          &topics, &objects[5], &objects[6], &objects[7], &unjudged)) {
        return NULL;
    }
    Views views = {.held = 0};
    Join join = {.topics = topics, .unjudged = unjudged, .seen = NULL, .seen_size = 0, .ordered = 1};
    Py_ssize_t keys, scores, index_size, grades;
    if (!take_strings(&views, objects[0], objects[1], &join.docnos)
            || (join.topic_key = take_view(&views, objects[2], 8, &keys)) == NULL
            || (join.score = take_view(&views, objects[3], 8, &scores)) == NULL
            || (join.starts = take_view(&views, objects[4], 8, &index_size)) == NULL
            || !take_strings(&views, objects[5], objects[6], &join.judged)
            || (join.judged_grade = take_view(&views, objects[7], 8, &grades)) == NULL) {
        goto done;
    }
    join.slots = (const Slot *)(join.starts + topics + 1);
    join.slot_count = (index_size - topics - 1) / 2;
    if (topics < 0 || index_size < topics + 1 || (index_size - topics - 1) % 2 != 0 || !index_fits(&join)
            || keys != join.docnos.count || scores != keys || grades != join.judged.count) {
        PyErr_SetString(PyExc_ValueError, "join_grades: inconsistent buffers");
        goto done;
    }
    if (!make_outputs(&join, outputs)) {
        goto done;
    }
    int joined;
    Py_BEGIN_ALLOW_THREADS
    joined = join_lines(&join);
    Py_END_ALLOW_THREADS
    if (!joined) {
        result = Py_NewRef(Py_None);
    } else if (join.ordered) {
        result = PyTuple_Pack(4, outputs[0], outputs[1], outputs[2], outputs[3]);
    } else {
        result = PyTuple_Pack(4, outputs[0], Py_None, Py_None, Py_None);
    }
done:
    for (int i = 0; i < 4; i++) {
        Py_XDECREF(outputs[i]);
    }
    release_views(&views);
    return result;
}

const char runpass_trec_order_doc[] =
"trec_order(offsets, text, topic_code, score) -> bytes | None\n\n"
"join_grades without judgments: whether no docno repeats within a topic, and\n"
"trec_eval's order, for the store's import (no grades, ranks or tie codes).\n\n"
"offsets: int32 (n + 1) into text, the run's docnos; topic_code: int64 (n), each\n"
"line's topic (any codes, >= 0); score: float64 (n), no NaN. Returns None when\n"
"declined (a docno fingerprint twice within a topic, a repeat or a collision, or a\n"
"topic in two stretches); else, when every topic's lines are written best score\n"
"first, the n rows in trec_eval's order (int64, runpass_order.c), and otherwise\n"
"b'' (no docno repeats; the lines are still to be ordered). Raises ValueError on\n"
"buffers that do not fit.";

PyObject *runpass_trec_order(PyObject *module, PyObject *args) {
    (void)module;
    static const int64_t no_topics[1] = {0};
    PyObject *objects[4], *order = NULL, *result = NULL;
    if (!PyArg_ParseTuple(args, "OOOO", &objects[0], &objects[1], &objects[2], &objects[3])) {
        return NULL;
    }
    Views views = {.held = 0};
    Join join = {.starts = no_topics, .topics = 0, .seen = NULL, .seen_size = 0, .ordered = 1};
    Py_ssize_t keys, scores;
    if (!take_strings(&views, objects[0], objects[1], &join.docnos)
            || (join.topic_key = take_view(&views, objects[2], 8, &keys)) == NULL
            || (join.score = take_view(&views, objects[3], 8, &scores)) == NULL) {
        goto done;
    }
    if (keys != join.docnos.count || scores != keys) {
        PyErr_SetString(PyExc_ValueError, "trec_order: inconsistent buffers");
        goto done;
    }
    char *space;
    if ((order = runpass_new_bytes(join.docnos.count * 8, &space)) == NULL) {
        goto done;
    }
    join.order = (int64_t *)space;
    int joined;
    Py_BEGIN_ALLOW_THREADS
    joined = join_lines(&join);
    Py_END_ALLOW_THREADS
    if (!joined) {
        result = Py_NewRef(Py_None);
    } else if (join.ordered) {
        result = Py_NewRef(order);
    } else {
        result = PyBytes_FromStringAndSize(NULL, 0);
    }
done:
    Py_XDECREF(order);
    release_views(&views);
    return result;
}
