"""Queue orders, an assessor's own judgments, and topic progress."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pytest

from pooltool.errors import InvalidArgument, StoreError, UnknownTopic
from pooltool.judging.queue import (
    order_queue,
    pool_status,
    topic_progress,
    topic_queue,
)
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

ROWS = [("9", 1), ("10", 3), ("b", None), ("a", 2)]


def test_docno_order_is_string_order() -> None:
    assert order_queue(ROWS, "docno") == ["10", "9", "a", "b"]


def test_rank_order_best_rank_first_unranked_last() -> None:
    assert order_queue(ROWS, "rank") == ["9", "a", "10", "b"]


def test_random_order_is_sha256_of_seed_topic_docno() -> None:
    expected = sorted(["9", "10", "b", "a"], key=lambda d: hashlib.sha256(
        f"5\t7\t{d}".encode()).hexdigest())
    assert order_queue(ROWS, "random", seed=5, topic="7") == expected
    assert order_queue(ROWS, "random", seed=5, topic="7") == expected
    many: list[tuple[str, int | None]] = [(str(i), None) for i in range(50)]
    assert order_queue(many, "random", 1, "7") != order_queue(many, "random", 2, "7")


def test_random_order_keeps_relative_order_when_pool_grows() -> None:
    small = order_queue(ROWS, "random", 3, "7")
    grown = order_queue([*ROWS, ("new", 1)], "random", 3, "7")
    assert [d for d in grown if d != "new"] == small


def test_unknown_order() -> None:
    with pytest.raises(InvalidArgument, match="unknown queue order"):
        order_queue(ROWS, "score")


@pytest.fixture
def store(memory_store: JudgmentStore) -> JudgmentStore:
    store = memory_store
    run = pd.DataFrame([("r1", "1", "dz", 1, 3.0), ("r1", "1", "da", 2, 2.0),
                        ("r2", "1", "da", 1, 9.0), ("r2", "2", "dx", 1, 1.0)],
                       columns=["run_tag", "topic", "docno", "rank", "score"])
    store.add_run_frame(run)
    pool_runs(store, depth=10)
    return store


def test_topic_queue_from_store(store: JudgmentStore) -> None:
    assert topic_queue(store, "1") == ["da", "dz"]
    assert topic_queue(store, "1", "rank") == ["da", "dz"]
    with pytest.raises(UnknownTopic):
        topic_queue(store, "3")
    with pytest.raises(StoreError, match="no pool"):
        topic_queue(store, "1", pool="other")


def test_own_judgments_skip_retracted_and_others(store: JudgmentStore) -> None:
    first = store.record_judgment("1", "da", 1, "ann", ms_spent=10)
    store.record_judgment("1", "da", 2, "ann", ms_spent=20)
    gone = store.record_judgment("1", "dz", 0, "ann")
    store.retract(gone, "ann")
    store.record_judgment("1", "dz", 3, "ben")
    own = store.own_judgments("1", "ann")
    assert [(j.judgment_id, j.docno, j.grade) for j in own] == [(first, "da", 1),
                                                                (first + 1, "da", 2)]


def test_topic_progress_counts(store: JudgmentStore) -> None:
    store.record_judgment("1", "da", 2, "ann")
    store.record_judgment("1", "dz", 0, "ben")
    store.topics  # noqa: B018  (no statements stored: titles are empty)
    table = topic_progress(store, "ann")
    assert table.to_dict("records") == [
        {"topic": "1", "title": "", "pooled": 2, "judged_any": 2, "judged_me": 1,
         "queue": 1, "remaining": 0, "relevant": 1, "done": 1.0},
        {"topic": "2", "title": "", "pooled": 1, "judged_any": 0, "judged_me": 0,
         "queue": 1, "remaining": 1, "relevant": 0, "done": 0.0},
    ]


def test_topic_progress_remaining_is_what_nobody_judged(store: JudgmentStore) -> None:
    """As ``pooltool status`` counts it: imported qrels count, a negative grade does not,
    and an assessor who has judged nothing is no error."""
    store.record_judgment("1", "da", 1, "qrels", origin="qrels:x")
    store.record_judgment("1", "dz", -1, "qrels", origin="qrels:x")
    table = topic_progress(store, "newcomer").set_index("topic")
    status = pool_status(store).set_index("topic")
    assert list(table["remaining"]) == list(status["unjudged"]) == [1, 1]
    assert list(table["judged_any"]) == [1, 0] and list(table["judged_me"]) == [0, 0]
    assert list(table["queue"]) == [1, 1] and list(table["done"]) == [0.0, 0.0]
    store.record_judgment("1", "dz", 0, "newcomer")
    table = topic_progress(store, "newcomer").set_index("topic")
    assert table.loc["1", ["remaining", "judged_any", "judged_me"]].tolist() == [0, 2, 1]


def test_topic_progress_in_numeric_topic_order(memory_store: JudgmentStore) -> None:
    store = memory_store
    run = pd.DataFrame([("r", t, "d", 1, 1.0) for t in ("10", "2", "1", "b")],
                       columns=["run_tag", "topic", "docno", "rank", "score"])
    store.add_run_frame(run)
    pool_runs(store, depth=1)
    assert list(topic_progress(store, "ann")["topic"]) == ["1", "2", "10", "b"]


def test_judged_by_is_the_assessors_live_pairs(store: JudgmentStore) -> None:
    assert store.judged_by("ann").empty
    gone = store.record_judgment("1", "da", 2, "ann")
    store.record_judgment("1", "dz", -1, "ann")
    store.record_judgment("2", "dx", 1, "ben")
    store.retract(gone, "ann")
    assert store.judged_by("ann").empty  # a negative grade is unjudged, as in trec_eval
    store.record_judgment("1", "dz", 0, "ann")
    store.record_judgment("1", "da", 1, "ann")
    assert store.judged_by("ann").values.tolist() == [["1", "dz"], ["1", "da"]]
    store.record_judgment("1", "da", -1, "ann")  # the latest grade counts
    assert store.judged_by("ann").values.tolist() == [["1", "dz"]]


def test_queue_rule_unassigned_topic_skips_what_others_judged(store: JudgmentStore) -> None:
    """Off their assigned topics, an assessor's queue is what nobody judged (imported
    qrels count, a negative grade does not) plus what they judged themselves."""
    store.record_judgment("1", "dz", 1, "qrels", origin="qrels:x")
    assert topic_queue(store, "1", assessor="ann") == ["da"]
    store.record_judgment("1", "da", 0, "ann")
    assert topic_queue(store, "1", assessor="ann") == ["da"]  # kept to revisit
    assert topic_queue(store, "1", assessor="ben") == []
    # a later -1 of the same pair ("pooled, not judged") is no judgment: it never
    # replaces the grade given before (issue 24), so dz stays judged ...
    store.record_judgment("1", "dz", -1, "qrels", origin="qrels:y")
    assert topic_queue(store, "1", assessor="ben") == []
    # ... and a pair whose only grade is negative is unjudged
    store.record_judgment("1", "dy", -1, "qrels", origin="qrels:y")
    store.add_run_frame(pd.DataFrame([("late", "1", "dy", 1, 1.0)],
                                     columns=["run_tag", "topic", "docno", "rank", "score"]))
    pool_runs(store, depth=1, run_tags=["late"])
    assert topic_queue(store, "1", assessor="ben") == ["dy"]
    assert topic_queue(store, "1") == ["da", "dy", "dz"]  # no assessor: the whole pool
    row = topic_progress(store, "ann").set_index("topic").loc["1"]
    assert row[["pooled", "judged_any", "judged_me", "queue", "remaining"]].tolist() == [
        3, 2, 1, 2, 1]
    assert row["done"] == 0.5


def test_queue_rule_assigned_topics_need_my_own_judgment(store: JudgmentStore) -> None:
    """On a topic assigned to the assessor (either role) the queue is every pooled
    document and remaining is what they have not judged, whoever else did; the
    picker, the queue and judging_stats agree."""
    from pooltool.judging.assignment import assign_topics
    from pooltool.judging.pace import judging_stats

    assign_topics(store, ["ann", "ben"], ["1"], overlap=1.0)  # ann primary, ben overlap
    store.record_judgment("1", "da", 1, "ann")
    store.record_judgment("1", "dz", 0, "ann")
    for name, remaining in (("ann", 0), ("ben", 2)):
        assert topic_queue(store, "1", assessor=name) == ["da", "dz"]
        row = topic_progress(store, name, ["1"]).iloc[0]
        assert (row["queue"], row["remaining"], row["done"]) == (2, remaining,
                                                                  (2 - remaining) / 2)
        stats = judging_stats(store, name).iloc[0]
        assert stats["remaining"] == remaining
    # ben (overlap) judges one: his remaining drops, ann's queue is unchanged
    store.record_judgment("1", "da", 1, "ben")
    assert topic_progress(store, "ben", ["1"]).iloc[0]["remaining"] == 1
    # topic 2 is nobody's: for ann it is what nobody judged
    assert topic_queue(store, "2", assessor="ann") == ["dx"]


def test_reads_of_some_topics_equal_the_whole_filtered(store: JudgmentStore) -> None:
    """A queue reads only its topic's rows (pool_docs and qrels with topics), and they
    are the rows the whole read holds for it; a retraction in another topic is no matter."""
    store.record_judgment("1", "dz", 1, "ann")
    store.record_judgment("2", "dx", 2, "ben")
    undone = store.record_judgment("1", "da", 0, "ben")
    store.retract(undone, "ben")
    for topics in (["1"], ["2"], ["1", "2"]):
        whole = store.pool_docs()
        assert store.pool_docs(topics=topics).equals(
            whole[whole["topic"].isin(topics)].reset_index(drop=True))
        qrels = store.qrels()
        assert store.qrels(topics=topics).reset_index(drop=True).equals(
            qrels[qrels["topic"].isin(topics)].reset_index(drop=True))
    assert store.qrels(topics=["1"])[["docno", "grade"]].values.tolist() == [["dz", 1]]
    assert store.pool_docs(topics=["9"]).empty and store.qrels(topics=[]).empty


def test_pool_pairs_are_the_pairs_of_pool_docs(store: JudgmentStore) -> None:
    """The pairs-only read the topic picker counts from lists what pool_docs lists, in
    its order, for the whole pool and for some topics; an unknown pool is refused."""
    pool_runs(store, depth=1, run_tags=["r1"], pool="shallow")  # a second pool: apart
    whole = store.pool_pairs()
    assert whole.values.tolist() == [["1", "da"], ["1", "dz"], ["2", "dx"]]
    assert whole.equals(store.pool_docs()[["topic", "docno"]])
    assert store.pool_pairs("shallow").values.tolist() == [["1", "dz"]]
    assert store.pool_pairs(topics=["2"]).values.tolist() == [["2", "dx"]]
    assert store.pool_pairs(topics=["9"]).empty
    with pytest.raises(StoreError, match="nosuch"):
        store.pool_pairs("nosuch")


def test_a_machines_judgment_leaves_the_document_in_a_persons_queue(tmp_path: Path) -> None:
    """The topic picker and the judging screen agree on a topic nobody is assigned
    to, where a machine (``import-qrels --machine``) judged one document: the
    default (``latest``) qrels take people only, so ``d2`` is still to judge."""
    from pooltool.judging.session import JudgingSession
    from pooltool.store.journal import WriteQueue

    (tmp_path / "a.run").write_text("1 Q0 d1 1 3 A\n1 Q0 d2 2 2 A\n1 Q0 d3 3 1 A\n")
    (tmp_path / "m.qrels").write_text("1 0 d2 1\n")
    store = JudgmentStore.open(tmp_path / "s.db", create=True)
    store.add_runs([tmp_path / "a.run"])
    pool_runs(store, 3)
    store.import_qrels(tmp_path / "m.qrels", "llm", "gpt-judge", machine=True)
    assert store.machines() == frozenset({"gpt-judge"})

    progress = topic_progress(store, "alice").set_index("topic")
    session = JudgingSession(WriteQueue(store), "1", "alice")
    assert (progress.loc["1", "queue"], progress.loc["1", "remaining"]) == (3, 3)
    assert (session.queue, session.remaining) == (["d1", "d2", "d3"], 3)
    assert store.judged_docnos("1") == set()
    assert session.taken_by_others() == set()
    assert (session.docno, session.next_unjudged()) == ("d1", 1)
    assert store.claim("1", "d2", "alice", 5.0)


def test_judged_docnos_and_current_judgment_read_the_current_qrels(
        memory_store: JudgmentStore) -> None:
    """The one-statement reads of the judging screen give what the ``latest`` qrels
    give: people only (a name's latest kind counts), a grade >= 0 before a later
    negative one, retracted judgments left out; each pair as worked out by hand."""
    store = memory_store
    store.record_judgment("1", "d1", 2, "ann")
    store.record_judgment("1", "d1", -1, "bob")  # later, negative: ann's 2 stays
    store.record_judgment("1", "d2", 1, "gpt")  # a machine's, then a person's negative
    store.record_judgment("1", "d2", -1, "ann")
    store.set_assessor_kind("gpt", "machine")
    undone = store.record_judgment("1", "d3", 0, "bob")
    store.retract(undone, "bob")
    store.record_judgment("1", "d4", 1, "eve")  # a machine once, a person now
    store.set_assessor_kind("eve", "machine")
    store.set_assessor_kind("eve", "person")
    store.record_judgment("1", "d5", 2, "gpt")  # a machine's only
    store.record_judgment("2", "d6", 1, "ann")  # another topic

    assert store.judged_docnos("1") == {"d1", "d4"}
    assert store.judged_docnos("2") == {"d6"}
    current = {(pair, store.current_judgment("1", pair))
               for pair in ("d1", "d2", "d3", "d4", "d5")}
    assert current == {("d1", ("ann", 2)), ("d2", ("ann", -1)), ("d3", None),
                       ("d4", ("eve", 1)), ("d5", None)}
    qrels = store.current_grades(["1"])
    assert dict(zip(qrels["docno"], qrels["grade"], strict=True)) == {
        "d1": 2, "d2": -1, "d4": 1}
    # a claim's one statement refuses exactly the pairs another person judged so
    assert [d for d in ("d1", "d2", "d3", "d4", "d5") if store.claim("1", d, "zed", 5)] == [
        "d2", "d3", "d5"]
    assert store.claim("1", "d1", "ann", 5)  # her own judgment
    assert store.taken_by_others("1", "eve") == {"d1", "d2", "d3", "d4", "d5"}  # + claims
    assert store.taken_by_others("1", "zed") == {"d1", "d4"}  # ann's claim on a judged one


def test_a_duplicate_finding_counts_copies_judged_in_every_read(memory_store: JudgmentStore) -> None:
    """With a finding in force, a copy of a judged document is judged too (its grade is
    the qrels'), in the reads of the judging screen as in the qrels."""
    from dataclasses import asdict

    from pooltool.duplicates import DEFAULTS, find_groups
    from pooltool.records import Document

    text = " ".join(f"word{i:02d}" for i in range(40))
    docs = [Document("a", "", text), Document("b", "", text.upper()), Document("c", "", "other")]
    store = memory_store
    store.record_judgment("1", "a", 2, "ann")
    assert (store.judged_docnos("1"), store.taken_by_others("1", "bob")) == ({"a"}, {"a"})
    store.add_documents(docs, "<test>")
    store.add_duplicate_finding(find_groups(docs), asdict(DEFAULTS), len(docs))
    assert store.claim("1", "c", "cat", 5)
    assert store.judged_docnos("1") == {"a", "b"}
    assert store.taken_by_others("1", "bob") == {"a", "b", "c"}
