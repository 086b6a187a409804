"""The help dialog's key list is written by hand: it must name every key the judging screen binds."""

from __future__ import annotations

from textual.binding import Binding

from pooltool.tui.screens.help import COMMAND_KEYS as HELP_KEYS
from pooltool.tui.screens.judge_bindings import COMMAND_BINDINGS

SHOWN_AS = {"left": "←", "right": "→", "escape": "Esc", "question_mark": "?", "slash": "/",
            "space": "Space", "pagedown": "PgDn", "pageup": "PgUp", "up": "↑", "down": "↓",
            "home": "Home", "end": "End", "ctrl+f": "Ctrl+F"}


def test_help_lists_every_bound_command_key() -> None:
    listed = {part for key, _ in HELP_KEYS for part in key.split()}
    bound = {SHOWN_AS.get(b.key, b.key) for b in COMMAND_BINDINGS}
    assert bound == listed - {"Tab"}  # Tab is Textual's focus key, not the screen's


def test_the_key_data_matches_the_screen_and_textual() -> None:
    """pooltool.tui.keys (no Textual) names exactly the keys the judging screen binds,
    and names characters as Textual does."""
    from textual.keys import _character_to_key

    from pooltool.tui import keys
    from pooltool.tui.screens.judge_bindings import COMMAND_BINDINGS

    assert [b.key for b in COMMAND_BINDINGS] == list(keys.COMMAND_KEYS)
    for character in [*map(chr, range(33, 127)), "é", "ß", "→", "½"]:
        assert keys.key_name(character) == _character_to_key(character), character
    assert keys.command_characters() == ["u", "n", "s", "j", "h", "/", "c", "g", "?", "q"]


def test_grades_set_loads_no_textual(store_address: str) -> None:
    """``pooltool grades set`` checks keys against the judging screen's without Textual."""
    import subprocess
    import sys

    db = store_address
    code = ("import sys; from pooltool.cli import cli; "
            f"cli(['--db', {db!r}, 'init'], standalone_mode=False); "
            f"cli(['--db', {db!r}, 'grades', 'set', '0:x:no', '1:r:yes'], "
            "standalone_mode=False); print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"
    refused = subprocess.run(
        [sys.executable, "-m", "pooltool", "--db", db, "grades", "set", "0:u:no"],
        capture_output=True, text=True)
    assert refused.returncode == 1 and "grade key(s) u clash with judging commands" in refused.stderr


def test_help_lists_every_key_of_the_topic_list_and_the_dialogs() -> None:
    from pooltool.tui.screens.help import DIALOG_KEYS, PICKER_KEYS
    from pooltool.tui.screens.prompt import PromptScreen
    from pooltool.tui.screens.topic_picker import TopicPickerScreen

    picker = {part for key, _ in PICKER_KEYS for part in key.split()}
    own = {SHOWN_AS.get(b.key, b.key) for b in TopicPickerScreen.BINDINGS if isinstance(b, Binding)}
    table = {SHOWN_AS.get(k, k.capitalize()) for k in ("enter", "up", "down", "pageup",
                                                        "pagedown", "home", "end")}
    assert own == {"q", "r", "g", "?"} and picker == own | table
    dialogs = {key for key, _ in DIALOG_KEYS}
    assert {SHOWN_AS[b.key] for b in PromptScreen.BINDINGS if isinstance(b, Binding)} <= dialogs
    assert {"Enter", "Ctrl+Q"} <= dialogs
