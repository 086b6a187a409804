"""A negative grade ("pooled, not judged", NIST's -1) is no judgment under every policy:
alice and bob judge d1-d3, then carol's file marks d2 and d3 -1 (as export-qrels
--unjudged-as -1 writes) and is imported last (issue 24, 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pooltool.records import is_judged
from pooltool.store import JudgmentStore
from pooltool.store.policy import apply_policy


@pytest.fixture
def store(tmp_path: Path) -> JudgmentStore:
    store = JudgmentStore.memory()
    for assessor, grades in (("alice", [2, 1, 0]), ("bob", [2, 1, 1])):
        for docno, grade in zip(["d1", "d2", "d3"], grades, strict=True):
            store.record_judgment("1", docno, grade, assessor)
    carol = tmp_path / "carol.qrels"
    carol.write_text("1 0 d2 -1\n1 0 d3 -1\n1 0 d4 -1\n")
    store.import_qrels(carol, "carol", "carol")
    return store


@pytest.mark.parametrize(("policy", "expected"), [
    ("latest", {"d1": 2, "d2": 1, "d3": 1, "d4": -1}),  # bob's, the latest grades >= 0
    ("latest:all", {"d1": 2, "d2": 1, "d3": 1, "d4": -1}),
    ("majority", {"d1": 2, "d2": 1, "d3": 1, "d4": -1}),  # d3: 0 and 1 tie, 1 given last
    ("max", {"d1": 2, "d2": 1, "d3": 1, "d4": -1}),
    ("assessor:carol", {"d2": -1, "d3": -1, "d4": -1}),
    ("assessor:alice", {"d1": 2, "d2": 1, "d3": 0}),
    ("prefer:carol,alice", {"d1": 2, "d2": 1, "d3": 0, "d4": -1}),
])
def test_a_negative_grade_never_replaces_a_real_one(store: JudgmentStore, policy: str,
                                                    expected: dict[str, int]) -> None:
    qrels = store.qrels(policy=policy)
    assert dict(zip(qrels["docno"], qrels["grade"], strict=True)) == expected


def test_status_counts_the_people_judged_documents(store: JudgmentStore) -> None:
    live = store.live_judgments()
    chosen = apply_policy(live, "latest")
    assert sorted(chosen.loc[is_judged(chosen["grade"]), "docno"]) == ["d1", "d2", "d3"]


def test_an_own_negative_grade_after_a_real_one_keeps_the_real_one() -> None:
    store = JudgmentStore.memory()
    store.record_judgment("1", "d1", 2, "alice")
    store.record_judgment("1", "d1", -1, "alice")
    for policy in ("latest", "majority", "max", "assessor:alice", "prefer:alice"):
        assert store.qrels(policy=policy)["grade"].tolist() == [2], policy
