"""Claims on shared topics: renewed while a document stays on screen, refused at 0
minutes, given up on every way out of the judging screen, and explained when others
hold every document left (issue 23, item 7). Time moves by an injected clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner
from judge_fixtures import AppFactory, Clock, wait_until, write_lock_held

from pooltool.cli import cli
from pooltool.errors import InvalidArgument
from pooltool.judging.claiming import held_text
from pooltool.judging.session import JudgingSession
from pooltool.store import JudgmentStore
from pooltool.store.claims import Claim, claim_minutes
from pooltool.store.journal import WriteQueue
from pooltool.tui import app as app_module
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.topic_picker import TopicPickerScreen

pytestmark = pytest.mark.both_engines  # claims: the write lock, the store's SQL on each engine

SIZE = (110, 30)


@pytest.fixture
def other(store_path: str) -> Iterator[JudgmentStore]:
    """A second connection to the store: another assessor's app."""
    store = JudgmentStore.open(store_path)
    yield store
    store.close()


def claims(store: JudgmentStore) -> list[tuple[str, str, str]]:
    rows = store.query("SELECT docno, assessor, expires_at FROM claims ORDER BY docno")
    return [tuple(row) for row in rows.values.tolist()]


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def test_a_claim_is_renewed_while_its_document_stays_on_screen(
        store_path: str, other: JudgmentStore) -> None:
    """alice reads d1 for 5.5 minutes: her session renews the claim once a third of its
    5 minutes has passed, so bob, opening the topic then, is shown d2, not d1."""
    store = JudgmentStore.open(store_path)
    clock = Clock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    store.claim_clock = other.claim_clock = clock
    alice = JudgingSession(WriteQueue(store), "1", "alice")
    assert alice.docno == "d1"
    assert claims(other) == [("d1", "alice", "2026-03-01T09:05:00.000+00:00")]
    clock.advance(1.5)
    assert alice.renew_claim() == "kept"  # not due before 5/3 minutes
    clock.advance(0.5)
    assert alice.renew_claim() == "renewed"
    assert claims(other) == [("d1", "alice", "2026-03-01T09:07:00.000+00:00")]
    clock.advance(3.5)  # 5.5 minutes after she opened d1
    bob = JudgingSession(WriteQueue(other), "1", "bob")
    assert bob.docno == "d2"
    clock.advance(2)  # alice's app died at 9:02: the claim lapsed at 9:07
    assert JudgingSession(WriteQueue(other), "1", "carol").docno == "d1"
    store.close()


def test_claims_last_more_than_0_minutes(store_path: str, other: JudgmentStore) -> None:
    for minutes in ("0", "-1"):
        result = CliRunner().invoke(cli, ["--db", str(store_path), "judge-settings",
                                          "--claim-minutes", minutes])
        assert result.exit_code == 2
        assert result.stderr.splitlines()[0].endswith(" judge-settings [OPTIONS]")
        assert result.stderr.splitlines()[-1] == (
            f"Error: Invalid value for '--claim-minutes': {float(minutes)} is not in the "
            "range x>0.")
    with pytest.raises(InvalidArgument, match="a claim lasts more than 0 minutes, not 0"):
        other.claim("1", "d1", "bob", 0)
    other.set_setting("claim_minutes", 0)  # as an older pooltool let it be set
    assert claim_minutes(other.setting("claim_minutes")) == 5.0
    assert JudgingSession(WriteQueue(other), "1", "bob").claim_minutes == 5.0
    shown = CliRunner().invoke(cli, ["--db", str(store_path), "judge-settings"])
    assert shown.stdout.splitlines()[-1] == "claims last: 5 min"


def test_who_holds_the_documents_left_and_when_they_come_back() -> None:
    at = datetime(2026, 3, 1, 9, 5, tzinfo=UTC)
    local = at.astimezone().strftime("%H:%M")
    later = (at + timedelta(minutes=3)).astimezone()
    assert held_text([]) == ""
    assert held_text([Claim("d2", "bob", at)]) == (
        f"1 document is being judged by bob; it comes back when released or at {local}")
    assert held_text([Claim("d2", "carol", later), Claim("d3", "bob", at),
                      Claim("d4", "carol", later)]) == (
        "3 documents are being judged by carol (2) and bob (1); they come back when "
        f"released or at {local}")


