"""A pool with planted copies judged through the judging app: one judgment per unit of
copies, the others' grades in the exported qrels as the propagation policy says."""

from __future__ import annotations

import json
from dataclasses import asdict

from click.testing import CliRunner
from judge_fixtures import log_rows, pool_documents, wait_until, write_lock_held

from pooltool.cli import cli
from pooltool.duplicates import DEFAULTS, find_groups
from pooltool.judging.assignment import assign_topics
from pooltool.records import Document
from pooltool.store import JudgmentStore
from pooltool.store.provenance import utc_now
from pooltool.tui.app import make_app
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.write_notices import BUSY_NOTICE

SIZE = (110, 30)
TEXT_A = ("the boundary layer on a flat plate thickens downstream and the flow separates "
          "near the trailing edge where the pressure gradient turns adverse")
TEXT_B = "heat transfer through composite slabs is solved exactly for constant properties"
DOCS = [
    Document("a1", "Plate", TEXT_A),
    Document("a2", "PLATE", TEXT_A.upper() + "!"),           # exact copies of a1
    Document("a3", "plate", TEXT_A.replace(" ", "  ")),
    Document("a4", "Plate.", TEXT_A + "."),
    Document("b1", "Slabs", TEXT_B),
    Document("b2", "Slabs", TEXT_B + " ."),                  # an exact copy of b1
    Document("c1", "Plate", TEXT_A.replace("adverse", "favourable")),  # a near copy of a1
    Document("d1", "Wings", "lift of a wing in a slipstream where no layer is measured"),
]


def planted_store(path: str) -> str:
    pool_documents(path, DOCS)
    with JudgmentStore.open(path) as store:
        store.add_duplicate_finding(find_groups(DOCS), asdict(DEFAULTS), len(DOCS))
    return path


def exported(path: str, *options: str) -> list[list[str]]:
    result = CliRunner().invoke(cli, ["--db", path, "export-qrels", *options])
    assert result.exit_code == 0, result.output
    return sorted(line.split() for line in result.stdout.splitlines())


async def test_a_pool_of_copies_is_judged_once_per_unit(new_store: str) -> None:
    path = planted_store(new_store)
    app = make_app(path, "alice", ["1"])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        assert screen.session.queue == ["a1", "b1", "c1", "d1"]
        assert "3 copies in this pool" in screen.status_text().plain
        await pilot.press("2", "1", "0", "1")
        assert screen.session.done
    assert len(log_rows(path)) == 4  # 4 units of copies, 4 judgments (8 pooled documents)
    own = [["1", "0", d, g] for d, g in (("a1", "2"), ("b1", "1"), ("c1", "0"), ("d1", "1"))]
    copies = [["1", "0", d, g] for d, g in (("a2", "2"), ("a3", "2"), ("a4", "2"), ("b2", "1"))]
    assert exported(path) == sorted(own + copies)              # exact copies by default
    assert exported(path, "--propagate", "none") == own
    assert exported(path, "--propagate", "near") == sorted(own + copies)  # c1 has its own


async def test_a_copy_split_off_is_judged_on_its_own(new_store: str) -> None:
    path = planted_store(new_store)
    app = make_app(path, "alice", ["1"])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        await pilot.press("2", "left", "c")
        assert screen.session.docno == "a2" and screen.session.copies.of("a1") == ["a3", "a4"]
        await pilot.press("0", "left", "left")
        assert screen.session.docno == "a1"
        assert "2 copies in this pool" in screen.status_text().plain
    with JudgmentStore.open(path) as store:
        splits = store.duplicate_splits()
        assert splits[["topic", "docno", "assessor"]].values.tolist() == [["1", "a2", "alice"]]
    grades = {d: g for _, _, d, g in exported(path)}
    assert grades == {"a1": "2", "a2": "0", "a3": "2", "a4": "2"}


async def test_a_split_made_while_the_store_is_busy_waits_in_the_journal(
        new_store: str) -> None:
    """alice grades a1 and splits a2 off while another writer holds the lock: a2 opens
    at once, set apart from a1's copies, both writes wait in her journal, and once the
    lock is released the timer commits them, the split with the time of its key press."""
    path = planted_store(new_store)
    with JudgmentStore.open(path) as store:
        # her topic: no claims, so a2 opens for grading (on a shared topic it would
        # wait for its claim while the lock is held: test_busy_store)
        assign_topics(store, ["alice"], ["1"])
    app = make_app(path, "alice", ["1"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        with write_lock_held(path):
            await pilot.press("2", "left")
            pressed = utc_now()
            await pilot.press("c")
            assert screen.session.docno == "a2" and screen.session.copies.of("a1") == ["a3", "a4"]
            assert app.writes.pending == 2 and BUSY_NOTICE in [
                n.message for n in app._notifications]
            journal = app.writes.journal
            assert journal is not None
            assert [json.loads(line)["kind"] for line in journal.read_text().splitlines()] == [
                "judgment", "split_copy"]
            await pilot.press("0")  # a2 judged on its own, queued behind the split
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
        assert not journal.exists()
    with JudgmentStore.open(path) as store:
        splits = store.duplicate_splits()
    assert splits[["topic", "docno", "assessor"]].values.tolist() == [["1", "a2", "alice"]]
    assert pressed <= splits["split_at"].iat[0] < utc_now()
    grades = {d: g for _, _, d, g in exported(path)}
    assert grades == {"a1": "2", "a2": "0", "a3": "2", "a4": "2"}
