"""The judging screen's key bindings: the commands (:data:`COMMAND_BINDINGS`, which
bind exactly :data:`pooltool.tui.keys.COMMAND_KEYS`), and one binding per grade
of the store's scale before them (:func:`with_grades`)."""

from __future__ import annotations

from textual.binding import Binding, BindingsMap

from pooltool.store.settings import GradeLevel
from pooltool.tui.keys import key_name

READ = Binding.Group("Scroll")
COMMAND_BINDINGS = [
    Binding("space", "read('page_down')", "Page down", key_display="Space", group=READ),
    Binding("pagedown", "read('page_down')", "Page down", key_display="PgDn", show=False),
    Binding("pageup", "read('page_up')", "Page up", key_display="PgUp", group=READ),
    Binding("up", "read('line_up')", "Line up", key_display="↑", group=READ),
    Binding("down", "read('line_down')", "Line down", key_display="↓", group=READ),
    # Home is in the help, not the footer: the footer then fits 80 columns
    Binding("home", "read('home')", "Start", key_display="Home", show=False),
    Binding("end", "read('end')", "End", key_display="End", group=READ),
    Binding("ctrl+f", "find", "Find"),
    Binding("u", "undo", "Undo"),
    Binding("n", "note", "Note"),
    Binding("s", "skip", "Skip"),
    Binding("j", "next_unjudged", "Unjudged"),
    Binding("left", "move(-1)", "Previous", show=False),
    Binding("right", "move(1)", "Next", show=False),
    Binding("h", "toggle_highlight", "Highlight", show=False),
    Binding("slash", "scan_terms", "Scan terms", show=False),
    Binding("c", "split_copy", "Not a copy", show=False),
    Binding("escape", "leave", "Topics", show=False),
    # g is in the help (and its title), not the footer: the footer then fits 80 columns
    Binding("g", "guidelines", "Guidelines", show=False),
    Binding("question_mark", "help", "Help"),
    Binding("q", "quit", "Quit"),
]


def with_grades(scale: list[GradeLevel], commands: BindingsMap) -> BindingsMap:
    """A bindings map with one binding per grade first. The grade bar is their
    legend (key and name, wrapping on narrow screens), so the footer, one line,
    lists only the commands."""
    grades = BindingsMap([Binding(key_name(level.key), f"grade({level.grade})",
                                  level.name, key_display=level.key, show=False)
                          for level in scale])
    for key, bindings in commands.key_to_bindings.items():
        grades.key_to_bindings.setdefault(key, []).extend(bindings)
    return grades
