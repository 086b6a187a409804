"""Depth-k pooling: union of every run's top k (trec_eval order), growing pools, queue."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from pooltool import pooling
from pooltool.errors import InvalidArgument, StoreError, UnknownRun
from pooltool.formats.run import read_run
from pooltool.judging.queue import judging_queue, pool_status
from pooltool.store import JudgmentStore, pool_hits, pools

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

RUNS = """\
1 Q0 a 1 3 A
1 Q0 b 2 2 A
1 Q0 c 3 1 A
1 Q0 b 1 9 B
1 Q0 d 2 9 B
1 Q0 a 3 1 B
2 Q0 x 1 1 A
"""

TREC_COVID_POOLED = [
    "BBGhelani2", "bm25_baseline", "ixa-ir-filter-query", "OHSU_RUN2", "run1",
    "sab20.1.meta.docs", "sheikh_bm25_all", "smith.rm3", "T5R1", "udel_fang_run2",
    "UIowaS_Run3", "uogTrDPH_QE",
]


@pytest.fixture
def store(memory_store: JudgmentStore) -> JudgmentStore:
    store = memory_store
    store.add_run_frame(read_run(RUNS))
    return store


def pairs(frame) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return list(zip(frame["topic"], frame["docno"], strict=True))


def test_depth_pool_is_the_union_of_top_k(store: JudgmentStore) -> None:
    result = pooling.pool_runs(store, 2)
    # B's top 2 is (d, b): tie at 9 broken by docno descending; A's top 2 is (a, b).
    assert pairs(store.pool_docs()) == [("1", "a"), ("1", "b"), ("1", "d"), ("2", "x")]
    assert (result.docs_added, result.pool_size) == (4, 4)
    assert result.contributions.values.tolist() == [["A", 3, 2, 3], ["B", 2, 1, 2]]


def test_pools_grow_and_only_add_new_documents(store: JudgmentStore) -> None:
    pooling.pool_runs(store, 1, ["A"])
    grown = pooling.pool_runs(store, 3)
    assert grown.docs_added == 3 and grown.pool_size == 5
    assert grown.contributions.set_index("run_tag")["new"].to_dict() == {"A": 2, "B": 2}
    again = pooling.pool_runs(store, 3)
    assert again.docs_added == 0 and again.pool_size == 5
    rounds = store.pool_rounds()
    assert rounds[["depth", "docs_added"]].values.tolist() == [[1, 2], [3, 3], [3, 0]]


def test_hits_record_which_runs_retrieved_each_doc(store: JudgmentStore) -> None:
    pooling.pool_runs(store, 3)
    hits = store.pool_hits()
    a_hits = hits[(hits["topic"] == "1") & (hits["docno"] == "a")]
    assert a_hits[["run_tag", "trec_rank"]].values.tolist() == [["A", 1], ["B", 3]]
    docs = store.pool_docs().set_index("docno")
    assert (docs.loc["a", "runs"], docs.loc["a", "best_rank"]) == (2, 1)


def test_queue_leaves_out_judged_but_keeps_negative_grades(store: JudgmentStore) -> None:
    pooling.pool_runs(store, 2)
    store.record_judgment("1", "a", 0, "ann")
    store.record_judgment("1", "d", -1, "ann")
    assert pairs(judging_queue(store)) == [("1", "b"), ("1", "d"), ("2", "x")]
    status = pool_status(store).set_index("topic")
    assert status.loc["1", ["pooled", "judged", "unjudged", "relevant"]].tolist() == [3, 1, 2, 0]


def test_bad_requests(store: JudgmentStore) -> None:
    with pytest.raises(InvalidArgument, match="at least 1"):
        pooling.pool_runs(store, 0)
    with pytest.raises(UnknownRun):
        pooling.pool_runs(store, 5, ["nope"])
    with pytest.raises(StoreError, match="no pool 'main'"):
        store.pool_docs()


def independent_pool(run_dir: Path, names: list[str], depth: int) -> set[tuple[str, str]]:
    """The depth-k pool computed from the files in plain Python, apart from pooltool."""
    pool: set[tuple[str, str]] = set()
    for name in names:
        by_topic: dict[str, list[tuple[float, str]]] = {}
        for line in (run_dir / name).read_text().splitlines():
            topic, _, docno, _, score, _ = line.split()
            by_topic.setdefault(topic, []).append((float(score), docno))
        for topic, docs in by_topic.items():
            pool.update((topic, d) for _, d in sorted(docs, reverse=True)[:depth])
    return pool


@pytest.fixture(scope="module")
def covid_store(shared_data: Path) -> JudgmentStore:
    data = shared_data / "trec_covid_r1"
    store = JudgmentStore.memory()  # shared by the module's tests
    store.add_runs([data / "runs" / name for name in sorted((data / "runs").iterdir())])
    store.import_qrels(data / "qrels-rnd1.txt", "official")
    return store


@pytest.mark.parametrize(("depth", "size"), [(7, 1603), (100, 18088)])
def test_trec_covid_pool_matches_an_independent_count(
        covid_store: JudgmentStore, shared_data: Path, depth: int, size: int) -> None:
    run_dir = shared_data / "trec_covid_r1" / "runs"
    pooling.pool_runs(covid_store, depth, TREC_COVID_POOLED, pool=f"d{depth}")
    pooled = set(pairs(covid_store.pool_docs(f"d{depth}")))
    assert pooled == independent_pool(run_dir, TREC_COVID_POOLED, depth)
    assert len(pooled) == size


def test_trec_covid_depth7_pool_is_almost_all_judged(covid_store: JudgmentStore) -> None:
    """NIST judged the depth-7 pool of the pooled runs: only 2 of our 1603 pairs lack a judgment."""
    pooling.pool_runs(covid_store, 7, TREC_COVID_POOLED, pool="official7")
    queue = judging_queue(covid_store, "official7")
    assert len(queue) == 2


# Topics "1" < "10" < "2" (string order); run C lacks topic "10"; ties at the depth-2
# cutoff: B's topic 10 (r, s at 6: s first, docno descending) and C's topic 2 (w, z at
# 4: z first), topic 10's tie right at a batch boundary when each topic is a batch.
BATCHED_RUNS = """\
1 Q0 a 1 3 A
1 Q0 b 2 2 A
1 Q0 c 3 1 A
10 Q0 p 1 5 A
10 Q0 q 2 4 A
2 Q0 x 1 1 A
1 Q0 b 1 9 B
1 Q0 d 2 9 B
1 Q0 a 3 1 B
10 Q0 q 1 7 B
10 Q0 r 2 6 B
10 Q0 s 3 6 B
2 Q0 y 1 3 B
2 Q0 x 2 2 B
1 Q0 e 1 1 C
2 Q0 x 1 5 C
2 Q0 w 2 4 C
2 Q0 z 3 4 C
"""


@pytest.mark.parametrize("hits_per_batch", [1, 6, 1 << 20])
def test_topic_batches_pool_as_one_batch(memory_store: JudgmentStore, hits_per_batch: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Pooling a batch of topics at a time (1: each topic alone; 6: topics 1 and 10, then
    2) gives the pool, hits, rounds and contributions of one batch."""
    monkeypatch.setattr(pool_hits, "HITS_PER_BATCH", hits_per_batch)
    store = memory_store
    store.add_run_frame(read_run(BATCHED_RUNS))
    first = pooling.pool_runs(store, 1, ["A"])
    second = pooling.pool_runs(store, 2)
    assert (first.docs_added, first.pool_size) == (3, 3)
    assert (second.docs_added, second.pool_size) == (7, 10)
    assert second.contributions.values.tolist() == [["A", 5, 2, 2], ["B", 6, 3, 5],
                                                    ["C", 3, 2, 2]]
    docs = store.pool_docs()
    assert docs[["topic", "docno", "round_id", "runs", "best_rank"]].values.tolist() == [
        ["1", "a", 1, 1, 1], ["1", "b", 2, 2, 2], ["1", "d", 2, 1, 1], ["1", "e", 2, 1, 1],
        ["10", "p", 1, 1, 1], ["10", "q", 2, 2, 1], ["10", "s", 2, 1, 2],
        ["2", "x", 1, 3, 1], ["2", "y", 2, 1, 1], ["2", "z", 2, 1, 2]]
    assert store.pool_hits().values.tolist() == [
        ["1", "a", "A", 1], ["1", "b", "A", 2], ["1", "b", "B", 2], ["1", "d", "B", 1],
        ["1", "e", "C", 1], ["10", "p", "A", 1], ["10", "q", "A", 2], ["10", "q", "B", 1],
        ["10", "s", "B", 2], ["2", "x", "A", 1], ["2", "x", "B", 2], ["2", "x", "C", 1],
        ["2", "y", "B", 1], ["2", "z", "C", 2]]
    assert store.pool_rounds()["docs_added"].tolist() == [3, 7]


