"""Pooling strategies: which document of a topic to judge next.

A strategy sees one topic's runs, each ranked in trec_eval order
(:func:`pooltool.ranking.order_run`: score descending, docno descending), and
the judgments made so far, and names the next document to judge, or ``None``
when it has nothing left. Every strategy is a :class:`Chooser`:
:meth:`Chooser.next` names the document, :meth:`Chooser.observe` records a
judgment. A chooser's state is a pure function of the runs, the strategy's
parameters (the seed included) and the judgments in the order they were made:
:func:`next_document` rebuilds it from such a log, so nothing has to be kept in
memory between judgments.

Runs are taken in run-tag order (string order) wherever an order of runs
matters. Documents tied on a fused score are taken in docno order (ascending,
string order).

Static orders (the order never depends on the judgments):

* ``depth`` (k, default 7): the union of every run's first k documents, judged
  in docno order, as NIST judges a depth-k pool (Sparck Jones and van
  Rijsbergen 1975; TREC). Nothing beyond the pool: ``None`` once it is judged.
* ``rundepth`` (k, default 7; ``k.TAG=N`` a run's own depth; ``first.TAG=1``
  a priority run): the union of every run's first k documents, each run to
  its own depth where ``k.TAG`` gives one (0 leaves the run out); the
  documents a priority run put in come first, then the others, each part in
  docno order (TREC's per-run pool depths and judging priorities, e.g. the
  priority runs participants name; Voorhees and Harman 2005, 'TREC:
  Experiment and Evaluation in Information Retrieval', ch. 2). With no
  ``k.TAG`` and no priority run it is ``depth``. A tag with ``,`` or ``=``
  in it cannot be named.
* ``roundrobin``: Take@N: every run's rank-1 document, then every run's rank-2
  document, and so on, each document once (Lipani et al. 2017, 'Fixed-cost
  pooling strategies based on IR evaluation measures').
* ``rrf`` (k, default 60): reciprocal rank fusion, score(d) = sum over the runs
  that retrieve d of 1 / (k + rank) (Cormack, Clarke and Buettcher 2009).
* ``borda``: Borda count (Aslam and Montague 2001, 'Models for metasearch'):
  with c the documents any run retrieves, a run gives c - rank + 1 points to
  its document at ``rank`` and shares what is left evenly among the documents
  it does not retrieve, (c - n + 1) / 2 each for a run of n documents.
* ``combsum``: CombSUM (Fox and Shaw 1994) of min-max normalised scores (Lee
  1997): (s - min) / (max - min) per run and topic; 1 for every document of a
  run whose scores are all equal; 0 for a document the run lacks.
* ``rbp`` (p, default 0.8): the sum over runs of the rank-biased precision
  weight (1 - p) p^(rank - 1) of the document's rank (Moffat, Webber and Zobel
  2007, 'Strategic system comparisons via targeted relevance judgments').

Adaptive (each run is an arm; the document judged next comes from the chosen
run: its best-ranked document not judged yet; a judgment of the document a
chooser named counts for the run it came from; any other judgment (another
assessor's, in a live pool) counts for the first run, in tag order, whose
best-ranked unjudged document it is, and otherwise only makes that document
judged; a run with nothing left unjudged drops out):

* ``mtf``: Move-to-Front (Cormack, Palmer and Clarke 1998, 'Efficient
  construction of large test collections'): every run starts with priority
  0; a non-relevant document lowers its run's priority by 1. The next run is
  the last chosen one while its priority is still the highest, else the first
  run (tag order) with the highest priority.
* ``maxmean``: MaxMean (Losada, Parapar and Barreiro 2016, 'Feeling lucky?
  Multi-armed bandits for ordering judgements in pooling-based evaluation';
  IPM 2017): the run with the largest posterior mean (rel + 1) / (rel + nonrel
  + 2) of a Beta(1, 1) prior, rel and nonrel its relevant and non-relevant
  judgments; ties to the first run (tag order).
* ``mmns`` (gamma, default 0.9): MaxMean, non-stationary (Losada, Parapar and
  Barreiro 2017): as ``maxmean`` with discounted counts: each judgment of a run
  first multiplies its rel and nonrel by gamma, then adds 1 to one of them, so
  the latest judgments weigh most (a run's documents grow less likely to be
  relevant deeper down).
* ``thompson`` (seed, default 0; a, b, default 1): Thompson sampling (Thompson
  1933): draw from Beta(a + rel, b + nonrel) for every run, in tag order, with
  numpy's PCG64 generator seeded by (seed, CRC-32 of the topic id); the largest
  draw wins (ties to the first run).

Adaptive over documents:

* ``hedge`` (beta, default 0.1): Hedge (Freund and Schapire 1997) as Aslam,
  Pavlu and Savell 2003 use it for pooling ('A unified model for metasearch,
  pooling, and system evaluation'): every run is an expert with weight 1 at
  first. Run s of Z documents values its document at rank r by the
  average-precision prior a_s(r) = (H_Z - H_(r-1)) / H_Z (H_n the n-th
  harmonic number: 1 at rank 1, falling with rank), 0 for a document it
  lacks. The next document is the unjudged one with the largest
  sum_s w_s a_s(d) (ties in docno order). A judgment of d costs run s the
  loss 1 - a_s(d) when d is relevant, a_s(d) when not, and w_s becomes
  w_s * beta^loss. Every judgment counts, named or not. The loss's form
  (the AP prior in [0, 1]) and beta's default are pooltool's reading of the
  paper, which could not be checked against its text here.

Where a paper leaves a choice open (tie rules, MTF's step of 1, the form and
default of MM-NS's discount), the rule above is pooltool's; the definitions
were written from the papers as cited, not checked line by line against
their text (only the abstracts could be read). The one public MTF found,
Li and Kanoulas' ``activesampling`` (``acsp/models/mtf.py``, not the
authors'), starts on a random run and always leaves a run after a
non-relevant document, for the best other run.
"""

