"""Run lines placed in a sample's design: each run's first documents per topic as
pooled, in a stratum (by their best rank over the sample's runs) or outside the
frame, sampled, relevant; and the design's counts with a run's first k filled in
(for :func:`~pooltool.analysis.sample_estimates.estimate_recall`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pooltool.analysis.pair_lookup import PairLookup
from pooltool.analysis.sample_design import Design
from pooltool.analysis.sampling import Stratum
from pooltool.ranking import stretches, trec_ranks
from pooltool.records import is_relevant


@dataclass(frozen=True)
class Lines:
    """Run lines placed in the design, as arrays of one length (one row a line).

    :ivar topic: the topic's position in the design's topics.
    :ivar rank: the line's trec_eval rank.
    :ivar stratum: the stratum's position in the design, -1 for a pooled line or one
        outside the frame.
    :ivar pooled, sampled, relevant: pooled; in the judged sample; relevant (pooled or
        judged sampled documents only: the design's evidence).
    """

    topic: np.ndarray
    rank: np.ndarray
    stratum: np.ndarray
    pooled: np.ndarray
    sampled: np.ndarray
    relevant: np.ndarray

    def part(self, rows: slice) -> Lines:
        """The lines ``rows``."""
        return Lines(self.topic[rows], self.rank[rows], self.stratum[rows], self.pooled[rows],
                      self.sampled[rows], self.relevant[rows])


@dataclass(frozen=True)
class Placed:
    """The lines of every run, run after run.

    :ivar tags: the run tags, in the order they first appear in the input.
    :ivar bounds: run ``i``'s lines are ``lines`` ``bounds[i]`` to ``bounds[i + 1]``.
    """

    tags: list[Any]
    bounds: np.ndarray
    lines: Lines

    def of(self, code: int) -> Lines:
        """The lines of run ``tags[code]``."""
        return self.lines.part(slice(self.bounds[code], self.bounds[code + 1]))


def counts_at(base: np.ndarray, run: Lines, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The design's counts (``base``, ``(topics, strata, 6)``) with the run's first ``k``
    in each cell filled in (fields 3-5: documents, judged sampled ones, relevant ones),
    and the relevant pooled documents in its first ``k`` per topic."""
    topics, strata = base.shape[:2]
    top = run.rank <= k
    rel_ret = np.bincount(run.topic[top & run.pooled & run.relevant], minlength=topics)
    framed = top & (run.stratum >= 0)
    cell = run.topic[framed] * strata + run.stratum[framed]
    counts = base.copy()
    for field_, rows in ((3, slice(None)), (4, run.sampled[framed]),
                         (5, run.relevant[framed])):
        counts[..., field_] = np.bincount(cell[rows], minlength=topics * strata).reshape(
            topics, strata)
    return counts, rel_ret


@dataclass(frozen=True)
class _Grouped:
    """The run lines within the depth in the design's topics, grouped by run.

    :ivar tags: the run tags, in the order they first appear in the input.
    :ivar bounds: run ``i``'s lines are ``rows`` ``bounds[i]`` to ``bounds[i + 1]``.
    :ivar rows: the lines' row positions in the input; ``None``: every row, in order.
    :ivar topic, rank: each line's topic position in the design and trec_eval rank.
    """

    tags: list[Any]
    bounds: np.ndarray
    rows: np.ndarray | None
    topic: np.ndarray
    rank: np.ndarray


def _group(runs: pd.DataFrame, topics: list[str], depth: int) -> _Grouped:
    """Each run's first ``depth`` lines in the design's ``topics``, grouped by run (the
    lines' ranks ``runs["trec_rank"]`` when given, else
    :func:`~pooltool.ranking.trec_ranks`; within a run the lines keep their order).
    Lines as the store and :func:`~pooltool.ranking.order_run` give them (every line
    kept, each run in one stretch) are taken as they are, worked out per stretch."""
    by_topic = _Stretches(runs["topic"].to_numpy(dtype=object))
    stretch_topic = pd.Index(topics).get_indexer(by_topic.firsts)
    topic = by_topic.spread(stretch_topic)
    if "trec_rank" in runs.columns:
        rank = runs["trec_rank"].to_numpy(dtype=np.int64)
    else:
        rank = trec_ranks(runs[["run_tag", "topic", "docno", "score"]])
    tag_column = runs["run_tag"].to_numpy(dtype=object)
    by_tag = _Stretches(tag_column)
    tag_of_stretch, tags = pd.factorize(by_tag.firsts)
    if (stretch_topic >= 0).all() and (np.diff(tag_of_stretch) > 0).all() and (rank <= depth).all():
        bounds = np.concatenate([[0], np.cumsum(by_tag.lengths)])
        return _Grouped(list(tags), bounds, None, topic, rank)
    in_design = np.flatnonzero(topic >= 0)
    if len(in_design) < len(topic):  # lines of topics outside the design: tags of the rest
        by_tag = _Stretches(tag_column[in_design])
        tag_of_stretch, tags = pd.factorize(by_tag.firsts)
    tag = by_tag.spread(tag_of_stretch)
    top = rank[in_design] <= depth
    lines, tag = in_design[top], tag[top]
    if (np.diff(tag) < 0).any():  # a run's lines in more than one stretch: group them
        by_run = np.argsort(tag, kind="stable")
        lines, tag = lines[by_run], tag[by_run]
    bounds = np.searchsorted(tag, np.arange(len(tags) + 1))
    return _Grouped(list(tags), bounds, lines, topic[lines], rank[lines])


class _KnownPairs:
    """The (topic, docno) pairs the design knows (best ranks over the sample's runs, the
    pool, the judged sample), placed once, and run lines looked up among them
    (:class:`~pooltool.analysis.pair_lookup.PairLookup`)."""

    def __init__(self, design: Design, grades: pd.DataFrame, level: int,
                 sample: pd.DataFrame, topics: list[str]) -> None:
        flags = _flags(design, grades, level, sample)
        ranks = design.best_ranks
        rank_topic, flag_topic = (_topic_positions(f["topic"], topics) for f in (ranks, flags))
        ranked, flagged = np.flatnonzero(rank_topic >= 0), np.flatnonzero(flag_topic >= 0)
        rank_docnos, flag_docnos = ranks["docno"].iloc[ranked], flags["docno"].iloc[flagged]
        self.lookup = PairLookup(rank_topic[ranked], rank_docnos, len(topics))
        in_ranks = self.lookup.rows(flag_topic[flagged], flag_docnos)
        extra = np.flatnonzero(in_ranks < 0)
        if len(extra):  # pairs only pooled or sampled: known as well
            self.lookup = PairLookup(np.concatenate([rank_topic[ranked], flag_topic[flagged][extra]]),
                                     pd.concat([rank_docnos, flag_docnos.iloc[extra]]), len(topics))
        self.known = _known_pairs(ranks["best_rank"].to_numpy(dtype=float)[ranked], in_ranks,
                                  flags.iloc[flagged], design.strata)

    def place(self, topic: np.ndarray, docnos: pd.Series) -> list[np.ndarray]:
        """The ``stratum, pooled, sampled, relevant`` columns of :class:`Lines` for lines
        of topic positions ``topic`` and docnos ``docnos`` (one length)."""
        at = self.lookup.rows(topic, docnos)  # -1, a pair the design does not know: the last row
        return [column[at] for column in self.known]


def _topic_positions(column: pd.Series, topics: list[str]) -> np.ndarray:
    """Each value's position in ``topics`` (-1: not there or missing), looked up once per
    distinct value (a design's million pairs hold a few hundred topics)."""
    codes, values = pd.factorize(column)
    return np.append(pd.Index(topics).get_indexer(values), -1)[codes]


#: How many parts of whole runs the lines are placed in for a caller in threads, which
#: estimates the runs of each part while the next is placed: the first part is small, so
#: that the draws start early, and the design's table of pairs is built once for all
#: parts. In bench_estimate.py (2026-12-04) placing the 7.5M lines takes about 1.1 CPU-s,
#: 0.6 of it before the first part (grouping, the design's pairs), 0.05 a part (it took
#: 2.4 with Arrow's ``index_in``, which built its hash set again for each part: then two
#: parts); the Recall@k draws take 3.0.
PARTS = 10


def place(runs: pd.DataFrame, design: Design, depth: int, grades: pd.DataFrame, level: int,
          sample: pd.DataFrame, topics: list[str], split: bool = False) -> Iterator[Placed]:
    """Each run's first ``depth`` documents in the design's topics, placed: pooled, in a
    stratum (by best rank) or outside the frame, sampled, relevant (see :class:`Lines`),
    in parts of whole runs, one after another: with ``split``, :data:`PARTS` (a caller
    in threads estimates a part's runs while the next is placed), else one.

    The lines' trec_eval ranks are ``runs["trec_rank"]`` when given, else computed
    (:func:`~pooltool.ranking.trec_ranks`); the lines are not reordered, only grouped
    by run. Every (topic, docno) is looked up once among the pairs the design knows
    (:class:`_KnownPairs`).

    :returns: the parts, runs in the order their tags first appear in ``runs``."""
    grouped = _group(runs, topics, depth)
    known = _KnownPairs(design, grades, level, sample, topics)
    runs_count = len(grouped.tags)
    size = max(-(-runs_count // PARTS), 1) if split else max(runs_count, 1)
    for low in range(0, runs_count, size):
        high = min(low + size, runs_count)
        a, b = grouped.bounds[low], grouped.bounds[high]
        rows = slice(a, b) if grouped.rows is None else grouped.rows[a:b]
        docnos = runs["docno"].iloc[rows]
        yield Placed(grouped.tags[low:high], grouped.bounds[low:high + 1] - a,
                     Lines(grouped.topic[a:b], grouped.rank[a:b],
                           *known.place(grouped.topic[a:b], docnos)))


class _Stretches:
    """The stretches of equal consecutive values of a column (run lines come run by
    run and topic by topic), so that a lookup or a factorisation is done once per
    stretch, not per line: for the topics of 7.5M run lines, 0.08 s where
    ``Index.get_indexer`` on every line took 1.1 s. Any order works; the gain is in
    how long the stretches are."""

    def __init__(self, values: np.ndarray) -> None:
        starts, self.lengths = stretches(values)
        self.firsts = values[starts]

    def spread(self, per_stretch: np.ndarray) -> np.ndarray:
        """A value per stretch (in the order of :attr:`firsts`) as a value per line."""
        return np.repeat(np.asarray(per_stretch), self.lengths)


def _known_pairs(best_rank: np.ndarray, in_ranks: np.ndarray, flags: pd.DataFrame,
                 strata: list[Stratum]) -> tuple[np.ndarray, ...]:
    """The pairs the design knows (those with ``best_rank``s, then the ``flags`` rows not
    among them, ``in_ranks`` giving each flags row's pair among the first or -1),
    placed as :class:`Lines` places a line: ``stratum, pooled, sampled, relevant``,
    each with one more row last for a pair the design does not know (no best rank, no
    flag)."""
    extra = np.flatnonzero(in_ranks < 0)
    known = len(best_rank) + len(extra)
    best = np.concatenate([best_rank, np.full(len(extra) + 1, np.nan)])
    flag_row = np.full(known + 1, len(flags))  # past the end: no flag
    flag_row[in_ranks[in_ranks >= 0]] = np.flatnonzero(in_ranks >= 0)
    flag_row[len(best_rank):known] = extra
    pooled, sampled, relevant = (np.append(flags[c].to_numpy(dtype=bool), False)[flag_row]
                                 for c in ("pooled", "sampled", "relevant"))
    stratum = np.full(len(best), -1, dtype=np.int64)
    for j, s in enumerate(strata):
        stratum[s.holds(best) & (stratum < 0) & ~pooled] = j
    return stratum, pooled, sampled, relevant


def _flags(design: Design, grades: pd.DataFrame, level: int,
           sample: pd.DataFrame) -> pd.DataFrame:
    """``topic, docno, pooled, sampled, relevant``: the design's pooled and judged sampled
    documents (only they are its evidence of relevance), one row a pair."""
    flags = pd.concat([design.pooled[["topic", "docno"]].assign(pooled=True, sampled=False),
                       sample[["topic", "docno"]].assign(pooled=False, sampled=True)])
    flags = flags.groupby(["topic", "docno"], as_index=False)[["pooled", "sampled"]].any()
    flags = flags.merge(grades, on=["topic", "docno"], how="left")
    return flags.assign(relevant=is_relevant(flags["grade"], level).to_numpy(dtype=bool))
