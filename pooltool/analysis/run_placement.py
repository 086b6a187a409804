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
import pyarrow as pa
import pyarrow.compute as pc

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
    :ivar rows: the lines' row positions in the input.
    :ivar topic, rank: each line's topic position in the design and trec_eval rank.
    :ivar whole: ``rows`` is every row of the input, in its order.
    """

    tags: list[Any]
    bounds: np.ndarray
    rows: np.ndarray
    topic: np.ndarray
    rank: np.ndarray
    whole: bool


def _group(runs: pd.DataFrame, topics: list[str], depth: int) -> _Grouped:
    """Each run's first ``depth`` lines in the design's ``topics``, grouped by run (the
    lines' ranks ``runs["trec_rank"]`` when given, else
    :func:`~pooltool.ranking.trec_ranks`; within a run the lines keep their order)."""
    stretches = _Stretches(runs["topic"].to_numpy(dtype=object))
    topic = stretches.spread(pd.Index(topics).get_indexer(stretches.firsts))
    in_design = np.flatnonzero(topic >= 0)
    every_line = len(in_design) == len(topic)  # no line of a topic outside the design
    if "trec_rank" in runs.columns:
        rank = runs["trec_rank"].to_numpy(dtype=np.int64)
    else:
        rank = trec_ranks(runs[["run_tag", "topic", "docno", "score"]])
    tag_column = runs["run_tag"].to_numpy(dtype=object)
    by_tag = _Stretches(tag_column if every_line else tag_column[in_design])
    tag_of_stretch, tags = pd.factorize(by_tag.firsts)
    tag = by_tag.spread(tag_of_stretch)
    top = rank[in_design] <= depth
    every_line &= bool(top.all())
    lines, tag = (in_design, tag) if every_line else (in_design[top], tag[top])
    if (np.diff(tag) < 0).any():  # a run's lines in more than one stretch: group them
        by_run = np.argsort(tag, kind="stable")
        lines, tag = lines[by_run], tag[by_run]
        every_line = False
    bounds = np.searchsorted(tag, np.arange(len(tags) + 1))
    return _Grouped(list(tags), bounds, lines, topic[lines], rank[lines], every_line)


class _KnownPairs:
    """The (topic, docno) pairs the design knows (best ranks over the sample's runs, the
    pool, the judged sample), placed once, and run lines looked up among them by
    integer pair codes (a join of millions of run lines on two string columns is
    slow): a line's docno is looked up in the dictionary of the design's docnos
    (Arrow's ``index_in``; a docno outside it is in no known pair)."""

    def __init__(self, design: Design, grades: pd.DataFrame, level: int,
                 sample: pd.DataFrame, topics: list[str]) -> None:
        flags = _flags(design, grades, level, sample)
        ranks = design.best_ranks
        rank_topic, flag_topic = (pd.Index(topics).get_indexer(f["topic"]) for f in (ranks, flags))
        ranked, flagged = np.flatnonzero(rank_topic >= 0), np.flatnonzero(flag_topic >= 0)
        values = pa.chunked_array([_arrow_strings(ranks["docno"].iloc[ranked]),
                                   _arrow_strings(flags["docno"].iloc[flagged])],
                                  type=pa.large_string())
        encoded = pc.dictionary_encode(values).chunks
        self.docnos = encoded[-1].dictionary if encoded else pa.array([], pa.large_string())
        self.count = max(len(self.docnos), 1)
        codes = (np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded])
                 if encoded else np.zeros(0, dtype=np.int64)).astype(np.int64)
        keys = np.concatenate([rank_topic[ranked], flag_topic[flagged]]) * self.count + codes
        known_key, self.known = _known_pairs(
            keys[:len(ranked)], ranks["best_rank"].to_numpy(dtype=float)[ranked],
            keys[len(ranked):], flags.iloc[flagged], design.strata)
        self.index = pd.Index(known_key)

    def place(self, topic: np.ndarray, docnos: pd.Series) -> list[np.ndarray]:
        """The ``stratum, pooled, sampled, relevant`` columns of :class:`Lines` for lines
        of topic positions ``topic`` and docnos ``docnos`` (one length)."""
        code = pc.fill_null(pc.index_in(_arrow_strings(docnos), value_set=self.docnos), -1)
        code = code.to_numpy(zero_copy_only=False).astype(np.int64)
        key = np.where(code >= 0, topic.astype(np.int64) * self.count + code, -1)
        at = self.index.get_indexer(key)
        at[at < 0] = len(self.index)  # the row of a pair the design does not know
        return [column[at] for column in self.known]