from __future__ import annotations

import math
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from pooltool.errors import InvalidArgument, PooltoolError
from pooltool.ranking import order_run


@dataclass(frozen=True)
class RankedRun:
    """One run's documents for one topic, in trec_eval order.

    :ivar tag: the run tag.
    :ivar docnos: document ids, best first.
    :ivar scores: their scores (same length).
    """

    tag: str
    docnos: tuple[str, ...]
    scores: tuple[float, ...]


def topic_runs(frame: pd.DataFrame) -> dict[str, tuple[RankedRun, ...]]:
    """Split run lines into each topic's ranked runs.

    :param frame: run lines with ``run_tag, topic, docno, score`` (as
        :func:`~pooltool.formats.run.read_run` returns); a ``trec_rank``
        column, if present, is trusted as the order.
    :returns: topic -> its runs in run-tag order, each in trec_eval order.
    """
    ordered = frame if "trec_rank" in frame.columns else order_run(frame)
    ordered = ordered.sort_values(["topic", "run_tag", "trec_rank"], kind="stable")
    topic = ordered["topic"].to_numpy(dtype=object)
    tag = ordered["run_tag"].to_numpy(dtype=object)
    docnos = ordered["docno"].to_numpy(dtype=object).tolist()
    scores = ordered["score"].to_numpy(dtype=np.float64).tolist()
    starts = np.flatnonzero(np.r_[True, (topic[1:] != topic[:-1]) | (tag[1:] != tag[:-1])])
    topics: dict[str, list[RankedRun]] = {}
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(docnos)], strict=True):
        topics.setdefault(str(topic[start]), []).append(RankedRun(
            str(tag[start]), tuple(map(str, docnos[start:end])), tuple(scores[start:end])))
    return {name: tuple(runs) for name, runs in topics.items()}


