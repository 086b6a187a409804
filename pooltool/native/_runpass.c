/* pooltool.native._runpass: one compiled pass over a run file's bytes
 * (runpass_read.c), one over its docnos for the qrels join and the import's check
 * (runpass_join.c, trec_eval's order: runpass_order.c), and the estimates' lookup of
 * run lines among known (topic, docno) pairs (runpass_pairs.c): pooltool's fast path
 * for plain run files (pooltool/native/__init__.py).
 *
 * Every function only ever *declines* (returns None): on anything that is not plainly
 * ordinary it gives up and the Python readers (pooltool/formats/columns.py, run.py,
 * pooltool/measures/arrow_run.py) run as they do without this module, producing the
 * same values or the same file:line error. Nothing here writes an error message about
 * the input. The GIL is released while the bytes are read, so that reader threads
 * run at once.
 */
#include "runpass.h"

locale_t runpass_c_locale;

PyObject *runpass_new_bytes(Py_ssize_t size, char **space) {
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, size);
    *space = bytes == NULL ? NULL : PyBytes_AS_STRING(bytes);
    return bytes;
}

static PyMethodDef methods[] = {
    {"read_run", runpass_read_run, METH_O, runpass_read_run_doc},
    {"judged_index", runpass_judged_index, METH_VARARGS, runpass_judged_index_doc},
    {"join_grades", runpass_join_grades, METH_VARARGS, runpass_join_grades_doc},
    {"trec_order", runpass_trec_order, METH_VARARGS, runpass_trec_order_doc},
    {"pair_table", runpass_pair_table, METH_VARARGS, runpass_pair_table_doc},
    {"find_pairs", runpass_find_pairs, METH_VARARGS, runpass_find_pairs_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_runpass",
    "One compiled pass over a run file's bytes, one over its docnos (declines, never errs).",
    -1, methods, NULL, NULL, NULL, NULL,
};

/* The functions' names and arguments, as pooltool/native/__init__.py's INTERFACE
 * expects them: raise both when a function is added or changes its arguments, so that
 * a build left from older sources (an editable install not rebuilt after a pull) is
 * declined rather than called. */
#define RUNPASS_INTERFACE 2

PyMODINIT_FUNC PyInit__runpass(void) {
    runpass_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    PyObject *module = PyModule_Create(&module_definition);
    if (module != NULL && PyModule_AddIntConstant(module, "INTERFACE", RUNPASS_INTERFACE) < 0) {
        Py_CLEAR(module);
    }
    return module;
}
