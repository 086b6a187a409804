"""Dealing topics to assessors, with an overlap judged by two."""

from __future__ import annotations

import pandas as pd
import pytest

from pooltool.errors import InvalidArgument, UnknownTopic
from pooltool.judging.assignment import assign_topics, plan_assignment
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

SIZES = {"1": 10, "2": 8, "3": 5, "4": 3}


def test_largest_topics_go_to_the_least_loaded_assessor() -> None:
    plan = plan_assignment(SIZES, ["ann", "ben"])
    # 1 (10) -> ann, 2 (8) -> ben, 3 (5) -> ben (8 < 10), 4 (3) -> ann (10 < 13)
    assert dict(zip(plan["topic"], plan["assessor"], strict=True)) == {
        "1": "ann", "2": "ben", "3": "ben", "4": "ann"}
    assert set(plan["role"]) == {"primary"}


def test_overlap_share_adds_a_second_assessor() -> None:
    plan = plan_assignment(SIZES, ["ann", "ben", "cat"], overlap=0.5, seed=1)
    overlap = plan[plan["role"] == "overlap"]
    assert len(overlap) == 2
    for topic, second in zip(overlap["topic"], overlap["assessor"], strict=True):
        first = plan[(plan["topic"] == topic) & (plan["role"] == "primary")]["assessor"].item()
        assert second != first
    assert plan.equals(plan_assignment(SIZES, ["ann", "ben", "cat"], overlap=0.5, seed=1))


def test_full_overlap_gives_every_topic_two_assessors() -> None:
    plan = plan_assignment(SIZES, ["ann", "ben"], overlap=1.0)
    assert plan.groupby("topic")["assessor"].nunique().tolist() == [2, 2, 2, 2]


@pytest.mark.parametrize(("assessors", "overlap", "message"), [
    ([], 0.0, "at least one assessor"),
    (["ann", "ann"], 0.0, "named twice"),
    (["ann", " "], 0.0, "must not be blank"),
    ([""], 0.0, "must not be blank"),
    (["ann", "ben"], 1.5, "between 0 and 1"),
    (["ann"], 0.2, "at least two assessors"),
])
def test_bad_requests_are_refused(assessors: list[str], overlap: float, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        plan_assignment(SIZES, assessors, overlap)


@pytest.fixture
def pooled_store(memory_store: JudgmentStore) -> JudgmentStore:
    store = memory_store
    run = pd.DataFrame([("r", t, f"d{i}", i + 1, 10.0 - i) for t, n in SIZES.items()
                        for i in range(n)], columns=["run_tag", "topic", "docno", "rank", "score"])
    store.add_run_frame(run)
    pool_runs(store, depth=100)
    return store


def test_assign_topics_stores_and_replaces(pooled_store: JudgmentStore) -> None:
    assign_topics(pooled_store, ["ann", "ben"])
    assert pooled_store.assigned_topics("ann") == ["1", "4"]
    assign_topics(pooled_store, ["cat"], topics=["4"])
    assert pooled_store.assigned_topics("ann") == ["1"]
    assert pooled_store.assigned_topics("cat") == ["4"]
    assert list(pooled_store.assignments()["topic"]) == ["1", "2", "3", "4"]


def test_assign_unknown_topic(pooled_store: JudgmentStore) -> None:
    with pytest.raises(UnknownTopic, match="99"):
        assign_topics(pooled_store, ["ann"], topics=["99"])


def test_topics_stay_with_the_assessor_who_judged_most_of_them(
        pooled_store: JudgmentStore) -> None:
    """alice judged 6 of topic 1's 10 pooled documents (one more regraded, one undone,
    one outside the pool); assigning bob and alice keeps topic 1 with alice."""
    for i in range(6):
        pooled_store.record_judgment("1", f"d{i}", 1, "alice")
    pooled_store.record_judgment("1", "d0", 0, "alice")  # a regrade counts once
    gone = pooled_store.record_judgment("1", "d7", 1, "alice")
    pooled_store.retract(gone, "alice")  # undone: not judged
    pooled_store.record_judgment("1", "zz", 1, "alice")  # not pooled
    pooled_store.record_judgment("1", "d9", 2, "bob")
    pooled_store.record_judgment("3", "d0", -1, "bob")  # negative: not judged
    plan = assign_topics(pooled_store, ["bob", "alice"])
    rows = plan.set_index("topic")[["assessor", "judged", "unjudged"]].to_dict("index")
    # the work is what nobody has judged: topic 1 10 - 7 (alice's 6, bob's d9) = 3; d0 of
    # topic 3 (-1) is not judged. 1 stays with alice (6 > bob's 1): alice 3; then 2 (8) ->
    # bob (8), 3 (5) -> alice (8), 4 (3): a tie at 8, bob named first (11)
    assert rows == {"1": {"assessor": "alice", "judged": 6, "unjudged": 3},
                    "2": {"assessor": "bob", "judged": 0, "unjudged": 8},
                    "3": {"assessor": "alice", "judged": 0, "unjudged": 5},
                    "4": {"assessor": "bob", "judged": 0, "unjudged": 3}}
    fresh = assign_topics(pooled_store, ["bob", "alice"], rebalance=True)
    # dealt anew, most work first: 2 (8) -> bob, 3 (5) -> alice, then 1 (3 left, 10 pooled,
    # before 4) -> alice (5 < 8), who judged 6 of it; 4 (3): alice 8 = bob 8, bob named first
    dealt = fresh.set_index("topic")[["assessor", "judged"]].to_dict("index")
    assert dealt == {"1": {"assessor": "alice", "judged": 6}, "2": {"assessor": "bob", "judged": 0},
                     "3": {"assessor": "alice", "judged": 0}, "4": {"assessor": "bob", "judged": 0}}


def test_a_kept_topic_may_stay_with_someone_not_named(pooled_store: JudgmentStore) -> None:
    pooled_store.record_judgment("2", "d1", 1, "carol")
    plan = assign_topics(pooled_store, ["ann", "ben"], overlap=0.0)
    assert plan.set_index("topic").loc["2", "assessor"] == "carol"
    assert pooled_store.assigned_topics("carol") == ["2"]


def test_numeric_topics_in_numeric_order() -> None:
    plan = plan_assignment({"10": 1, "2": 1, "1": 1, "b": 1}, ["ann", "ben"], overlap=0.5)
    assert list(dict.fromkeys(plan["topic"])) == ["1", "2", "10", "b"]
    assert plan.groupby("topic", sort=False)["role"].first().eq("primary").all()
