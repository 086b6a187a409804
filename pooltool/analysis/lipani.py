"""Lipani, Lupu and Hanbury's correction of P@k (SIGIR 2015), as their reference code
computes it (PoolBiasEstimators ``LipaniEstimator.scala``): the formula is in
:mod:`pooltool.analysis.bias_correction`'s docstring, which offers it as ``lipani``.
Here on integer codes of the run tags, topics and docnos, made once for a whole
leave-one-out (:class:`CodedLines`): each run corrected, the pooled runs and the qrels
are row positions and masks of the same arrays (a pandas merge and frames per group
cost ten times more), and a (topic, docno) pair is one integer, so a run's ranks and
the qrels' judgments are looked up by indexing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.arrow.numbers import numbers
from pooltool.errors import PooltoolError
from pooltool.ranking import positions_in_groups
from pooltool.records import is_judged, is_relevant


@dataclass(frozen=True)
class CodedLines:
    """Run lines and qrels as int64 codes, made once over both (:meth:`of`).

    Lines (shape ``(n,)`` each): ``tag`` (the pooled runs' tags coded in their sort
    order; a new run's tags after them), ``topic`` and ``docno`` (codes that sort as the
    strings do, shared with the qrels), ``pair`` (the (topic, docno) pair, one id per
    distinct pair of lines and qrels), ``rank`` (``trec_rank``), ``run_topic`` (the
    (run, topic) of the line, numbered in order of first appearance; ``run_topic_tag``
    and ``run_topic_topic`` hold each one's tag and topic codes), ``by_pair`` (the line
    positions sorted by pair, stable; pair ``i``'s lines are ``by_pair[pair_bounds[i]:
    pair_bounds[i + 1]]``). Qrels (shape ``(m,)``): ``q_topic``, ``q_pair``,
    ``q_grade``. ``tags``: the tags by code (the first ``pooled_tags`` the pooled runs');
    ``topics``, ``pairs``, ``run_topics``: how many codes of each.
    """

    tag: np.ndarray
    topic: np.ndarray
    docno: np.ndarray
    pair: np.ndarray
    rank: np.ndarray
    run_topic: np.ndarray
    run_topic_tag: np.ndarray
    run_topic_topic: np.ndarray
    by_pair: np.ndarray
    pair_bounds: np.ndarray
    q_topic: np.ndarray
    q_pair: np.ndarray
    q_grade: np.ndarray
    tags: list[object]
    pooled_tags: int
    topics: int
    pairs: int
    run_topics: int

    @classmethod
    def of(cls, pooled: pd.DataFrame, qrels: pd.DataFrame,
           new: pd.DataFrame | None = None) -> CodedLines:
        """Code ``pooled`` (``run_tag, topic, docno, trec_rank``), then ``new`` (the same
        columns: runs outside the pool, whose tags may repeat a pooled one) and ``qrels``
        (``topic, docno, grade``). Line ``i`` is row ``i`` of ``pooled`` then ``new``
        (positions, whatever their index)."""
        frames = [pooled] if new is None else [pooled, new]
        lines = {name: _joined([f[name] for f in frames])
                 for name in ("run_tag", "topic", "docno", "trec_rank")}
        tag_codes, pooled_tags = pd.factorize(pooled["run_tag"].to_numpy(), sort=True)
        return cls._coded(tag_codes.astype(np.int64), list(pooled_tags), new,
                          _codes([lines["topic"], qrels["topic"].to_numpy()]),
                          _codes([lines["docno"], qrels["docno"].to_numpy()]),
                          lines["trec_rank"], qrels)

    @classmethod
    def of_tables(cls, tables: list[pa.Table], run_tags: list[str], qrels: pd.DataFrame,
                  new: pd.DataFrame | None = None) -> CodedLines:
        """:meth:`of` of the pooled runs as the store holds them: ``tables[i]`` (``topic,
        docno, trec_rank``, as :meth:`~pooltool.store.JudgmentStore.run_entries` gives
        them) is run ``run_tags[i]``'s, its lines in that order (:meth:`of` of their rows
        joined gives the same codes). Their ids are coded by Arrow, not read into Python
        strings (a frame of whole runs and its factorizing were most of the cost)."""
        present = sorted({tag for tag, table in zip(run_tags, tables, strict=True)
                          if table.num_rows})
        code = {tag: i for i, tag in enumerate(present)}
        tag = np.repeat(np.array([code.get(t, -1) for t in run_tags], dtype=np.int64),
                        [table.num_rows for table in tables])
        extra = [] if new is None else [new]
        def strings(name: str) -> list[pa.Array | pa.ChunkedArray]:
            return ([kernels.cast(table[name], pa.string()) for table in tables]
                    + [pa.array(frame[name].to_numpy(dtype=object), pa.string())
                       for frame in extra] + [pa.array(qrels[name], pa.string())])
        rank = np.concatenate([numbers(table["trec_rank"]) for table in tables]
                              + [frame["trec_rank"].to_numpy() for frame in extra])
        return cls._coded(tag, present, new, _sorted_codes(strings("topic")),
                          _sorted_codes(strings("docno")), rank, qrels)

    @classmethod
    def _coded(cls, pooled_tag: np.ndarray, pooled_tags: Sequence[object], new: pd.DataFrame | None,
               topic_codes: np.ndarray, docno_codes: np.ndarray, trec_rank: np.ndarray,
               qrels: pd.DataFrame) -> CodedLines:
        """The lines and qrels from the pooled lines' tag codes (``pooled_tags`` by code), the
        new runs' lines and the ids' codes of lines then qrels (sorting as the strings)."""
        lines = len(pooled_tag) + (0 if new is None else len(new))
        topic, q_topic = _split(topic_codes, lines)
        docno, q_docno = _split(docno_codes, lines)
        width = int(max(docno.max(initial=0), q_docno.max(initial=0))) + 1
        pair_codes, distinct_pairs = pd.factorize(np.concatenate([topic * width + docno,
                                                                  q_topic * width + q_docno]))
        pair, q_pair = _split(pair_codes.astype(np.int64), len(topic))
        tags, tag = list(pooled_tags), pooled_tag
        if new is not None:
            new_codes, new_tags = pd.factorize(new["run_tag"].to_numpy())
            tag = np.concatenate([tag, new_codes.astype(np.int64) + len(tags)])
            tags += list(new_tags)
        topics = int(max(topic.max(initial=-1), q_topic.max(initial=-1))) + 1
        run_topic, firsts = pd.factorize(tag * topics + topic)
        bounds = np.concatenate([[0], np.cumsum(np.bincount(pair, minlength=len(distinct_pairs)))])
        return cls(tag, topic, docno, pair, trec_rank.astype(np.int64),
                   run_topic.astype(np.int64), (firsts // topics).astype(np.int64),
                   (firsts % topics).astype(np.int64), np.argsort(pair, kind="stable"), bounds,
                   q_topic, q_pair, qrels["grade"].to_numpy(dtype=np.int64), tags,
                   len(pooled_tags), topics, len(distinct_pairs), len(firsts))

    def code(self, tag: object, new: bool = False) -> int:
        """The code of run ``tag`` (a pooled run's, or with ``new`` a new run's)."""
        start, stop = (self.pooled_tags, len(self.tags)) if new else (0, self.pooled_tags)
        return start + self.tags[start:stop].index(tag)

    def tag_set(self, codes: list[int]) -> np.ndarray:
        """A bool per tag code, True for ``codes``."""
        chosen = np.zeros(len(self.tags), dtype=bool)
        chosen[codes] = True
        return chosen

    def lines_of_pairs(self, pairs: np.ndarray) -> np.ndarray:
        """The positions of every line holding one of ``pairs`` (pair ids)."""
        starts, stops = self.pair_bounds[pairs], self.pair_bounds[pairs + 1]
        lengths = stops - starts
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        return self.by_pair[offsets + np.arange(int(lengths.sum()))]


def _joined(columns: list[pd.Series]) -> np.ndarray:
    return np.concatenate([c.to_numpy() for c in columns]) if len(columns) > 1 \
        else columns[0].to_numpy()


def _codes(parts: list[np.ndarray]) -> np.ndarray:
    """int64 codes of the values of ``parts`` joined, that sort as the values do."""
    return pd.factorize(np.concatenate(parts), sort=True)[0].astype(np.int64)


def _sorted_codes(parts: list[pa.Array | pa.ChunkedArray]) -> np.ndarray:
    """int64 codes of the Arrow strings of ``parts`` joined, that sort as the strings do
    (:func:`_codes`' codes: UTF-8 bytes sort as code points, Python's string order)."""
    chunks = [c for part in parts
              for c in (part.chunks if isinstance(part, pa.ChunkedArray) else [part])]
    encoded = kernels.dictionary_encode(pa.chunked_array(chunks, pa.string()).combine_chunks())
    rank = np.empty(len(encoded.dictionary), dtype=np.int64)
    rank[numbers(kernels.call("array_sort_indices", encoded.dictionary))] = np.arange(len(rank))
    return rank[numbers(encoded.indices)]


def _split(values: np.ndarray, at: int) -> tuple[np.ndarray, np.ndarray]:
    return values[:at], values[at:]


def lipani_adjustment(coded: CodedLines, run: int, pooled: np.ndarray, judged: np.ndarray,
                      k: int, level: int = 1) -> float:
    """What Lipani, Lupu and Hanbury's estimator adds to a run's P@k (SIGIR 2015; the
    formula is in :mod:`pooltool.analysis.bias_correction`'s docstring;
    PoolBiasEstimators ``LipaniEstimator.scala``, ``getAdjP`` lines 18-47).

    :param coded: the lines (whole runs, each line with its trec_eval rank) and qrels
        (:class:`CodedLines`).
    :param run: the run's tag code in ``coded``.
    :param pooled: which runs are the pooled ones (bool per tag code, the run's False).
    :param judged: which qrels rows of ``coded`` count (bool, shape ``(m,)``);
        relevant is ``grade >= level``, judged not relevant ``0 <= grade < level``
        (their ``QRels.inverse``: grade 0 at level 1); a pair listed twice counts twice.
    :returns: the adjustment, a fraction 0..1 (0 when lambda <= 0).
    :raises PooltoolError: the run lists a docno twice in a topic.

    Their code rounds each P@k and AP@k to 4 decimals (``TRECEval.computeMetric``,
    line 152) before subtracting; this does not, so the two agree to about 1e-4.
    """
    judgments = Judgments.of(coded, judged, level)
    top = np.flatnonzero(coded.rank <= k)
    mine = _precision_pair(coded, coded.tag_set([run]), judgments, k, top)
    mine_p, mine_ap = float(mine.P[0]), float(mine.AP[0])
    unjudged = 1.0 - mine_p - mine_ap
    if unjudged == 0 or not pooled.any():
        return 0.0
    before = _precision_pair(coded, pooled, judgments, k, top)
    after = _reranked_precision_pair(rerank_top_k(coded, pooled, run, k), judgments,
                                     k).aligned(before.tag)
    # pandas' Series means (NaN skipped: a run the re-rank left no topic), as they were
    delta_p, delta_ap = pd.Series(after.P - before.P), pd.Series(after.AP - before.AP)
    lam = float(delta_p.mean()) * mine_ap - float(delta_ap.mean()) * mine_p
    if lam <= 0:
        return 0.0
    return float(unjudged * max(float((-delta_p - delta_ap).mean()), 0.0))


@dataclass(frozen=True)
class Judgments:
    """Per pair id of :class:`CodedLines`, how many of the counted qrels rows judge it
    relevant and how many judged not relevant (int64, one entry per pair), and which
    topic codes the counted rows hold (bool, one entry per topic code)."""

    relevant: np.ndarray
    not_relevant: np.ndarray
    topics: np.ndarray

    @classmethod
    def of(cls, coded: CodedLines, judged: np.ndarray, level: int) -> Judgments:
        """Count the rows ``judged`` selects of ``coded``'s qrels at relevance ``level``."""
        grade, pair = coded.q_grade[judged], coded.q_pair[judged]
        relevant = is_relevant(grade, level)
        return cls(np.bincount(pair[relevant], minlength=coded.pairs),
                   np.bincount(pair[is_judged(grade) & ~relevant], minlength=coded.pairs),
                   np.bincount(coded.q_topic[judged], minlength=coded.topics) > 0)


@dataclass(frozen=True)
class Reranked:
    """Lines of ``p ◦ s`` (:func:`rerank_top_k`): ``tag``, ``topic``, ``pair`` codes as in
    :class:`CodedLines` and the new ``rank`` (int64, shape ``(n,)`` each), sorted by run
    tag, topic and rank."""

    tag: np.ndarray
    topic: np.ndarray
    pair: np.ndarray
    rank: np.ndarray


def rerank_top_k(coded: CodedLines, pooled: np.ndarray, run: int, k: int) -> Reranked:
    """The top ``k`` of each pooled run p re-ranked by the run s (their ``p ◦ s``,
    ``LipaniEstimator.scala`` ``getNewRunBySelectedRuns`` and ``getNewScore``, lines
    66-101), on the topics both have (``pooled``: bool per tag code; ``run``: s's code).

    A document of p at rank r_p that s has at rank r_s moves to r_s plus a
    tie-break: 1e-4 if r_s = r_p, (r_p + 1) / 1e4 if it moves down, r_p / 1e8 if
    it moves up; the others stay at r_p + 1e-4. Ties left go to docno descending
    (their ``Run.normalizeRank``). Their scores are 32-bit floats, which can tie
    two of these positions that float64 keeps apart; not reproduced here.

    Only the lines that can rank ``k`` or better are sorted (:func:`_candidates`,
    :func:`_may_reach_top_k`): P@k and AP@k read no others.

    :raises PooltoolError: the run lists a docno twice in a topic.
    """
    mixed, position = _candidates(coded, pooled, np.flatnonzero(coded.tag == run), k)
    keep = _may_reach_top_k(coded.run_topic[mixed], coded.run_topics, position, k)
    ranked = _ranked(coded, mixed[keep], position[keep])
    top = ranked.rank <= k
    return Reranked(ranked.tag[top], ranked.topic[top], ranked.pair[top], ranked.rank[top])


def _candidates(coded: CodedLines, pooled: np.ndarray, run: np.ndarray,
                k: int) -> tuple[np.ndarray, np.ndarray]:
    """Lines of the pooled runs on the run's topics (positions in ``coded``; ``run``: the
    run's) that hold each (run, topic)'s top k of ``p ◦ s``, and their new positions
    (:func:`rerank_top_k`).

    With D = max(2k, 50): a line that neither run ranks D or better lies after
    position D + 1 (r_p + 1e-4, or r_s plus a positive tie-break). So the lines p or s
    ranks D or better hold the top k of every (p, topic) where k of them lie at D + 1
    or before; the other (p, topic)s (few: s ranking deep what p ranks high) are
    taken whole.
    """
    topics = np.zeros(coded.topics, dtype=bool)
    topics[coded.topic[run]] = True
    r_s = np.full(coded.pairs, np.nan)
    r_s[coded.pair[run]] = coded.rank[run]
    if np.count_nonzero(~np.isnan(r_s)) < len(run):
        raise PooltoolError("lipani re-ranks the pooled runs by the run: a docno it lists "
                            "twice in a topic has no one rank")
    groups = pooled[coded.run_topic_tag] & topics[coded.run_topic_topic]
    depth = max(2 * k, 50)
    shallow = np.flatnonzero(coded.rank <= depth)
    shallow = shallow[groups[coded.run_topic[shallow]]]
    moved = coded.lines_of_pairs(coded.pair[run[coded.rank[run] <= depth]])
    moved = moved[groups[coded.run_topic[moved]] & (coded.rank[moved] > depth)]
    lines = np.concatenate([shallow, moved])
    position = _positions(coded.rank[lines], r_s[coded.pair[lines]])
    early = np.bincount(coded.run_topic[lines[position <= depth + 1]],
                        minlength=coded.run_topics)
    short = groups & (early < k)
    if not short.any():
        return lines, position
    kept = ~short[coded.run_topic[lines]]
    rest = np.flatnonzero(short[coded.run_topic])
    return (np.concatenate([lines[kept], rest]),
            np.concatenate([position[kept], _positions(coded.rank[rest], r_s[coded.pair[rest]])]))


def _positions(rank: np.ndarray, r_s: np.ndarray) -> np.ndarray:
    """Each pooled line's new position from its rank r_p and the run's rank r_s of its
    document (NaN: the run lacks it; :func:`rerank_top_k`)."""
    r_p = rank.astype(np.float64)
    step = r_s - r_p
    tie_break = np.select([step == 0, step > 0], [1e-4, (r_p + 1) / 1e4], r_p / 1e8)
    return np.where(np.isnan(r_s), r_p + 1e-4, r_s + tie_break)


def _ranked(coded: CodedLines, mixed: np.ndarray, position: np.ndarray) -> Reranked:
    """Each (run, topic)'s lines ranked by position, ties to docno descending."""
    tag, topic = coded.tag[mixed], coded.topic[mixed]
    # by run tag, topic, position, then docno descending (a stable sort on codes)
    order = np.lexsort((-coded.docno[mixed], position, topic, tag))
    group = tag[order] * (int(topic.max(initial=0)) + 1) + topic[order]
    return Reranked(tag[order], topic[order], coded.pair[mixed][order],
                    positions_in_groups(group))


def _may_reach_top_k(group: np.ndarray, groups: int, position: np.ndarray,
                     k: int) -> np.ndarray:
    """Which lines can rank ``k`` or better in their (run, topic) (``group``: its code
    per line, below ``groups``): all but those with at least k lines of a lower floor of
    min(position, cap) before them, cap >= k.

    Exact: with c = clip(floor(position), 0, cap), c' < c implies position' < position,
    so a line dropped has k lines ranked before it; a line of the true top k has
    fewer than k lines of lower position, so fewer of lower c, and is kept. The kept
    lines hold the true top k, in the same order, so their ranks up to k are the
    same. The cap is as deep as the (run, topic) x (cap + 1) counts allow within
    about four per line (a cap of k alone keeps every line of a (run, topic) whose
    top k the run moved down: all of them share the floor k); when even cap = k
    would outgrow that, all are kept.
    """
    budget = 4 * len(group) + 1024
    deepest = int(np.floor(position.max(initial=0.0)))
    cap = max(k, min(deepest, budget // max(groups, 1) - 1))
    if groups * (cap + 1) > budget:
        return np.ones(len(group), dtype=bool)
    capped = np.clip(np.floor(position), 0, cap).astype(np.int64)
    key = group * (cap + 1) + capped
    counts = np.bincount(key, minlength=groups * (cap + 1)).reshape(groups, cap + 1)
    lower = (np.cumsum(counts, axis=1) - counts).ravel()
    return lower[key] < k


@dataclass(frozen=True)
class PrecisionPair:
    """P@k and anti-precision AP@k (fractions 0..1, float64) per run ``tag`` code
    (int64, ascending), arrays of one length."""

    tag: np.ndarray
    P: np.ndarray
    AP: np.ndarray

    def aligned(self, tags: np.ndarray) -> PrecisionPair:
        """The values of run codes ``tags``, NaN for a code not here (the reindex of a
        frame indexed by run code)."""
        at = np.searchsorted(self.tag, tags)
        found = at < len(self.tag)
        found[found] = self.tag[at[found]] == tags[found]
        p, ap = np.full(len(tags), np.nan), np.full(len(tags), np.nan)
        p[found], ap[found] = self.P[at[found]], self.AP[at[found]]
        return PrecisionPair(tags, p, ap)


def _precision_pair(coded: CodedLines, tags: np.ndarray, judgments: Judgments, k: int,
                    top: np.ndarray) -> PrecisionPair:
    """P@k and anti-precision AP@k (share of the top k judged not relevant) per run
    tag: means over the run's topics that the judgments have (their ``TRECEval.p_n``,
    lines 110-113), each run's topics in order of first appearance.

    :param tags: the runs (bool per tag code of ``coded``), read whole.
    :param top: the positions of ``coded``'s lines ranked ``k`` or better.
    """
    # the (run, topic)s in order of first appearance: their codes'
    groups = np.flatnonzero(tags[coded.run_topic_tag] & judgments.topics[coded.run_topic_topic])
    lines = top[tags[coded.tag[top]] & judgments.topics[coded.topic[top]]]
    pair, run_topic = coded.pair[lines], coded.run_topic[lines]
    rel = np.bincount(run_topic, weights=judgments.relevant[pair], minlength=coded.run_topics)
    anti = np.bincount(run_topic, weights=judgments.not_relevant[pair],
                       minlength=coded.run_topics)
    return _means(coded.run_topic_tag[groups], rel[groups], anti[groups], k)


def _reranked_precision_pair(lines: Reranked, judgments: Judgments, k: int) -> PrecisionPair:
    """:func:`_precision_pair` of re-ranked lines (each (run, topic) holds rank 1, and
    they come sorted by run and topic, their order of first appearance)."""
    scored = judgments.topics[lines.topic]
    tag, topic, pair, rank = (lines.tag[scored], lines.topic[scored], lines.pair[scored],
                              lines.rank[scored])
    group = tag * (int(topic.max(initial=0)) + 1) + topic
    uniques, first = np.unique(group, return_index=True)
    top = rank <= k
    at = np.searchsorted(uniques, group[top])
    rel = np.bincount(at, weights=judgments.relevant[pair[top]], minlength=len(uniques))
    anti = np.bincount(at, weights=judgments.not_relevant[pair[top]], minlength=len(uniques))
    return _means(tag[first], rel, anti, k)


def _means(tag: np.ndarray, rel: np.ndarray, anti: np.ndarray, k: int) -> PrecisionPair:
    """Per run tag code, the mean of its (run, topic)s' ``rel / k`` and ``anti / k``
    (counts, one per (run, topic), each run's in order), as pandas' grouped mean gives
    it: the values depend on its summation to the last bit. For labels in ascending
    order (the runs come so from the store) pandas sums each run's values as
    ``np.add.reduceat`` does (tests/analysis/test_lipani.py checks it on random
    values), which is taken here without a frame; other orders go through pandas."""
    p, ap = rel.astype(np.int64) / k, anti.astype(np.int64) / k
    if len(tag) and bool(np.all(tag[1:] >= tag[:-1])):
        codes, starts, counts = np.unique(tag, return_index=True, return_counts=True)
        return PrecisionPair(codes, np.add.reduceat(p, starts) / counts,
                             np.add.reduceat(ap, starts) / counts)
    means = pd.DataFrame({"P": p, "AP": ap}, index=pd.Index(tag, name="run_tag")).groupby(
        level="run_tag").mean()
    return PrecisionPair(means.index.to_numpy(dtype=np.int64), means["P"].to_numpy(),
                         means["AP"].to_numpy())
