"""A PostgreSQL server that is not there, or goes away while a command writes: one
``Error:`` line, exit status 1, nothing half-written (issue 22, item 2). Each test
has a server of its own, which it stops (``pg_ctl stop -m fast``) and starts again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from postgresql_server import Server

from pooltool.cli import cli
from pooltool.errors import StoreConnectionLost
from pooltool.store import JudgmentStore
from pooltool.store.runs import RunTables

REFUSED = ("Connection refused (Is the server running on that host and accepting TCP/IP "
           "connections?)")


def invoke(db: str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--db", db, *args])
    return result.exit_code, result.stdout, result.stderr


def run_files(folder: Path, count: int) -> list[str]:
    """``count`` run files of one topic, tags run0, run1, ..."""
    paths = []
    for i in range(count):
        path = folder / f"run{i}.txt"
        path.write_text("".join(f"1 Q0 d{j} {j + 1} {10 - j} run{i}\n" for j in range(5)))
        paths.append(str(path))
    return paths


def test_a_command_on_a_stopped_server_is_one_line(own_postgresql_server: Server,
                                                   tmp_path: Path) -> None:
    url = own_postgresql_server.create_database()
    assert invoke(url, "init")[0] == 0
    own_postgresql_server.halt()
    for command in (["add-runs", *run_files(tmp_path, 1)], ["status"], ["export-qrels"]):
        code, out, err = invoke(url, *command)
        assert (code, out, err) == (
            1, "", f"Error: cannot reach the store at {url}: {REFUSED}; nothing was changed\n")


def test_a_server_stopping_in_the_middle_of_add_runs(own_postgresql_server: Server,
                                                     tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The server stops after two of five runs are written, inside the one transaction
    of the import: one line, and once the server is back the store holds none of them."""
    url = own_postgresql_server.create_database()
    assert invoke(url, "init")[0] == 0
    stored: list[str] = []
    add_run = RunTables._add_run

    def stopping(self: RunTables, conn: Any, tag: str, *args: Any, **kwargs: Any) -> Any:
        if len(stored) == 2:
            own_postgresql_server.halt()
        stored.append(tag)
        return add_run(self, conn, tag, *args, **kwargs)

    monkeypatch.setattr(RunTables, "_add_run", stopping)
    code, out, err = invoke(url, "add-runs", *run_files(tmp_path, 5))
    assert (code, out, err) == (
        1, "", f"Error: {url}: the PostgreSQL server went away (terminating connection due "
               "to administrator command); nothing was imported\n")
    assert stored == ["run0", "run1", "run2"]
    own_postgresql_server.start_again()
    with JudgmentStore.open(url) as store:
        assert store.run_tags() == []


def test_a_server_stopping_under_an_open_store_then_back(own_postgresql_server: Server) -> None:
    """A read on a connection the server dropped is one line too; the store's next
    statement, once the server is back, connects again by itself."""
    url = own_postgresql_server.create_database()
    with JudgmentStore.open(url, create=True) as store:
        store.record_judgment("1", "d1", 1, "carol")
        own_postgresql_server.halt()
        with pytest.raises(StoreConnectionLost, match=r"the PostgreSQL server went away "
                                                      r"\(terminating connection due to "
                                                      "administrator command"):
            store.judgment_log()
        own_postgresql_server.start_again()
        assert store.judgment_log()["docno"].tolist() == ["d1"]
        store.record_judgment("1", "d2", 0, "carol")
        assert store.judgment_log()["docno"].tolist() == ["d1", "d2"]
