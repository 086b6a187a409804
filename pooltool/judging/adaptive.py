"""Live adaptive pools: the strategy picks each assessor's next document from the log.

An adaptive pool (``pooltool pool --strategy NAME``) stores its strategy,
parameters, seed, per-topic budget and relevance level, and the runs it draws
on (:mod:`pooltool.store.adaptive`). Nothing else is kept: the next document
of a topic is rebuilt every time from

* the topic's judgment log: every live judgment with a grade, by any person
  (machines' judgments are left out, as the default qrels policy does), in
  the order made (``judgment_id``), a grade >= ``level`` relevant, a negative
  grade (unjudged in trec_eval) skipped; a document judged again keeps its
  first judgment (:meth:`~pooltool.judging.strategies.Chooser.observe`);
* the stored seed (through the strategy's parameters);
* the claims other assessors hold (:mod:`pooltool.store.claims`): a claimed
  document is set aside (:meth:`~pooltool.judging.strategies.Chooser.set_aside`)
  and the strategy's next choice is taken instead, so two assessors on one
  topic are never shown the same document.

So a judging app killed and restarted, or a second app on the same topic,
is shown what the log implies. The choice is recorded as a claim and as a
document of the pool (``pool_docs``: the documents chosen so far, which
``export-pool`` writes). **Budget**: a topic's budget is used by its chosen
documents that are judged or on another assessor's screen; once they reach
the budget the strategy chooses nothing more for the topic.

**Stopping** (:func:`unfound_estimate`): the relevant documents not found yet
are estimated as the share relevant among the topic's last
:data:`RECENT_WINDOW` judgments of chosen documents times the documents the
pool's runs retrieved that nobody has judged yet. This is pooltool's stated
extrapolation, not a published estimator: the strategies judge the likeliest
documents first, so the recent rate is higher than the rate further down and
the estimate errs high; a value near 0 says another judgment is unlikely to
pay.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from pooltool.errors import InvalidArgument, StoreError
from pooltool.judging.strategies import (
    Chooser,
    OrderChooser,
    RankedRun,
    Strategy,
    next_document,
    parse_strategy,
    topic_runs,
)
from pooltool.records import is_judged, is_relevant, topic_key
from pooltool.store import JudgmentStore
from pooltool.store.claims import DEFAULT_CLAIM_MINUTES

#: Judgments the stopping estimate's recent rate of relevant documents is taken over.
RECENT_WINDOW = 10

#: Times a choice is made again when another app claimed the same document first.
CLAIM_ATTEMPTS = 5


def create_adaptive_pool(store: JudgmentStore, name: str, strategy: str, budget: int | None,
                         seed: int = 0, run_tags: list[str] | None = None,
                         level: int = 1) -> dict[str, Any]:
    """Make an adaptive pool and choose each topic's first document.

    :param strategy: ``NAME`` or ``NAME:KEY=VALUE,...``
        (:func:`~pooltool.judging.strategies.parse_strategy`); ``seed``
        replaces a ``thompson`` seed not given there.
    :param budget: documents chosen per topic at most (``None``: no limit).
    :param run_tags: the runs it draws on (default: every stored run).
    :returns: the design as stored, with ``topics`` (topics with a first choice).
    :raises InvalidArgument: a bad strategy, budget or seed, or a per-run parameter
        naming a run not pooled.
    :raises StoreError: the name is taken, or the store has no runs.
    """
    if budget is not None and budget < 1:
        raise InvalidArgument(f"the budget must be at least 1 document per topic, got {budget}")
    if seed < 0:
        raise InvalidArgument(f"the seed must be a whole number >= 0, got {seed}")
    chosen = parse_strategy(strategy, {"seed": float(seed)})
    tags = list(run_tags) if run_tags else store.run_tags()
    if not tags:
        raise StoreError("the store has no runs to pool: add some with 'pooltool add-runs'")
    design: dict[str, Any] = {"strategy": chosen.name, "params": chosen.params,
                                 "seed": int(chosen.params.get("seed", seed)),
                                 "budget": budget, "level": level}
    chosen.check_run_tags(tags)
    store.add_adaptive_pool(name, design, tags)
    picker = AdaptivePicker(store, name)
    topics = [topic for topic in picker.topics()
              if picker.choose(topic, assessor="", claim=False) is not None]
    return {**design, "run_tags": tags, "topics": topics}


@dataclass
class AdaptivePicker:
    """The strategy of one adaptive pool, choosing documents from the store's log.

    :param store: the store.
    :param pool: the adaptive pool's name.
    :raises InvalidArgument: the pool is not adaptive.
    """

    store: JudgmentStore
    pool: str

    def __post_init__(self) -> None:
        design = self.store.adaptive_design(self.pool)
        if design is None:
            raise InvalidArgument(f"pool {self.pool!r} is not an adaptive pool "
                                  "(made with 'pooltool pool --strategy')")
        self.strategy = Strategy(str(design["strategy"]),
                                 {k: float(v) for k, v in design["params"].items()})
        self.budget: int | None = design["budget"]
        self.level = int(design["level"])
        #: tag -> store id of the run the pool was built from (live or retired since)
        self.run_ids: dict[str, int] = dict(design["runs"])
        self._runs: dict[str, tuple[RankedRun, ...]] = {}
        self._orders: dict[str, list[str] | None] = {}

    def topics(self) -> list[str]:
        """The topics any of the pool's runs has entries for (string order)."""
        return self.store.run_topics(list(self.run_ids.values()))

    def runs(self, topic: str) -> tuple[RankedRun, ...]:
        """The topic's runs in tag order, read once: the runs the pool was built from
        (by store id), not whatever run a tag names now."""
        if topic not in self._runs:
            entries = self.store.topic_entries(self.run_ids, topic)
            self._runs[topic] = topic_runs(entries).get(topic, ()) if len(entries) else ()
        return self._runs[topic]

    def chooser(self, topic: str) -> Chooser:
        """A new chooser for the topic; a static order is computed once and kept."""
        if topic not in self._orders:
            self._orders[topic] = self.strategy.static_order(self.runs(topic))
        order = self._orders[topic]
        return OrderChooser(order) if order is not None else \
            self.strategy.chooser(self.runs(topic), topic)

    def log(self, topic: str) -> list[tuple[str, bool]]:
        """The topic's judgment log as the strategy sees it (module docstring):
        ``(docno, relevant)`` in the order made."""
        machines = self.store.machines()
        return [(docno, bool(is_relevant(grade, self.level)))
                for _, docno, assessor, grade in self.store.topic_log(topic)
                if is_judged(grade) and assessor not in machines]

    def next_for(self, topic: str, assessor: str,
                 pending: Iterable[tuple[str, bool]] = ()) -> str | None:
        """The document the strategy shows ``assessor`` next on ``topic``, or ``None``
        (the budget is used, or the runs have nothing left).

        :param pending: the assessor's judgments not in the store yet (a judging
            app's writes waiting for a busy store), appended to the log.
        """
        log = [*self.log(topic), *pending]
        judged = {docno for docno, _ in log}
        taken = self.store.claimed_by_others(topic, assessor) - judged
        if self.budget is not None:
            chosen = {docno for docno, _ in self.store.topic_pool_docs(topic, self.pool)}
            if len(chosen & judged) + len(chosen & taken) >= self.budget:
                return None
        chooser = self.chooser(topic)
        docno = next_document(chooser, log)
        while docno is not None and docno in taken:
            chooser.set_aside(docno)
            docno = chooser.next()
        return docno

    def choose(self, topic: str, assessor: str, pending: Iterable[tuple[str, bool]] = (),
               claim: bool = True) -> str | None:
        """:meth:`next_for`, recorded: the document joins the pool and, with ``claim``,
        is claimed for ``assessor``; a document another app claimed first is
        chosen again without it.

        :returns: the document, or ``None``.
        """
        pending = list(pending)
        minutes = float(self.store.setting("claim_minutes", DEFAULT_CLAIM_MINUTES))
        for _ in range(CLAIM_ATTEMPTS):
            docno = self.next_for(topic, assessor, pending)
            if docno is None:
                return None
            self.store.add_choice(self.pool, topic, docno, self.hits(topic, docno))
            if not claim or self.store.claim(topic, docno, assessor, minutes):
                return docno
        return None

    def hits(self, topic: str, docno: str) -> list[tuple[str, int]]:
        """The runs that retrieved a document of the topic, with its trec_eval rank."""
        return [(run.tag, run.docnos.index(docno) + 1)
                for run in self.runs(topic) if docno in run.docnos]

    def unjudged_candidates(self, topic: str, judged: set[str]) -> int:
        """Documents the runs retrieved for the topic that are not in ``judged``."""
        return len({d for run in self.runs(topic) for d in run.docnos} - judged)