class Chooser(ABC):
    """A strategy's state for one topic: the next document to judge, given the judgments.

    :cvar learns_from_any: the strategy learns alike from every judgment, named or
        not (so rebuilding it from a log need not ask for each named document).
    """

    learns_from_any = False

    def __init__(self) -> None:
        self.judged: set[str] = set()
        self._asked = False
        self._pick: str | None = None

    def next(self) -> str | None:
        """The document to judge next, or ``None`` when the strategy has none left.

        Calling it again before :meth:`observe` names the same document.
        """
        if not self._asked:
            self._pick, self._asked = self._choose(), True
        return self._pick

    def observe(self, docno: str, relevant: bool) -> None:
        """Record a judgment: ``docno`` is now judged, relevant or not.

        When ``docno`` is the document :meth:`next` named, adaptive strategies
        count the judgment for the run it came from; any other document only
        becomes judged. A document judged again changes nothing.
        """
        named, self._asked = self._pick if self._asked else None, False
        if docno not in self.judged:
            if docno == named:
                self.judged.add(docno)
                self._learn(relevant)
            else:
                self._learn_other(docno, relevant)
                self.judged.add(docno)

    def set_aside(self, docno: str) -> None:
        """Leave a document out of the choices without a judgment (another assessor
        has it on screen); nothing is learnt from it."""
        self.judged.add(docno)
        self._asked = False

    @abstractmethod
    def _choose(self) -> str | None:
        """The next document, from the state."""

    @abstractmethod
    def _learn(self, relevant: bool) -> None:
        """Update the state after the document :meth:`_choose` named was judged."""

    @abstractmethod
    def _learn_other(self, docno: str, relevant: bool) -> None:
        """Update the state after a document it did not name was judged."""


class OrderChooser(Chooser):
    """A static order: the first document of ``order`` not judged yet."""

    def __init__(self, order: Sequence[str]) -> None:
        super().__init__()
        self.order = list(order)
        self._at = 0

    def _choose(self) -> str | None:
        while self._at < len(self.order) and self.order[self._at] in self.judged:
            self._at += 1
        return self.order[self._at] if self._at < len(self.order) else None

    def _learn(self, relevant: bool) -> None:
        """A static order learns nothing."""

    def _learn_other(self, docno: str, relevant: bool) -> None:
        """A static order learns nothing."""


class ArmChooser(Chooser):
    """An adaptive strategy over runs as arms; subclasses pick the arm (:meth:`_select`).

    :ivar at: per run, the position of its best-ranked document not judged yet.
    :ivar rel, nonrel: per run, its relevant and non-relevant judgments (weights).
    :ivar last: the run chosen last (``None`` before the first choice).
    """

    def __init__(self, runs: Sequence[RankedRun]) -> None:
        super().__init__()
        self.runs = list(runs)
        self.at = [0] * len(self.runs)
        self.rel = [0.0] * len(self.runs)
        self.nonrel = [0.0] * len(self.runs)
        self.last: int | None = None

    def _choose(self) -> str | None:
        live = [arm for arm in range(len(self.runs)) if self._advance(arm)]
        if not live:
            return None
        self.last = self._select(live)
        return self.runs[self.last].docnos[self.at[self.last]]

    def _advance(self, arm: int) -> bool:
        """Move the run's pointer past judged documents; false when none is left."""
        docnos = self.runs[arm].docnos
        while self.at[arm] < len(docnos) and docnos[self.at[arm]] in self.judged:
            self.at[arm] += 1
        return self.at[arm] < len(docnos)

    def _learn(self, relevant: bool) -> None:
        assert self.last is not None  # a document was named, so a run was chosen
        self._credit(self.last, relevant)

    def _learn_other(self, docno: str, relevant: bool) -> None:
        for arm in range(len(self.runs)):
            if self._advance(arm) and self.runs[arm].docnos[self.at[arm]] == docno:
                self._credit(arm, relevant)
                return

    def _credit(self, arm: int, relevant: bool) -> None:
        if relevant:
            self.rel[arm] += 1
        else:
            self.nonrel[arm] += 1

    @abstractmethod
    def _select(self, live: list[int]) -> int:
        """The arm to draw from, among ``live`` (arms with documents left, in tag order)."""


