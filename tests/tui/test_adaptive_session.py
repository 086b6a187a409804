"""The judging session on an adaptive pool: the strategy's next choice, one at a time."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from judge_fixtures import write_lock_held

from pooltool.judging.adaptive import AdaptivePicker, create_adaptive_pool
from pooltool.judging.session import JudgingSession
from pooltool.store import JudgmentStore
from pooltool.store.journal import WriteQueue
from pooltool.tui.widgets.status_line import stopping_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_adaptive_pool import small_store  # noqa: E402

pytestmark = pytest.mark.both_engines  # live pools' claims and a busy store (the write lock)


@pytest.fixture
def live(new_store: str) -> str:
    with JudgmentStore.open(new_store) as store:
        create_adaptive_pool(small_store(store), "live", "mtf", budget=4)
    return new_store


def test_the_queue_grows_with_the_strategys_choices(live: str) -> None:
    with JudgmentStore.open(live) as store:
        session = JudgingSession(WriteQueue(store), "1", "alice", pool="live")
        assert session.queue == ["d1"]
        session.grade(0, 100)  # d1 not relevant: A falls behind, B gives d2
        assert (session.queue, session.docno) == (["d1", "d2"], "d2")
        session.grade(1, 100)  # relevant: B keeps its turn
        assert session.docno == "d4"
        stopping = session.stopping()
        assert stopping is not None
        # 1 of the 2 judgments relevant, 3 of the runs' 5 documents unjudged: 1.5
        assert stopping_text(stopping) == ("budget 2/4 · 1 relevant · est. 1.5 relevant left "
                                           "(1 of last 2 relevant × 3 unjudged)")
        assert stopping_text({**stopping, "est_unfound": float("nan")}) == (
            "budget 2/4 · 1 relevant")  # before any judgment: no figure at all


def test_a_second_assessor_and_a_restart_follow_the_log(live: str) -> None:
    with JudgmentStore.open(live) as store, JudgmentStore.open(live) as other:
        alice = JudgingSession(WriteQueue(store), "1", "alice", pool="live")
        bob = JudgingSession(WriteQueue(other), "1", "bob", pool="live")
        assert (alice.docno, bob.docno) == ("d1", "d2")  # d1 is on alice's screen
        bob.grade(1, 100)  # d2 counts for B; MTF names d1 (alice's), then A's d3
        assert bob.docno == "d3"
        again = JudgingSession(WriteQueue(store), "1", "alice", pool="live")
        assert again.docno == "d1"  # reopened: still the log's choice for alice
        again.grade(0, 100)  # A falls to -1: B's next, d4
        assert again.docno == "d4"
        # d1, d2 judged, d3 and d4 on screens: the budget of 4 is used
        assert sorted(store.pool_docs("live")["docno"]) == ["d1", "d2", "d3", "d4"]
        assert AdaptivePicker(store, "live").next_for("1", "carol") is None


def test_a_busy_store_delays_the_grade_but_not_the_next_choice(live: str) -> None:
    """While another process holds the write lock, the grade waits in the journal and
    the strategy's next choice counts it (the session's pending judgments join the log)."""
    with JudgmentStore.open(live) as store:
        store.set_busy_timeout(50)
        writes = WriteQueue(store)
        session = JudgingSession(writes, "1", "alice", pool="live")
        with write_lock_held(live):
            session.grade(0, 100)  # d1 not relevant, not in the store yet
            assert writes.pending == 1
            assert session.docno == "d2"  # as if d1 were in the log: A falls behind, B's d2
        assert writes.flush()
        assert store.topic_log("1")[0][1:] == ("d1", "alice", 0)
        session.grade(1, 100)  # d2, shown while the store was busy, joins the pool now
        assert sorted(store.pool_docs("live")["docno"]) == ["d1", "d2", "d4"]