#: The share of the runs in the first part when the lines are placed in two: the first
#: part's draws should take about as long as placing the rest. In bench_estimate.py
#: (2026-12-04) placing all the lines takes 2.4 CPU-s and the Recall@k draws 3.0, so
#: two fifths (a fifth while the draws took 11 CPU-s).
FIRST_PART = (2, 5)


def place(runs: pd.DataFrame, design: Design, depth: int, grades: pd.DataFrame, level: int,
          sample: pd.DataFrame, topics: list[str], split: bool = False) -> Iterator[Placed]:
    """Each run's first ``depth`` documents in the design's topics, placed: pooled, in a
    stratum (by best rank) or outside the frame, sampled, relevant (see :class:`Lines`),
    in parts of whole runs, one after another: with ``split``, two (a caller in threads
    estimates the first part's runs while the second is placed): the first holds
    :data:`FIRST_PART` of the runs, so that its draws keep a second core busy while the
    rest is placed (more parts would each rebuild the hash set of the design's docnos);
    else one.

    The lines' trec_eval ranks are ``runs["trec_rank"]`` when given, else computed
    (:func:`~pooltool.ranking.trec_ranks`); the lines are not reordered, only grouped
    by run. Every (topic, docno) is looked up once among the pairs the design knows
    (:class:`_KnownPairs`).

    :returns: the parts, runs in the order their tags first appear in ``runs``."""
    grouped = _group(runs, topics, depth)
    known = _KnownPairs(design, grades, level, sample, topics)
    runs_count = len(grouped.tags)
    first = -(-runs_count * FIRST_PART[0] // FIRST_PART[1]) if split else runs_count
    for low, high in ((0, first), (first, runs_count)):
        if high == low:
            continue
        a, b = grouped.bounds[low], grouped.bounds[high]
        rows = grouped.rows[a:b]
        whole = grouped.whole and a == 0 and b == len(runs)
        docnos = runs["docno"] if whole else runs["docno"].iloc[rows]
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


def _known_pairs(rank_key: np.ndarray, best_rank: np.ndarray, flag_key: np.ndarray,
                 flags: pd.DataFrame, strata: list[Stratum]
                 ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The pairs the design knows (keys of :class:`_KnownPairs`: ``rank_key`` with their
    best ranks, ``flag_key`` with their ``flags`` rows), placed as :class:`Lines`
    places a line: ``stratum, pooled, sampled, relevant``, each with one more row last
    for a pair the design does not know (no best rank, no flag)."""
    in_ranks = pd.Index(rank_key).get_indexer(flag_key)
    extra = np.flatnonzero(in_ranks < 0)
    known_key = np.concatenate([rank_key, flag_key[extra]])
    best = np.concatenate([best_rank, np.full(len(extra) + 1, np.nan)])
    flag_row = np.full(len(known_key) + 1, len(flag_key))  # past the end: no flag
    flag_row[in_ranks[in_ranks >= 0]] = np.flatnonzero(in_ranks >= 0)
    flag_row[len(rank_key):len(known_key)] = extra
    pooled, sampled, relevant = (np.append(flags[c].to_numpy(dtype=bool), False)[flag_row]
                                 for c in ("pooled", "sampled", "relevant"))
    stratum = np.full(len(best), -1, dtype=np.int64)
    for j, s in enumerate(strata):
        stratum[s.holds(best) & (stratum < 0) & ~pooled] = j
    return known_key, (stratum, pooled, sampled, relevant)


def _flags(design: Design, grades: pd.DataFrame, level: int,
           sample: pd.DataFrame) -> pd.DataFrame:
    """``topic, docno, pooled, sampled, relevant``: the design's pooled and judged sampled
    documents (only they are its evidence of relevance), one row a pair."""
    flags = pd.concat([design.pooled[["topic", "docno"]].assign(pooled=True, sampled=False),
                       sample[["topic", "docno"]].assign(pooled=False, sampled=True)])
    flags = flags.groupby(["topic", "docno"], as_index=False)[["pooled", "sampled"]].any()
    flags = flags.merge(grades, on=["topic", "docno"], how="left")
    return flags.assign(relevant=is_relevant(flags["grade"], level).to_numpy(dtype=bool))


def _arrow_strings(column: pd.Series) -> pa.Array:
    """A column of strings as one Arrow ``large_string`` array."""
    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow":
        strings = pa.array(column.array)
        if isinstance(strings, pa.ChunkedArray):
            strings = strings.combine_chunks()
        return strings.cast(pa.large_string())
    return pa.array(column.to_numpy(dtype=object), type=pa.large_string())