class MoveToFront(ArmChooser):
    """Move-to-Front (Cormack, Palmer and Clarke 1998); see the module docstring."""

    def __init__(self, runs: Sequence[RankedRun]) -> None:
        super().__init__(runs)
        self.priority = [0] * len(self.runs)

    def _credit(self, arm: int, relevant: bool) -> None:
        super()._credit(arm, relevant)
        if not relevant:
            self.priority[arm] -= 1

    def _select(self, live: list[int]) -> int:
        best = max(self.priority[arm] for arm in live)
        if self.last in live and self.priority[self.last] == best:
            return self.last
        return next(arm for arm in live if self.priority[arm] == best)


class MaxMean(ArmChooser):
    """MaxMean (Losada, Parapar and Barreiro 2016); see the module docstring."""

    def _select(self, live: list[int]) -> int:
        means = [(self.rel[arm] + 1) / (self.rel[arm] + self.nonrel[arm] + 2) for arm in live]
        return live[means.index(max(means))]


class MaxMeanNonStationary(MaxMean):
    """MM-NS (Losada, Parapar and Barreiro 2017): MaxMean with counts discounted by ``gamma``."""

    def __init__(self, runs: Sequence[RankedRun], gamma: float) -> None:
        super().__init__(runs)
        self.gamma = gamma

    def _credit(self, arm: int, relevant: bool) -> None:
        self.rel[arm] *= self.gamma
        self.nonrel[arm] *= self.gamma
        super()._credit(arm, relevant)


class Thompson(ArmChooser):
    """Thompson sampling with Beta(a, b) priors, seeded; see the module docstring."""

    def __init__(self, runs: Sequence[RankedRun], topic: str, seed: int, a: float,
                 b: float) -> None:
        super().__init__(runs)
        self.rng = np.random.default_rng([seed, zlib.crc32(topic.encode("utf-8"))])
        self.a, self.b = a, b

    def _select(self, live: list[int]) -> int:
        alpha = np.array([self.a + self.rel[arm] for arm in live])
        beta = np.array([self.b + self.nonrel[arm] for arm in live])
        draws = self.rng.beta(alpha, beta)
        return live[int(np.argmax(draws))]


class Hedge(Chooser):
    """Hedge over runs as experts, choosing documents (Aslam, Pavlu and Savell 2003);
    see the module docstring.

    :ivar docnos: every document the runs retrieve, in docno order.
    :ivar values: runs x documents, a_s(d).
    :ivar weights: per run, w_s.
    """

    learns_from_any = True

    def __init__(self, runs: Sequence[RankedRun], beta: float) -> None:
        super().__init__()
        self.docnos, self.column, self.values = hedge_table(tuple(runs))
        self.weights = np.ones(len(runs))
        self.open = np.ones(len(self.docnos), dtype=bool)
        self.beta = beta

    def _choose(self) -> str | None:
        if not self.open.any():
            return None
        scores = np.where(self.open, self.weights @ self.values, -np.inf)
        return self.docnos[int(np.argmax(scores))]  # the first largest: docno order

    def _learn(self, relevant: bool) -> None:
        """Counted in :meth:`_learn_other`, which every judgment reaches."""

    def _learn_other(self, docno: str, relevant: bool) -> None:
        column = self.column.get(docno)
        if column is None:
            return
        self.open[column] = False
        value = self.values[:, column]
        self.weights = self.weights * self.beta ** np.where(relevant, 1 - value, value)

    def observe(self, docno: str, relevant: bool) -> None:
        """Record a judgment; Hedge learns from every judgment, named or not."""
        if docno not in self.judged:
            self._learn_other(docno, relevant)
        self.judged.add(docno)
        self._asked = False

    def set_aside(self, docno: str) -> None:
        column = self.column.get(docno)
        if column is not None:
            self.open[column] = False
        super().set_aside(docno)


@lru_cache(maxsize=2)
def hedge_table(runs: tuple[RankedRun, ...]) -> tuple[list[str], dict[str, int], np.ndarray]:
    """Hedge's fixed part for one topic's runs, kept for the last two topics asked
    (a live pool rebuilds the chooser at every choice): every document in docno
    order, its column, and the runs x documents AP-prior values (read only)."""
    every = np.array([d for run in runs for d in run.docnos], dtype=object)
    codes, uniques = pd.factorize(every, sort=True)  # codes in docno order
    docnos = [str(d) for d in uniques]
    values = np.zeros((len(runs), len(docnos)))
    rows = np.repeat(np.arange(len(runs)), [len(run.docnos) for run in runs])
    if len(every):
        values[rows, codes] = np.concatenate([ap_prior(len(run.docnos)) for run in runs])
    values.flags.writeable = False
    return docnos, dict(zip(docnos, range(len(docnos)), strict=True)), values


