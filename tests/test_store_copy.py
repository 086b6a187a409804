"""``pooltool store copy``: a whole store moved between engines, kept exactly."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from pooltool.cli import cli
from pooltool.store import JudgmentStore, workspace
from pooltool.store import copy as copy_module
from pooltool.store.copy import (
    BOOKKEEPING_TABLES,
    CopyMismatch,
    Table,
    compare_stores,
    copy_store,
    schema_tables,
)
from pooltool.store.migrations import postgresql_schema

pytestmark = pytest.mark.both_engines  # copies between the engines

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["010vptx3", "02f0opkr", "04ftw7k9", "zz-unretrieved-1", "zz-unretrieved-2"]


def _run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


def _fill_by_api(db: Path) -> None:
    """What the judging app writes: a judgment with a note, a retraction, a claim, the
    assessors' workspace, a journalled write, an adjudication, an account; then a version after them."""
    with JudgmentStore.open(db) as store:
        first = store.record_judgment("1", "010vptx3", 1, "alice", ms_spent=4200,
                                      ms_active=3100, note="[b]cites the trial[/b]", origin="tui")
        store.record_judgment("1", "02f0opkr", 2, "alice", origin="tui")
        store.retract(first, "alice", origin="tui")
        store.claim("2", "04ftw7k9", "bob", 5.0)
        workspace.set_scan_terms(store, "alice", "1", ["vaccine", "trial"])
        workspace.mark_skipped(store, "alice", "1", "04ftw7k9")
        workspace.save_position(store, "alice", "1", "02f0opkr")
        workspace.save_note_draft(store, "bob", "2", "04ftw7k9", "check table 2")
        workspace.apply_once(store, "token-1", lambda: store.record_judgment(
            "2", "04ftw7k9", 0, "bob", origin="tui"))
        bob = store.record_judgment("1", "02f0opkr", 0, "bob", origin="tui")
        store.record_adjudication("1", "02f0opkr", 1, "carol", [bob])
        store.add_account("carol", "adjudicator", "a long passphrase")
        store.tag_version("round2", note="after alice and bob")
        # two unretrieved documents as near copies (so no default qrels change), one split
        store.add_duplicate_finding(pd.DataFrame({
            "group_no": [1, 1], "docno": ["zz-unretrieved-1", "zz-unretrieved-2"],
            "exact_class": [0, 1], "how": ["leader", "near"], "similarity": [1.0, 0.85]}),
            {"threshold": 0.8, "shingle_words": 5, "num_perm": 128, "seed": 1}, len(DOCS))
        store.split_copy("1", "zz-unretrieved-2", "alice", origin="tui")


