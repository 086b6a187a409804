"""Opening an input given as a path (``.gz`` accepted), a file object or a string,
and the small pieces the line-based readers share (file extensions, JSON lines).
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Union

from pooltool.errors import FormatError

Source = Union[str, Path, IO[str]]


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


@contextmanager
def open_text(source: Source) -> Iterator[IO[str]]:
    """Yield a text stream over ``source``.

    A ``str`` that names an existing file is read as that file; any other
    ``str`` is the content itself (handy for inline test data). Files ending in
    ``.gz`` are decompressed. Text is decoded as UTF-8; a byte order mark at
    the start is dropped.

    :raises FormatError: the file does not exist, is not valid gzip, or is not
        valid UTF-8 (the message names the first bad line).
    """
    if isinstance(source, (str, Path)) and (isinstance(source, Path) or _looks_like_path(source)):
        path = Path(source)
        if not path.is_file():
            raise FormatError(path, 0, "no such file")
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt", encoding="utf-8-sig", newline=None) as handle:
                yield handle
        except UnicodeDecodeError as exc:
            line, byte = _first_bad_utf8(path)
            raise FormatError(path, line, f"is not UTF-8 text (byte {byte!r} at line {line}); "
                              "convert it with iconv first") from exc
        except (gzip.BadGzipFile, EOFError) as exc:
            raise FormatError(path, 0, f"cannot be read: {exc}") from exc
        return
    if isinstance(source, Path):
        raise FormatError(source, 0, "no such file")
    if isinstance(source, str):
        yield io.StringIO(source)
        return
    yield source


def _first_bad_utf8(path: Path) -> tuple[int, bytes]:
    """The 1-based line and the byte where ``path``'s UTF-8 decoding first fails."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        data = handle.read()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data.count(b"\n", 0, exc.start) + 1, data[exc.start:exc.start + 1]
    return 0, b""


def plain_file_bytes(source: Source) -> bytes | None:
    """The raw bytes of ``source`` when it names an existing file that is not ``.gz``.

    :returns: the bytes as stored (not decoded, line endings untouched), or
        ``None`` for text, a stream, a ``.gz`` file or a missing file
        (:func:`open_text` then reads it, or reports the error).
    """
    if isinstance(source, str) and not _looks_like_path(source):
        return None
    if not isinstance(source, (str, Path)) or Path(source).suffix == ".gz":
        return None
    path = Path(source)
    return path.read_bytes() if path.is_file() else None


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
