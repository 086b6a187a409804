/* The pass over a run file's bytes: lines, fields, ranks, scores, topic and tag codes
 * (pooltool.formats.run_pass builds run_table's Arrow columns from them). */
#include "runpass.h" /* first: Python.h sets the feature macros (locale_t, strtod_l) */

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- labels (topics, run tags): distinct strings in order of first appearance --- */

typedef struct {
    const char *text;
    Py_ssize_t length;
} Span;

typedef struct {
    Span *values;       /* by code, in order of first appearance */
    int32_t count, capacity;
    int32_t *slots;     /* open addressing: code + 1, 0 free */
    uint32_t mask;
    int32_t last;       /* the code of the previous line (runs come in stretches) */
} Labels;

static int labels_init(Labels *labels) {
    labels->count = 0;
    labels->capacity = 64;
    labels->mask = 255;
    labels->last = -1;
    labels->values = malloc(sizeof(Span) * (size_t)labels->capacity);
    labels->slots = calloc((size_t)labels->mask + 1, sizeof(int32_t));
    return labels->values != NULL && labels->slots != NULL;
}

static void labels_free(Labels *labels) {
    free(labels->values);
    free(labels->slots);
}

static uint32_t text_hash(const char *text, Py_ssize_t length) {
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (Py_ssize_t i = 0; i < length; i++) {
        hash = (hash ^ (unsigned char)text[i]) * 16777619u;
    }
    return hash;
}

static int same_span(Span span, const char *text, Py_ssize_t length) {
    if (span.length != length) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < length; i++) { /* labels are short: no call to memcmp */
        if (span.text[i] != text[i]) {
            return 0;
        }
    }
    return 1;
}

static int labels_grow(Labels *labels) {
    uint32_t mask = labels->mask * 2 + 1;
    int32_t *slots = calloc((size_t)mask + 1, sizeof(int32_t));
    if (slots == NULL) {
        return 0;
    }
    for (int32_t code = 0; code < labels->count; code++) {
        uint32_t slot = text_hash(labels->values[code].text, labels->values[code].length) & mask;
        while (slots[slot]) {
            slot = (slot + 1) & mask;
        }
        slots[slot] = code + 1;
    }
    free(labels->slots);
    labels->slots = slots;
    labels->mask = mask;
    return 1;
}

/* The code of a label, added when new; -1 when out of memory. */
static int32_t labels_code(Labels *labels, const char *text, Py_ssize_t length) {
    if (labels->last >= 0 && same_span(labels->values[labels->last], text, length)) {
        return labels->last;
    }
    uint32_t slot = text_hash(text, length) & labels->mask;
    while (labels->slots[slot]) {
        int32_t code = labels->slots[slot] - 1;
        if (same_span(labels->values[code], text, length)) {
            return labels->last = code;
        }
        slot = (slot + 1) & labels->mask;
    }
    if (labels->count == labels->capacity) {
        Span *values = realloc(labels->values, sizeof(Span) * (size_t)labels->capacity * 2);
        if (values == NULL) {
            return -1;
        }
        labels->values = values;
        labels->capacity *= 2;
    }
    labels->values[labels->count] = (Span){text, length};
    labels->slots[slot] = labels->count + 1;
    labels->last = labels->count++;
    if ((uint32_t)labels->count * 2 > labels->mask && !labels_grow(labels)) {
        return -1;
    }
    return labels->last;
}

static PyObject *labels_list(const Labels *labels) {
    PyObject *list = PyList_New(labels->count);
    if (list == NULL) {
        return NULL;
    }
    for (int32_t code = 0; code < labels->count; code++) {
        /* plain ASCII: checked by the pass */
        PyObject *text = PyUnicode_DecodeASCII(labels->values[code].text, labels->values[code].length, NULL);
        if (text == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, code, text);
    }
    return list;
}

/* --- fields --- */

/* A rank: -?[0-9]+ within int64 (what the Arrow path converts; a leading + or a
 * hexadecimal rank is left to the Python readers). */
