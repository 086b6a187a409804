/* (topic, docno) pairs looked up among known pairs, for placing millions of run lines
 * in a sample's design (pooltool.analysis.run_placement): each line's row among the
 * pairs the design knows, or -1.
 *
 * The docnos are Python str objects (run lines as pandas holds them: an object column),
 * read in place: no Arrow copy of millions of strings. Only compact ASCII strs are read
 * (their bytes lie in the object, so the lookup runs with the GIL released, beside the
 * caller's draws in other threads); any other object declines (None) and the caller's
 * Python path runs. The known pairs are hashed into one table per topic, and the lines
 * looked up topic by topic, so that a topic's table stays in the cache while every
 * run's lines of that topic are looked up in it. A pair known twice declines too: the
 * Python path decides (it refuses a non-unique index). */
#include "runpass.h" /* first: Python.h sets the feature macros */

#include <stdint.h>
#include <string.h>

/* A str's ASCII bytes, or NULL when it is not a compact ASCII str. Reads only the
 * object's own fields, so it runs without the GIL on objects the caller holds. */
static const char *ascii_text(PyObject *object, int64_t *length) {
    if (!PyUnicode_CheckExact(object) || !PyUnicode_IS_COMPACT_ASCII(object)) {
        return NULL;
    }
    *length = PyUnicode_GET_LENGTH(object);
    return (const char *)PyUnicode_DATA(object);
}

/* A slot of a topic's table: a known pair's row (-1: free) and the high half of its
 * docno hash (the low bits chose the slot). Eight bytes: the tables of a million pairs
 * take 16 MB, not 64. */
typedef struct {
    uint32_t tag;
    int32_t row;
} PairSlot;

/* The table, one bytes object: int64 topics, m, slot count; topics + 1 slot starts;
 * the slots; m + 1 offsets of the known docnos' bytes, then those bytes (a match is
 * confirmed there, near the topic's other docnos, not in a str object far away). */
typedef struct {
    int64_t topics, count, slot_count;
    int64_t *starts;
    PairSlot *slots;
    int64_t *offsets;
    char *text;
    int64_t text_size;
} PairTable;

enum { HEADER = 3 };

static int64_t slots_for(int64_t count) {
    int64_t size = 1;
    while (size < count + count / 2 + 1) { /* at most two thirds full, a slot always free */
        size *= 2;
    }
    return size;
}

/* The row of the known pair (topic, text) with that hash, -1 when none. */
static int64_t find_pair(const PairTable *table, int64_t topic, const char *text, int64_t length,
                         uint64_t hash) {
    int64_t start = table->starts[topic], mask = table->starts[topic + 1] - start - 1;
    for (int64_t probe = 0, s = (int64_t)(hash & (uint64_t)mask); probe <= mask; probe++, s = (s + 1) & mask) {
        const PairSlot *slot = &table->slots[start + s];
        if (slot->row < 0) {
            return -1;
        }
        if (slot->row >= table->count) {
            return -1;
        }
        int64_t at = table->offsets[slot->row], end = table->offsets[slot->row + 1];
        if (slot->tag == (uint32_t)(hash >> 32) && end - at == length && at >= 0 && end <= table->text_size
                && memcmp(table->text + at, text, (size_t)length) == 0) {
            return slot->row;
        }
    }
    return -1;
}

/* The table's parts laid over its bytes (space: at least table_size's). */
static void lay_out(PairTable *table, char *space) {
    int64_t *header = (int64_t *)space;
    header[0] = table->topics;
    header[1] = table->count;
    header[2] = table->slot_count;
    table->starts = header + HEADER;
    table->slots = (PairSlot *)(table->starts + table->topics + 1);
    table->offsets = (int64_t *)(table->slots + table->slot_count);
    table->text = (char *)(table->offsets + table->count + 1);
}

static int64_t table_size(const PairTable *table, int64_t text_size) {
    return (HEADER + table->topics + 1 + table->slot_count + table->count + 1) * 8 + text_size;
}

/* Slot counts per topic from the known pairs' topics (into starts, topics + 1 zeros);
 * 0 when a topic is out of [0, topics). */
static int count_slots(const int64_t *topic, int64_t count, int64_t topics, int64_t *starts) {
    for (int64_t j = 0; j < count; j++) {
        if (topic[j] < 0 || topic[j] >= topics) {
            return 0;
        }
        starts[topic[j]]++;
    }
    int64_t total = 0;
    for (int64_t t = 0; t < topics; t++) { /* counts -> starts, in place */
        int64_t size = slots_for(starts[t]);
        starts[t] = total;
        total += size;
    }
    starts[topics] = total;
    return 1;
}

