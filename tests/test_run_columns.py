"""Runs stored as columns (issue 10): one zstd Arrow IPC blob per run, read back exactly.

Real TREC-COVID round-1 runs: stored runs read back in trec_eval order as the
files give them, pooled as from the files, scored by ``recall`` as the files;
migration m013 turns the ``run_entries`` rows of a store made the old way into
blobs; Arrow's ordering is :func:`pooltool.ranking.order_run`'s.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from sqlite_utils import Database

import pooltool.cli.recall  # noqa: F401  registers the command on the group
from pooltool.cli.group import cli
from pooltool.errors import FormatError, StoreError
from pooltool.formats.run import read_run
from pooltool.pooling import pool_runs
from pooltool.ranking import order_run, order_table, table_trec_ranks
from pooltool.store import JudgmentStore, migrations, run_columns

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

COVID_RUNS = ["BM25R2", "T5R1", "sab20.1.meta.docs", "udel_fang_run2"]


def covid_run(shared_data: Path, name: str) -> Path:
    return shared_data / "trec_covid_r1" / "runs" / name


def expected_entries(path: Path) -> pd.DataFrame:
    """A file's run in trec_eval order, as the store must give it back."""
    ordered = order_run(read_run(path))
    return ordered.sort_values(["topic", "trec_rank"], kind="stable").reset_index(drop=True)


def test_stored_runs_read_back_in_trec_eval_order(shared_data: Path,
                                                  memory_store: JudgmentStore) -> None:
    store = memory_store
    paths = [covid_run(shared_data, name) for name in COVID_RUNS]
    added = store.add_runs(paths)
    for path, tag in zip(paths, added["run_tag"], strict=True):
        expected = expected_entries(path)
        assert added.set_index("run_tag").loc[tag, "lines"] == len(expected)
        pd.testing.assert_frame_equal(store.run_frame(tag), expected)
    blobs = store.query("SELECT r.sha256 AS source, c.source_sha256, c.sha256, c.format, c.lines, "
                        "r.lines AS run_lines, length(c.entries) AS size FROM runs r "
                        "JOIN run_columns c USING (run_id)")
    assert (blobs["source"] == blobs["source_sha256"]).all()
    assert (blobs["lines"] == blobs["run_lines"]).all() and set(blobs["format"]) == {run_columns.FORMAT}
    assert blobs["size"].sum() < sum(p.stat().st_size for p in paths) / 3



def test_pooling_stored_runs_is_pooling_the_files(shared_data: Path,
                                                   memory_store: JudgmentStore) -> None:
    store = memory_store
    paths = [covid_run(shared_data, name) for name in COVID_RUNS]
    store.add_runs(paths)
    result = pool_runs(store, 20)
    tops = pd.concat([expected_entries(p) for p in paths])
    tops = tops[tops["trec_rank"] <= 20]
    expected = sorted(set(zip(tops["topic"], tops["docno"], strict=True)))
    docs = store.pool_docs()
    assert list(zip(docs["topic"], docs["docno"], strict=True)) == expected
    assert result.pool_size == len(expected)
    hits = store.pool_hits()
    assert len(hits) == len(tops)
    best = tops.groupby(["topic", "docno"])["trec_rank"].min()
    assert docs.set_index(["topic", "docno"])["best_rank"].equals(best.rename("best_rank"))


def test_recall_on_stored_tags_is_recall_on_the_files(shared_data: Path, new_store: str) -> None:
    db = new_store
    paths = [covid_run(shared_data, name) for name in COVID_RUNS]
    with JudgmentStore.open(db) as store:
        store.add_runs(paths)
    qrels = str(shared_data / "trec_covid_r1" / "qrels-rnd1.txt")
    args = ["--qrels", qrels, "-k", "10,100,1000", "-c", "--format", "trec", "-q"]
    from_files = CliRunner().invoke(cli, ["--db", db, "recall", *map(str, paths), *args])
    stored = CliRunner().invoke(cli, ["--db", db, "recall", *COVID_RUNS, *args])
    assert from_files.exit_code == 0 and stored.exit_code == 0, stored.output
    assert stored.stdout == from_files.stdout and "recall_1000" in stored.stdout


