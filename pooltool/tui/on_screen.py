"""Which document the terminal shows, and whether a key was pressed while it showed it.

A key typed ahead while the screen was busy (a slow write, a frozen terminal) reaches
the judging screen after the document it was meant for has gone: it must not grade
the next document, which the assessor has not seen. A document counts as on screen
from the refresh that drew it (Textual's ``call_after_refresh``); a key counts for it
when it was pressed then or later (Textual's ``Key.time``, the monotonic time the key
event was made, when the terminal's input was read).
"""

from __future__ import annotations

import time

from textual.message_pump import MessagePump


class OnScreen:
    """The document on the terminal since when, and the time of the key being handled.

    :ivar drawn: ``(docno, monotonic seconds)`` once drawn; ``None`` while the document
        put on screen waits for the refresh that draws it.
    :ivar key_time: when the key being handled was pressed (the app sets it; ``None``:
        not a key).
    """

    def __init__(self) -> None:
        self.drawn: tuple[str, float] | None = None
        self.key_time: float | None = None
        self._shown = 0  # counts showings and hidings: a refresh of an older one is stale

    def showing(self, screen: MessagePump, docno: str) -> None:
        """``docno`` is put on ``screen``: it counts as on screen after the next refresh
        (nothing changes when it is the document drawn already)."""
        if self.drawn is None or self.drawn[0] != docno:
            self.drawn, self._shown = None, self._shown + 1
            screen.call_after_refresh(self._drawn, docno, self._shown)

    def hidden(self) -> None:
        """No document is on screen to grade (the next one waits for its claim): a key
        counts for none until the next :meth:`showing` is drawn, whose time is taken
        anew, so keys pressed while nothing was shown do not count for it."""
        self.drawn, self._shown = None, self._shown + 1

    def _drawn(self, docno: str, shown: int) -> None:
        if shown == self._shown:  # not hidden or replaced since
            self.drawn = (docno, time.monotonic())

    def pressed_on(self, docno: str) -> bool:
        """Whether the key being handled was pressed while ``docno`` was drawn (a call
        not from a key counts as on screen). Takes the key's time: the next call sees
        none."""
        pressed, self.key_time = self.key_time, None
        if pressed is None:
            return True
        return self.drawn is not None and self.drawn[0] == docno and pressed >= self.drawn[1]
