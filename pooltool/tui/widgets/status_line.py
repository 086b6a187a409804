"""The judging screen's status line: where the assessor is, what is judged, pace.

``Topic 7 · 37 / 120 · doc184 · you 36 · others 5 · left 79 of 120 · 142/h ·
12.3 s/doc · ETA 41 min``: the position, the docno, then the topic's queue
counted three ways that add up to its size (judged by you; judged by other
assessors and not by you, on a shared topic; left to judge), each named, so
that no figure reads two ways. On an adaptive pool the line adds the budget and
the stopping estimate, with its basis (:func:`stopping_text`).
"""

from __future__ import annotations

import math

from rich.text import Text

from pooltool.judging.copies import copies_text
from pooltool.judging.pace import eta_hours
from pooltool.judging.session import JudgingSession
from pooltool.text import visible

DOCNO_WIDTH = 24


def status_text(session: JudgingSession, show_runs: bool = False, reading: bool = True) -> Text:
    """The status line of ``session`` (module docstring).

    The position comes before the docno, and a docno longer than
    :data:`DOCNO_WIDTH` is cut with an ellipsis, so the position always shows; the
    line wraps on a narrow screen. ``others`` shows only when others judged some of
    the queue. Not ``reading``: without the parts read from the store now (an
    adaptive pool's budget, the runs: its server is unreachable).

    :raises StoreConnectionLost: ``reading`` and the store's server is gone.
    """
    s = session
    parts = [Text(f"Topic {visible(s.topic)}", style="bold"),
             Text(f"{s.position + 1} / {len(s.queue)}", style="bold"),
             Text(shorten(visible(s.docno), DOCNO_WIDTH), style="bold"),
             *judged_parts(s.judged, s.judged_by_others_only, s.remaining, len(s.queue))]
    if s.copies.of(s.docno):  # the queue shows them as this one (pooltool.judging.copies)
        parts.insert(3, Text(copies_text(len(s.copies.of(s.docno))), style="bold"))
    speed = s.pace()
    if not math.isnan(speed.per_hour):
        eta = eta_hours(s.remaining, speed.per_hour)
        parts += [Text(f"{speed.per_hour:.0f}/h"), Text(f"{speed.median_seconds:.1f} s/doc"),
                  Text(f"ETA {format_hours(eta)}")]
    stopping = s.stopping() if reading else None
    if stopping is not None:
        parts.append(Text(stopping_text(stopping)))
    if show_runs and reading:
        parts.append(Text(f"runs: {visible(s.provenance())}", style="dim"))
    return Text(" · ").join(parts + waiting_parts(s))


def judged_parts(mine: int, others: int, left: int, total: int) -> list[Text]:
    """``you 4``, ``others 4`` (only when some), ``left 0 of 8``."""
    parts = [Text(f"you {mine}")]
    if others:
        parts.append(Text(f"others {others}"))
    return [*parts, Text(f"left {left} of {total}")]


def waiting_parts(session: JudgingSession) -> list[Text]:
    """The status line's last part: writes waiting, and why (none: nothing)."""
    pending, offline = session.writes.pending, session.writes.offline
    if offline:
        return [Text(f"store's server unreachable: {pending} write(s) wait in the journal"
                     if pending else "store's server unreachable", style="bold red")]
    if pending and session.writes.full is not None:
        return [Text(f"{pending} write(s) not saved yet: the disk is full", style="bold red")]
    if pending:
        return [Text(f"{pending} write(s) waiting: store busy", style="bold red")]
    return []


def stopping_text(row: dict[str, object]) -> str:
    """``budget 7/20 · 3 relevant · est. 12.4 relevant left (4 of last 10 relevant ×
    31 unjudged)`` for an adaptive pool's topic
    (:func:`~pooltool.judging.adaptive.topic_stopping`): the estimate with what it is
    made of, and no estimate at all before the topic's first judgment."""
    budget = row["budget"]
    limit = "" if isinstance(budget, float) and math.isnan(budget) else f"/{budget}"
    text = f"budget {row['budget_used']}{limit} · {row['relevant_found']} relevant"
    estimate = row["est_unfound"]
    if isinstance(estimate, float) and math.isnan(estimate):
        return text
    return (f"{text} · est. {estimate:.1f} relevant left ({row['recent_relevant']} of last "
            f"{row['recent_judged']} relevant × {row['unjudged']} unjudged)")


def shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the last one an ellipsis when cut."""
    return text if len(text) <= width else text[: width - 1] + "…"


def format_hours(hours: float) -> str:
    """A duration for people: ``<1 min``, ``41 min``, ``2 h 05 min``, or ``?`` when unknown."""
    if math.isnan(hours):
        return "?"
    minutes = round(hours * 60)
    if minutes == 0:
        return "0 min" if hours == 0 else "<1 min"
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"