def ap_prior(z: int) -> np.ndarray:
    """The average-precision prior of ranks 1..z, scaled to 1 at rank 1:
    (H_z - H_(r-1)) / H_z (Aslam, Pavlu and Yilmaz 2005, 'Measure-based metasearch')."""
    if z == 0:
        return np.zeros(0)
    tail = np.cumsum(1.0 / np.arange(z, 0, -1))[::-1]  # sum_{i=r}^{z} 1/i for r = 1..z
    return tail / tail[0]


# --- static orders -------------------------------------------------------------------


def depth_order(runs: Sequence[RankedRun], k: int) -> list[str]:
    """The union of the runs' first ``k`` documents in docno order (ascending)."""
    return sorted({docno for run in runs for docno in run.docnos[:k]})


def run_depth_order(runs: Sequence[RankedRun], params: dict[str, float]) -> list[str]:
    """Per-run depths and priority runs (``rundepth``; see the module docstring)."""
    depth = {run.tag: int(params.get(f"k.{run.tag}", params["k"])) for run in runs}
    first = {docno for run in runs if params.get(f"first.{run.tag}", 0)
             for docno in run.docnos[:depth[run.tag]]}
    pooled = {docno for run in runs for docno in run.docnos[:depth[run.tag]]}
    return sorted(first) + sorted(pooled - first)


def round_robin_order(runs: Sequence[RankedRun]) -> list[str]:
    """Take@N: rank by rank, runs in the order given, each document at its first appearance."""
    if not runs:
        return []
    docnos = [d for run in runs for d in run.docnos]
    ranks = np.concatenate([np.arange(len(run.docnos)) for run in runs])
    which = np.concatenate([np.full(len(run.docnos), i) for i, run in enumerate(runs)])
    order = np.lexsort((which, ranks))
    return list(dict.fromkeys(docnos[i] for i in order.tolist()))


def fused_order(runs: Sequence[RankedRun],
                weights: Callable[[RankedRun], Sequence[float]]) -> list[str]:
    """Documents by the sum over runs of their weight in the run, largest first, ties in
    docno order; ``weights(run)`` gives the weight of each of its documents, best first.

    Each document's terms are added in increasing order, so the same terms in any run
    order give the same sum and documents with equal terms tie exactly.
    """
    docnos = np.array([d for run in runs for d in run.docnos], dtype=object)
    if not len(docnos):
        return []
    terms = np.array([w for run in runs for w in weights(run)], dtype=np.float64)
    codes, uniques = pd.factorize(docnos, sort=True)  # codes in docno order
    order = np.lexsort((terms, codes))
    starts = np.flatnonzero(np.r_[True, codes[order][1:] != codes[order][:-1]])
    totals = np.add.reduceat(terms[order], starts)
    ranked = np.lexsort((np.arange(len(uniques)), -totals))
    return [str(d) for d in uniques[ranked]]


def borda_order(runs: Sequence[RankedRun]) -> list[str]:
    """Borda count (Aslam and Montague 2001); see the module docstring.

    A document's points are the sum over all runs of the share a run gives each
    document it lacks, which is the same for every document, plus for each run
    that retrieves it its points there minus that share; the order needs only
    the second part.
    """
    c = len({docno for run in runs for docno in run.docnos})

    def weights(run: RankedRun) -> list[float]:
        share = (c - len(run.docnos) + 1) / 2
        return [c - rank + 1 - share for rank in range(1, len(run.docnos) + 1)]

    return fused_order(runs, weights)


def min_max(run: RankedRun) -> list[float]:
    """The run's scores min-max normalised to 0..1 (all 1 when they are all equal)."""
    low, high = min(run.scores, default=0.0), max(run.scores, default=0.0)
    return [1.0 if high == low else (score - low) / (high - low) for score in run.scores]


