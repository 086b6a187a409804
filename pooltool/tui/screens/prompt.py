"""A one-line text prompt as a modal dialog (notes, scan terms), and a yes/no question."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from pooltool.tui.widgets.line_input import LineInput


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line of text: Enter returns it, Escape returns ``None``.

    :param title: what is asked (title and hint are shown as written, not as markup).
    :param value: the text the input starts with.
    :param hint: a line of help under the input.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str = "", hint: str = "", **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.title_text, self.value, self.hint = title, value, hint

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt"):
            yield Label(self.title_text, id="prompt-title", markup=False)
            # the cursor at the end of the text, none of it selected: a saved note
            # is edited, not replaced by the first key
            yield LineInput(value=self.value, id="prompt-input", select_on_focus=False)
            yield Label(self.hint or "Enter to save, Escape to cancel", id="prompt-hint",
                        markup=False)

    @on(Input.Submitted, "#prompt-input")
    def submit(self, event: Input.Submitted) -> None:
        """Return the text typed."""
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        """Close without a value."""
        self.dismiss(None)
