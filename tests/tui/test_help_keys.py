"""The help dialog's key list is written by hand: it must name every key the judging screen binds."""

from __future__ import annotations

from pooltool.tui.screens.help import COMMAND_KEYS as HELP_KEYS
from pooltool.tui.screens.judge import COMMAND_BINDINGS

SHOWN_AS = {"left": "←", "right": "→", "escape": "Esc", "question_mark": "?", "slash": "/",
            "space": "Space", "pagedown": "PgDn", "pageup": "PgUp", "up": "↑", "down": "↓",
            "home": "Home", "end": "End", "ctrl+f": "Ctrl+F"}


def test_help_lists_every_bound_command_key() -> None:
    listed = {part for key, _ in HELP_KEYS for part in key.split()}
    bound = {SHOWN_AS.get(b.key, b.key) for b in COMMAND_BINDINGS}
    assert bound == listed - {"Tab"}  # Tab is Textual's focus key, not the screen's
