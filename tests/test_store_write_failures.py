"""A store that cannot be written: a full disk, a read-only file, a read-only folder.

Writes end in ``Error: STORE: ...; nothing was imported`` (exit 1, nothing stored);
reads work wherever SQLite can read without writing.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlite_utils import Database

from pooltool.cli import cli
from pooltool.errors import StoreError, StoreWriteFailed
from pooltool.store import JudgmentStore, migrations
from pooltool.store.sqlite import sqlite_engine

RUN = "".join(f"1 Q0 d{i} {i} {1000 - i} A\n" for i in range(1, 1001))
QRELS = "".join(f"1 0 d{i} {i % 2}\n" for i in range(1, 1001))
STATUS_CSV = ("topic,pooled,judged,unjudged,relevant,judged_outside,done\n"
              "1,3,0,3,0,0,0.0\n")


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A folder with a store holding run A pooled at depth 3, a run file B and qrels."""
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "b.run").write_text(RUN.replace(" A\n", " B\n"))
    (tmp_path / "q.txt").write_text(QRELS)
    db = str(tmp_path / "s.db")
    for args in (["init"], ["add-runs", str(tmp_path / "a.run")], ["pool", "--depth", "3"]):
        assert CliRunner().invoke(cli, ["--db", db, *args]).exit_code == 0
    return tmp_path


def _page_limited_connect(real: Any) -> Any:
    """sqlite3.connect, but the store cannot grow: SQLite answers SQLITE_FULL
    ("database or disk is full") as on a full disk."""
    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn
    return connect


@pytest.mark.parametrize("args", [["add-runs", "b.run"],
                                  ["import-qrels", "q.txt", "--version", "v1"]])
def test_a_full_disk_is_a_clean_error(built: Path, monkeypatch: pytest.MonkeyPatch,
                                      args: list[str]) -> None:
    monkeypatch.chdir(built)
    monkeypatch.setattr(sqlite3, "connect", _page_limited_connect(sqlite3.connect))
    result = CliRunner().invoke(cli, ["--db", "s.db", *args])
    assert (result.exit_code, result.stderr) == (
        1, "Error: s.db: the disk is full (database or disk is full); nothing was imported\n")
    monkeypatch.undo()
    with JudgmentStore.open(built / "s.db") as store:
        assert store.run_tags() == ["A"]
        assert store.judgment_log().empty and store.versions().empty


def test_a_full_disk_rolls_back_the_whole_import(built: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite3, "connect", _page_limited_connect(sqlite3.connect))
    with JudgmentStore.open(built / "s.db") as store:
        with pytest.raises(StoreWriteFailed, match=r"s\.db: the disk is full") as caught:
            store.import_qrels(built / "q.txt", "v1")
        assert isinstance(caught.value, sqlite3.OperationalError)  # what SQLite raised
        assert not store.conn.in_transaction
        assert store.judgment_log().empty and store.versions().empty