static int parse_rank(const char *text, Py_ssize_t length, int64_t *out) {
    int negative = text[0] == '-';
    Py_ssize_t i = negative;
    if (i == length) {
        return 0;
    }
    uint64_t value = 0;
    const uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < length; i++) {
        unsigned digit = (unsigned char)text[i] - '0';
        if (digit > 9 || value > (limit - digit) / 10) {
            return 0;
        }
        value = value * 10 + digit;
    }
    *out = negative ? (int64_t)(0 - value) : (int64_t)value;
    return 1;
}

/* Clinger's fast path needs each IEEE operation rounded once, to double. Where doubles
 * are computed in x87's extended precision (FLT_EVAL_METHOD 2: 32-bit x86's default,
 * -mfpmath=387) the product or quotient is rounded twice and can miss by an ulp
 * (2349735972095008e8: ...078e+23, float() ...08e+23): strtod_l reads every score there. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
enum { ONE_ROUNDING = 1 };
#else
enum { ONE_ROUNDING = 0 };
#endif

static const double POWERS_OF_TEN[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A score: [+-]?(D+(.D*)?|.D+)([eE][+-]?D+)? (a subset of the line reader's NUMBER: no
 * inf, no nan), as the correctly rounded double that Python's float() and trec_eval's
 * atof give. Clinger's fast path when the digits make an integer below 2^53 and the
 * power of ten is at most 22 (both exact doubles, one rounding: the correctly rounded
 * result); else glibc's strtod in the C locale, which rounds correctly too. */
static int parse_score(const char *text, Py_ssize_t length, double *out) {
    Py_ssize_t i = 0;
    int negative = 0;
    if (text[i] == '+' || text[i] == '-') {
        negative = text[i] == '-';
        i++;
    }
    uint64_t mantissa = 0;
    int digits = 0, integer_digits = 0, fraction_digits = 0, exponent = 0;
    while (i < length && (unsigned char)(text[i] - '0') <= 9) {
        if (mantissa || text[i] != '0') {
            digits++;
        }
        mantissa = digits <= 19 ? mantissa * 10 + (uint64_t)(text[i] - '0') : mantissa;
        integer_digits++;
        i++;
    }
    if (i < length && text[i] == '.') {
        i++;
        while (i < length && (unsigned char)(text[i] - '0') <= 9) {
            if (mantissa || text[i] != '0') {
                digits++;
            }
            mantissa = digits <= 19 ? mantissa * 10 + (uint64_t)(text[i] - '0') : mantissa;
            fraction_digits++;
            i++;
        }
    }
    if (integer_digits + fraction_digits == 0) {
        return 0;
    }
    if (i < length && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        int exponent_negative = 0;
        if (i < length && (text[i] == '+' || text[i] == '-')) {
            exponent_negative = text[i] == '-';
            i++;
        }
        if (i == length) {
            return 0;
        }
        for (; i < length; i++) {
            unsigned digit = (unsigned char)text[i] - '0';
            if (digit > 9) {
                return 0;
            }
            exponent = exponent < 100000 ? exponent * 10 + (int)digit : exponent;
        }
        exponent = exponent_negative ? -exponent : exponent;
    }
    if (i != length) {
        return 0;
    }
    int power = exponent - fraction_digits;
    if (ONE_ROUNDING && digits <= 19 && mantissa <= (UINT64_C(1) << 53) && power >= -22 && power <= 22) {
        double value = (double)mantissa;
        value = power < 0 ? value / POWERS_OF_TEN[-power] : value * POWERS_OF_TEN[power];
        *out = negative ? -value : value;
        return 1;
    }
    char copy[512];
    if (length >= (Py_ssize_t)sizeof copy || runpass_c_locale == (locale_t)0) {
        return 0;
    }
    memcpy(copy, text, (size_t)length);
    copy[length] = '\0';
    char *end = NULL;
    *out = strtod_l(copy, &end, runpass_c_locale);
    return end == copy + length;
}

