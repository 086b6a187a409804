"""``pooltool store backup`` and ``store check``: a backup taken while a judging app
writes holds every committed judgment (a ``cp`` does not), and the check finds damage of
each kind planted in a store."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pooltool import demo
from pooltool.cli import cli
from pooltool.store import JudgmentStore

# A judging app's connection: five judgments committed, left in the WAL (no checkpoint),
# the connection kept open until stdin closes; each further line read is one more
# judgment, committed at once.
APP = """
import sqlite3, sys
from pooltool.store import JudgmentStore
store = JudgmentStore.open(sys.argv[1])
store.conn.execute("PRAGMA wal_autocheckpoint = 0")
for n in range(5):
    store.record_judgment("1", f"app-{n}", 1, "alice", origin="tui")
print("ready", flush=True)
for n, _ in enumerate(sys.stdin, 5):
    store.record_judgment("1", f"app-{n}", 1, "alice", origin="tui")
    print(n + 1, flush=True)
"""


def _pooltool(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo store, with a retraction in its log (as an undo writes it)."""
    db = tmp_path_factory.mktemp("built") / "s.db"
    with JudgmentStore.open(db, create=True) as store:
        demo.fill_demo(store)
        store.retract(store.record_judgment("1", "x", 2, "alice"), "alice")
    return db


@pytest.fixture
def store_file(built: Path, tmp_path: Path) -> Path:
    shutil.copy(built, tmp_path / "s.db")
    return tmp_path / "s.db"


@pytest.fixture
def judging_app(store_file: Path) -> Iterator[subprocess.Popen[str]]:
    app = subprocess.Popen([sys.executable, "-c", APP, str(store_file)], text=True,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert app.stdout is not None and app.stdout.readline() == "ready\n"
    yield app
    app.kill()
    app.wait()


def _app_judgments(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM judgments WHERE docno LIKE 'app-%'")
                   .fetchone()[0])
    finally:
        conn.close()


def test_a_backup_holds_what_an_open_app_committed_and_cp_does_not(
        store_file: Path, judging_app: subprocess.Popen[str], tmp_path: Path) -> None:
    shutil.copy(store_file, tmp_path / "cp.db")
    assert _app_judgments(tmp_path / "cp.db") == 0  # the five wait in the -wal file
    result = _pooltool("--db", str(store_file), "store", "backup", str(tmp_path / "b.db"))
    assert result.exit_code == 0, result.output
    assert _app_judgments(tmp_path / "b.db") == 5
    assert result.stderr.startswith(f"backed up {store_file} to {tmp_path / 'b.db'}: 34 tables")
    assert "judgment log" in result.stdout and "table judgments" in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.db", "cp.db", "s.db", "s.db-shm",
                                                          "s.db-wal"]


def test_a_backup_while_the_app_judges_is_one_moment_of_the_store(
        store_file: Path, judging_app: subprocess.Popen[str], tmp_path: Path) -> None:
    assert judging_app.stdin is not None and judging_app.stdout is not None
    counts = []
    for n in range(3):
        judging_app.stdin.write("judge\n")
        judging_app.stdin.flush()
        committed = int(judging_app.stdout.readline())
        result = _pooltool("--db", str(store_file), "store", "backup", str(tmp_path / f"{n}.db"))
        assert result.exit_code == 0, result.output
        counts.append((committed, _app_judgments(tmp_path / f"{n}.db")))
    assert counts == [(6, 6), (7, 7), (8, 8)]


def test_a_backup_never_overwrites(store_file: Path, tmp_path: Path) -> None:
    (tmp_path / "old.db").write_text("an earlier backup")
    result = _pooltool("--db", str(store_file), "store", "backup", str(tmp_path / "old.db"))
    assert (result.exit_code, result.stderr) == (
        1, f"Error: {tmp_path / 'old.db'} exists: a backup goes into a new file (nothing was "
           "overwritten)\n")
    assert (tmp_path / "old.db").read_text() == "an earlier backup"


def test_a_whole_store_checks_clean(store_file: Path) -> None:
    result = _pooltool("store", "check", str(store_file))
    assert (result.exit_code, result.stdout) == (
        0, f"{store_file}: no problem found (checked 1 database check, 4 runs, 1 retractions, "
           "223 pooled documents, 1 qrels versions)\n")