def rrf_weights(k: float) -> Callable[[RankedRun], list[float]]:
    """Reciprocal rank fusion: 1 / (k + rank) for ranks 1, 2, ..."""
    return lambda run: [1 / (k + rank) for rank in range(1, len(run.docnos) + 1)]


def rbp_weights(p: float) -> Callable[[RankedRun], list[float]]:
    """Rank-biased precision weights: (1 - p) p^(rank - 1) for ranks 1, 2, ..."""
    return lambda run: [(1 - p) * p ** (rank - 1) for rank in range(1, len(run.docnos) + 1)]


# --- names and parameters --------------------------------------------------------------


@dataclass(frozen=True)
class Strategy:
    """A named strategy with its parameters, as written ``NAME`` or ``NAME:KEY=VALUE,...``.

    :ivar name: one of :data:`STRATEGIES`.
    :ivar params: the parameters, defaults filled in.
    """

    name: str
    params: dict[str, float] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """``name`` with its parameters, e.g. ``depth:k=7`` or ``mtf``."""
        shown = ",".join(f"{key}={_number(value)}" for key, value in self.params.items())
        return f"{self.name}:{shown}" if shown else self.name

    def check_run_tags(self, run_tags: Iterable[str]) -> None:
        """Refuse per-run parameters (``KEY.TAG``, :data:`RUN_PARAMETERS`) naming a run
        not among ``run_tags`` (the runs the strategy is to draw on).

        :raises InvalidArgument: naming the unknown tags and the known ones.
        """
        known = list(dict.fromkeys(run_tags))
        named = {key.partition(".")[2] for key in self.params if "." in key}
        unknown = sorted(named - set(known))
        if unknown:
            raise InvalidArgument(
                f"strategy {self.name}: no run tagged {', '.join(map(repr, unknown))} among "
                f"the runs it draws on (runs: {', '.join(known) or 'none'})")

    def chooser(self, runs: Sequence[RankedRun], topic: str) -> Chooser:
        """A new chooser for one topic's runs (in run-tag order), nothing judged yet."""
        order = self.static_order(runs)
        if order is not None:
            return OrderChooser(order)
        p = self.params
        builders: dict[str, Callable[[], Chooser]] = {
            "mtf": lambda: MoveToFront(runs),
            "maxmean": lambda: MaxMean(runs),
            "mmns": lambda: MaxMeanNonStationary(runs, p["gamma"]),
            "thompson": lambda: Thompson(runs, topic, int(p["seed"]), p["a"], p["b"]),
            "hedge": lambda: Hedge(runs, p["beta"]),
        }
        return builders[self.name]()

    def static_order(self, runs: Sequence[RankedRun]) -> list[str] | None:
        """A static strategy's order of the topic's documents (it never depends on the
        judgments, so a caller may keep it); ``None`` for an adaptive strategy."""
        p = self.params
        orders: dict[str, Callable[[], list[str]]] = {
            "depth": lambda: depth_order(runs, int(p["k"])),
            "rundepth": lambda: run_depth_order(runs, p),
            "roundrobin": lambda: round_robin_order(runs),
            "rrf": lambda: fused_order(runs, rrf_weights(p["k"])),
            "borda": lambda: borda_order(runs),
            "combsum": lambda: fused_order(runs, min_max),
            "rbp": lambda: fused_order(runs, rbp_weights(p["p"])),
        }
        return orders[self.name]() if self.name in orders else None