def unfound_estimate(recent: list[bool], unjudged: int) -> float:
    """Relevant documents not found yet (module docstring): the share relevant among
    the last :data:`RECENT_WINDOW` of ``recent`` times ``unjudged``.

    :param recent: the topic's judgments of chosen documents, relevant or not, in
        the order made.
    :param unjudged: the documents the runs retrieved that nobody has judged.
    :returns: documents (not rounded); NaN before the first judgment.
    """
    window = recent[-RECENT_WINDOW:]
    if not window:
        return math.nan
    return sum(window) / len(window) * unjudged


def adaptive_status(store: JudgmentStore, pool: str) -> pd.DataFrame:
    """Budget and stopping estimate per topic of an adaptive pool.

    :returns: one row per topic the runs have, in
        :func:`~pooltool.records.topic_key` order: ``topic, budget`` (NaN: no
        limit), ``budget_used`` (chosen documents judged), ``relevant_found``
        (of those, relevant at the pool's level), ``recent_rate`` (share
        relevant among the last :data:`RECENT_WINDOW`), ``est_unfound``
        (:func:`unfound_estimate`).
    :raises InvalidArgument: the pool is not adaptive.
    """
    picker = AdaptivePicker(store, pool)
    rows = []
    for topic in sorted(picker.topics(), key=topic_key):
        rows.append(topic_stopping(picker, topic))
    return pd.DataFrame(rows, columns=["topic", "budget", "budget_used", "relevant_found",
                                       "recent_rate", "est_unfound"])


def topic_stopping(picker: AdaptivePicker, topic: str) -> dict[str, object]:
    """One topic's row of :func:`adaptive_status`."""
    chosen = {docno for docno, _ in picker.store.topic_pool_docs(topic, picker.pool)}
    log = picker.log(topic)
    first: dict[str, bool] = {}
    for docno, relevant in log:
        first.setdefault(docno, relevant)
    recent = [relevant for docno, relevant in first.items() if docno in chosen]
    window = recent[-RECENT_WINDOW:]
    unjudged = picker.unjudged_candidates(topic, set(first))
    return {"topic": topic, "budget": math.nan if picker.budget is None else picker.budget,
            "budget_used": len(recent), "relevant_found": sum(recent),
            "recent_rate": sum(window) / len(window) if window else math.nan,
            "est_unfound": unfound_estimate(recent, unjudged),
            # what the estimate is made of (the judging screen shows it; not a status column)
            "recent_judged": len(window), "recent_relevant": sum(window), "unjudged": unjudged}