async def test_every_way_out_gives_the_claim_up_and_the_timer_renews_it(
        app_factory: AppFactory, other: JudgmentStore,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "RENEW_EVERY_S", 0.1)
    clock = Clock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    other.claim_clock = clock
    app = app_factory()
    app.store.claim_clock = clock
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, JudgeScreen) and app.screen.session.docno == "d1"
        assert claims(other) == [("d1", "alice", "2026-03-01T09:05:00.000+00:00")]
        clock.advance(2)  # she reads on: the app's timer renews the claim
        assert await wait_until(pilot, lambda: claims(other) == [
            ("d1", "alice", "2026-03-01T09:07:00.000+00:00")])
        await pilot.press("escape")  # back to the topics: given up
        assert isinstance(app.screen, TopicPickerScreen) and claims(other) == []
        await pilot.press("enter")  # topic 1 again: d1 claimed again
        assert isinstance(app.screen, JudgeScreen) and claims(other) == [
            ("d1", "alice", "2026-03-01T09:07:00.000+00:00")]
        await pilot.press("ctrl+c")  # says how to quit, and quits not: she still reads d1
        assert app.is_running and [c[0] for c in claims(other)] == ["d1"]
        await pilot.press("q")
        assert not app.is_running
    assert claims(other) == []
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        assert [c[0] for c in claims(other)] == ["d1"]
        app.exit()  # the app closed otherwise (a signal, the terminal gone)
        await pilot.pause()
    assert claims(other) == []


async def test_an_assessor_is_told_who_holds_every_document_left(
        app_factory: AppFactory, other: JudgmentStore) -> None:
    for docno in ("d1", "d2", "d3", "d4", "d5"):
        assert other.claim("1", docno, "bob", 5)
    back = min(claim.expires_at for claim in other.claims_of_others("1", "alice"))
    app = app_factory()
    async with app.run_test(size=SIZE, notifications=True):
        assert isinstance(app.screen, TopicPickerScreen)  # nothing opened
        assert [n.message for n in app._notifications] == [
            "Nothing to open in topic 1 now: 5 documents are being judged by bob; they come "
            f"back when released or at {back.astimezone().strftime('%H:%M')}."]


def test_a_document_whose_claim_the_busy_store_did_not_take_waits_until_it_holds(
        store_path: str, other: JudgmentStore) -> None:
    """alice grades d1 while another process holds the write lock: the session moves to
    d2, but its claim is not taken, so d2 waits (not shown for grading); the renewal
    leaves it to the retry, and the retry while the lock is held takes nothing. Once
    the lock is released the retry claims it. Had bob claimed the waiting document
    meanwhile (d3), the retry is refused and the next document is taken instead (d4)."""
    store = JudgmentStore.open(store_path)
    store.set_busy_timeout(50)
    writes = WriteQueue(store)
    alice = JudgingSession(writes, "1", "alice")
    with write_lock_held(store_path):
        alice.grade(2, 100)
        assert alice.docno == "d2" and alice.reserving and writes.busy
        assert alice.renew_claim() == "busy"
        assert not alice.confirm_claim() and alice.reserving
    assert [c[:2] for c in claims(other)] == [("d1", "alice")]
    assert alice.confirm_claim() and not alice.reserving
    assert [c[:2] for c in claims(other)] == [("d1", "alice"), ("d2", "alice")]
    assert writes.pending == 1 and writes.busy  # d1's grade: not retried yet
    with write_lock_held(store_path):
        alice.move(1)  # d3: waits for its claim
        assert alice.docno == "d3" and alice.reserving
    assert other.claim("1", "d3", "bob", 5)  # bob's app took it meanwhile
    assert alice.confirm_claim()
    assert alice.docno == "d4" and not alice.reserving
    assert writes.flush() and not writes.busy
    assert [c[:2] for c in claims(other)] == [
        ("d1", "alice"), ("d2", "alice"), ("d3", "bob"), ("d4", "alice")]
    store.close()