#: Every strategy with its parameters' defaults and the check each must pass.
STRATEGIES: dict[str, dict[str, tuple[float, Callable[[float], bool], str]]] = {
    "depth": {"k": (7, lambda v: v >= 1 and v == int(v), "a whole number >= 1")},
    "rundepth": {"k": (7, lambda v: v >= 1 and v == int(v), "a whole number >= 1")},
    "roundrobin": {},
    "rrf": {"k": (60, lambda v: v >= 0, ">= 0")},
    "borda": {},
    "combsum": {},
    "rbp": {"p": (0.8, lambda v: 0 < v < 1, "between 0 and 1 (exclusive)")},
    "mtf": {},
    "maxmean": {},
    "mmns": {"gamma": (0.9, lambda v: 0 < v <= 1, "in (0, 1]")},
    "thompson": {"seed": (0, lambda v: v >= 0 and v == int(v), "a whole number >= 0"),
                 "a": (1, lambda v: v > 0, "> 0"), "b": (1, lambda v: v > 0, "> 0")},
    "hedge": {"beta": (0.1, lambda v: 0 < v < 1, "between 0 and 1 (exclusive)")},
}

#: Parameters named per run (``KEY.TAG``), by strategy, with their check.
RUN_PARAMETERS: dict[str, dict[str, tuple[Callable[[float], bool], str]]] = {
    "rundepth": {"k": (lambda v: v >= 0 and v == int(v), "a whole number >= 0"),
                 "first": (lambda v: v in (0, 1), "0 or 1")},
}


def parse_strategy(text: str, defaults: dict[str, float] | None = None) -> Strategy:
    """Read ``NAME`` or ``NAME:KEY=VALUE,...`` (e.g. ``rrf:k=60``, ``thompson:seed=3``).

    :param defaults: parameter values that replace the built-in defaults
        (e.g. ``{"k": 7}`` for ``depth``), where the strategy has that parameter.
    :raises PooltoolError: an unknown name or parameter, or a bad value.
    """
    name, _, listed = text.strip().partition(":")
    if name not in STRATEGIES:
        raise PooltoolError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")
    known = STRATEGIES[name]
    params = {key: float((defaults or {}).get(key, spec[0])) for key, spec in known.items()}
    per_run = RUN_PARAMETERS.get(name, {})
    for item in filter(None, (part.strip() for part in listed.split(","))):
        key, _, value = item.partition("=")
        stem, dot, tag = key.partition(".")
        if dot and stem in per_run and tag:
            params[key] = _parameter(name, key, value)
            valid_run, wanted_run = per_run[stem]
            if not valid_run(params[key]):
                raise PooltoolError(f"strategy {name}: {key} must be {wanted_run}, "
                                    f"got {_number(params[key])}")
            continue
        if key not in known:
            takes = [*known, *(f"{stem}.TAG" for stem in per_run)]
            raise PooltoolError(f"strategy {name} has no parameter {key!r}"
                                + (f"; it takes {', '.join(takes)}" if takes else ""))
        params[key] = _parameter(name, key, value)
    for key, (_, valid, wanted) in known.items():
        if not valid(params[key]):
            raise PooltoolError(f"strategy {name}: {key} must be {wanted}, got {_number(params[key])}")
    return Strategy(name, params)


def _parameter(name: str, key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise PooltoolError(f"strategy {name}: {key}={value!r} is not a number") from None
    if not math.isfinite(number):
        raise PooltoolError(f"strategy {name}: {key}={value!r} is not a finite number")
    return number


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


# --- driving a chooser ---------------------------------------------------------------


def next_document(chooser: Chooser, log: Iterable[tuple[str, bool]]) -> str | None:
    """Rebuild a new chooser's state from a judgment log and name the next document.

    :param chooser: a chooser nothing has been judged with yet
        (:meth:`Strategy.chooser`).
    :param log: (docno, relevant) in the order the judgments were made.
    :returns: the document to judge next, or ``None``.
    """
    for docno, relevant in log:
        if not chooser.learns_from_any:
            chooser.next()
        chooser.observe(docno, relevant)
    return chooser.next()


def judge_sequence(chooser: Chooser, relevant: set[str] | frozenset[str],
                   budget: int) -> list[str]:
    """Let a chooser pick up to ``budget`` documents, judging each against ``relevant``.

    :param relevant: the documents that are relevant; any other is not.
    :returns: the documents in the order picked (shorter than ``budget`` when
        the strategy runs out).
    """
    picked: list[str] = []
    while len(picked) < budget:
        docno = chooser.next()
        if docno is None:
            break
        chooser.observe(docno, docno in relevant)
        picked.append(docno)
    return picked
