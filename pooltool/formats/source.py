"""Opening an input given as a path (``.gz`` accepted), a file object or a string."""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Union

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
    return bool(text) and "\n" not in text and len(text) < 4096 and Path(text).exists()


@contextmanager
def open_text(source: Source) -> Iterator[IO[str]]:
    """Yield a text stream over ``source``.

    A ``str`` that names an existing file is read as that file; any other
    ``str`` is the content itself (handy for inline test data). Files ending in
    ``.gz`` are decompressed. Text is decoded as UTF-8.

    :raises FormatError: the file does not exist or is not valid UTF-8/gzip.
    """
    if isinstance(source, (str, Path)) and (isinstance(source, Path) or _looks_like_path(source)):
        path = Path(source)
        if not path.is_file():
            raise FormatError(path, 0, "no such file")
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt", encoding="utf-8", newline=None) as handle:
                yield handle
        except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as exc:
            raise FormatError(path, 0, f"cannot be read: {exc}") from exc
        return
    if isinstance(source, Path):
        raise FormatError(source, 0, "no such file")
    if isinstance(source, str):
        yield io.StringIO(source)
        return
    yield source
