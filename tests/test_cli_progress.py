"""Progress bars only on a terminal; a held write lock is announced at once."""

from __future__ import annotations

import io
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import pooltool.cli.group as group
import pooltool.store.store as store_module
from pooltool.cli import cli


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_nothing_when_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert list(group.progress(range(3), "counting", total=3)) == [0, 1, 2]
    assert capsys.readouterr().err == ""


def test_progress_draws_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert list(group.progress(["a", "b"], "reading runs", total=2)) == ["a", "b"]
    assert "reading runs" in terminal.getvalue()


@pytest.fixture
def locked_store(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    db = tmp_path / "s.db"
    assert CliRunner().invoke(cli, ["--db", str(db), "init"]).exit_code == 0
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return db, holder


def test_a_held_write_lock_is_announced_before_waiting(
        locked_store: tuple[Path, sqlite3.Connection], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    db, holder = locked_store
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.2)  # the CLI reads it from the store
    (tmp_path / "a.run").write_text("1 Q0 a 1 3 A\n")
    try:
        result = CliRunner().invoke(cli, ["--db", str(db), "add-runs", str(tmp_path / "a.run")])
    finally:
        holder.rollback()
    lines = result.stderr.splitlines()
    assert lines[0] == f"another process is writing to {db}: waiting for it up to 0 s ..."
    assert result.exit_code == 1 and "the store is busy" in lines[-1]


def test_a_free_store_says_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    assert CliRunner().invoke(cli, ["--db", str(db), "init"]).exit_code == 0
    group.say_if_store_busy(db)
    assert capsys.readouterr().err == ""
