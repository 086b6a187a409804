/* What the parts of pooltool.native._runpass share (runpass_read.c, runpass_join.c,
 * runpass_order.c, runpass_pairs.c, _runpass.c). Every function declines (None) rather
 * than err on odd input. */
#ifndef POOLTOOL_RUNPASS_H
#define POOLTOOL_RUNPASS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <locale.h>

#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the passes read words as little-endian integers (setup.py: the build is optional)"
#endif

/* pooltool/formats/fingerprint.py's fingerprints, the same values (runpass_join.c's
 * qrels join, runpass_pairs.c's tables of known pairs): splitmix64's finaliser
 * (Steele, Lea and Flood, OOPSLA 2014), a string's state started from its length and
 * mixed with each little-endian 8-byte word, zero-padded past its end. */
static inline uint64_t runpass_mix(uint64_t x) {
    x ^= x >> 30;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 27;
    x *= UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

static inline uint64_t runpass_fingerprint(const unsigned char *text, int64_t length) {
    const uint64_t golden = UINT64_C(0x9E3779B97F4A7C15);
    uint64_t state = runpass_mix((uint64_t)length * golden), word;
    int64_t step = 0;
    for (; step + 8 <= length; step += 8) {
        memcpy(&word, text + step, 8); /* little-endian: checked above */
        state = runpass_mix((state ^ word) + golden);
    }
    if (step < length) {
        word = 0;
        memcpy(&word, text + step, (size_t)(length - step));
        state = runpass_mix((state ^ word) + golden);
    }
    return state;
}

/* n strings as Arrow holds them: string i is text[offsets[i]:offsets[i + 1]]. */
typedef struct {
    const int32_t *offsets; /* n + 1, into text */
    const unsigned char *text;
    Py_ssize_t count, text_size;
} Strings;

/* trec_eval's order of one topic's lines [first, end) written best score first
 * (runpass_order.c); 0 when they are not. */
int runpass_order_stretch(const double *score, const Strings *docnos, Py_ssize_t first, Py_ssize_t end,
                          int64_t *order, int64_t *rank, int64_t *ties);

/* A new bytes object of size bytes, its space in *space (NULL and an exception when
 * out of memory). */
PyObject *runpass_new_bytes(Py_ssize_t size, char **space);

/* The C locale, for strtod_l (set up when the module is imported). */
extern locale_t runpass_c_locale;

PyObject *runpass_read_run(PyObject *module, PyObject *data);
extern const char runpass_read_run_doc[];

PyObject *runpass_judged_index(PyObject *module, PyObject *args);
extern const char runpass_judged_index_doc[];

PyObject *runpass_join_grades(PyObject *module, PyObject *args);
extern const char runpass_join_grades_doc[];

PyObject *runpass_trec_order(PyObject *module, PyObject *args);
extern const char runpass_trec_order_doc[];

/* runpass_pairs.c: run lines' (topic, docno) pairs looked up among known pairs. */
PyObject *runpass_pair_table(PyObject *module, PyObject *args);
extern const char runpass_pair_table_doc[];
PyObject *runpass_find_pairs(PyObject *module, PyObject *args);
extern const char runpass_find_pairs_doc[];

#endif
