"""The adjudication flow through the apps: two people judge one topic with overlap in
the judging app, an adjudicator resolves their disagreements in the adjudication
screen, and export-qrels --policy adjudicated gives the resolved grades."""

from __future__ import annotations

import shlex
from pathlib import Path

from click.testing import CliRunner
from judge_fixtures import AppFactory, wait_until
from textual.app import App
from textual.widgets import DataTable, Static

from pooltool.cli import cli
from pooltool.store import JudgmentStore
from pooltool.tui.adjudicate import make_adjudicate_app
from pooltool.tui.screens.adjudicate import AdjudicateScreen

SIZE = (120, 34)


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


async def _judge(app_factory: AppFactory, assessor: str, keys: list[str]) -> None:
    """``assessor`` grades topic 1's queue (d1 d2 d3 d4 d5, docno order) with ``keys``."""
    app = app_factory(assessor)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*keys)


def _screen(app: App[None]) -> AdjudicateScreen:
    screen = app.screen
    assert isinstance(screen, AdjudicateScreen)
    return screen


def _listed(app: App[None]) -> list[str]:
    return [str(d) for d in _screen(app).rows["docno"]]


async def test_two_people_disagree_and_an_adjudicator_resolves_it(
        app_factory: AppFactory, store_path: str) -> None:
    _cli("--db", store_path, "assign", "alice", "bob", "--topic", "1", "--overlap", "1")
    with JudgmentStore.open(store_path) as store:
        assert set(store.assignments()["assessor"]) == {"alice", "bob"}
    await _judge(app_factory, "alice", ["2", "0", "1", "0", "0"])  # d1..d5
    await _judge(app_factory, "bob", ["0", "0", "3", "0", "1"])  # apart on d1, d3, d5

    app = make_adjudicate_app(store_path, "carol", ["1"])
    async with app.run_test(size=SIZE) as pilot:
        assert _listed(app) == ["d1", "d3", "d5"]
        shown = str(app.screen.query_one("#assessor-grades", Static).render())
        assert "alice: 2 highly relevant" in shown and "bob: 0 not relevant" in shown
        await pilot.press("1")  # d1: carol says 1
        assert _listed(app) == ["d3", "d5"]
        await pilot.press("3", "0")  # d3: 3, then d5: 0
        assert _listed(app) == []
        await pilot.press("u")  # d5 reopens
        assert _listed(app) == ["d5"]
        await pilot.press("1")
        await pilot.press("r")  # the resolved ones, listed again with their grades
        table = app.screen.query_one("#disagreements", DataTable)
        assert table.row_count == 3 and _listed(app) == ["d1", "d3", "d5"]

    qrels = _cli("--db", store_path, "export-qrels", "--policy", "adjudicated")
    # adjudicated d1 1, d3 3, d5 1; d2 and d4 agreed (0), the latest of them
    assert sorted(qrels.splitlines()) == ["1 0 d1 1", "1 0 d2 0", "1 0 d3 3", "1 0 d4 0",
                                          "1 0 d5 1"]
    latest = _cli("--db", store_path, "export-qrels", "--policy", "adjudicated:max")
    assert sorted(latest.splitlines()) == sorted(qrels.splitlines())


async def test_a_disagreement_made_while_the_screen_is_open_appears(store_path: str) -> None:
    app = make_adjudicate_app(store_path, "carol")
    async with app.run_test(size=SIZE) as pilot:
        assert _listed(app) == []
        with JudgmentStore.open(store_path) as other:  # another connection: judging elsewhere
            other.record_judgment("2", "d6", 0, "alice")
            other.record_judgment("2", "d6", 2, "bob")
        assert await wait_until(pilot, lambda: _listed(app) == ["d6"])


def test_a_served_tab_runs_its_own_adjudication_app_under_its_name(tmp_path: Path) -> None:
    from pooltool.tui.serve import adjudicate_command_for

    command = adjudicate_command_for(tmp_path / "s.db", ["7"], ("alice", "bob"), 2)("Anne O'Neil")
    args = shlex.split(command)
    assert args[1:3] == ["-m", "pooltool.tui.adjudicate"]
    assert args[-1] == "--adjudicator=Anne O'Neil"
    assert args[args.index("--pair") + 1:args.index("--pair") + 3] == ["alice", "bob"]
    assert args[args.index("--min-distance") + 1] == "2" and "--topic" in args
