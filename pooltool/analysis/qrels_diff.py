"""Differences between two qrels: judgments added, removed and regraded, and num_rel moves.

A qrels is a DataFrame with ``topic, docno, grade`` columns (as
:func:`pooltool.formats.qrels.read_qrels` or ``JudgmentStore.qrels`` give),
one grade per (topic, docno). The ``iteration`` column is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.errors import FrameError
from pooltool.formats.frames import check_qrels_frame
from pooltool.records import is_judged, is_relevant, topic_order

CHANGE_KINDS = ("added", "removed", "regraded")


@dataclass(frozen=True)
class QrelsDiff:
    """What changed from qrels A to qrels B.

    :ivar changes: one row per changed (topic, docno): ``topic, docno,
        grade_a, grade_b`` (``<NA>`` where absent), ``change`` (added,
        removed or regraded) and ``relevance`` (``gained``, ``lost`` or
        ``same``: whether the pair crossed the relevance threshold).
    :ivar per_topic: one row per topic in A or B: ``topic, judged_a,
        judged_b, added, removed, regraded, num_rel_a, num_rel_b,
        num_rel_change`` (num_rel counts grade >= level).
    :ivar level: the relevance threshold used.
    """

    changes: pd.DataFrame
    per_topic: pd.DataFrame
    level: int

    def totals(self) -> dict[str, int]:
        """Summed counts over topics (same keys as ``per_topic``'s count columns)."""
        columns = [c for c in self.per_topic.columns if c != "topic"]
        return {c: int(self.per_topic[c].sum()) for c in columns}


def diff_qrels(qrels_a: pd.DataFrame, qrels_b: pd.DataFrame, level: int = 1) -> QrelsDiff:
    """Compare two qrels.

    :param level: relevance threshold: relevant means grade >= level
        (trec_eval ``-l``, default 1; at least 0).
    :raises FrameError: either qrels breaks the qrels contract
        (:func:`~pooltool.formats.frames.check_qrels_frame`), or ``level`` is negative.
    """
    if level < 0:
        raise FrameError(f"level must be at least 0, got {level}")
    check_qrels_frame(qrels_a)
    check_qrels_frame(qrels_b)
    merged = qrels_a[["topic", "docno", "grade"]].merge(
        qrels_b[["topic", "docno", "grade"]], on=["topic", "docno"], how="outer",
        suffixes=("_a", "_b"))
    for side in ("grade_a", "grade_b"):
        merged[side] = merged[side].astype("Int64")
    merged["change"] = _change_kind(merged)
    changes = merged[merged["change"] != ""].copy()
    changes["relevance"] = _relevance_move(changes, level)
    changes = changes.sort_values("docno", kind="mergesort")
    changes = changes.iloc[topic_order(list(changes["topic"]))].reset_index(drop=True)
    return QrelsDiff(changes, _per_topic(merged, level), level)


def _change_kind(merged: pd.DataFrame) -> np.ndarray:
    in_a, in_b = merged["grade_a"].notna(), merged["grade_b"].notna()
    regraded = (in_a & in_b) & (merged["grade_a"] != merged["grade_b"]).fillna(False)
    return np.select([in_b & ~in_a, in_a & ~in_b, regraded.to_numpy(dtype=bool)],
                     list(CHANGE_KINDS), default="")


def _relevance_move(changes: pd.DataFrame, level: int) -> np.ndarray:
    rel_a = is_relevant(changes["grade_a"], level).fillna(False).to_numpy(dtype=bool)
    rel_b = is_relevant(changes["grade_b"], level).fillna(False).to_numpy(dtype=bool)
    return np.select([rel_b & ~rel_a, rel_a & ~rel_b], ["gained", "lost"], default="same")


def _per_topic(merged: pd.DataFrame, level: int) -> pd.DataFrame:
    flags = pd.DataFrame({
        "topic": merged["topic"],
        "judged_a": merged["grade_a"].notna(),
        "judged_b": merged["grade_b"].notna(),
        "added": merged["change"] == "added",
        "removed": merged["change"] == "removed",
        "regraded": merged["change"] == "regraded",
        "num_rel_a": is_relevant(merged["grade_a"], level).fillna(False).astype(bool),
        "num_rel_b": is_relevant(merged["grade_b"], level).fillna(False).astype(bool),
    })
    table = flags.groupby("topic", sort=True).sum().astype("int64")
    table["num_rel_change"] = table["num_rel_b"] - table["num_rel_a"]
    table = table.reset_index()
    return table.iloc[topic_order(list(table["topic"]))].reset_index(drop=True)


def qrels_counts(qrels: pd.DataFrame, level: int = 1) -> dict[str, int]:
    """Size of a qrels: ``topics``, ``judged`` (lines), ``judged_nonneg`` (grade >= 0,
    what trec_eval counts as judged) and ``relevant`` (grade >= ``level``)."""
    return {
        "topics": int(qrels["topic"].nunique()),
        "judged": len(qrels),
        "judged_nonneg": int(is_judged(qrels["grade"]).sum()),
        "relevant": int(is_relevant(qrels["grade"], level).sum()),
    }
