"""The help dialog: every key of the judging screen, then of the topic list and the dialogs."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pooltool.store.settings import GradeLevel
from pooltool.text import visible

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
    ("c", "not a copy: when the status line says \"3 copies in this pool\", split the "
          "first copy off and judge it on its own (the split is logged)"),
    ("Esc", "close the find, else back to the topic list"),
    ("g", "guidelines: each grade's definition, the collection's guidelines and this "
          "topic's instructions (else its narrative); also on the topic list"),
    ("Tab", "scroll the topic pane with ↑ ↓ PgUp PgDn; the next document takes them back"),
    ("?", "this help"),
    ("q", "quit (every judgment is already saved)"),
]

PICKER_KEYS = [
    ("↑ ↓", "choose a topic (its whole statement shows under the table)"),
    ("PgUp PgDn", "a page of topics up / down"),
    ("Home End", "the first / the last topic"),
    ("Enter", "open the topic"),
    ("r", "refresh: progress and your assigned topics, as the store has them now"),
    ("g", "guidelines of the highlighted topic"),
    ("?", "this help"),
    ("q", "quit"),
]
"""The topic list's keys (its own bindings and its table's)."""

DIALOG_KEYS = [
    ("Enter", "save the note or the scan terms"),
    ("Esc", "close the dialog (a note or scan terms typed are not saved); "
            "Esc, ? or q close this help, Esc, g or q the guidelines"),
    ("y n", "answer a question: a grade given once the topic is done (Enter: y, Esc: n)"),
    ("Ctrl+Q", "quit, from any screen"),
]
"""Keys of the note and scan-term dialogs, the help and guidelines, and the app."""


HELP_TITLE = "Judging keys · g: guidelines (what each grade means, this topic's instructions)"


def help_table(scale: list[GradeLevel]) -> Table:
    """The keys, grades first, then the topic list's and the dialogs', as a
    two-column table (cells are :class:`Text`, so grade names show as written,
    never read as markup)."""
    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for level in scale:
        table.add_row(Text(visible(level.key)),
                      Text(f"grade {level.grade}: {visible(level.name)} (saves and moves on)"))
    for key, what in COMMAND_KEYS:
        table.add_row(Text(key), Text(what))
    for heading, keys in (("On the topic list", PICKER_KEYS), ("In dialogs", DIALOG_KEYS)):
        table.add_row(Text(""), Text(""))
        table.add_row(Text(""), Text(heading, style="underline"))
        for key, what in keys:
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