def test_a_damaged_blob_is_refused() -> None:
    ordered = order_table(pa.table({"topic": ["1", "1"], "docno": ["a", "b"], "rank": [1, 2],
                                    "score": [1.0, 2.0]}))
    packed = run_columns.pack(ordered)
    assert run_columns.decode(packed.blob, packed.sha256, "run x")["docno"].to_pylist() == [
        "b", "a"]
    with pytest.raises(StoreError, match="stored entries of run x do not match their sha256"):
        run_columns.decode(packed.blob, "0" * 64, "run x")


def test_m013_turns_old_run_entries_into_blobs(shared_data: Path, tmp_path: Path) -> None:
    """A store written the old way (one run_entries row per run line, with trec_rank,
    as pooltool wrote them before m013), with a pool: after the migration the runs
    read back the same, the pool is unchanged, and pooling deeper works."""
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    migrations.sqlite_migrations().apply(Database(old), stop_before="m013_run_columns")
    files = [covid_run(shared_data, name) for name in COVID_RUNS[:2]]
    for run_id, file in enumerate(files, start=1):
        entries = order_run(read_run(file))
        tag = str(entries["run_tag"].iloc[0])
        old.execute("INSERT INTO runs VALUES (?, ?, ?, 'sha', ?, ?, 't0')",
                    [run_id, tag, str(file), len(entries), entries["topic"].nunique()])
        old.executemany("INSERT INTO run_entries VALUES (?, ?, ?, ?, ?, ?)",
                        [(run_id, t, d, int(r), float(s), int(k)) for t, d, r, s, k in zip(
                            entries["topic"], entries["docno"], entries["rank"], entries["score"],
                            entries["trec_rank"], strict=True)])
    old.execute("INSERT INTO pools VALUES (1, 'main', 'depth', 't1')")
    old.execute("INSERT INTO pool_rounds VALUES (1, 1, 5, '[\"BM25R2\", \"T5R1\"]', 0, 't1')")
    old.execute("INSERT INTO pool_docs SELECT DISTINCT 1, topic, docno, 1 FROM run_entries "
                "WHERE trec_rank <= 5")
    old.execute("INSERT INTO pool_hits SELECT 1, topic, docno, run_id, trec_rank, 1 "
                "FROM run_entries WHERE trec_rank <= 5")
    old.commit()
    old.close()
    with JudgmentStore.open(path) as store:
        assert store.conn.pending_migrations() == []
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
        assert "run_entries" not in tables and "run_columns" in tables
        for file, tag in zip(files, ["BM25R2", "T5R1"], strict=True):
            pd.testing.assert_frame_equal(store.run_frame(tag), expected_entries(file))
        before = store.pool_docs()
        assert pool_runs(store, 5).docs_added == 0  # the blobs pool as the rows did
        assert store.pool_docs()[["topic", "docno", "best_rank"]].equals(
            before[["topic", "docno", "best_rank"]])
        assert pool_runs(store, 10).docs_added > 0
        with pytest.raises(sqlite3.DatabaseError, match="runs are kept as imported"):
            store.conn.execute("DELETE FROM run_columns")


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "10", "2", "é"]),
                          st.text("aAbB\u00e9\u4e00z", min_size=1, max_size=3),
                          st.sampled_from([0.0, -0.0, 1.0, 2.5, -1.0, float("inf")])),
                max_size=40, unique_by=lambda row: (row[0], row[1])))