/* Fills the table laid out (its starts set): 0 when a pair is known twice. */
static int fill_table(PairTable *table, PyObject **docnos, const int64_t *topic) {
    table->offsets[0] = 0;
    for (int64_t j = 0; j < table->count; j++) {
        int64_t length = 0;
        const char *text = ascii_text(docnos[j], &length);
        memcpy(table->text + table->offsets[j], text, (size_t)length);
        table->offsets[j + 1] = table->offsets[j] + length;
    }
    for (int64_t s = 0; s < table->slot_count; s++) {
        table->slots[s] = (PairSlot){0, -1};
    }
    for (int64_t j = 0; j < table->count; j++) {
        const char *text = table->text + table->offsets[j];
        int64_t length = table->offsets[j + 1] - table->offsets[j];
        uint64_t hash = runpass_fingerprint((const unsigned char *)text, length);
        if (find_pair(table, topic[j], text, length, hash) >= 0) {
            return 0;
        }
        int64_t start = table->starts[topic[j]], mask = table->starts[topic[j] + 1] - start - 1;
        int64_t s = (int64_t)(hash & (uint64_t)mask);
        while (table->slots[start + s].row >= 0) {
            s = (s + 1) & mask;
        }
        table->slots[start + s] = (PairSlot){(uint32_t)(hash >> 32), (int32_t)j};
    }
    return 1;
}

/* The bytes of the docnos together, -1 when one is not a compact ASCII str. */
static int64_t docnos_size(PyObject **docnos, int64_t count) {
    int64_t total = 0, length = 0;
    for (int64_t j = 0; j < count; j++) {
        if (ascii_text(docnos[j], &length) == NULL) {
            return -1;
        }
        total += length;
    }
    return total;
}

const char runpass_pair_table_doc[] =
"pair_table(topic, docnos, topics) -> bytes | None\n\n"
"The known pairs' table, for find_pairs: pair j has topic position topic[j] (int64,\n"
"m, in [0, topics)) and docno docnos[j] (docnos a list of m str). None (declined)\n"
"when a docno is not a compact ASCII str, a pair is there twice, or m >= 2**31.\n"
"Raises ValueError on a topic out of range or buffers that do not fit.";

