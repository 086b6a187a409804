"""Reading whitespace-separated TREC text (runs, qrels) with Apache Arrow's CSV reader.

The readers of :mod:`pooltool.formats.run` and :mod:`pooltool.formats.qrels`
define the format line by line: lines as ``str.splitlines`` cuts them,
fields as :func:`pooltool.formats.source.split_fields` cuts a line (runs of
ASCII white space), blank lines and lines whose first field starts with
``#`` skipped. :func:`read_columns` gives the same fields, as typed Arrow
columns read by several threads, for the bytes where it can show that
Arrow's one-byte-separator tokeniser sees exactly those lines and fields;
otherwise it answers ``None`` and the line reader decides (and names the
line of any error):

* bytes it cannot be sure of send the file back (:func:`_plain`): a ``\r``
  that does not end a line, NUL, bytes that are not UTF-8, a byte order
  mark past the start, and white space or line breaks other than space,
  TAB, CR and LF (``\x0b``, ``\x0c``, ``\x1c``, NBSP, ...);
* a file with one kind of separator (only spaces or only TABs) and no
  comment line goes to Arrow as it is, cut at that byte; a doubled
  separator, or one at the start or end of a line, makes an empty field
  there, or a line of another length, and either sends the file on to:
* the same bytes with each run of spaces and TABs made one separator and
  the separators at the ends of lines dropped (:func:`_one_separator`), and
  the lines starting with ``#`` emptied (Arrow skips empty lines), which
  Arrow then reads.

The string columns kept must hold no control character
(:data:`pooltool.text.CONTROL_RANGES`; the line readers refuse one in an
identifier, :func:`pooltool.formats.source.check_identifier`): a column with
one sends the file back.

Either way every field of every line is read (the ones not asked for as
strings) and must be non-empty, so each line has exactly as many fields as
``split_fields`` gives it; Arrow refuses a line of another length and a
field its typed column cannot convert, and both send the file back. What
Arrow accepts, the caller may still check further (a score that is NaN, a
rank that is not plain digits).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
from pyarrow import csv

from pooltool.arrow import kernels
from pooltool.arrow.numbers import arrow_numbers, arrow_strings, numbers
from pooltool.text import control_class

# white space to str.split() or line breaks to str.splitlines(), but not a separator here
_ODD_SPACE = re.compile(r"[^\S \t\r\n]")
_ODD_ASCII = (b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
_COMMENT = re.compile(rb"(?m)^#.*$")
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#")
_CONTROL = control_class(re2=True)


def read_columns(data: bytes, names: Sequence[str], types: Mapping[str, pa.DataType],
                 threads: bool = True, labels: Sequence[str] = ()) -> pa.Table | None:
    """The fields of ``data`` as Arrow columns, or ``None`` if the line reader must decide.

    :param data: a whole file (one that starts with a byte order mark is refused before).
    :param names: the name of each field of a line, in order; every line
        must have exactly ``len(names)`` fields.
    :param types: the columns to keep, each with its Arrow type
        (``pa.string()``, ``pa.float64()``, a dictionary of strings, ...);
        the other fields are read as strings, checked and dropped.
    :param threads: let Arrow read blocks of the file in its threads; ``False``
        when the caller reads several files at once, one per thread (Arrow's
        threads then only add CPU time: 14% more on 250,000-line run files).
    :param labels: string columns of ``types`` with few distinct values (a run's
        topics and tags), returned dictionary-encoded by :func:`encode_labels` (and
        so checked for control characters on their dictionaries only).
    :returns: one row per line that is not blank or a comment, in file
        order, with the columns of ``types``; ``None`` when the file has no
        such line, a line has another number of fields, a field does not
        convert to its type, or the bytes hold anything listed in the module
        docstring.
    """
    if not _plain(data):
        return None
    separator = b"\t" if b" " not in data else b" "
    table = None
    if not (separator == b" " and b"\t" in data) and not _has_comment(data):
        table = _parse(data, separator, names, types, threads)  # no copy; empty fields refused
    if table is None:
        text, separator = _one_separator(data)
        if b"#" in text:
            text = _COMMENT.sub(b"", text)
        table = _parse(text, separator, names, types, threads)
    if table is None or not table.num_rows:
        return None
    table = table.select(list(types))
    for name in labels:
        table = table.set_column(table.schema.get_field_index(name), name, encode_labels(table[name]))
    return None if any(_has_control(table[name]) for name in types) else table


def _parse(data: bytes, separator: bytes, names: Sequence[str],
           types: Mapping[str, pa.DataType], threads: bool) -> pa.Table | None:
    """Arrow's reading of lines cut at ``separator``; ``None`` if a line has another number
    of fields, a field does not convert, or a field is empty (a doubled separator)."""
    all_types = {name: types.get(name, pa.string()) for name in names}
    try:
        table = csv.read_csv(pa.BufferReader(data), read_options=_read_options(names, threads),
                             parse_options=_PARSE[separator], convert_options=_convert_options(all_types))
    except pa.ArrowInvalid:
        return None
    return None if any(_has_empty(table[name]) for name in names) else table


def encode_labels(column: pa.ChunkedArray) -> pa.DictionaryArray:
    """``dictionary_encode`` of a string column, the same array (dictionary in order
    of first appearance, int32 indices), hashing only the first value of each stretch
    of equal values: a run file gives its topics (and its one tag) in long stretches.

    :param column: ``n`` strings, no nulls.
    :returns: ``n`` dictionary codes; when more than a quarter of the rows start a
        new stretch, ``dictionary_encode``'s own (hashing the heads would save little).
    """
    values = column.combine_chunks()
    count = len(values)
    if count < 2:
        return kernels.dictionary_encode(values)
    if _one_value(values):  # a run's tag: no string compared, nothing hashed
        return pa.DictionaryArray.from_arrays(arrow_numbers(np.zeros(count, dtype=np.int32)),
                                              arrow_strings([values[0].as_py()]))
    changes = kernels.call("indices_nonzero", kernels.call("not_equal", values.slice(1),
                                                      values.slice(0, count - 1)))
    if len(changes) > count // 4:
        return kernels.dictionary_encode(values)
    starts = np.concatenate(([0], numbers(changes).astype(np.int64) + 1))
    heads = kernels.dictionary_encode(kernels.take(values, arrow_numbers(starts)))
    codes = np.repeat(numbers(heads.indices), np.diff(np.append(starts, count)))
    return pa.DictionaryArray.from_arrays(arrow_numbers(codes), heads.dictionary)


def _one_value(values: pa.StringArray) -> bool:
    """Whether all ``n >= 1`` strings are the first one: all of its length, and the bytes
    that many copies of it."""
    _, offsets_buffer, data_buffer = values.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32)[values.offset:values.offset + len(values) + 1]
    length = int(offsets[1] - offsets[0])
    if not (np.diff(offsets) == length).all():
        return False
    first, end = int(offsets[0]), int(offsets[-1])
    if data_buffer is None:  # every string empty
        return True
    text = data_buffer.slice(first, end - first)
    return text.equals(pa.py_buffer(text.slice(0, length).to_pybytes() * len(values)))  # memcmp


def _has_empty(column: pa.ChunkedArray) -> bool:
    """Whether a text column holds an empty string (typed columns refuse empty fields)."""
    if pa.types.is_dictionary(column.type):
        return any(_shortest(chunk.dictionary) == 0 for chunk in column.chunks)
    if pa.types.is_string(column.type):
        return column.null_count > 0 or _shortest(column) == 0
    return column.null_count > 0


def _shortest(strings: pa.Array | pa.ChunkedArray) -> int | None:
    """The length in bytes of the shortest of ``strings`` (None when there are none)."""
    return kernels.call("min", kernels.call("binary_length", strings)).as_py()


def _has_control(column: pa.ChunkedArray) -> bool:
    """Whether a text column holds a control character (ASCII printable text, the usual
    case, is told by one pass; the rest by RE2)."""
    if pa.types.is_dictionary(column.type):
        return any(_has_control(pa.chunked_array([chunk.dictionary])) for chunk in column.chunks)
    if not pa.types.is_string(column.type) \
            or kernels.call("all", kernels.call("ascii_is_printable", column)).as_py():
        return False
    return bool(kernels.call("any", kernels.match_substring_regex(column, _CONTROL)).as_py())


def _has_comment(data: bytes) -> bool:
    return b"#" in data and _COMMENT_LINE.search(data) is not None


def integers(column: pa.ChunkedArray) -> bool:
    """Whether every value of a string column is ``-?[0-9]+`` (ASCII digits): what the line
    readers take as an integer and Arrow's cast to int64 reads the same way (the cast
    also takes ``0x10``, refused here). A regex runs only where some value is not plain
    digits (a negative rank or grade)."""
    return bool(kernels.call("all", kernels.call("ascii_is_decimal", column)).as_py()
                or kernels.call("all", kernels.match_substring_regex(column, "^-?[0-9]+$")).as_py())


def _read_options(names: Sequence[str], threads: bool) -> csv.ReadOptions:
    return csv.ReadOptions(column_names=list(names), block_size=1 << 20, use_threads=threads)


_PARSE = {
    separator: csv.ParseOptions(delimiter=separator.decode(), quote_char=False, double_quote=False,
                                escape_char=False, newlines_in_values=False, ignore_empty_lines=True)
    for separator in (b" ", b"\t")
}


def _convert_options(types: Mapping[str, pa.DataType]) -> csv.ConvertOptions:
    return csv.ConvertOptions(column_types=dict(types), include_columns=list(types), null_values=[],
                              true_values=[], false_values=[], strings_can_be_null=False,
                              quoted_strings_can_be_null=False,
                              # _plain has shown the bytes to be UTF-8, and fields are cut at
                              # ASCII bytes, which never fall inside a UTF-8 sequence
                              check_utf8=False)


def _plain(data: bytes) -> bool:
    """Whether lines and fields cut at spaces, TABs and line ends are the line reader's."""
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return False
    if data.isascii():
        return not any(byte in data for byte in _ODD_ASCII)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not ("\x00" in text or "\ufeff" in text or _ODD_SPACE.search(text))


def _one_separator(data: bytes) -> tuple[bytes, bytes]:
    """``data`` with each run of spaces and TABs made one separator, none at a line's ends,
    and that separator: TAB when ``data`` holds no space (no copy needed), else space."""
    separator = b"\t" if b" " not in data else b" "
    if separator == b" " and b"\t" in data:
        data = data.replace(b"\t", b" ")
    double = separator * 2
    while double in data:
        data = data.replace(double, separator)
    if separator + b"\n" in data or separator + b"\r" in data:
        data = data.replace(separator + b"\r\n", b"\r\n").replace(separator + b"\n", b"\n")
    if b"\n" + separator in data:
        data = data.replace(b"\n" + separator, b"\n")
    return data.removeprefix(separator).removesuffix(separator), separator