@pytest.fixture(scope="module")
def covid_store(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite store of TREC-COVID round 1 with a row in every table: topics, a few
    documents, the 15 runs pooled to depth 7, the official qrels and a machine's
    (versions official, llm), a run removed and one replaced after pooling (so the
    first round's runs are no longer the live ones), a second round at depth 8, an
    adaptive pool, a grown sample, guidelines, assignments, a setting, and what
    :func:`_fill_by_api` writes (version round2)."""
    folder = shared_data / "trec_covid_r1"
    tmp = tmp_path_factory.mktemp("copy")
    db = str(tmp / "covid.db")
    with open(tmp / "docs.jsonl", "w", encoding="utf-8") as out:
        for docno in DOCS:
            out.write(json.dumps({"docno": docno, "title": f"T {docno}",
                                  "text": f"text of {docno} [b]not markup[/b]"}) + "\n")
    qrels = (folder / "qrels-rnd1.txt").read_text(encoding="utf-8").splitlines()
    (tmp / "llm.qrels").write_text("".join(
        f"{t} {i} {d} {(int(g) + 1) % 3}\n"
        for t, i, d, g in (line.split() for line in qrels[::50])), encoding="utf-8")
    run1 = (folder / "runs" / "run1").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp / "run1-fixed").write_text("".join(run1[:-1]), encoding="utf-8")
    for args in (["init"], ["add-topics", str(folder / "topics-rnd1.xml")],
                 ["add-docs", str(tmp / "docs.jsonl")],
                 ["add-runs", *map(str, sorted((folder / "runs").iterdir()))],
                 ["pool", "--depth", "7"],
                 ["import-qrels", str(folder / "qrels-rnd1.txt"), "--version", "official",
                  "--assessor", "nist"],
                 ["import-qrels", str(tmp / "llm.qrels"), "--version", "llm",
                  "--assessor", "gpt-judge", "--machine"],
                 ["remove-run", "T5R1", "--force"],
                 ["add-runs", "--replace", "--force", str(tmp / "run1-fixed")],
                 ["pool", "--depth", "8"],
                 ["pool", "--name", "adaptive", "--strategy", "mtf", "--budget", "5"],
                 ["sample", "--name", "s1", "--budget", "10", "--seed", "1"],
                 ["sample", "--name", "s1", "--grow", "5"],
                 ["guidelines", "--grade-definition", "2:answers the question"],
                 ["assign", "alice", "bob", "--overlap", "0.2"],
                 ["judge-settings", "--show-runs"]):
        _run("--db", db, *args)
    _fill_by_api(Path(db))
    return Path(db)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled demo store (``pooltool demo``): runs, a pool, a qrels version."""
    folder = tmp_path_factory.mktemp("demo")
    _run("demo", str(folder))
    return folder / "pooltool.db"


def _schema_file_tables() -> set[str]:
    sqlite = set(re.findall(r'^CREATE TABLE "?(\w+)"?', (ROOT / "schemas" / "store.sql")
                            .read_text(encoding="utf-8"), re.MULTILINE))
    postgresql = set(re.findall(r"^CREATE TABLE (\w+)", postgresql_schema(), re.MULTILINE))
    assert sqlite - BOOKKEEPING_TABLES == postgresql - BOOKKEEPING_TABLES
    return sqlite - BOOKKEEPING_TABLES


def _exports(db: str) -> dict[str, bytes]:
    """What export-qrels and export-pool write, for each version and several policies."""
    out = {}
    for version in ["", "official", "llm", "round2"]:
        later = ["assessor:gpt-judge", "prefer:alice,nist"] if version in ("", "round2") else []
        for policy in ["latest", "majority", "max:all", *later]:
            args = ["--db", db, "export-qrels", "--policy", policy]
            out[f"{version} {policy}"] = _run(*args, *(["--version", version] if version else [])
                                              ).stdout_bytes
    out["unjudged"] = _run("--db", db, "export-qrels", "--unjudged-as", "-1").stdout_bytes
    for pool in ["main", "adaptive", "s1"]:
        out[f"pool {pool}"] = _run("--db", db, "export-pool", "--pool", pool).stdout_bytes
    return out


def test_every_table_of_the_schema_is_copied_and_checked(demo_store: Path,
                                                         tmp_path: Path) -> None:
    with JudgmentStore.open(demo_store) as src, \
            JudgmentStore.open(tmp_path / "copy.db", create=True) as dst:
        check = copy_store(src, dst)
        assert set(schema_tables(src)) == _schema_file_tables()
    assert {d.what for d in check.tables} == {f"table {t}" for t in _schema_file_tables()}


def test_the_covid_store_fills_every_table(covid_store: Path) -> None:
    """So that the round trip below copies a row of each (a new table fails here until
    the fixture gives it rows)."""
    with JudgmentStore.open(covid_store) as store:
        empty = [name for name in schema_tables(store)
                 if store.conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] == 0]
    assert empty == []


@pytest.mark.slow  # TREC-COVID there and back (test_every_table... checks the demo store)
def test_sqlite_to_postgresql_to_sqlite_keeps_everything(
        covid_store: Path, shared_data: Path, postgresql_empty_url: str, tmp_path: Path) -> None:
    back = tmp_path / "back.db"
    there = _run("store", "copy", str(covid_store), postgresql_empty_url)
    again = _run("store", "copy", postgresql_empty_url, str(back))
    assert re.search(r": 34 tables, [0-9,]+ rows, every id kept$", there.stderr, re.MULTILINE)
    assert there.stderr.splitlines()[-1].startswith("roles are not copied: grant them on DST")
    assert "roles are not copied" not in again.stderr  # a SQLite file has no roles
    assert there.stdout == again.stdout  # the same checks, the same digests, both ways
    lines = there.stdout.splitlines()
    judged = sum(len((folder / name).read_text(encoding="utf-8").splitlines()) for folder, name
                 in ((shared_data / "trec_covid_r1", "qrels-rnd1.txt"),
                     (covid_store.parent, "llm.qrels"))) + 6  # and _fill_by_api's 6 rows
    assert re.search(rf"table judgments\s+{judged:,}\s+[0-9a-f]{{64}}$", there.stdout,
                     re.MULTILINE)
    assert re.search(r"table run_columns\s+16\s", there.stdout)
    # each version under the 6 policies by kind and adjudicated, assessor:NAME for each
    # of its assessors and prefer: over them all: official 1 assessor, llm 2, round2 and
    # now 5 (alice, bob, carol the adjudicator, and the two of llm)
    assert sum(line.lstrip().startswith("qrels ") for line in lines) == 9 + 10 + 13 + 13
    assert {line.split()[1] for line in lines if line.lstrip().startswith("table ")} == \
        _schema_file_tables()
    with JudgmentStore.open(covid_store) as src, JudgmentStore.open(back) as dst:
        check = compare_stores(src, dst)
        assert src.judgment_log()["judgment_id"].tolist() == \
            dst.judgment_log()["judgment_id"].tolist()
    assert [d.rows for d in check.tables] == [
        int(line.split()[2].replace(",", "")) for line in lines[1:35]]
    original = _exports(str(covid_store))
    assert _exports(postgresql_empty_url) == original
    assert _exports(str(back)) == original


def test_the_demo_store_copies_sqlite_to_sqlite(demo_store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    result = _run("store", "copy", str(demo_store), str(copy))
    assert result.stdout.startswith("checked, equal in SRC and DST")
    assert re.search(r"judgment log\s+132\s", result.stdout)
    qrels = re.search(r"qrels demo-partial latest\s+([0-9,]+)\s+([0-9a-f]{64})$", result.stdout,
                      re.MULTILINE)
    assert qrels is not None
    exported = _run("--db", str(demo_store), "export-qrels", "--version", "demo-partial")
    assert int(qrels[1]) == len(exported.stdout.splitlines())  # the digest is the file's
    assert qrels[2] == hashlib.sha256(exported.stdout_bytes).hexdigest()
    for args in (["export-qrels"], ["export-qrels", "--version", "demo-partial"],
                 ["export-pool"], ["runs", "--all", "--format", "csv"]):
        assert _run("--db", str(copy), *args).stdout == _run("--db", str(demo_store),
                                                               *args).stdout


def test_a_store_with_rows_is_refused(demo_store: Path, store_address: str) -> None:
    _run("--db", store_address, "init")
    _run("--db", store_address, "judge-settings", "--show-runs")
    result = CliRunner().invoke(cli, ["store", "copy", str(demo_store), store_address])
    assert result.exit_code == 1
    assert "already holds rows (in settings)" in result.output
    assert "overwrites nothing; nothing was copied" in result.output
    with JudgmentStore.open(store_address) as dst:
        assert dst.conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 0


def test_an_empty_store_is_filled(demo_store: Path, store_address: str) -> None:
    _run("--db", store_address, "init")
    _run("store", "copy", str(demo_store), store_address)
    with JudgmentStore.open(store_address) as dst:
        assert len(dst.judgment_log()) == 132


def test_new_rows_continue_the_ids_on_postgresql(demo_store: Path,
                                                 postgresql_empty_url: str) -> None:
    _run("store", "copy", str(demo_store), postgresql_empty_url)
    with JudgmentStore.open(postgresql_empty_url) as dst:
        assert dst.record_judgment("1", "argparse", 1, "alice") == 133
        assert dst.retract(133, "alice") == 134
    _run("--db", postgresql_empty_url, "pool", "--name", "second", "--depth", "1")
    with JudgmentStore.open(postgresql_empty_url) as dst:
        assert dst.pool_id("second") == 2
        assert dst.pool_rounds("second")["round_id"].tolist() == [2]


def test_a_difference_names_the_table_and_key(demo_store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(demo_store, copy)
    with JudgmentStore.open(copy) as store:
        store.record_judgment("1", "argparse", 2, "alice")
    with JudgmentStore.open(demo_store) as src, JudgmentStore.open(copy) as dst, \
            pytest.raises(CopyMismatch, match=r"^table judgments: the row judgment_id=133 "
                                              r"is in DST only \(after 132 equal rows\)$"):
        compare_stores(src, dst)


def test_the_source_must_be_a_store(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["store", "copy", str(tmp_path / "none.db"),
                                      str(tmp_path / "new.db")])
    assert result.exit_code == 1
    assert f"no store at {tmp_path / 'none.db'}" in result.output
    same = CliRunner().invoke(cli, ["store", "copy", "a.db", "./a.db"])
    assert same.exit_code == 2
    assert "SRC and DST are the same store" in same.output


def test_a_copy_that_differs_is_an_error(demo_store: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    copy_table = copy_module._copy_table

    def skip_settings(src: JudgmentStore, dst: JudgmentStore, conn: Any, table: Table) -> None:
        if table.name != "settings":
            copy_table(src, dst, conn, table)

    monkeypatch.setattr(copy_module, "_copy_table", skip_settings)
    result = CliRunner().invoke(cli, ["store", "copy", str(demo_store), str(tmp_path / "c.db")])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"Error: the copy in {tmp_path / 'c.db'} differs from {demo_store}, do not use it: "
        "table settings: SRC and DST differ at key='demo' (SRC) / key='schema_written_by' "
        "(DST)")  # DST's own row: the record of the pooltool that made its schema


def _adjudicated_store(demo_store: Path, db: Path, adjudicated: bool = True) -> Path:
    """The demo store at ``db`` where alice (2) and bob (0) judged argparse.Action apart,
    carol adjudicated it 1 (``adjudicated=False``: judged it 1, as a copy that lost its
    adjudications holds it), and bob judged it 0 again afterwards: the policy adjudicated
    gives carol's 1, latest bob's 0."""
    shutil.copy(demo_store, db)
    with JudgmentStore.open(db) as store:
        alice = store.record_judgment("1", "argparse.Action", 2, "alice")
        bob = store.record_judgment("1", "argparse.Action", 0, "bob")
        if adjudicated:
            store.record_adjudication("1", "argparse.Action", 1, "carol", [alice, bob])
        else:
            store.record_judgment("1", "argparse.Action", 1, "carol")
        store.record_judgment("1", "argparse.Action", 0, "bob")
    return db


def test_a_copys_adjudications_are_checked_under_the_adjudicated_policy(
        demo_store: Path, tmp_path: Path) -> None:
    """The check's adjudicated qrels are the file export-qrels --policy adjudicated writes
    (carol's 1 for argparse.Action, not bob's later 0, which latest gives), and the
    copy's adjudications resolve the same judgments."""
    src_path = _adjudicated_store(demo_store, tmp_path / "src.db")
    with JudgmentStore.open(src_path) as src, \
            JudgmentStore.open(tmp_path / "copy.db", create=True) as dst:
        check = copy_store(src, dst)
        ours, theirs = src.live_adjudications(), dst.live_adjudications()
    pd.testing.assert_frame_equal(ours, theirs)
    assert ours["resolves"].tolist() == sorted(ours["resolves"]) and len(ours) == 2
    digests = {d.what: d.sha256 for d in check.qrels}
    for policy in ("adjudicated", "latest"):
        exported = _run("--db", str(src_path), "export-qrels", "--policy", policy).stdout_bytes
        assert digests[f"qrels (log now) {policy}"] == hashlib.sha256(exported).hexdigest()
        line = [x for x in exported.decode().splitlines() if x.split()[2] == "argparse.Action"]
        assert line == [f"1 0 argparse.Action {1 if policy == 'adjudicated' else 0}"]


def test_a_copy_that_lost_its_adjudications_differs_under_the_adjudicated_policy(
        demo_store: Path, tmp_path: Path) -> None:
    """A copy whose log holds carol's grade but not as an adjudication has the same qrels
    under latest, and others under adjudicated: the check reads each side's own
    adjudications (it read none before, and passed such a copy)."""
    src = _adjudicated_store(demo_store, tmp_path / "src.db")
    lost = _adjudicated_store(demo_store, tmp_path / "lost.db", adjudicated=False)
    with JudgmentStore.open(src) as ours, JudgmentStore.open(lost) as theirs, \
            pytest.raises(CopyMismatch, match=r"^qrels \(log now\) adjudicated: SRC and DST "
                                              r"differ at topic '1' docno 'argparse.Action'$"):
        copy_module._compare_qrels(ours, theirs)
