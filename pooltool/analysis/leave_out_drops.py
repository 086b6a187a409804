"""The bias corrections' validation on integer codes made once: each group's scores on its
reduced qrels and the inner leave-one-out.

Webber and Park's validation (:func:`pooltool.analysis.bias_correction.corrected_scores`)
leaves each pooled group g out, removes the judgments of the pairs g alone pooled
(the reduced qrels), and fits the correction on the other groups: each of them is
left out again under the reduced qrels and its drop measured. Those drops are
:func:`pooltool.analysis.bias.leave_one_out`'s, derived the same way (per topic,
``num_rel`` less the group's unique relevant rows, ``num_rel_ret@k`` less those in the
run's own top k: :func:`~pooltool.analysis.bias.leave_out_scores`) and averaged the
same way (:func:`~pooltool.measures.summary.trec_mean` over each run's topics in
the evaluation's order), so every value is the same to the bit. What differs is the
bookkeeping: the lines are coded once for every group (a pair id per (topic, docno),
the groups that pooled each pair), so that a group's inner pass is a few
``bincount`` calls instead of a frame merge and three groupbys of strings.

Each group's evaluation of every pooled run on its reduced qrels is derived the same way
from one evaluation on the full qrels (:meth:`PooledCodes.reduced`: a removed relevant
row leaves ``num_rel`` and, in a run's top k, ``num_rel_ret@k``; a removed judged row in
the top k adds to unjudged@k), wherever that is the evaluation's to the bit: no pair
listed twice, no topic left without rows; elsewhere the group's qrels are evaluated.

A pair is unique to group h among the others of g when h is the one group that pooled
it, or when h and g are the two: all its qrels rows are in g's reduced qrels (g did not
pool it alone), each row counting (a pair listed twice counts twice, as the merge of
:func:`~pooltool.analysis.bias.unique_pairs` counts it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from pooltool.analysis.bias import leave_out_scores, require_relevant
from pooltool.measures.per_topic import Columns
from pooltool.measures.recall import RecallResult, evaluate_recall
from pooltool.measures.summary import trec_mean
from pooltool.records import is_judged, is_relevant

#: Run tag -> its mean ``P``, ``recall`` and ``unjudged`` at k (:func:`run_means`).
Summary = dict[str, dict[str, float]]


@dataclass(frozen=True)
class PooledCodes:
    """The pooled runs' lines (cut at ``max(k, depth)``) and the full qrels, coded.

    Lines (shape ``(n,)``): ``tag`` (code into ``tags``), ``pair`` (pair id),
    ``rank`` (``trec_rank``). Tags (shape ``(t,)``): ``tag_group`` (group code). Pairs
    (shape ``(p,)``): ``pair_topic`` (topic code), ``relevant``, ``judged`` (qrels rows
    judging it relevant at ``level``, judging it at all), ``pair_groups`` (how many groups
    pooled it to ``depth``),
    ``first_group``, ``second_group`` (the two smallest group codes that did; -1 for
    none). Qrels (shape ``(m,)``): ``q_grade``, ``q_topic``, ``q_pair``. ``topic_code``:
    topic id -> code.
    """

    tag: np.ndarray
    pair: np.ndarray
    rank: np.ndarray
    tags: list[str]
    tag_group: np.ndarray
    groups: list[str]
    pair_topic: np.ndarray
    relevant: np.ndarray
    judged: np.ndarray
    pair_groups: np.ndarray
    first_group: np.ndarray
    second_group: np.ndarray
    q_grade: np.ndarray
    q_topic: np.ndarray
    q_pair: np.ndarray
    topic_code: dict[str, int]
    depth: int
    k: int
    level: int

    @classmethod
    def of(cls, lines: pd.DataFrame, qrels: pd.DataFrame, group_of: dict[str, str],
           depth: int, k: int, level: int) -> PooledCodes:
        """Code ``lines`` (``run_tag, topic, docno, trec_rank``, rows of a checked run frame
        cut at ``max(k, depth)``) and ``qrels`` (``topic, docno, grade``, checked), with
        ``group_of`` (run tag -> group, every run of ``lines``)."""
        n = len(lines)
        topic_codes, topics = pd.factorize(np.concatenate([
            lines["topic"].to_numpy(dtype=object), qrels["topic"].to_numpy(dtype=object)]))
        docno_codes = pd.factorize(np.concatenate([
            lines["docno"].to_numpy(dtype=object), qrels["docno"].to_numpy(dtype=object)]))[0]
        pair_codes, distinct = pd.factorize(topic_codes.astype(np.int64) * (int(
            docno_codes.max(initial=0)) + 1) + docno_codes)
        pair_codes = pair_codes.astype(np.int64)
        pairs = len(distinct)
        pair_topic = np.zeros(pairs, dtype=np.int64)
        pair_topic[pair_codes] = topic_codes
        tag_codes, tags = pd.factorize(lines["run_tag"].to_numpy(dtype=object))
        group_codes, groups = pd.factorize(np.array([group_of[t] for t in tags], dtype=object))
        grade = qrels["grade"].to_numpy(dtype=np.int64)
        relevant = np.bincount(pair_codes[n:][is_relevant(grade, level)], minlength=pairs)
        judged = np.bincount(pair_codes[n:][is_judged(grade)], minlength=pairs)
        rank = lines["trec_rank"].to_numpy(dtype=np.int64)
        pooled = rank <= depth
        line_group = group_codes.astype(np.int64)[tag_codes]
        width = max(len(groups), 1)
        combos = np.unique(pair_codes[:n][pooled] * width + line_group[pooled])
        combo_pair, combo_group = combos // width, combos % width
        count = np.bincount(combo_pair, minlength=pairs)
        starts = np.concatenate([[0], np.cumsum(count)[:-1]])
        first = np.full(pairs, -1, dtype=np.int64)
        second = np.full(pairs, -1, dtype=np.int64)
        first[count >= 1] = combo_group[starts[count >= 1]]
        second[count >= 2] = combo_group[starts[count >= 2] + 1]
        return cls(tag_codes.astype(np.int64), pair_codes[:n], rank, [str(t) for t in tags],
                   group_codes.astype(np.int64), [str(g) for g in groups], pair_topic,
                   relevant, judged, count, first, second, grade,
                   topic_codes[n:].astype(np.int64), pair_codes[n:],
                   {str(t): i for i, t in enumerate(topics)}, depth, k, level)

    def reduced(self, kept: np.ndarray, full: RecallResult) -> Columns | None:
        """Every pooled run's per-topic ``run_tag, topic, num_rel, num_rel_ret@k, recall@k,
        P@k, unjudged@k`` on the qrels rows ``kept`` (bool, shape ``(m,)``), from ``full``,
        their evaluation on all the rows (cut at ``max(k, depth)``, ``ks=[k]``), as
        :func:`~pooltool.measures.recall.evaluate_recall` gives them on the kept rows: the
        removed rows' relevant and judged pairs taken off each count
        (:func:`~pooltool.analysis.bias.leave_out_scores`, unjudged@k as its count over k).
        None when that would not be the evaluation's: a pair listed twice (it counts once
        there) or a topic left without rows (it leaves every run's topics there)."""
        removed = ~kept
        if len(np.unique(self.q_pair)) < len(self.q_pair) or \
                (np.bincount(self.q_topic[kept], minlength=len(self.topic_code)) == 0).any() \
                != (np.bincount(self.q_topic, minlength=len(self.topic_code)) == 0).any():
            return None
        topics, k = len(self.topic_code), self.k
        gone = np.zeros(len(self.relevant), dtype=bool)
        gone[self.q_pair[removed]] = True
        lines = np.flatnonzero((self.rank <= k) & gone[self.pair])
        cell = self.tag[lines] * topics + self.pair_topic[self.pair[lines]]
        size = len(self.tags) * topics
        lost_rel = np.bincount(cell, weights=self.relevant[self.pair[lines]], minlength=size)
        lost_judged = np.bincount(cell, weights=self.judged[self.pair[lines]], minlength=size)
        removed_rel = np.bincount(self.q_topic[removed],
                                  weights=is_relevant(self.q_grade[removed], self.level),
                                  minlength=topics)
        columns = full.per_topic_columns
        row_tag, row_topic = self._rows(columns)
        row = row_tag * topics + row_topic
        lost = lost_rel[row].astype(np.int64)
        num_rel, recall, precision = leave_out_scores(
            columns["num_rel"], columns[f"num_rel_ret@{k}"],
            removed_rel[row_topic].astype(np.int64), lost, k)
        unjudged = np.rint(columns[f"unjudged@{k}"] * k).astype(np.int64) \
            + lost_judged[row].astype(np.int64)
        return {"run_tag": columns["run_tag"], "topic": columns["topic"], "num_rel": num_rel,
                f"num_rel_ret@{k}": columns[f"num_rel_ret@{k}"] - lost,
                f"recall@{k}": recall, f"P@{k}": precision,
                f"unjudged@{k}": unjudged / float(k)}

    def plain(self, columns: Columns, tags: list[str]) -> Summary:
        """Runs ``tags``' mean P@k, Recall@k and unjudged@k over their rows of ``columns``
        (:meth:`reduced`'s), as :func:`~pooltool.measures.summary.summarize` means them."""
        k = self.k
        mine = {tag: np.flatnonzero(columns["run_tag"] == tag) for tag in tags}
        return {tag: {name: trec_mean(columns[f"{name}@{k}"][rows], len(rows))
                      for name in ("P", "recall", "unjudged")} for tag, rows in mine.items()}

    def _rows(self, columns: Columns) -> tuple[np.ndarray, np.ndarray]:
        """The tag and topic codes of each row of per-topic ``columns``."""
        tag_code = {t: i for i, t in enumerate(self.tags)}
        return (np.array([tag_code[t] for t in columns["run_tag"]], dtype=np.int64),
                np.array([self.topic_code[t] for t in columns["topic"]], dtype=np.int64))

    def drops(self, group: str, kept: np.ndarray, columns: Columns,
              measure: str) -> pd.Series:
        """Each run outside ``group`` left out again under ``group``'s reduced qrels: its
        ``measure`` (``P`` or ``recall`` at k) minus its leave-out ``measure``, as
        :func:`~pooltool.analysis.bias.leave_one_out` of those runs on those qrels
        gives it (``per_run`` indexed by run tag, in its row order).

        :param kept: which full qrels rows the reduced qrels keep (bool, shape ``(m,)``).
        :param columns: every pooled run's per-topic evaluation on the reduced qrels (cut
            at ``max(k, depth)``, ``ks=[k]``, ``level``), or :meth:`reduced`'s.
        :raises PooltoolError: the reduced qrels hold no relevant judgment.
        """
        require_relevant(self.q_grade[kept], self.level)
        left = self.groups.index(group)
        owner = self._owners(left)
        topics = len(self.topic_code)
        owned = owner >= 0
        removed = np.bincount(owner[owned] * topics + self.pair_topic[owned],
                              weights=self.relevant[owned], minlength=len(self.groups) * topics)
        lost = np.zeros(len(self.tags) * topics)
        mine = self.rank <= self.k
        own = owner[self.pair[mine]] == self.tag_group[self.tag[mine]]
        tag, pair = self.tag[mine][own], self.pair[mine][own]
        np.add.at(lost, tag * topics + self.pair_topic[pair], self.relevant[pair])
        row_tag, row_topic = self._rows(columns)
        rows = np.flatnonzero(self.tag_group[row_tag] != left)
        row_tag, row_topic = row_tag[rows], row_topic[rows]
        k = self.k
        _, recall_loo, p_loo = leave_out_scores(
            columns["num_rel"][rows], columns[f"num_rel_ret@{k}"][rows],
            removed[self.tag_group[row_tag] * topics + row_topic].astype(np.int64),
            lost[row_tag * topics + row_topic].astype(np.int64), k)
        values = {"recall": columns[f"recall@{k}"][rows], "recall_loo": recall_loo,
                  "P": columns[f"P@{k}"][rows], "P_loo": p_loo}
        return _per_run_drops(row_tag, values, self.tags, measure)

    def _owners(self, left: int) -> np.ndarray:
        """Per pair, the one group of those but ``left`` that pooled it, else -1."""
        first, second, count = self.first_group, self.second_group, self.pair_groups
        return np.select([(count == 1) & (first != left), (count == 2) & (first == left),
                          (count == 2) & (second == left)], [first, second, first], -1)


def _per_run_drops(row_tag: np.ndarray, values: dict[str, np.ndarray], tags: list[str],
                   measure: str) -> pd.Series:
    """Per run (tag codes ``row_tag`` per row), the mean of each of ``values`` over its
    rows in their order, and ``measure`` minus ``measure_loo``, in the order of
    :func:`~pooltool.analysis.bias.leave_one_out`'s ``per_run`` (recall descending,
    then run tag)."""
    codes = list(dict.fromkeys(row_tag.tolist()))
    order = np.argsort(row_tag, kind="stable")
    bounds = np.searchsorted(row_tag[order], codes, side="left"), \
        np.searchsorted(row_tag[order], codes, side="right")
    means = {name: np.array([trec_mean(column[order][start:stop], stop - start)
                             for start, stop in zip(*bounds, strict=True)])
             for name, column in values.items()}
    names = np.array([tags[c] for c in codes], dtype=str)
    ranked = np.lexsort((names, -means["recall"]))
    drop = means[measure] - means[f"{measure}_loo"]
    return pd.Series(drop[ranked], index=pd.Index(names[ranked].astype(object), name="run_tag"))


def run_means(runs: pd.DataFrame, qrels: pd.DataFrame | pa.Table, k: int, level: int,
             complete: bool) -> Summary:
    """Each run's mean P@k, Recall@k and unjudged@k by run tag, input order
    (lines with a ``trec_rank``, the pooled runs', are scored in that order, and only
    their first k per topic: the three read no other, and rank 1 keeps every topic)."""
    ranked = "trec_rank" in runs.columns
    if ranked:
        runs = runs[runs["trec_rank"] <= k]
    result = evaluate_recall(runs, qrels, ks=[k], level=level, complete=complete,
                             ranked=ranked)
    return means_of(result, result.run_tags)


def means_of(result: RecallResult, tags: list[str]) -> Summary:
    """``result``'s mean P@k, Recall@k and unjudged@k of runs ``tags``, in that order (read
    from its columns: one row per run, as scored at one k)."""
    columns = result.summary_columns
    row = {tag: i for i, tag in enumerate(columns["run_tag"])}
    return {tag: {name: float(columns[name][row[tag]]) for name in ("P", "recall", "unjudged")}
            for tag in tags}
