"""A one-line input that keeps the whole of a pasted text.

Textual's :class:`~textual.widgets.Input` keeps only the first line of a paste.
Text copied from a hard-wrapped document breaks its lines where the window did,
so :class:`LineInput` (the find bar, the scan terms, the note prompt) joins every
line of a paste with one space (:func:`one_line`) and loses nothing of it.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


def one_line(text: str) -> str:
    """``text`` on one line: each line break (``\\n``, ``\\r\\n``, ``\\r``, or any other
    :meth:`str.splitlines` ends a line at) and the spaces around it become one space;
    line breaks at the start and end are dropped, blank lines too.

    ``one_line("boundary\\r\\n  layer\\n\\nflow\\n") == "boundary layer flow"``
    """
    lines = text.splitlines()
    if len(lines) <= 1:
        return lines[0] if lines else ""
    parts = [lines[0].rstrip(), *(line.strip() for line in lines[1:-1]), lines[-1].lstrip()]
    return " ".join(part for part in parts if part)


class LineInput(Input):
    """An :class:`~textual.widgets.Input` whose paste keeps every line, joined by spaces
    (:func:`one_line`), at the cursor or over the selection."""

    def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()  # not Input's own, which keeps the first line only
        event.stop()
        text = one_line(event.text)
        if not text:
            return
        if self.selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *self.selection)
