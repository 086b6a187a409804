"""The pool's rows as written in bulk (``Engine.insert_ignoring``: COPY on PostgreSQL;
``pool_docs`` copied from the round's hits inside the engine) against the rows worked
out here from the runs, round by round: pools that grow, a run pooled again deeper,
topics split over batches and slices, docnos COPY and SQL must keep as they are."""

from __future__ import annotations

import pytest

from pooltool import pooling
from pooltool.formats.run import read_run
from pooltool.store import JudgmentStore, engine, pool_hits

pytestmark = pytest.mark.both_engines  # the bulk path differs between the engines

# docnos with COPY's escapes and null marker, quotes, a comma, non-ASCII; ties on score
DOCNOS = ["\\N", "a\\tb", "o'k", 'q"', "x,y", "é", "中文", "NULL", "-", "z"]
LINES = [f"{topic} Q0 {docno} {rank} {score} {tag}"
         for tag, shift in (("A", 0), ("B", 3), ("C", 7))
         for topic in ("1", "10", "2")
         for rank, docno in enumerate(DOCNOS[shift:] + DOCNOS[:shift], start=1)
         for score in [10 - rank // 2]]
ROUNDS = [(2, ["A", "B"]), (4, ["A"]), (3, ["C", "A", "C"]), (5, None)]


def _tops(store: JudgmentStore, tag: str, depth: int) -> dict[tuple[str, str], int]:
    entries = store.run_frame(tag)
    top = entries[entries["trec_rank"] <= depth]
    return {(t, d): int(r) for t, d, r in zip(top["topic"], top["docno"], top["trec_rank"],
                                             strict=True)}


@pytest.mark.parametrize("small", [False, True], ids=["one-batch", "many-batches"])
def test_rounds_write_the_rows_worked_out_from_the_runs(
        memory_store: JudgmentStore, monkeypatch: pytest.MonkeyPatch, small: bool) -> None:
    if small:  # a batch of one topic, slices of 2 hits, statements of 3 rows
        monkeypatch.setattr(pool_hits, "HITS_PER_BATCH", 1)
        monkeypatch.setattr(pool_hits, "_ROWS_PER_SLICE", 2)
        monkeypatch.setattr(engine, "ROWS_PER_STATEMENT", 3)
    store = memory_store
    store.add_run_frame(read_run("\n".join(LINES) + "\n"))
    docs: dict[tuple[str, str], int] = {}  # pair -> the round that pooled it
    hits: dict[tuple[str, str, str], tuple[int, int]] = {}  # -> (trec_rank, round)
    for number, (depth, tags) in enumerate(ROUNDS, start=1):
        result = pooling.pool_runs(store, depth, tags)
        round_id = int(store.pool_rounds()["round_id"].iloc[-1])
        added = 0
        for tag in dict.fromkeys(tags or store.run_tags()):
            for (topic, docno), rank in _tops(store, tag, depth).items():
                hits.setdefault((topic, docno, tag), (rank, round_id))
                if (topic, docno) not in docs:
                    docs[(topic, docno)] = round_id
                    added += 1
        assert result.docs_added == added, number
        assert int(store.pool_rounds()["docs_added"].iloc[-1]) == added
        stored_docs = store.pool_docs()
        assert dict(zip(zip(stored_docs["topic"], stored_docs["docno"], strict=True),
                        stored_docs["round_id"].astype(int), strict=True)) == docs
        stored_hits = store.pool_hits()
        assert {(t, d, r): k for t, d, r, k in zip(
            stored_hits["topic"], stored_hits["docno"], stored_hits["run_tag"],
            stored_hits["trec_rank"].astype(int), strict=True)} == {
            key: rank for key, (rank, _) in hits.items()}
        rounds = dict(store.conn.execute(
            "SELECT round_id, COUNT(*) FROM pool_hits GROUP BY round_id").fetchall())
        assert rounds == {r: sum(1 for _, h in hits.items() if h[1] == r)
                          for r in sorted({h[1] for h in hits.values()})}
    assert "\\N" in {docno for _, docno in docs} and "中文" in {d for _, d in docs}


def _pool_rows(store: JudgmentStore) -> tuple[list[tuple[object, ...]], ...]:
    return tuple(store.conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
                 for table in ("pools", "pool_rounds", "pool_docs", "pool_hits"))


@pytest.mark.parametrize("where", ["inserting", "making"])
def test_a_round_failing_in_a_later_batch_leaves_the_pool_as_it_was(
        memory_store: JudgmentStore, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """The round is one transaction: a failure after some batches were written (on the
    inserting thread, or while the next slice was made on the other thread) rolls it
    back whole, and the error is the one raised."""
    store = memory_store
    store.add_run_frame(read_run("\n".join(LINES) + "\n"))
    pooling.pool_runs(store, 2, ["A"])
    before = _pool_rows(store)
    monkeypatch.setattr(pool_hits, "HITS_PER_BATCH", 1)
    monkeypatch.setattr(pool_hits, "_ROWS_PER_SLICE", 2)
    target = "insert_docs" if where == "inserting" else "sorted_hits"
    real, calls = getattr(pool_hits, target), []

    def failing_third(*args: object) -> object:
        calls.append(args)
        if len(calls) == 3:
            raise RuntimeError(f"{target} failed")
        return real(*args)
    monkeypatch.setattr(pool_hits, target, failing_third)
    with pytest.raises(RuntimeError, match=f"^{target} failed$"):
        pooling.pool_runs(store, 5)
    assert len(calls) == 3 and not store.conn.in_transaction
    assert _pool_rows(store) == before
    assert len(before[3]) == 6  # topics 1, 10, 2: run A's top 2
