"""Replacing and removing runs: pools stay reproducible and nothing is deleted."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlite_utils import Database

from pooltool import pooling
from pooltool.cli import cli
from pooltool.errors import RunInPool, StoreError, UnknownRun
from pooltool.store import JudgmentStore, migrations
from pooltool.store.provenance import file_sha256

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

RUN_A1 = "1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n1 Q0 c 3 1 A\n"
RUN_A2 = "1 Q0 c 1 3 A\n1 Q0 a 2 2 A\n1 Q0 e 3 1 A\n"
RUN_B = "1 Q0 b 1 9 B\n1 Q0 d 2 8 B\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name, text in {"a1.run": RUN_A1, "a2.run": RUN_A2, "b.run": RUN_B}.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.fixture
def pooled(files: Path, memory_store: JudgmentStore) -> JudgmentStore:
    """Runs A (a1.run) and B pooled at depth 2: a, b, d; one judgment of b."""
    store = memory_store
    store.add_runs([files / "a1.run", files / "b.run"])
    assert pooling.pool_runs(store, 2).docs_added == 3
    store.record_judgment("1", "b", 1, "ann")
    return store


def history(store: JudgmentStore) -> list[tuple[str, str, str, str]]:
    table = store.run_history()
    return [(r.run_tag, Path(r.source_path).name, r.status, r.pooled_in)
            for r in table.itertuples(index=False)]


def test_replacing_a_pooled_run_needs_force(pooled: JudgmentStore, files: Path) -> None:
    with pytest.raises(RunInPool, match=r"a2\.run: replacing run 'A', which built pool 'main' "
                                        r"\(round 1\), changes which runs the pool stands "
                                        r"for; nothing was imported$"):
        pooled.add_runs([files / "a2.run"], replace=True)
    with pytest.raises(StoreError, match="run tag 'A' is already in the store"):
        pooled.add_runs([files / "a2.run"], force=True)
    assert history(pooled) == [("A", "a1.run", "live", "main:1"), ("B", "b.run", "live", "main:1")]


def test_a_replaced_run_repools_only_its_new_documents(pooled: JudgmentStore,
                                                       files: Path) -> None:
    pooled.add_runs([files / "a2.run"], replace=True, force=True)
    assert pooled.run_tags() == ["B", "A"]
    assert pooled.run_frame("A")["docno"].tolist() == ["c", "a", "e"]
    again = pooling.pool_runs(pooled, 2)
    assert (again.docs_added, again.pool_size) == (1, 4)
    assert again.contributions.values.tolist() == [["B", 2, 2, 0], ["A", 2, 2, 1]]
    docs = pooled.pool_docs()
    assert docs[["docno", "round_id"]].values.tolist() == [["a", 1], ["b", 1], ["c", 2],
                                                           ["d", 1]]
    assert history(pooled) == [("A", "a1.run", "replaced", "main:1"),
                               ("B", "b.run", "live", "main:1 main:2"),
                               ("A", "a2.run", "live", "main:2")]
    table = pooled.run_history()
    assert table["sha256"].tolist() == [file_sha256(files / n)
                                        for n in ("a1.run", "b.run", "a2.run")]
    assert table["retired_at"].tolist()[0] != "" and table["retired_at"].tolist()[1:] == ["", ""]
    # both runs tagged A keep their hits: a was the old run's 1st and is the new one's 2nd
    hits = pooled.pool_hits()
    assert hits[hits["docno"] == "a"][["run_tag", "trec_rank"]].values.tolist() == [
        ["A", 1], ["A", 2]]
    assert len(pooled.judgment_log()) == 1


def test_removing_a_run(pooled: JudgmentStore, files: Path) -> None:
    with pytest.raises(RunInPool, match=r"^removing run 'B', which built pool 'main' "
                                        r"\(round 1\), .*; nothing was changed$"):
        pooled.remove_run("B")
    removed = pooled.remove_run("B", force=True)
    assert (removed["run_tag"], removed["sha256"]) == ("B", file_sha256(files / "b.run"))
    assert pooled.run_tags() == ["A"] and not pooled.has_run("B")
    with pytest.raises(UnknownRun, match=r"no run tagged 'B' in the store \(runs: A\)"):
        pooled.remove_run("B")
    assert history(pooled)[1] == ("B", "b.run", "removed", "main:1")
    assert len(pooled.pool_docs()) == 3 and len(pooled.judgment_log()) == 1
    pooled.add_runs([files / "b.run"])  # a removed tag can be imported again
    assert pooled.run_tags() == ["A", "B"]


def test_a_run_never_pooled_is_removed_without_force(files: Path,
                                                     memory_store: JudgmentStore) -> None:
    store = memory_store
    store.add_runs([files / "b.run"])
    store.remove_run("B")
    assert store.run_tags() == [] and history(store) == [("B", "b.run", "removed", "")]


def test_runs_and_their_entries_are_never_changed(pooled: JudgmentStore) -> None:
    for sql, params in (("UPDATE runs SET sha256 = ''", []), ("DELETE FROM runs", []),
                        ("DELETE FROM run_columns", []),
                        ("UPDATE run_columns SET entries = ?", [b""])):
        with pytest.raises(sqlite3.DatabaseError, match="runs are kept as imported"):
            pooled.conn.execute(sql, params)


def test_the_migration_keeps_runs_and_names_each_rounds_runs(tmp_path: Path) -> None:
    """A store made before m004: its runs and rounds come through, rounds gain their runs."""
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    migrations.sqlite_migrations().apply(Database(old), stop_before="m004_run_history")
    old.executescript(
        "INSERT INTO runs VALUES (1, 'A', 'a.run', 'sha-a', 2, 1, 't0');"
        "INSERT INTO runs VALUES (2, 'B', 'b.run', 'sha-b', 1, 1, 't0');"
        "INSERT INTO run_entries VALUES (1, '1', 'a', 1, 2.0, 1), (1, '1', 'b', 2, 1.0, 2),"
        " (2, '1', 'b', 1, 1.0, 1);"
        "INSERT INTO pools VALUES (1, 'main', 'depth', 't1');"
        "INSERT INTO pool_rounds VALUES (1, 1, 1, '[\"A\", \"B\"]', 2, 't1');"
        "INSERT INTO pool_rounds VALUES (2, 1, 2, '[\"A\"]', 0, 't2');"
        "INSERT INTO pool_docs VALUES (1, '1', 'a', 1), (1, '1', 'b', 1);"
        "INSERT INTO pool_hits VALUES (1, '1', 'a', 1, 1, 1), (1, '1', 'b', 2, 1, 1);")
    old.close()
    with JudgmentStore.open(path) as store:
        assert store.conn.pending_migrations() == []
        assert history(store) == [("A", "a.run", "live", "main:1 main:2"),
                                  ("B", "b.run", "live", "main:1")]
        assert store.conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert store.conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
        assert store.pool_hits()["run_tag"].tolist() == ["A", "B"]


def test_the_cli_replaces_removes_and_lists_runs(files: Path) -> None:
    db = str(files / "s.db")

    def call(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(cli, ["--db", db, *args])

    for args in (["init"], ["add-runs", str(files / "a1.run"), str(files / "b.run")],
                 ["pool", "--depth", "2"]):
        assert call(*args).exit_code == 0
    refused = call("remove-run", "A")
    assert (refused.exit_code, refused.stderr) == (
        1, "Error: removing run 'A', which built pool 'main' (round 1), changes which runs "
           "the pool stands for; nothing was changed; --force does it anyway: the pool keeps "
           "its documents, and its rounds still name the old run and its file's sha256\n")
    refused = call("add-runs", "--replace", str(files / "a2.run"))
    assert refused.exit_code == 1 and "--force does it anyway" in refused.stderr
    assert call("add-runs", "--replace", "--force", str(files / "a2.run")).exit_code == 0
    assert call("pool", "--depth", "2").stderr == (
        "1 documents added; the pool now holds 4\n")
    listed = call("runs", "--all", "--format", "csv").stdout.splitlines()
    assert listed[0] == ("run_id,run_tag,source_path,sha256,lines,topics,imported_at,status,"
                         "retired_at,pooled_in")
    assert [(row.split(",")[1], row.split(",")[7], row.split(",")[9]) for row in listed[1:]] == [
        ("A", "replaced", "main:1"), ("B", "live", "main:1 main:2"), ("A", "live", "main:2")]
    assert call("runs", "--format", "csv").stdout.count("\n") == 3
    picked = call("runs", "--all", "--columns", "status,pooled_in").stdout
    header = next(line for line in picked.splitlines() if "run_tag" in line)
    assert [cell.strip() for cell in header.split("┃")] == [
        "run_id", "run_tag", "status", "pooled_in"]  # the tag stays beside the picked ones


def test_bias_reads_the_live_runs_that_built_the_pool(pooled: JudgmentStore) -> None:
    """After remove-run --force, leave-one-out works on the runs still there (bias
    stopped with 'no run tagged B')."""
    from pooltool.pooling import pool_contributors

    assert pool_contributors(pooled) == (["A", "B"], 2)
    pooled.remove_run("B", force=True)
    assert pool_contributors(pooled) == (["A"], 2)
    # A (a1.run) ranks a (3), b (2), c (1): its top 2 by score, as trec_eval orders them
    assert pooled.top_entries(["A"], 2).values.tolist() == [
        ["A", "1", "a", 3.0, 1], ["A", "1", "b", 2.0, 2]]


def test_bias_scores_a_run_replaced_after_pooling_as_a_new_run(files: Path,
                                                              tmp_path: Path) -> None:
    """After add-runs --replace --force, the new run under tag A did not build the pool:
    bias scores it among the runs outside the pool, not as the contributor A (it did,
    with the new run's documents, under the old tag); once it pools, it contributes."""
    import json

    (files / "c.run").write_text("1 Q0 d 1 5 C\n1 Q0 f 2 4 C\n")
    (files / "qrels").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 1\n1 0 f 0\n")
    db = str(tmp_path / "s.db")

    def bias() -> dict[str, list[dict[str, Any]]]:
        result = CliRunner().invoke(cli, ["--db", db, "bias", "-k", "2", "--qrels",
                                          str(files / "qrels"), "--format", "json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    def call(*args: str) -> None:
        assert CliRunner().invoke(cli, ["--db", db, *args]).exit_code == 0

    call("init")
    call("add-runs", str(files / "a1.run"), str(files / "b.run"), str(files / "c.run"))
    call("pool", "--depth", "2")
    before = bias()
    assert sorted(r["run_tag"] for r in before["per_run"]) == ["A", "B", "C"]
    assert before["new_runs"] == []
    call("add-runs", "--replace", "--force", str(files / "a2.run"))
    after = bias()
    assert sorted(r["run_tag"] for r in after["per_run"]) == ["B", "C"]
    assert [(r["run_tag"], r["P"]) for r in after["new_runs"]] == [("A", 1.0)]  # c, a: relevant
    call("pool", "--depth", "2")
    assert sorted(r["run_tag"] for r in bias()["per_run"]) == ["A", "B", "C"]
