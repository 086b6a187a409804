"""A yes/no question as a modal dialog (a grade given after a topic is done; quitting
with writes not saved yet)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label


class ConfirmScreen(ModalScreen[bool]):
    """Ask ``question``: ``y`` or Enter returns ``True``, ``n`` or Escape ``False``;
    every other key does nothing (a grade key typed on does not answer).

    :param question: what is asked (shown as written, not as markup).
    :param hint: a line under it; default the keys that answer.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"), Binding("enter", "answer(True)", "Yes", show=False),
        Binding("n", "answer(False)", "No"), Binding("escape", "answer(False)", "No", show=False)]

    def __init__(self, question: str, hint: str = "y or Enter: yes · n or Esc: no",
                 **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.question, self.hint = question, hint

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt"):
            yield Label(self.question, id="prompt-title", markup=False)
            yield Label(self.hint, id="prompt-hint", markup=False)

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)
