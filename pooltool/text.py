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

CONTROL_CHARACTERS = "\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
"""As a regular-expression class: C0 (U+0000-U+001F), DEL, C1 (U+0080-U+009F), and the
bidirectional embeddings, overrides (U+202A-U+202E) and isolates (U+2066-U+2069)."""
CONTROL = re.compile(f"[{CONTROL_CHARACTERS}]")
_CONTROL_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character (:data:`CONTROL_CHARACTERS`) written as an
    escape (``\\x1b``, ``\\u202e``), so that it is shown, never obeyed.

    :param lines: keep TAB and LF (text shown as lines: a document, a note on screen, a
        table cell); otherwise they are escaped too (one-line messages).
    """
    pattern = _CONTROL_BUT_LINES if lines else CONTROL
    return pattern.sub(_escape, text) if pattern.search(text) else text


def control_character(text: str) -> str | None:
    """The first control character (:data:`CONTROL_CHARACTERS`) in ``text``, or ``None``."""
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