PyObject *runpass_pair_table(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *topic_object, *docnos, *result = NULL;
    long long topics;
    if (!PyArg_ParseTuple(args, "OO!L", &topic_object, &PyList_Type, &docnos, &topics)) {
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(topic_object, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    PairTable table = {.topics = topics, .count = PyList_GET_SIZE(docnos)};
    int64_t *starts = topics >= 0 && topics < (1LL << 40) ? calloc((size_t)topics + 1, sizeof(int64_t)) : NULL;
    if (starts == NULL || view.len != table.count * 8 || !count_slots(view.buf, table.count, topics, starts)) {
        PyErr_SetString(PyExc_ValueError, "pair_table: a topic out of range or inconsistent buffers");
        goto done;
    }
    table.slot_count = starts[topics];
    /* a row must fit a slot's int32 */
    int64_t size = table.count > INT32_MAX ? -1 : docnos_size(PySequence_Fast_ITEMS(docnos), table.count);
    char *space;
    if (size < 0 || (result = runpass_new_bytes(table_size(&table, size), &space)) == NULL) {
        result = size < 0 ? Py_NewRef(Py_None) : NULL;
        goto done;
    }
    table.text_size = size;
    lay_out(&table, space);
    memcpy(table.starts, starts, ((size_t)topics + 1) * sizeof(int64_t));
    int filled;
    Py_BEGIN_ALLOW_THREADS
    filled = fill_table(&table, PySequence_Fast_ITEMS(docnos), view.buf);
    Py_END_ALLOW_THREADS
    if (!filled) {
        Py_SETREF(result, Py_NewRef(Py_None));
    }
done:
    free(starts);
    PyBuffer_Release(&view);
    return result;
}

/* Whether each topic's table is a power of two of slots, in order (find_pair checks
 * each row and offset it reads: bytes not from pair_table must not make it read
 * outside them). */
static int parts_fit(const PairTable *table) {
    if (table->starts[0] != 0 || table->offsets[0] != 0) {
        return 0;
    }
    for (int64_t t = 0; t < table->topics; t++) {
        int64_t size = table->starts[t + 1] - table->starts[t];
        if (size < 1 || (size & (size - 1)) != 0) {
            return 0;
        }
    }
    return 1;
}

/* The table laid over bytes from pair_table; 0 when they do not fit. */
static int read_table(const Py_buffer *view, PairTable *table) {
    const int64_t *header = view->buf;
    if (view->len < HEADER * 8) {
        return 0;
    }
    table->topics = header[0];
    table->count = header[1];
    table->slot_count = header[2];
    if (table->topics < 0 || table->topics >= (1LL << 40) || table->count < 0 || table->slot_count < 0
            || table->slot_count >= (1LL << 40) || table->count > INT32_MAX
            || view->len < table_size(table, 0)) {
        return 0;
    }
    lay_out(table, view->buf);
    table->text_size = view->len - table_size(table, 0);
    return table->starts[table->topics] == table->slot_count && parts_fit(table);
}

/* Lines hashed this many at a time before they are probed: the hashes' loads of the
 * lines' objects and of their first slots are independent, so the core overlaps them. */
enum { BATCH = 256 };

/* rows[i] for the lines at positions order[first, end): the known row of line i, -1
 * when none; 0 when a docno is not a compact ASCII str. */
static int find_batch(const PairTable *table, PyObject **docnos, const int64_t *topic, const int64_t *order,
                      int64_t first, int64_t end, int64_t *rows) {
    uint64_t hashes[BATCH];
    for (int64_t at = first; at < end; at++) {
        int64_t length = 0, i = order[at];
        const char *text = ascii_text(docnos[i], &length);
        if (text == NULL) {
            return 0;
        }
        hashes[at - first] = runpass_fingerprint((const unsigned char *)text, length);
        int64_t start = table->starts[topic[i]], mask = table->starts[topic[i] + 1] - start - 1;
        __builtin_prefetch(&table->slots[start + (int64_t)(hashes[at - first] & (uint64_t)mask)]);
    }
    for (int64_t at = first; at < end; at++) {
        int64_t length = 0, i = order[at];
        const char *text = ascii_text(docnos[i], &length);
        rows[i] = find_pair(table, topic[i], text, length, hashes[at - first]);
    }
    return 1;
}

/* rows[i]: the known row of line i, -1 when none; 0 when a docno is not a compact
 * ASCII str, a topic is out of range, or out of memory. The lines go topic by topic
 * (a counting sort of their positions). */
static int find_lines(const PairTable *table, PyObject **docnos, const int64_t *topic, int64_t count,
                      int64_t *rows) {
    int64_t *order = malloc(((size_t)count + 1) * sizeof(int64_t));
    int64_t *next = calloc((size_t)table->topics + 1, sizeof(int64_t));
    int found = order != NULL && next != NULL;
    for (int64_t i = 0; found && i < count; i++) {
        found = topic[i] >= 0 && topic[i] < table->topics;
        next[found ? topic[i] + 1 : 0]++;
    }
    for (int64_t t = 0; found && t < table->topics; t++) {
        next[t + 1] += next[t];
    }
    for (int64_t i = 0; found && i < count; i++) {
        order[next[topic[i]]++] = i;
    }
    for (int64_t first = 0; found && first < count; first += BATCH) {
        found = find_batch(table, docnos, topic, order, first, first + BATCH < count ? first + BATCH : count, rows);
    }
    free(order);
    free(next);
    return found;
}

const char runpass_find_pairs_doc[] =
"find_pairs(table, topic, docnos) -> bytes | None\n\n"
"Each line's row among the known pairs of table (pair_table's bytes): line i has\n"
"topic position topic[i] (int64, n) and docno docnos[i] (docnos a list of n str, not\n"
"changed meanwhile). Returns n int64: the known pair's row j with the line's topic\n"
"and docno, -1 where none; None (declined) when a docno is not a compact ASCII str\n"
"or a topic is out of range. The GIL is released while the lines are looked up.\n"
"Raises ValueError on a table or buffers that do not fit.";

PyObject *runpass_find_pairs(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *table_object, *topic_object, *docnos, *result = NULL;
    if (!PyArg_ParseTuple(args, "OOO!", &table_object, &topic_object, &PyList_Type, &docnos)) {
        return NULL;
    }
    Py_buffer table_view, topic_view;
    if (PyObject_GetBuffer(table_object, &table_view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (PyObject_GetBuffer(topic_object, &topic_view, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&table_view);
        return NULL;
    }
    PairTable table;
    int64_t count = PyList_GET_SIZE(docnos);
    char *space;
    if (!read_table(&table_view, &table) || topic_view.len != count * 8) {
        PyErr_SetString(PyExc_ValueError, "find_pairs: inconsistent buffers");
    } else if ((result = runpass_new_bytes(count * 8, &space)) != NULL) {
        PyObject **lines = PySequence_Fast_ITEMS(docnos);
        int found;
        Py_BEGIN_ALLOW_THREADS
        found = find_lines(&table, lines, topic_view.buf, count, (int64_t *)space);
        Py_END_ALLOW_THREADS
        if (!found) {
            Py_SETREF(result, Py_NewRef(Py_None));
        }
    }
    PyBuffer_Release(&table_view);
    PyBuffer_Release(&topic_view);
    return result;
}
