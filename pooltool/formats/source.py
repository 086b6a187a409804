"""Opening an input given as a path (gzip accepted, known by its magic bytes), a file
object or a string, and the small pieces the line-based readers share (file
extensions, JSON lines). A NUL byte is refused in every input: no text format
holds one, and one inside a docno would silently make a different document.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Union

from pooltool.errors import FormatError
from pooltool.text import identifier_problem

Source = Union[str, Path, IO[str]]
GZIP_MAGIC = b"\x1f\x8b"
NUL_REASON = "holds a NUL byte (control character U+0000); only text can be read"
BYTE_ORDER_MARK = b"\xef\xbb\xbf"
BYTE_ORDER_MARK_REASON = ("starts with a UTF-8 byte order mark (bytes EF BB BF), which trec_eval "
                          "reads as part of the first topic id, so its scores would differ from "
                          "ours; save the file without it")
GZIP_REASON = "is a damaged gzip file (truncated or corrupt), it cannot be read"
SPECIAL_FILE_REASON = ("is a pipe or device, not a regular file (pooltool reads an input more "
                       "than once: hash, fast reader, strict reader); save it to a file first, "
                       "gzip files are read as they are")


def refuse_non_regular_file(path: str | Path) -> None:
    """Refuse a path that exists but is not a regular file: a folder, a pipe such as
    ``<(zcat run.gz)`` (``/dev/fd/63``) or a device.

    :raises FormatError: naming the path, line 0.
    """
    candidate = Path(path)
    if candidate.is_dir():
        raise FormatError(candidate, 0, f"is a folder, not a file (its files: {candidate}/*)")
    if candidate.exists() and not candidate.is_file():
        raise FormatError(candidate, 0, SPECIAL_FILE_REASON)


def source_name(source: Source) -> str:
    """The name used in error messages: the path, the file object's name, or ``<string>``."""
    if isinstance(source, Path):
        return str(source)
    if isinstance(source, str):
        return source if _looks_like_path(source) else "<string>"
    return str(getattr(source, "name", "<stream>"))


def _looks_like_path(text: str) -> bool:
    """A one-line string that names a file, or that has no white space at all (no
    content line does, so a mistyped path is reported as a missing file)."""
    if not text or "\n" in text or len(text) >= 4096:
        return False
    return Path(text).exists() or not any(c.isspace() for c in text)


_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")


def split_fields(line: str) -> list[str]:
    """A line's white-space separated fields, splitting on ASCII white space only, as C's
    ``isspace`` does in trec_eval (a non-breaking space stays inside its field)."""
    return [field for field in _ASCII_SPACE.split(line) if field]


# -- the token rules of runs and qrels (the one place; formats/columns.py follows them) --

def is_skipped(fields: list[str]) -> bool:
    """Whether a split line is skipped: blank, or a comment (its first field starts
    with ``#``)."""
    return not fields or fields[0].startswith("#")


def check_identifier(value: str, what: str, name: str, number: int) -> str:
    """Refuse an identifier (docno, run tag, topic id, assessor name) that holds a control
    character (:data:`pooltool.text.CONTROL_RANGES`: C0, DEL, C1, bidi overrides): on a
    terminal it would be obeyed, not shown (ESC sets the title, clears the screen), and
    two ids that look the same could differ.
    :func:`pooltool.formats.columns.read_columns` leaves a file with one to the line
    readers, which call this.

    :returns: ``value``.
    :raises FormatError: naming ``name`` and line ``number``.
    """
    problem = identifier_problem(what, value)
    if problem is not None:
        raise FormatError(name, number, problem)
    return value


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# ASCII decimal only: Python's int() and float() also take "1_000" and other scripts'
# digits, which C's atol/atof (trec_eval) read differently.
INTEGER = re.compile(r"[+-]?[0-9]+")
NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
                    re.IGNORECASE)


def in_int64(value: int) -> bool:
    """Whether an integer fits in 64 bits (SQLite's INTEGER, trec_eval's long)."""
    return INT64_MIN <= value <= INT64_MAX


@contextmanager
def open_text(source: Source) -> Iterator[IO[str]]:
    """Yield a text stream over ``source``.

    A ``str`` that names an existing file is read as that file; any other
    ``str`` is the content itself (handy for inline test data). gzip files
    (whatever their name) are decompressed. Text is decoded as UTF-8; a byte
    order mark at the start is dropped.

    :raises FormatError: the file does not exist, is not a regular file (a pipe or
        device), is a damaged gzip file, is not valid UTF-8, or holds a NUL byte
        (the message names the first bad line).
    """
    if isinstance(source, (str, Path)) and (isinstance(source, Path) or _looks_like_path(source)):
        path = Path(source)
        refuse_non_regular_file(path)
        if not path.is_file():
            raise FormatError(path, 0, "no such file")
        try:
            with _open_binary(path) as raw, io.TextIOWrapper(
                    io.BufferedReader(_NulGuard(raw)), encoding="utf-8-sig",
                    newline=None) as handle:
                yield handle
        except UnicodeDecodeError as exc:
            line, byte = _first_bad_utf8(path)
            raise FormatError(path, line, f"is not UTF-8 text (byte 0x{byte.hex().upper()}); "
                              "convert it with iconv first") from exc
        except _NulByte:
            raise FormatError(path, _first_nul_line(path), NUL_REASON) from None
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise FormatError(path, 0, f"{GZIP_REASON} ({exc})") from None
        return
    if isinstance(source, Path):
        raise FormatError(source, 0, "no such file")
    if isinstance(source, str):
        position = source.find("\0")
        if position >= 0:
            raise FormatError("<string>", source.count("\n", 0, position) + 1, NUL_REASON)
        yield io.StringIO(source)
        return
    yield source


