"""Active judging time: the time the judging app is in use, idle time left out.

Definition: from the moment a document is shown, every input event (a key, a
mouse click, move or scroll) closes a gap since the previous event (or since the
document was shown); a gap counts in full up to ``idle_s`` seconds (store
setting ``idle_seconds``, default :data:`DEFAULT_IDLE_S`) and no more, as the
assessor is taken to be away after that long without touching anything. The
active time of a judgment is the sum of the counted gaps up to its grade key,
in milliseconds (``judgments.ms_active``); ``ms_spent`` keeps the wall time.
Both are taken from one reading of the clock and rounded alike
(:meth:`ActivityClock.measure`), so the active time never exceeds the time spent.
Pace and ETA (:mod:`pooltool.judging.pace`) use the active time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

DEFAULT_IDLE_S = 60.0


class ActivityClock:
    """Counts active time for the document on screen.

    :param idle_s: the longest gap between input events that counts in full, seconds.
    :param now: the clock (seconds, monotonic); tests pass their own.
    """

    def __init__(self, idle_s: float = DEFAULT_IDLE_S,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.idle_s, self.now = float(idle_s), now
        self.restart()

    def restart(self) -> None:
        """A new document is shown: nothing counted yet."""
        self.active_s = 0.0
        self.started = self.last = self.now()

    def touch(self) -> None:
        """An input event: count the gap since the previous one (capped at ``idle_s``)."""
        moment = self.now()
        self.active_s += min(moment - self.last, self.idle_s)
        self.last = moment

    def active_ms(self) -> int:
        """Active milliseconds so far, the open gap counted up to ``idle_s``."""
        return self.measure()[1]

    def measure(self) -> tuple[int, int]:
        """``(ms_spent, ms_active)`` now, from one reading of the clock: the wall time
        since the document was shown and the active time (the open gap counted up to
        ``idle_s``), both rounded to the nearest millisecond; ``ms_active <= ms_spent``."""
        moment = self.now()
        spent = moment - self.started
        active = min(self.active_s + min(moment - self.last, self.idle_s), spent)
        return int(round(spent * 1000)), int(round(active * 1000))
