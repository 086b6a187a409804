"""The judging screen's command keys, as data that needs no Textual.

``pooltool grades set`` refuses a grade key that a judging command uses, and
the judging app refuses such a scale when it starts; both check here, so the
command line loads no Textual to do it. The judging screen's bindings
(:data:`pooltool.tui.screens.judge_bindings.COMMAND_BINDINGS`) must bind exactly
:data:`COMMAND_KEYS` (a test holds them equal).
"""

from __future__ import annotations

import unicodedata

from pooltool.errors import InvalidArgument
from pooltool.store.settings import GradeLevel
from pooltool.store.settings import check_grade_scale as check_scale_values

COMMAND_KEYS = (
    "space", "pagedown", "pageup", "up", "down", "home", "end", "ctrl+f", "u", "n", "s", "j",
    "left", "right", "h", "slash", "c", "escape", "g", "question_mark", "q",
)
"""Textual's names of the keys the judging screen binds, in its order."""

# Textual's names for some punctuation (textual.keys.KEY_NAME_REPLACEMENTS)
_REPLACEMENTS = {"solidus": "slash", "reverse_solidus": "backslash", "commercial_at": "at",
                 "hyphen_minus": "minus", "plus_sign": "plus", "low_line": "underscore"}


def key_name(character: str) -> str:
    """Textual's key name of a printable character (``-`` is ``minus``, ``?`` is
    ``question_mark``), as ``textual.keys._character_to_key`` names it."""
    if character.isalnum():
        return character
    name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    return _REPLACEMENTS.get(name, name)


def command_characters() -> list[str]:
    """The printable characters the judging commands use (``u n s j h / g ? q``), in
    the screen's order."""
    chars = [c for c in map(chr, range(33, 127)) if key_name(c) in COMMAND_KEYS]
    return sorted(chars, key=lambda c: COMMAND_KEYS.index(key_name(c)))


def check_grade_scale(scale: list[GradeLevel]) -> None:
    """Refuse a grade scale the judging screen cannot use: the store's rules
    (:func:`pooltool.store.store.check_grade_scale`), and no key that is a command
    key of the judging screen (:data:`COMMAND_KEYS`).

    :raises InvalidArgument: with the reason.
    """
    check_scale_values(scale)
    clash = [level.key for level in scale if key_name(level.key) in COMMAND_KEYS]
    if clash:
        raise InvalidArgument(f"grade key(s) {' '.join(clash)} clash with judging commands "
                              f"(the judging screen uses {' '.join(command_characters())}, "
                              "space, arrows, PgUp, PgDn, Home, End and escape); choose other keys")
