/* trec_eval's order of a run's lines, for a topic whose lines are written best score
 * first (what pooltool.ranking.order_lines finds with _written_in_order): lines
 * keep their places except where scores tie, and tied lines go by docno descending,
 * compared byte by byte as strcmp does (form_res_rels.c, usnistgov/trec_eval 10.0).
 * Equal docnos cannot tie here: the join has refused a docno twice in a topic. */
#include "runpass.h" /* first: Python.h sets the feature macros */

#include <string.h>

/* strcmp's sign for two docnos (no NUL inside: the pass refused those bytes). */
static int compare_docnos(const Strings *docnos, int64_t a, int64_t b) {
    int32_t length_a = docnos->offsets[a + 1] - docnos->offsets[a];
    int32_t length_b = docnos->offsets[b + 1] - docnos->offsets[b];
    int32_t shorter = length_a < length_b ? length_a : length_b;
    int sign = memcmp(docnos->text + docnos->offsets[a], docnos->text + docnos->offsets[b], (size_t)shorter);
    return sign != 0 ? sign : (length_a > length_b) - (length_a < length_b);
}

/* The rows of a tie [first, end) by docno descending (insertion sort: ties are short). */
static void sort_tie(const Strings *docnos, int64_t *order, Py_ssize_t first, Py_ssize_t end) {
    for (Py_ssize_t i = first + 1; i < end; i++) {
        int64_t row = order[i];
        Py_ssize_t at = i;
        for (; at > first && compare_docnos(docnos, order[at - 1], row) < 0; at--) {
            order[at] = order[at - 1];
        }
        order[at] = row;
    }
}

/* order[i]: the row at position i of [first, end); rank[i]: its 1-based position in the
 * topic; ties[i]: k, k - 1, ..., 1 along a tie of k lines (larger docnos first), 0 for
 * a line that ties with none (pooltool.measures.per_topic.EncodedRun.docno: integers
 * that order tied lines as their docnos do). rank and ties may be NULL (not asked for:
 * the store's import wants the order alone). */
int runpass_order_stretch(const double *score, const Strings *docnos, Py_ssize_t first, Py_ssize_t end,
                          int64_t *order, int64_t *rank, int64_t *ties) {
    for (Py_ssize_t i = first + 1; i < end; i++) {
        if (!(score[i] <= score[i - 1])) {
            return 0;
        }
    }
    for (Py_ssize_t i = first; i < end; i++) {
        order[i] = i;
        if (rank != NULL) {
            rank[i] = i - first + 1;
        }
    }
    for (Py_ssize_t start = first, stop; start < end; start = stop) {
        for (stop = start + 1; stop < end && score[stop] == score[start]; stop++) {
        }
        if (stop - start > 1) {
            sort_tie(docnos, order, start, stop);
        }
        for (Py_ssize_t i = start; ties != NULL && i < stop; i++) {
            ties[i] = stop - start > 1 ? stop - i : 0;
        }
    }
    return 1;
}
