"""Reading a judging guidelines file: plain UTF-8 text for assessors to read.

The file goes through :func:`~pooltool.formats.source.open_text` as every input
does: gzip accepted, a pipe or device refused (``/dev/zero`` would never end, a
FIFO without a writer would wait for ever), a damaged gzip file, text that is not
UTF-8 and a NUL byte refused, each naming the file (and line). The text is kept as
written; the judging app shows any control character in it visibly.
"""

from __future__ import annotations

from pooltool.errors import FormatError
from pooltool.formats.source import NUL_REASON, Source, nul_line, open_text, source_name

MAX_CHARACTERS = 1_000_000
"""The longest guidelines text read (about 300 pages): more is refused, not cut."""


def read_guidelines(source: Source) -> str:
    """The text of a guidelines file or stream, trailing blanks removed.

    :param source: a path (``.gz`` accepted) or an open text stream (stdin).
    :raises FormatError: see the module docstring, or over :data:`MAX_CHARACTERS`.
    """
    name = source_name(source)
    try:
        with open_text(source) as handle:
            text = str(handle.read(MAX_CHARACTERS + 1))
    except UnicodeDecodeError as error:  # a stream (open_text names a file's line)
        raise FormatError(name, 0, f"is not UTF-8 text (byte {error.start} cannot be read); "
                          "convert it with iconv first") from None
    line = nul_line(text.encode("utf-8", "surrogatepass"))
    if line is not None:  # a stream (open_text refuses a file's)
        raise FormatError(name, line, NUL_REASON)
    if len(text) > MAX_CHARACTERS:
        raise FormatError(name, 0, f"holds over {MAX_CHARACTERS:,} characters; guidelines "
                          "are for people to read")
    return text.rstrip()
