"""The adaptive strategies' choosers and the runs they see (the catalogue, with the
papers, is :mod:`pooltool.judging.strategies`' docstring; the registry is there too).

A :class:`Chooser` names the next document (:meth:`Chooser.next`) and learns from a
judgment (:meth:`Chooser.observe`); its state is a pure function of the runs, the
parameters and the judgments in the order made. Runs come as :class:`RankedRun`\\ s,
one topic's, in trec_eval order (:func:`topic_runs`).
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain

import numpy as np
import pandas as pd

from pooltool.ranking import order_run, stretch_codes


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

    def __hash__(self) -> int:
        """The hash of the fields (as the dataclass's own), computed once: a topic's runs
        are the key of the caches of its tables (:func:`topic_documents`,
        :func:`hedge_table`), and hashing 1,000 docnos a run at every lookup was a
        tenth of a simulation."""
        return self._fields_hash

    @cached_property
    def _fields_hash(self) -> int:
        return hash((self.tag, self.docnos, self.scores))


def topic_runs(frame: pd.DataFrame) -> dict[str, tuple[RankedRun, ...]]:
    """Split run lines into each topic's ranked runs.

    :param frame: run lines with ``run_tag, topic, docno, score`` (as
        :func:`~pooltool.formats.run.read_run` returns); a ``trec_rank``
        column, if present, is trusted as the order.
    :returns: topic -> its runs in run-tag order, each in trec_eval order.
    """
    ranked = frame if "trec_rank" in frame.columns else order_run(frame)
    # by topic, run tag (string order) and rank: a stable sort of the keys' sorted
    # codes, as pandas' stable sort_values orders them (without sorting the strings)
    topic_codes, _ = stretch_codes(ranked["topic"].to_numpy(dtype=object))
    tag_codes, tag_names = stretch_codes(ranked["run_tag"].to_numpy(dtype=object))
    group = topic_codes * len(tag_names) + tag_codes
    order = _group_rank_order(group, ranked["trec_rank"].to_numpy(dtype=np.int64))
    group = group[order]
    docnos = ranked["docno"].to_numpy(dtype=object)[order].tolist()
    if not pd.api.types.is_string_dtype(ranked["docno"]):  # else str already: no copies
        docnos = list(map(str, docnos))
    scores = ranked["score"].to_numpy(dtype=np.float64)[order].tolist()
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    # a run's topic and tag: those of its first line (not every line's taken)
    topic = ranked["topic"].to_numpy(dtype=object)[order[starts]]
    tag = ranked["run_tag"].to_numpy(dtype=object)[order[starts]]
    topics: dict[str, list[RankedRun]] = {}
    ends = [*starts[1:].tolist(), len(docnos)]
    for run, (start, end) in enumerate(zip(starts.tolist(), ends, strict=True)):
        topics.setdefault(str(topic[run]), []).append(RankedRun(
            str(tag[run]), tuple(docnos[start:end]), tuple(scores[start:end])))
    return {name: tuple(runs) for name, runs in topics.items()}


def _group_rank_order(group: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """The positions of lines in order of ``group`` then ``rank`` (int64 each), ties in
    line order: a stable sort of one key ``group x (max rank + 1) + rank`` where both are
    >= 0 and the key fits in int64 (a third of the time of a lexsort of the two: the
    lines come mostly in order, which the stable sort's merges use), else the lexsort."""
    if not len(rank):
        return np.zeros(0, dtype=np.intp)
    span = int(rank.max()) + 1
    if min(int(rank.min()), int(group.min())) >= 0 and (int(group.max()) + 1) * span < 2 ** 62:
        return np.argsort(group * span + rank, kind="stable")
    return np.lexsort((rank, group))


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
    lines, documents = topic_documents(runs)
    first_seen = [str(d) for d in documents]
    # distinct docnos, so any sort gives the one order; Python's sort of the strings
    # themselves took a third of the time of a sort keyed by position (half that of
    # numpy's argsort of an object array)
    docnos = sorted(first_seen)
    column = dict(zip(docnos, range(len(docnos)), strict=True))
    codes = np.fromiter(map(column.__getitem__, first_seen), dtype=np.intp, count=len(docnos))
    values = np.zeros((len(runs), len(docnos)))
    rows = np.repeat(np.arange(len(runs)), [len(run.docnos) for run in runs])
    if len(lines):
        values[rows, codes[lines]] = np.concatenate([ap_prior(len(run.docnos)) for run in runs])
    values.flags.writeable = False
    return docnos, column, values


@lru_cache(maxsize=8)
def topic_documents(runs: tuple[RankedRun, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Each line's document code (in order of first appearance) and the documents
    (object array), for the lines of ``runs`` one after another. Cached: a simulation
    builds a topic's fusions and Hedge's table from the same codes, topic by topic."""
    docnos = np.array(list(chain.from_iterable(run.docnos for run in runs)), dtype=object)
    if not len(docnos):
        return np.zeros(0, dtype=np.intp), docnos
    codes, uniques = pd.factorize(docnos)
    return codes, uniques


def ap_prior(z: int) -> np.ndarray:
    """The average-precision prior of ranks 1..z, scaled to 1 at rank 1:
    (H_z - H_(r-1)) / H_z (Aslam, Pavlu and Yilmaz 2005, 'Measure-based metasearch')."""
    if z == 0:
        return np.zeros(0)
    tail = np.cumsum(1.0 / np.arange(z, 0, -1))[::-1]  # sum_{i=r}^{z} 1/i for r = 1..z
    return tail / tail[0]