def refuse_byte_order_mark(source: Source) -> None:
    """Refuse a run or qrels input that starts with a UTF-8 byte order mark: trec_eval
    (``get_trec_results.c``, ``get_qrels.c``) reads it as part of the first topic id,
    which then matches no topic of the other file, and pooltool would not score it as
    trec_eval does. A stream is not checked (it cannot be peeked at).

    :raises FormatError: naming the input, line 1.
    """
    if isinstance(source, str) and not _looks_like_path(source):
        marked = source.startswith("\ufeff")
    elif isinstance(source, (str, Path)) and Path(source).is_file():
        try:
            with _open_binary(Path(source)) as handle:
                marked = handle.read(3) == BYTE_ORDER_MARK
        except (OSError, EOFError, zlib.error):  # a damaged gzip file: the reader names it
            marked = False
    else:
        marked = False
    if marked:
        raise FormatError(source_name(source), 1, BYTE_ORDER_MARK_REASON)


def is_gzip(path: Path) -> bool:
    """Whether the file starts with gzip's magic bytes (its name does not matter)."""
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def _open_binary(path: Path) -> io.BufferedIOBase:
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")


class _NulByte(Exception):
    """A NUL byte was read (the caller names the line)."""


class _NulGuard(io.RawIOBase):
    """A binary stream that stops with :class:`_NulByte` at the first NUL byte."""

    def __init__(self, raw: io.BufferedIOBase) -> None:
        self.raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        if b"\0" in data:
            raise _NulByte
        buffer[:len(data)] = data
        return len(data)


def _readable_bytes(path: Path) -> bytes:
    """The bytes of ``path`` (decompressed), up to where a damaged gzip stream stops."""
    parts = []
    with _open_binary(path) as handle:
        try:
            while chunk := handle.read(1 << 20):
                parts.append(chunk)
        except (gzip.BadGzipFile, EOFError, zlib.error):
            pass
    return b"".join(parts)


def _first_nul_line(path: Path) -> int:
    return nul_line(_readable_bytes(path)) or 0


def nul_line(data: bytes) -> int | None:
    """The 1-based line of the first NUL byte in ``data``, or ``None`` when there is none."""
    position = data.find(b"\0")
    return None if position < 0 else data.count(b"\n", 0, position) + 1


def _first_bad_utf8(path: Path) -> tuple[int, bytes]:
    """The 1-based line and the byte where ``path``'s UTF-8 decoding first fails."""
    data = _readable_bytes(path)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data.count(b"\n", 0, exc.start) + 1, data[exc.start:exc.start + 1]
    return 0, b""


def plain_file_bytes(source: Source) -> bytes | None:
    """The raw bytes of ``source`` when it names an existing file that is not gzip.

    :returns: the bytes as stored (not decoded, line endings untouched), or
        ``None`` for text, a stream, a gzip file or a missing file
        (:func:`open_text` then reads it, or reports the error).
    :raises FormatError: the file holds a NUL byte (its line named).
    """
    if isinstance(source, str) and not _looks_like_path(source):
        return None
    if not isinstance(source, (str, Path)) or not Path(source).is_file():
        return None
    data = Path(source).read_bytes()
    if data.startswith(GZIP_MAGIC):
        return None
    line = nul_line(data)
    if line is not None:
        raise FormatError(source, line, NUL_REASON)
    return data


def extension(name: str) -> str:
    """The lower-case extension of a file name, looking through ``.gz`` (``a.TSV.gz`` -> ``.tsv``)."""
    path = Path(name)
    if path.suffix == ".gz":
        path = path.with_suffix("")
    return path.suffix.lower()


def json_object(line: str, name: str, number: int) -> dict[str, Any]:
    """Decode one JSON line (its line ending is ignored) that must hold an object.

    :raises FormatError: bad JSON, or JSON that is not an object.
    """
    try:
        record = json.loads(line.rstrip("\r\n"))
    except json.JSONDecodeError as exc:
        raise FormatError(name, number, f"bad JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(record, dict):
        raise FormatError(name, number, f"expected a JSON object, got {type(record).__name__}")
    return record


def first_key(record: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` present in ``record``, or ``None``."""
    return next((key for key in keys if key in record), None)


def json_text(record: dict[str, Any], keys: tuple[str, ...], name: str, number: int) -> str:
    """The value of the first of ``keys`` present, as written; ``""`` when absent or null.

    :raises FormatError: the value is not a string.
    """
    key = first_key(record, keys)
    value = record[key] if key is not None else None
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FormatError(name, number, f"key {key!r} is not a string")
    return value