/* --- the pass over a file --- */

typedef struct {
    const char *data;
    Py_ssize_t size;
    /* outputs, sized for the most lines the bytes can hold */
    int32_t *topic_codes, *tag_codes, *docno_offsets;
    char *docno_text;
    int64_t *ranks;
    double *scores;
    Labels topics, tags;
    Py_ssize_t lines, most;
} Pass;

enum { FIELDS = 6 };

static int is_separator(unsigned char byte) {
    return byte == ' ' || byte == '\t';
}

/* Whether a byte may stand inside a field: printable ASCII (no control character, no
 * DEL, nothing past ASCII: those files go to the Python readers). */
static int is_field_byte(unsigned char byte) {
    return byte > ' ' && byte < 0x7f;
}

/* Per 8-byte word, 0x80 in each byte that is not a field byte (below 0x21, or 0x7f and
 * up), exact for the lowest such byte: the borrows and carries of the two tests only
 * run upward from a flagged byte (Hacker's Delight, 6-1: finding bytes in a range). */
static uint64_t non_field_bytes(uint64_t word) {
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = ones * 0x80;
    uint64_t below = (word - ones * 0x21) & ~word & highs;
    uint64_t above = ((word + ones) | word) & highs;
    return below | above;
}

/* The end of the field that starts at i: the first byte from i that is not a field
 * byte, or size. Eight bytes a step where eight remain: a byte loop's exit, one per
 * field, is a branch the core mispredicts (about half of this pass's time). */
static Py_ssize_t field_end(const char *data, Py_ssize_t i, Py_ssize_t size) {
    for (; i + 8 <= size; i += 8) {
        uint64_t word;
        memcpy(&word, data + i, 8); /* little-endian: checked in runpass.h */
        uint64_t flagged = non_field_bytes(word);
        if (flagged) {
            return i + __builtin_ctzll(flagged) / 8;
        }
    }
    while (i < size && is_field_byte((unsigned char)data[i])) {
        i++;
    }
    return i;
}

/* Read the line at *at (moved past its end); 1 read or blank, 0 decline. */
static int pass_line(Pass *pass, Py_ssize_t *at) {
    const char *data = pass->data;
    Py_ssize_t i = *at, size = pass->size;
    const char *field[FIELDS];
    Py_ssize_t length[FIELDS];
    int count = 0;
    for (;;) {
        while (i < size && is_separator((unsigned char)data[i])) {
            i++;
        }
        if (i == size || data[i] == '\n') {
            break;
        }
        if (data[i] == '\r') {
            if (i + 1 < size && data[i + 1] == '\n') {
                i++;
                break;
            }
            return 0; /* a lone CR: a line break to str.splitlines */
        }
        Py_ssize_t start = i;
        i = field_end(data, i, size);
        if (i == start) {
            return 0; /* a control character or a byte past ASCII */
        }
        if (count == FIELDS) {
            return 0; /* text past the sixth field */
        }
        field[count] = data + start;
        length[count++] = i - start;
        if (i < size && !is_separator((unsigned char)data[i]) && data[i] != '\n' && data[i] != '\r') {
            return 0;
        }
    }
    *at = i < size ? i + 1 : size;
    if (count == 0) {
        return 1; /* blank */
    }
    if (count != FIELDS || field[0][0] == '#') {
        return 0; /* another length, or a comment */
    }
    Py_ssize_t line = pass->lines;
    if (line >= pass->most) {
        return 0; /* not reached: a line of six fields takes at least 12 bytes (see most) */
    }
    int64_t rank;
    double score;
    if (!parse_rank(field[3], length[3], &rank) || !parse_score(field[4], length[4], &score)) {
        return 0;
    }
    int32_t topic = labels_code(&pass->topics, field[0], length[0]);
    int32_t tag = labels_code(&pass->tags, field[5], length[5]);
    if (topic < 0 || tag < 0) {
        return 0;
    }
    int32_t offset = pass->docno_offsets[line];
    if ((int64_t)offset + length[2] > INT32_MAX) {
        return 0;
    }
    memcpy(pass->docno_text + offset, field[2], (size_t)length[2]);
    pass->docno_offsets[line + 1] = offset + (int32_t)length[2];
    pass->topic_codes[line] = topic;
    pass->tag_codes[line] = tag;
    pass->ranks[line] = rank;
    pass->scores[line] = score;
    pass->lines = line + 1;
    return 1;
}

