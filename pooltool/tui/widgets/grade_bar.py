"""The grade bar: every grade of the scale, the one given to this document lit."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from pooltool.store.settings import GradeLevel
from pooltool.text import visible


class GradeBar(Widget):
    """One line: ``[0] not relevant  [1] related ...`` plus this document's state.

    The judging screen sets the reactive attributes; the bar redraws itself.

    :param scale: the store's grade scale.
    """

    grade: reactive[int | None] = reactive(None)
    skipped: reactive[bool] = reactive(False)
    note_waiting: reactive[bool] = reactive(False)

    def __init__(self, scale: list[GradeLevel], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale

    def render(self) -> Text:
        text = Text()
        for level in self.scale:
            lit = level.grade == self.grade
            style = "bold reverse" if lit else ""
            text.append(f" {visible(level.key)} ", style="bold reverse" if lit else "bold")
            text.append(f" {visible(level.name)} ", style=style)
            text.append("  ")
        text.append_text(self._state())
        return text

    def _state(self) -> Text:
        parts = []
        if self.grade is None:
            parts.append(("unjudged", "italic"))
        if self.skipped and self.grade is None:
            parts.append(("skipped", "italic yellow"))
        if self.note_waiting:
            parts.append(("note waits for a grade", "italic cyan"))
        return Text(" · ").join(Text(p, style=s) for p, s in parts)
