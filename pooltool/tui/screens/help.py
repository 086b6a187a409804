"""The help dialog: every key of the judging screen."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pooltool.store.store import GradeLevel

COMMAND_KEYS = [
    ("Space PgDn", "page down in the document (it has these keys as soon as it opens)"),
    ("PgUp", "page up"),
    ("↑ ↓", "one line up / down"),
    ("Home End", "start / end of the document (its bottom edge: 'more below' or 'end')"),
    ("Ctrl+F", "find in the document (matches marked, \"3 of 11\"): Enter or ↓ next, "
               "↑ previous, Esc back to the document (grade keys work; each next document "
               "is searched too), Esc again closes the find"),
    ("u", "undo your latest judgment (a retraction is logged; nothing is deleted)"),
    ("n", "write a note on this document"),
    ("s", "skip this document for now (it comes back last)"),
    ("← →", "previous / next document (to look again or change a grade)"),
    ("j", "jump to the next document you have not judged"),
    ("h", "turn query-term highlighting off / on (stems match: laws marks law)"),
    ("/", "edit your scan terms for this topic (kept for next time)"),
    ("Esc", "close the find, else back to the topic list"),
    ("g", "guidelines: each grade's definition, the collection's guidelines and this "
          "topic's instructions (else its narrative); also on the topic list"),
    ("Tab", "scroll the topic pane with ↑ ↓ PgUp PgDn; the next document takes them back"),
    ("?", "this help"),
    ("q", "quit (every judgment is already saved)"),
]


HELP_TITLE = "Judging keys · g: guidelines (what each grade means, this topic's instructions)"


def help_table(scale: list[GradeLevel]) -> Table:
    """The keys, grades first, as a two-column table (cells are :class:`Text`, so
    grade names show as written, never read as markup)."""
    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for level in scale:
        table.add_row(Text(level.key),
                      Text(f"grade {level.grade}: {level.name} (saves and moves on)"))
    for key, what in COMMAND_KEYS:
        table.add_row(Text(key), Text(what))
    return table


class HelpScreen(ModalScreen[None]):
    """Lists the keys; any of Escape, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "close", "Close")]

    def __init__(self, scale: list[GradeLevel], **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.scale = scale

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(HELP_TITLE, id="help-title")
            yield Static(help_table(self.scale))

    def action_close(self) -> None:
        """Back to judging."""
        self.dismiss(None)
