"""What the judging app shows on a terminal too small to judge in (a tmux split, a
phone's SSH client): what it needs, until the terminal is that large again."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

MIN_COLUMNS, MIN_ROWS = 40, 12
"""The smallest terminal the judging screen is usable in: the topic pane (24 columns at
least) beside a document pane, status line, grade bar and footer."""


def too_small(columns: int, rows: int) -> bool:
    """Whether a terminal of ``columns`` x ``rows`` is below :data:`MIN_COLUMNS` x :data:`MIN_ROWS`."""
    return columns < MIN_COLUMNS or rows < MIN_ROWS


def needs_text(columns: int, rows: int) -> str:
    """``Terminal 20x10: pooltool judge needs 40x12 ...``."""
    return (f"Terminal {columns}x{rows}: pooltool judge needs {MIN_COLUMNS}x{MIN_ROWS} at "
            "least. Enlarge it to go on (nothing is lost); q quits.")


class TooSmallScreen(ModalScreen[None]):
    """Covers the app while the terminal is too small (:func:`too_small`); grade keys do
    nothing under it, ``q`` quits. The app removes it once the terminal is large enough.

    :param columns: the terminal's width now.
    :param rows: its height.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "app.quit", "Quit")]

    def __init__(self, columns: int, rows: int, **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.columns, self.rows = columns, rows

    def compose(self) -> ComposeResult:
        yield Static(needs_text(self.columns, self.rows), id="too-small", markup=False)

    def show_size(self, columns: int, rows: int) -> None:
        """The terminal changed size but is still too small: say its size now."""
        self.columns, self.rows = columns, rows
        self.query_one("#too-small", Static).update(needs_text(columns, rows))
