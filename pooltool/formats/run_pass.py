"""A plain run file read by the compiled pass (:mod:`pooltool.native`), as the same
Arrow columns :func:`pooltool.formats.run.run_table` gives.

The pass reads every line of the bytes once: fields cut at runs of spaces and TABs,
the rank as ``-?[0-9]+`` in the int64 range, the score as the correctly rounded double
(the value Python's ``float`` and trec_eval's ``atof`` give), topics and run tags
coded in order of first appearance (what ``dictionary_encode`` gives). It declines
(``None``) whatever the Python readers treat specially or refuse: a byte that is not
printable ASCII, space, TAB or a line end (control characters, NUL, a byte order
mark, UTF-8), a CR not before LF, a comment line, a line of other than six fields, a
rank or score of another form (``+1``, ``0x10``, ``inf``, ``nan``), a rank past
int64, a file of no line; the Python path then reads the file as it would without
the pass, with the same values or the same file:line error.
"""

from __future__ import annotations

import pyarrow as pa

from pooltool.arrow.numbers import arrow_strings
from pooltool.native import run_pass

_COLUMNS = ["topic", "docno", "rank", "score", "run_tag"]


def pass_table(data: bytes) -> pa.Table | None:
    """:func:`~pooltool.formats.run.run_table`'s columns read by the compiled pass.

    :param data: a run file's bytes.
    :returns: ``n`` rows, in file order: ``topic`` and ``run_tag`` (dictionaries of
        strings, int32 codes in order of first appearance), ``docno`` (string),
        ``rank`` (int64), ``score`` (float64); ``None`` when the pass is not built,
        is switched off (``POOLTOOL_NATIVE=0``) or declines the bytes.
    """
    native = run_pass()
    read = None if native is None else native.read_run(data)
    if read is None:
        return None
    count, topic_codes, topics, offsets, docnos, ranks, scores, tag_codes, tags = read
    columns = [_labels(count, topic_codes, topics),
               pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(docnos)),
               _numbers(pa.int64(), count, ranks), _numbers(pa.float64(), count, scores),
               _labels(count, tag_codes, tags)]
    return pa.table(columns, names=_COLUMNS)


def _numbers(kind: pa.DataType, count: int, values: bytes) -> pa.Array:
    """The first ``count`` numbers of ``values`` (machine order) as an Arrow array, no copy."""
    return pa.Array.from_buffers(kind, count, [None, pa.py_buffer(values)])


def _labels(count: int, codes: bytes, labels: list[str]) -> pa.DictionaryArray:
    # arrow_strings, not pa.array: pa.array loads pandas (recall on files never does)
    return pa.DictionaryArray.from_arrays(_numbers(pa.int32(), count, codes), arrow_strings(labels))