def _plant(db: Path, *statements: str) -> None:
    """Change the store behind pooltool's back: triggers and foreign keys off."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA foreign_keys = OFF")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


RUN_ID = "(SELECT MIN(run_id) FROM runs)"
_JUDGMENT = ("INSERT INTO judgments(topic, docno, grade, assessor, judged_at, origin) "
             "VALUES ('1', '{}', 1, 'alice', 't', 'api')")
_RETRACTION = ("INSERT INTO judgments(topic, docno, grade, assessor, judged_at, origin, retracts) "
               "SELECT {}, NULL, '{}', 't', 'api', MAX(judgment_id) FROM judgments")
PLANTED = {
    "database": (["INSERT INTO pool_hits SELECT pool_id, topic, docno, 999, 1, round_id "
                  "FROM pool_docs LIMIT 1"],
                 "database: table pool_hits: a row names a missing row of runs"),
    "blob": (["DROP TRIGGER run_columns_no_update",
              f"UPDATE run_columns SET entries = randomblob(64) WHERE run_id = {RUN_ID}"],
             "run: the stored entries of run 'bm25' (id 1) do not match their sha256: the store "
             "was damaged or changed outside pooltool"),
    "lines": (["DROP TRIGGER runs_no_update", f"UPDATE runs SET lines = 3 WHERE run_id = {RUN_ID}"],
              "run: run 'bm25' (id 1) holds 500 lines, but its records say 3 (runs) and 500 "
              "(run_columns)"),
    "other pair": (["DROP TRIGGER judgments_retraction_rules", _JUDGMENT.format("x2"),
                    _RETRACTION.format("'2', 'y'", "alice")],
                   "retraction: retraction {second} (of judgment {first}) is of topic '2', "
                   "docno 'y', but the judgment of '1', 'x2'"),
    "other assessor": ([_JUDGMENT.format("x3"), _RETRACTION.format("'1', 'x3'", "mallory")],
                       "retraction: retraction {second} (of judgment {first}) was made by "
                       "'mallory', the judgment by 'alice'"),
    "pool": (["INSERT INTO pool_docs SELECT pool_id, '1', 'no-hits', round_id FROM pool_docs "
              "LIMIT 1"],
             "pool: pool 'main': topic '1', docno 'no-hits' has no run's hit that pooled it"),
    "version": (["UPDATE qrels_versions SET last_judgment_id = 99999"],
                "version: qrels version 'demo-partial' ends at judgment 99999, outside the log "
                "(1 to {last})"),
}


@pytest.mark.parametrize("kind", PLANTED)
def test_the_check_finds_planted_damage(store_file: Path, kind: str) -> None:
    with JudgmentStore.open(store_file) as store:
        last = int(store.judgment_log()["judgment_id"].iloc[-1])
    statements, expected = PLANTED[kind]
    _plant(store_file, *statements)
    result = _pooltool("store", "check", str(store_file))
    assert result.exit_code == 1
    found = result.stdout.splitlines()
    assert expected.format(first=last + 1, second=last + 2, last=last) in found
    assert result.stderr.startswith(f"Error: {store_file}: ")
    assert "problem(s) found (checked 1 database check" in result.stderr


@pytest.mark.parametrize("where", ["schema", "data"])
def test_a_damaged_file_is_one_line_not_a_traceback(store_file: Path, where: str) -> None:
    """Pages overwritten (the schema's, or the last third of the file, where the runs'
    entries are): every command says so in one line."""
    data = bytearray(store_file.read_bytes())
    start = 4096 if where == "schema" else len(data) * 2 // 3 // 4096 * 4096
    data[start:] = bytes(range(256)) * ((len(data) - start) // 256)
    store_file.write_bytes(bytes(data))
    run = str(demo.demo_files() / "runs" / "bm25.run")
    for command in (["status"], ["recall", run, "--version", "demo-partial"], ["store", "check"]):
        result = _pooltool("--db", str(store_file), *command)
        assert (result.exit_code, type(result.exception)) == (1, SystemExit), command
        assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1
        said = ("store file is damaged (database disk image is malformed)", "problem(s) found",
                "the file is too damaged to open; restore it from a backup")
        assert any(words in result.stderr for words in said), (command, result.stderr)
        if command == ["store", "check"]:
            assert "database: database disk image is malformed" in result.stdout