def test_topic_batches_hold_whole_topics_each_hit_once() -> None:
    run = pa.table({"topic": ["1", "1", "10", "2", "2"], "docno": ["a", "b", "c", "d", "e"],
                    "trec_rank": [1, 2, 1, 1, 2]})
    other = pa.table({"topic": ["10", "3"], "docno": ["c", "f"], "trec_rank": [1, 1]})
    batches = list(pool_hits.topic_batches([run, other], 3))
    assert [(b.topic.to_pylist(), b.docno.to_pylist(), b.run.tolist(), b.trec_rank.tolist())
            for b in batches] == [
        (["1", "1", "10", "10"], ["a", "b", "c", "c"], [0, 0, 0, 1], [1, 2, 1, 1]),
        (["2", "2", "3"], ["d", "e", "f"], [0, 0, 1], [1, 2, 1])]
    assert [b.topic.to_pylist() for b in pool_hits.topic_batches([run, other], 1)] == [
        ["1", "1"], ["10", "10"], ["2", "2"], ["3"]]


def test_pooling_leaves_references_whole_and_checked(memory_store: JudgmentStore) -> None:
    """SQLite does not check each pooled row's foreign keys (the pool, round and runs
    are checked once); afterwards they are enforced again and none is broken."""
    store = memory_store
    store.add_run_frame(read_run(BATCHED_RUNS))
    pooling.pool_runs(store, 2)
    if store.engine == "sqlite":
        assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert store.conn.execute("PRAGMA foreign_key_check").fetchall() == []
    with pytest.raises(UnknownRun, match=r"runs \[1, 99\] are not all in the store"):
        with store.writing() as conn:
            pools._check_runs_stored(conn, [1, 99, 1])


