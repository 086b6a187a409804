"""Adjudications go through the write journal, as judgments do (issue 29's follow-up): a
busy store keeps the adjudicator's grade (and its undo) in the journal, a notice says
so, the timer commits it once the store is free, with the judgments it resolves; a
killed adjudication app's journal is committed by the next command that reads the
store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from judge_fixtures import build_store, journal_base_of, log_rows, wait_until, write_lock_held
from postgresql_server import Server
from textual.widgets import DataTable

from pooltool.cli import cli
from pooltool.store import JudgmentStore
from pooltool.store.journal import RECONNECT_MAX_S
from pooltool.store.journal_files import journal_path, journals
from pooltool.tui.adjudicate import BUSY_NOTICE, UNREACHABLE_NOTICE, make_adjudicate_app
from pooltool.tui.screens.adjudicate import AdjudicateScreen

SIZE = (120, 34)
BACK_WITHIN_S = RECONNECT_MAX_S + 10  # the longest backoff wait, and slack for a loaded machine


def disagree(store_path: str) -> dict[str, list[int]]:
    """alice and bob grade topic 1's d1 (2 and 0) and d3 (1 and 3) apart; the judgment ids
    of each document's two grades (alice's, bob's)."""
    with JudgmentStore.open(store_path) as store:
        return {docno: [store.record_judgment("1", docno, a, "alice"),
                        store.record_judgment("1", docno, b, "bob")]
                for docno, a, b in [("d1", 2, 0), ("d3", 1, 3)]}


def listed(screen: AdjudicateScreen) -> list[str]:
    return [str(d) for d in screen.rows["docno"]]


def journal_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.both_engines  # the journal, the write lock
async def test_an_adjudication_waits_in_the_journal_while_the_store_is_busy(
        store_path: str) -> None:
    """carol adjudicates d1 (1), undoes it and adjudicates it again (3) while another
    writer holds the lock: the three writes wait in her journal, in order, the notice
    says so and d1 leaves the open list at once; once the lock is released the timer
    commits them, and the log holds them with d1's two grades as what they resolve."""
    ids = disagree(store_path)
    app = make_adjudicate_app(store_path, "carol", ["1"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen) and listed(screen) == ["d1", "d3"]
        with write_lock_held(store_path):
            await pilot.press("1")
            assert app.writes.pending == 1 and listed(screen) == ["d3"]
            assert BUSY_NOTICE in [n.message for n in app._notifications]
            await pilot.press("u")
            assert app.writes.pending == 2 and listed(screen) == ["d1", "d3"]
            await pilot.press("3")
            await pilot.press("r")  # resolved ones too: d1's grade is shown as waiting
            table = screen.query_one("#disagreements", DataTable)
            assert str(table.get_row_at(0)[4]) == "3 (waiting)"
            await pilot.press("r")
            journal = app.writes.journal
            assert journal is not None and journal == journal_path(
                journal_base_of(store_path), "carol")
            lines = journal_lines(journal)
            assert [line["kind"] for line in lines] == ["adjudication", "retract", "adjudication"]
            assert lines[0]["args"]["resolves"] == ids["d1"]  # type: ignore[index]
            await pilot.pause(1.0)  # the timer retries meanwhile
            assert app.writes.pending == 3
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
        assert not journal.exists() and listed(screen) == ["d3"]
    rows = log_rows(store_path)
    carol = rows[rows["assessor"] == "carol"]
    assert list(zip(carol["docno"], carol["grade"].fillna(-9), strict=True)) == [
        ("d1", 1), ("d1", -9), ("d1", 3)]
    assert carol["retracts"].iat[1] == carol["judgment_id"].iat[0]
    with JudgmentStore.open(store_path) as store:
        live = store.live_adjudications()
    assert list(zip(live["docno"], live["grade"], live["resolves"], strict=True)) == [
        ("d1", 3, ids["d1"][0]), ("d1", 3, ids["d1"][1])]


KILLED = """
import os, signal, sys
from pooltool.tui.adjudicate import make_adjudicate_app
app = make_adjudicate_app(sys.argv[1], "carol", ["1"])
app.writes.submit("adjudication", topic="1", docno="d1", grade=1, adjudicator="carol",
                  resolves=[int(j) for j in sys.argv[2:]], at="2030-01-01T10:00:00Z")
print(app.writes.pending, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.both_engines  # where the journal is
def test_a_killed_adjudication_apps_journal_is_committed_by_the_next_command(
        store_path: str) -> None:
    """carol's adjudication app is killed with her adjudication of d1 in its journal (the
    store was busy); the next export commits it, and the adjudicated qrels give it."""
    ids = disagree(store_path)
    with write_lock_held(store_path):
        child = subprocess.run([sys.executable, "-c", KILLED, str(store_path),
                                *map(str, ids["d1"])], capture_output=True, text=True,
                               timeout=60, env={**os.environ,
                                                "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.returncode == -signal.SIGKILL and child.stdout.strip() == "1", child.stderr
    assert len(journals(journal_base_of(store_path), "carol")) == 1
    exported = CliRunner().invoke(cli, ["--db", str(store_path), "export-qrels",
                                        "--policy", "adjudicated"])
    assert exported.exit_code == 0, exported.output
    assert exported.stderr == ("committed 1 write(s) left by judging or adjudication apps "
                               "that ended\n")
    # d1 adjudicated 1; d3 unresolved: the fallback's grade (the latest, bob's 3)
    assert sorted(exported.stdout.splitlines()) == ["1 0 d1 1", "1 0 d3 3"]
    assert journals(journal_base_of(store_path)) == []
    with JudgmentStore.open(store_path) as store:
        live = store.live_adjudications()
    assert sorted(live["resolves"]) == ids["d1"]
    assert set(live["judged_at"]) == {"2030-01-01T10:00:00Z"}  # the key press's time


async def test_an_adjudication_waits_while_the_server_is_away(
        own_postgresql_server: Server) -> None:
    """The store's PostgreSQL server stops under the adjudication app: carol's grade of
    d1 waits in her journal, the notice says so and the app goes on; once the server is
    back the app connects again, commits it and reads the list again."""
    server = own_postgresql_server
    url = build_store(server.create_database())
    ids = disagree(url)
    app = make_adjudicate_app(url, "carol", ["1"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen) and listed(screen) == ["d1", "d3"]
        server.halt()
        await pilot.press("1")
        await pilot.pause()
        assert app.is_running and app.writes.offline and app.writes.pending == 1
        assert UNREACHABLE_NOTICE in [n.message for n in app._notifications]
        assert listed(screen) == ["d1", "d3"]  # the list stays as last read
        journal = app.writes.journal
        assert journal is not None
        assert [line["kind"] for line in journal_lines(journal)] == ["adjudication"]
        server.start_again()
        deadline = time.monotonic() + BACK_WITHIN_S
        while app.writes.offline or app.writes.pending:
            assert time.monotonic() < deadline, "the app did not connect again"
            await pilot.pause(0.2)
        assert await wait_until(pilot, lambda: listed(screen) == ["d3"])
        assert not journal.exists()
    with JudgmentStore.open(url) as store:
        live = store.live_adjudications()
    assert list(zip(live["docno"], live["grade"], live["resolves"], strict=True)) == [
        ("d1", 1, ids["d1"][0]), ("d1", 1, ids["d1"][1])]
