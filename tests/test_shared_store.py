"""Many assessors on one store, on both engines: claims on shown documents
(pooltool.store.claims) and writes that wait for another writer's lock."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pooltool.store import JudgmentStore
from pooltool.store.claims import DEFAULT_CLAIM_MINUTES
from pooltool.store.journal import WriteQueue, is_busy
from pooltool.store.journal_files import pending_writes

pytestmark = pytest.mark.both_engines  # claims and the write lock, across connections and processes

DOCS = [f"d{n:02d}" for n in range(30)]


def test_a_claim_is_refused_while_another_holds_it_or_has_judged_it(
        memory_store: JudgmentStore) -> None:
    store = memory_store
    assert store.claim("1", "d1", "alice", 5)
    assert not store.claim("1", "d1", "bob", 5)
    assert store.claim("1", "d1", "alice", 5)  # her own claim, renewed
    store.record_judgment("1", "d2", 1, "alice")
    assert not store.claim("1", "d2", "bob", 5)  # judged by alice
    assert store.claim("1", "d2", "alice", 5)  # she may come back to it
    store.record_judgment("1", "d3", 0, "alice")
    store.retract(store.record_judgment("1", "d3", 2, "carol"), "carol")
    assert not store.claim("1", "d3", "bob", 5)  # alice's 0 is live again
    store.record_judgment("1", "d4", -1, "alice")
    assert store.claim("1", "d4", "bob", 5)  # a negative grade is unjudged
    assert store.claimed_by_others("1", "carol") == {"d1", "d2", "d4"}


def test_claim_first_claims_the_first_document_nobody_else_holds_or_judged(
        memory_store: JudgmentStore) -> None:
    store = memory_store
    assert store.claim("1", "d1", "alice", 5)
    store.record_judgment("1", "d2", 1, "carol")
    store.record_judgment("1", "d3", -1, "carol")  # a negative grade is unjudged
    assert store.claim_first("1", ["d1", "d2", "d3", "d4"], "bob", 5) == "d3"
    assert store.claimed_by_others("1", "alice") == {"d3"}
    assert store.claim_first("1", ["d1", "d3"], "carol", 5) is None  # alice's, bob's
    assert store.claim_first("1", ["d2", "d4"], "carol", 5) == "d2"  # she judged it
    assert store.claim_first("1", ["d1", "d4"], "alice", 5) == "d1"  # her own, renewed
    assert store.claim_first("1", [], "bob", 5) is None
    many = [f"e{n:02d}" for n in range(20)]  # more than one statement's candidates
    for docno in many[:17]:
        assert store.claim("1", docno, "alice", 5)
    assert store.claim_first("1", many, "bob", 5) == "e17"
    assert store.claim_first("1", many[:17], "bob", 5) is None
    held = store.query("SELECT docno, assessor FROM claims WHERE docno LIKE 'd%' ORDER BY docno")
    assert held.values.tolist() == [["d1", "alice"], ["d2", "carol"], ["d3", "bob"]]


def test_waiting_sets_the_lock_wait_for_a_block_only(memory_store: JudgmentStore) -> None:
    store = memory_store
    store.set_busy_timeout(200)
    with store.waiting(5_000):
        assert _wait_ms(store) == 5_000
    assert _wait_ms(store) == 200


def _wait_ms(store: JudgmentStore) -> int:
    if store.engine == "postgresql":
        return int(store.conn.lock_timeout_ms)
    return int(store.conn.execute("PRAGMA busy_timeout").fetchone()[0])


def claim_all(address: str, assessor: str) -> list[str]:
    """Claim every document of :data:`DOCS` in turn; the ones won (a child process)."""
    with JudgmentStore.open(address) as store:
        return [d for d in DOCS if store.claim("1", d, assessor, DEFAULT_CLAIM_MINUTES)]


def claim_each_first(address: str, assessor: str) -> list[str]:
    """Claim the first of :data:`DOCS` left, again and again; the ones won (a child
    process: what the judging sessions on one topic do)."""
    won: list[str] = []
    with JudgmentStore.open(address) as store:
        while (docno := store.claim_first("1", [d for d in DOCS if d not in won], assessor,
                                          DEFAULT_CLAIM_MINUTES)) is not None:
            won.append(docno)
    return won


@pytest.mark.parametrize("claiming", [claim_all, claim_each_first])
def test_processes_claiming_one_set_of_documents_win_each_once(
        store_address: str, claiming: Any) -> None:
    """Three processes claim the same 30 documents at once: each document is won by
    exactly one of them, and the store holds that claim (no error, none twice)."""
    JudgmentStore.open(store_address, create=True).close()
    names = ["ann", "ben", "cat"]
    with multiprocessing.get_context("spawn").Pool(len(names)) as pool:
        won = pool.starmap(claiming, [(store_address, name) for name in names])
    winners = {d: [n for n, docs in zip(names, won, strict=True) if d in docs] for d in DOCS}
    assert all(len(who) == 1 for who in winners.values())
    with JudgmentStore.open(store_address) as store:
        held = store.query("SELECT docno, assessor FROM claims ORDER BY docno")
    assert held.values.tolist() == [[d, winners[d][0]] for d in DOCS]


def test_a_write_that_waited_too_long_leaves_the_connection_usable(store_address: str) -> None:
    """bob's write times out while alice holds the write lock: a busy error (his app
    keeps the write queued), and once she commits his queued write and the next go
    through on the same connection (on PostgreSQL the timed-out transaction was left
    open and aborted, so every later statement failed)."""
    alice = JudgmentStore.open(store_address, create=True)
    bob = JudgmentStore.open(store_address)
    try:
        bob.set_busy_timeout(50)
        writes = WriteQueue(bob)
        with alice.writing():
            with pytest.raises(sqlite3.OperationalError) as caught:
                bob.record_judgment("1", "d1", 1, "bob")
            assert is_busy(caught.value)
            writes.submit("judgment", topic="1", docno="d2", grade=2, assessor="bob")
            assert writes.pending == 1
        assert not bob.conn.in_transaction
        assert writes.flush()
        bob.record_judgment("1", "d3", 0, "bob")
        rows = alice.query("SELECT docno, grade FROM judgments ORDER BY judgment_id")
        assert rows.values.tolist() == [["d2", 2], ["d3", 0]]
    finally:
        bob.close()
        alice.close()


def test_a_write_looks_its_token_up_once_it_may_be_in_the_store(store_address: str,
                                                                tmp_path: Path) -> None:
    """A new write's first try records its token without looking it up (a token never
    sent cannot be in the store yet); a write retried after a busy try, or read back
    from a journal, may have been committed and looks it up: the journal's copy of a
    committed write commits nothing twice and gives the first one's judgment_id."""
    alice = JudgmentStore.open(store_address, create=True)
    bob = JudgmentStore.open(store_address)
    try:
        bob.set_busy_timeout(50)
        writes = WriteQueue(bob)
        first = writes.submit("judgment", topic="1", docno="d1", grade=1, assessor="bob")
        assert (first.done, first.sent) == (True, True)
        with alice.writing():
            waiting = writes.submit("judgment", topic="1", docno="d2", grade=2,
                                    assessor="bob")
            assert (waiting.done, waiting.sent) == (False, True)
        assert writes.flush()
        journal = tmp_path / "bob.jsonl"
        journal.write_text(json.dumps(waiting.record()) + "\n")
        [again] = pending_writes(journal)
        assert again.sent and again.token == waiting.token
        replay = WriteQueue(bob)
        replay.extend([again])
        assert replay.flush()
        assert again.result == waiting.result
        rows = alice.query("SELECT judgment_id, docno, grade FROM judgments "
                           "ORDER BY judgment_id")
        assert rows.values.tolist() == [[first.result, "d1", 1], [waiting.result, "d2", 2]]
    finally:
        bob.close()
        alice.close()