def test_hit_rows_slice_each_batch_in_key_order_the_batch_on_its_last_slice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool_hits, "_ROWS_PER_SLICE", 2)
    monkeypatch.setattr(pool_hits, "HITS_PER_BATCH", 3)
    run = pa.table({"topic": ["1", "1", "10", "2", "2"], "docno": ["b", "a", "c", "e", "d"],
                    "trec_rank": [1, 2, 1, 1, 2]})
    other = pa.table({"topic": ["10", "3"], "docno": ["c", "f"], "trec_rank": [2, 1]})
    rows = list(pool_hits.hit_rows([run, other], [7, 5]))
    assert [r.values for r in rows] == [
        [["1", "1"], ["a", "b"], [7, 7], [2, 1]],
        [["10", "10"], ["c", "c"], [5, 7], [2, 1]],  # run id 5 before 7
        [["2", "2"], ["d", "e"], [7, 7], [2, 1]],
        [["3"], ["f"], [5], [1]]]
    assert [None if r.batch is None else r.batch.docno.to_pylist() for r in rows] == [
        None, ["a", "b", "c", "c"], None, ["d", "e", "f"]]
    assert rows[1].batch is not None and rows[1].batch.run.tolist() == [0, 0, 1, 0]


def test_made_ahead_makes_each_item_on_another_thread_one_ahead() -> None:
    made: list[tuple[int, int]] = []  # (item, thread)

    def items() -> Iterator[Any]:
        for item in range(4):
            made.append((item, threading.get_ident()))
            yield item
    taken = []
    with pool_hits.made_ahead(items()) as slices:
        for item in slices:
            taken.append((item, len(made)))
            time.sleep(0.01)  # the next item is made meanwhile
    assert [item for item, _ in taken] == [0, 1, 2, 3]
    assert all(count <= item + 2 for item, count in taken)  # never more than one ahead
    assert len(made) == 4 and threading.get_ident() not in {thread for _, thread in made}


def test_made_ahead_raises_the_error_of_the_thread_where_its_item_is_taken() -> None:
    def items() -> Iterator[Any]:
        yield 1
        raise ValueError("no second item")
    taken: list[int] = []
    with pytest.raises(ValueError, match="^no second item$"), \
            pool_hits.made_ahead(items()) as slices:
        taken.extend(slices)
    assert taken == [1]
