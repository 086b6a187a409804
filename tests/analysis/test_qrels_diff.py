"""Qrels diffs: added, removed, regraded, and num_rel moves at the threshold."""

from __future__ import annotations

from pooltool.analysis.qrels_diff import diff_qrels
from pooltool.formats.qrels import read_qrels

A = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 2\n2 0 y -1\n"
B = "1 0 a 0\n1 0 b 0\n1 0 c 1\n2 0 y 1\n3 0 z 1\n"


def test_changes_and_relevance_moves() -> None:
    diff = diff_qrels(read_qrels(A), read_qrels(B))
    rows = [(r.topic, r.docno, r.change, r.relevance) for r in diff.changes.itertuples()]
    assert rows == [("1", "a", "regraded", "lost"), ("1", "c", "regraded", "same"),
                    ("2", "x", "removed", "lost"), ("2", "y", "regraded", "gained"),
                    ("3", "z", "added", "gained")]


def test_per_topic_counts_and_totals() -> None:
    diff = diff_qrels(read_qrels(A), read_qrels(B), level=2)
    table = diff.per_topic.set_index("topic")
    assert table.loc["1"].to_dict() == {
        "judged_a": 3, "judged_b": 3, "added": 0, "removed": 0, "regraded": 2,
        "num_rel_a": 1, "num_rel_b": 0, "num_rel_change": -1}
    assert diff.totals()["num_rel_a"] == 2 and diff.totals()["num_rel_b"] == 0
    assert diff.totals()["added"] == 1 and diff.totals()["removed"] == 1


def test_identical_qrels_have_no_changes() -> None:
    diff = diff_qrels(read_qrels(A), read_qrels(A))
    assert diff.changes.empty and diff.totals()["num_rel_change"] == 0