def test_a_schema_upgrade_on_a_full_disk_changes_nothing(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    migrations.sqlite_migrations().apply(Database(old), stop_before="m004_run_history")
    old.close()
    monkeypatch.setattr(sqlite3, "connect", _page_limited_connect(sqlite3.connect))
    with pytest.raises(StoreWriteFailed, match=r"old\.db: the disk is full \(database or disk "
                                               r"is full\); nothing was changed$"):
        JudgmentStore.open(path)
    monkeypatch.undo()
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert "runs" in tables and "run_retirements" not in tables
    with JudgmentStore.open(path) as store:  # with room, the upgrade goes through
        assert store.conn.pending_migrations() == []


@pytest.fixture
def unprivileged() -> Iterator[Any]:
    """Run the CLI in a process that file permissions bind. As root, which writes
    read-only files anyway, it runs under ``setpriv`` without the capabilities
    that override permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH)."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root writes read-only files, and setpriv (util-linux), which "
                        "drops that privilege, is not installed")
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"]

    def run(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*prefix, sys.executable, "-m", "pooltool", "--db", str(db),
                               *args], capture_output=True, text=True, check=False)
    yield run


@pytest.fixture
def read_only_folder(built: Path) -> Iterator[Path]:
    built.chmod(0o555)
    yield built
    built.chmod(0o755)


def test_a_store_in_a_read_only_folder_can_be_read(read_only_folder: Path,
                                                   unprivileged: Any) -> None:
    db = read_only_folder / "s.db"
    status = unprivileged(db, "status", "--format", "csv")
    assert (status.returncode, status.stdout, status.stderr) == (0, STATUS_CSV, "")
    imported = unprivileged(db, "import-qrels", str(read_only_folder / "q.txt"),
                            "--version", "v1")
    assert (imported.returncode, imported.stderr) == (
        1, f"Error: {db}: the store can be read but not written (read-only file or folder); "
           "nothing was imported\n")
    assert sorted(p.name for p in read_only_folder.iterdir()) == [
        "a.run", "b.run", "q.txt", "s.db"]


def test_init_in_a_read_only_folder_says_why(read_only_folder: Path,
                                            unprivileged: Any) -> None:
    db = read_only_folder / "s.db"
    result = unprivileged(db, "init")
    assert (result.returncode, result.stderr) == (
        1, f"Error: {db}: the store cannot be written (attempt to write a readonly "
           "database): check the permissions of the file and its folder; nothing was changed\n")


def test_a_read_only_store_file_can_be_read(built: Path, unprivileged: Any) -> None:
    db = built / "s.db"
    db.chmod(0o444)
    status = unprivileged(db, "status", "--format", "csv")
    assert (status.returncode, status.stdout) == (0, STATUS_CSV)
    for args in (["import-qrels", str(built / "q.txt"), "--version", "v1"],
                 ["add-runs", str(built / "b.run")]):
        result = unprivileged(db, *args)
        assert (result.returncode, result.stderr) == (
            1, f"Error: {db}: the store can be read but not written (read-only file or "
               "folder); nothing was imported\n")
    db.chmod(0o644)
    with JudgmentStore.open(db) as store:
        assert store.run_tags() == ["A"] and store.judgment_log().empty


def test_judging_a_store_that_cannot_be_written_is_refused(read_only_folder: Path,
                                                           unprivileged: Any) -> None:
    db = read_only_folder / "s.db"
    result = unprivileged(db, "judge", "--assessor", "ann")
    assert (result.returncode, result.stderr) == (
        1, f"Error: {db}: the store can be read but not written (read-only file or folder), "
           "and judging writes to it\n")


def test_adjudicating_a_store_that_cannot_be_written_is_refused(read_only_folder: Path,
                                                                unprivileged: Any) -> None:
    db = read_only_folder / "s.db"
    result = unprivileged(db, "adjudicate", "--adjudicator", "carol")
    assert (result.returncode, result.stderr) == (
        1, f"Error: {db}: the store can be read but not written (read-only file or folder), "
           "and adjudicating writes to it\n")


def test_a_write_sqlite_refuses_as_read_only_is_a_clean_error(built: Path) -> None:
    """SQLite opened the file read-only behind the store's back (as it does when it
    may not write the file): the write fails, and says why."""
    db = built / "s.db"
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    with JudgmentStore(sqlite_engine(conn, db)) as store:
        with pytest.raises(StoreWriteFailed, match=r"s\.db: the store cannot be written "
                                                   r"\(attempt to write a readonly database\): "
                                                   "check the permissions of the file and its "
                                                   "folder; nothing was imported$"):
            store.import_qrels(built / "q.txt", "v1")
        assert not conn.in_transaction and store.versions().empty


def test_unfolded_writes_in_a_read_only_folder_are_named(built: Path, tmp_path_factory:
                                                         pytest.TempPathFactory,
                                                         unprivileged: Any) -> None:
    """A -wal file with writes, no -shm, a read-only folder: SQLite could read it only
    by writing the -shm, and an immutable open would miss the writes, so it is refused."""
    writer = sqlite3.connect(built / "s.db")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO settings VALUES ('x', '1')")
    writer.commit()
    copy = tmp_path_factory.mktemp("copy")
    for name in ("s.db", "s.db-wal"):
        shutil.copy(built / name, copy / name)
    writer.close()
    copy.chmod(0o555)
    try:
        result = unprivileged(copy / "s.db", "status")
    finally:
        copy.chmod(0o755)
    assert result.returncode == 1
    assert result.stderr.startswith(f"Error: {copy / 's.db'}: cannot be read without writing")
    assert result.stderr.endswith(f"its folder is read-only and {copy / 's.db'}-wal holds "
                                  "writes not yet folded into the store; make the folder "
                                  "writable and open the store once\n")


def test_a_read_only_store_needs_a_current_schema(built: Path) -> None:
    conn = sqlite3.connect(f"{(built / 's.db').as_uri()}?mode=ro", uri=True)
    JudgmentStore(sqlite_engine(conn, built / "s.db", read_only=True)).close()
    old = sqlite3.connect(built / "s.db")
    old.execute("DELETE FROM _sqlite_migrations WHERE name = 'm003_durable_ui'")
    old.commit()
    old.close()
    conn = sqlite3.connect(f"{(built / 's.db').as_uri()}?mode=ro", uri=True)
    with pytest.raises(StoreError, match=r"it lacks m003_durable_ui\); it cannot be "
                                         "upgraded because it cannot be written"):
        JudgmentStore(sqlite_engine(conn, built / "s.db", read_only=True))
