"""Text from data is data: the one rule for showing it and for identifiers.

Any string read from an input (a document's text, a topic's title, a note, a run
tag, a file name) may hold characters that a terminal or a browser obeys instead
of showing: ESC starts the sequences that set a terminal's title or clear its
screen, CR returns to the start of the line, and the bidirectional overrides and
isolates (U+202A-U+202E, U+2066-U+2069) reorder the text around them. Every place
that prints data (tables and other output, errors and warnings, the judging app,
the served page, plots' labels) passes it through :func:`visible`, which writes each
such character as an escape: ``\\x1b``, ``\\x7f``, ``\\x85``, ``\\u202e``.

Identifiers (docnos, run tags, topic ids, assessor names) may hold none of them:
the readers refuse one, naming the file and line (:func:`control_character` finds it).
"""

from __future__ import annotations

import re

CONTROL_RANGES = ((0x00, 0x1F), (0x7F, 0x9F), (0x202A, 0x202E), (0x2066, 0x2069))
"""The control characters, as ranges of code points: C0 (U+0000-U+001F), DEL and C1
(U+007F-U+009F), the bidirectional embeddings and overrides (U+202A-U+202E) and
isolates (U+2066-U+2069)."""


def control_class(ranges: tuple[tuple[int, int], ...] = CONTROL_RANGES, *,
                  re2: bool = False) -> str:
    """``ranges`` as a regular-expression class for Python's ``re`` (``[\\u0000-...]``),
    or with ``re2`` for RE2, Arrow's ``match_substring_regex`` (``[\\x{0000}-...]``)."""
    def point(code: int) -> str:
        return f"\\x{{{code:04x}}}" if re2 else f"\\u{code:04x}"
    return "[" + "".join(f"{point(low)}-{point(high)}" for low, high in ranges) + "]"


CONTROL = re.compile(control_class())
_CONTROL_BUT_LINES = re.compile(control_class(((0x00, 0x08), (0x0B, 0x1F), *CONTROL_RANGES[1:])))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character (:data:`CONTROL_RANGES`) written as an
    escape (``\\x1b``, ``\\u202e``), so that it is shown, never obeyed.

    :param lines: keep TAB and LF (text shown as lines: a document, a note on screen, a
        table cell); otherwise they are escaped too (one-line messages).
    """
    pattern = _CONTROL_BUT_LINES if lines else CONTROL
    return pattern.sub(_escape, text) if pattern.search(text) else text


def control_character(text: str) -> str | None:
    """The first control character (:data:`CONTROL_RANGES`) in ``text``, or ``None``."""
    found = CONTROL.search(text)
    return None if found is None else found.group()


def identifier_problem(what: str, value: str) -> str | None:
    """Why ``value`` cannot be an identifier (a docno, run tag, topic id, assessor name),
    as a :class:`~pooltool.errors.FormatError` reason, or ``None`` when it can.

    :param what: what the value is, for the message (``"run tag"``).
    """
    found = control_character(value)
    if found is None:
        return None
    return (f"{what} {value!r} holds a control character ({visible(found)}); docnos, run "
            "tags, topic ids and assessor names may not")
