"""The find bar under the document: a one-line search box and the match count.

It only reports what the assessor asks for (:class:`FindBar.Changed`,
:class:`FindBar.Step`, :class:`FindBar.Left`); the judging screen finds the
matches in the document, sets the count with :meth:`FindBar.count`, and
closes the bar (:meth:`FindBar.close`) on a second Esc.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label

from pooltool.tui.widgets.line_input import LineInput

HINT = "Enter/↓ next · ↑ previous · Esc done"


class FindBar(Horizontal):
    """``Find: [query]  3 of 11  Enter/↓ next ...``; hidden until :meth:`open`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "step(1)", "Next match", show=False),
        Binding("up", "step(-1)", "Previous match", show=False),
        Binding("escape", "leave", "Back to the document", show=False),
    ]

    @dataclass
    class Changed(Message):
        """The query was edited."""

        query: str

    @dataclass
    class Step(Message):
        """Go to the next (``1``) or previous (``-1``) match."""

        direction: int

    class Left(Message):
        """Esc in the bar: the keys go back to the document (the bar stays open)."""

    def compose(self) -> ComposeResult:
        yield Label("Find:", id="find-label")
        yield LineInput(placeholder="text in this document", id="find-input", compact=True)
        yield Label(id="find-count", markup=False)
        yield Label(HINT, id="find-hint", markup=False)

    @property
    def query_text(self) -> str:
        """The text typed."""
        return self.query_one("#find-input", Input).value

    @property
    def is_open(self) -> bool:
        """Whether the bar is shown."""
        return self.has_class("-open")

    def open(self) -> None:
        """Show the bar and give its input the keys (the text typed before stays)."""
        self.add_class("-open")
        self.query_one("#find-input", Input).focus()

    def count(self, current: int | None, total: int) -> None:
        """Show ``3 of 11`` (``current`` counts from 0), ``no match``, or nothing for no query."""
        label = self.query_one("#find-count", Label)
        if not self.query_text.split():
            label.update("")
        elif current is None:
            label.update("no match")
        else:
            label.update(f"{current + 1} of {total}")

    @on(Input.Changed, "#find-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    @on(Input.Submitted, "#find-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Step(1))

    def action_step(self, direction: int) -> None:
        """Ask for the next or previous match."""
        self.post_message(self.Step(direction))

    def action_leave(self) -> None:
        """Give up the keys (the bar and its marks stay)."""
        self.post_message(self.Left())

    def close(self) -> None:
        """Hide the bar (the query stays for the next :meth:`open`)."""
        self.remove_class("-open")

    def clear(self) -> None:
        """Empty the query and the count (for another topic), without a :class:`Changed`."""
        query = self.query_one("#find-input", Input)
        with query.prevent(Input.Changed):
            query.value = ""
        self.query_one("#find-count", Label).update("")