static int pass_run(Pass *pass) {
    Py_ssize_t at = 0;
    pass->docno_offsets[0] = 0;
    while (at < pass->size) {
        if (!pass_line(pass, &at)) {
            return 0;
        }
    }
    return pass->lines > 0;
}

const char runpass_read_run_doc[] =
"read_run(data) -> tuple | None\n\n"
"The lines of a plain run file, or None (decline: the Python readers decide).\n\n"
"data: the file's bytes (any buffer). Returns (n, topic_codes, topics, docno_offsets,\n"
"docno_text, ranks, scores, tag_codes, tags): n lines; int32 codes (n), the labels by\n"
"code (str, first appearance first); int32 offsets (n + 1) into docno_text; int64\n"
"ranks and float64 scores (n); the byte strings are sized for the most lines the\n"
"bytes could hold, only their first n values count.";

PyObject *runpass_read_run(PyObject *module, PyObject *argument) {
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(argument, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const char *data = view.buf;
    /* the most lines the bytes can hold: six fields of a byte or more, five separators
     * and a line end (none after the last) make 12 bytes a line */
    Py_ssize_t size = view.len, most = size / 12 + 2;
    PyObject *topic_codes, *tag_codes, *offsets, *docnos, *ranks, *scores, *result = NULL;
    Pass pass = {.data = data, .size = size, .lines = 0, .most = most};
    char *space[6];
    topic_codes = runpass_new_bytes(most * 4, &space[0]);
    tag_codes = runpass_new_bytes(most * 4, &space[1]);
    offsets = runpass_new_bytes((most + 1) * 4, &space[2]);
    docnos = runpass_new_bytes(size, &space[3]);
    ranks = runpass_new_bytes(most * 8, &space[4]);
    scores = runpass_new_bytes(most * 8, &space[5]);
    int ready = topic_codes && tag_codes && offsets && docnos && ranks && scores;
    int topics_ready = ready && labels_init(&pass.topics);
    int tags_ready = topics_ready && labels_init(&pass.tags);
    int read = 0;
    if (tags_ready) {
        pass.topic_codes = (int32_t *)space[0];
        pass.tag_codes = (int32_t *)space[1];
        pass.docno_offsets = (int32_t *)space[2];
        pass.docno_text = space[3];
        pass.ranks = (int64_t *)space[4];
        pass.scores = (double *)space[5];
        Py_BEGIN_ALLOW_THREADS
        read = pass_run(&pass);
        Py_END_ALLOW_THREADS
    } else if (ready || !PyErr_Occurred()) {
        PyErr_NoMemory();
    }
    if (read) {
        PyObject *topics = labels_list(&pass.topics), *tags = labels_list(&pass.tags);
        if (topics && tags) {
            result = Py_BuildValue("(nOOOOOOOO)", pass.lines, topic_codes, topics, offsets, docnos, ranks,
                                   scores, tag_codes, tags);
        }
        Py_XDECREF(topics);
        Py_XDECREF(tags);
    } else if (tags_ready) {
        result = Py_NewRef(Py_None);
    }
    labels_free(&pass.topics); /* NULL pointers when never set up (pass is zeroed) */
    labels_free(&pass.tags);
    Py_XDECREF(topic_codes);
    Py_XDECREF(tag_codes);
    Py_XDECREF(offsets);
    Py_XDECREF(docnos);
    Py_XDECREF(ranks);
    Py_XDECREF(scores);
    PyBuffer_Release(&view);
    return result;
}