def test_order_table_is_order_run(rows: list[tuple[str, str, float]]) -> None:
    frame = pd.DataFrame({"topic": pd.Series([r[0] for r in rows], dtype=object),
                          "docno": pd.Series([r[1] for r in rows], dtype=object),
                          "score": pd.Series([r[2] for r in rows], dtype="float64")})
    expected = order_run(frame)
    table = order_table(pa.Table.from_pandas(frame, preserve_index=False))
    assert table["topic"].to_pylist() == expected["topic"].tolist()
    assert table["docno"].to_pylist() == expected["docno"].tolist()
    assert table_trec_ranks(table["topic"]).tolist() == expected["trec_rank"].tolist()


def test_a_repeated_docno_is_named_with_its_file_and_line(tmp_path: Path,
                                                          memory_store: JudgmentStore) -> None:
    """Fingerprints find the repeat; the line reader names it (nothing is imported)."""
    path = tmp_path / "dup.run"
    path.write_text("1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n2 Q0 a 1 2 A\n1 Q0 a 3 1 A\n")
    with pytest.raises(FormatError, match=r"dup\.run:4: docno 'a' appears twice for topic '1' "
                                          r"in run 'A' \(first on line 1\)"):
        memory_store.add_runs([path])
    assert memory_store.run_tags() == []


def test_repeats_docno_by_fingerprint_and_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs, topics and docnos keep pairs apart; equal fingerprints (here all of them: a
    forced collision) are settled on the strings."""
    table = pa.table({"run_tag": ["A", "A", "B", "A"], "topic": ["1", "2", "1", "1"],
                      "docno": ["a", "a", "a", "b"]})
    repeated = pa.table({"topic": ["1", "2", "1"], "docno": ["a", "b", "a"]})
    assert not run_columns.repeats_docno(table)
    assert run_columns.repeats_docno(repeated)
    monkeypatch.setattr(run_columns, "fingerprints",
                        lambda strings: np.zeros(len(strings), dtype=np.uint64))
    monkeypatch.setattr(run_columns, "keyed", lambda prints, keys: prints)
    assert not run_columns.repeats_docno(table)
    assert run_columns.repeats_docno(repeated)


def test_decode_only_some_columns() -> None:
    ordered = order_table(pa.table({"topic": ["2", "1", "1"], "docno": ["a", "b", "c"],
                                    "rank": [1, 1, 2], "score": [1.0, 2.0, 3.0]}))
    packed = run_columns.pack(ordered)
    entries = run_columns.decode(packed.blob, packed.sha256, "run X", ["docno"])
    assert entries.column_names == ["topic", "docno"]
    assert entries["topic"].to_pylist() == ["1", "1", "2"]
    assert entries["docno"].to_pylist() == ["c", "b", "a"]


def test_blobs_do_not_depend_on_how_the_topics_come_encoded() -> None:
    """A topic column of strings, or a dictionary in another order, with a value twice or
    unused, gives the same blob (order_table hands pack the dictionary it keeps)."""
    columns = {"docno": ["a", "b", "c", "d"], "rank": [1, 2, 1, 2], "score": [1.0, 2.0, 3.0, 3.0]}
    topics = [pa.array(["10", "9", "10", "9"]),
              pa.DictionaryArray.from_arrays(pa.array([1, 0, 1, 0], pa.int32()), ["9", "10"]),
              pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 3]), ["10", "9", "10", "9"]),
              pa.DictionaryArray.from_arrays(pa.array([0, 2, 0, 2]), ["10", "x", "9"])]
    packed = [run_columns.pack(order_table(pa.table({"topic": topic, **columns})))
              for topic in topics]
    assert {p.blob for p in packed} == {packed[0].blob}
    assert packed[0].topic_names == ["10", "9"]
    plain = pa.table({"topic": ["10", "10", "9", "9"], "docno": ["c", "a", "d", "b"],
                      "rank": [1, 1, 2, 2], "score": [3.0, 1.0, 3.0, 2.0]})
    assert run_columns.encode(plain) == packed[0].blob
    entries = run_columns.decode(packed[0].blob, packed[0].sha256, "run X")
    assert entries["topic"].to_pylist() == ["10", "10", "9", "9"]
    assert entries["docno"].to_pylist() == ["c", "a", "d", "b"]
