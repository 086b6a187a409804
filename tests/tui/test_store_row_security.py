"""Row-level security on a PostgreSQL store: for every table an assessor can write, the
assessor's login (real login roles on the test server) tries to write under another
assessor's name, to change or delete another assessor's rows, and to write what the
judging app never writes (a claim expiring in 2099, a document no strategy chose);
each is refused, and the other assessor's rows are as they were."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_store_roles import Logins, logins  # noqa: F401  (a fixture)

from pooltool.errors import StoreError, StoreWriteFailed
from pooltool.judging.adaptive import create_adaptive_pool
from pooltool.store import JudgmentStore
from pooltool.store.engine import Engine
from pooltool.store.roles import ASSESSOR_ROWS, ASSESSOR_WRITES

REFUSED = "row-level security policy"
BOB = "bob"  # another assessor: his rows are written by the administrator


@pytest.fixture
def bobs(logins: Logins) -> Iterator[Logins]:  # noqa: F811
    """The store with a row of bob's in each workspace table, a judgment and a live claim
    of his, and an adaptive pool whose budget (2) topic 1 has used up."""
    with JudgmentStore.open(logins.admin) as store:
        store.record_judgment("1", "d1", 2, BOB)
        create_adaptive_pool(store, "live", "mtf", budget=2)
        with store.writing() as conn:
            conn.execute("INSERT INTO note_drafts VALUES (?, '1', 'd2', 'bob''s note', 't')", [BOB])
            conn.execute("INSERT INTO scan_terms VALUES (?, '1', '[\"flow\"]', 't')", [BOB])
            conn.execute("INSERT INTO ui_positions VALUES (?, '1', 'd2', 't')", [BOB])
            conn.execute("INSERT INTO skip_marks VALUES (?, '1', 'd4', 't')", [BOB])
        assert store.claim("1", "d3", BOB, 30.0)
        store.add_choice("live", "1", "d4", [("runA", 4)])
    yield logins


def _refused(store: JudgmentStore, sql: str, params: list[object]) -> None:
    with pytest.raises(StoreWriteFailed, match=REFUSED), store.writing() as conn:
        conn.execute(sql, params)


def _unchanged(store: JudgmentStore, sql: str, params: list[object]) -> None:
    """Another's row is out of reach: the statement changes no row (row-level security
    hides it from UPDATE and DELETE)."""
    with store.writing() as conn:
        assert conn.execute(sql, params).rowcount == 0


def _bobs_rows(conn: Engine) -> list[tuple[object, ...]]:
    return [tuple(row) for table in ("note_drafts", "scan_terms", "ui_positions", "skip_marks",
                                     "claims")
            for row in conn.execute(f"SELECT * FROM {table} WHERE assessor = 'bob'")]


def test_every_table_an_assessor_writes_has_row_rules() -> None:
    with_rows = {table for table in ASSESSOR_WRITES if table != "ui_write_tokens"}
    assert set(ASSESSOR_ROWS) == with_rows


def test_an_assessor_may_not_retract_anothers_judgment(bobs: Logins) -> None:
    with JudgmentStore.open(bobs.assessor) as store:
        bobs_judgment = int(store.judgment_log()["judgment_id"][0])
        with pytest.raises(StoreWriteFailed, match=REFUSED):
            store.retract(bobs_judgment, bobs.assessor_login)
        _refused(store, "INSERT INTO judgments(topic, docno, grade, assessor, judged_at, origin, "
                 "retracts) VALUES ('1', 'd1', NULL, ?, 't', 'tui', ?)",
                 [bobs.assessor_login, bobs_judgment])
        own = store.record_judgment("1", "d2", 1, bobs.assessor_login)
        store.retract(own, bobs.assessor_login)
        assert store.qrels()[["docno", "grade"]].values.tolist() == [["d1", 2]]


@pytest.mark.parametrize("sql", [
    "INSERT INTO note_drafts VALUES ('bob', '1', 'd3', 'my note in his name', 't')",
    "INSERT INTO scan_terms VALUES ('bob', '2', '[]', 't')",
    "INSERT INTO ui_positions VALUES ('bob', '2', 'd2', 't')",
    "INSERT INTO skip_marks VALUES ('bob', '1', 'd5', 't')",
    "INSERT INTO claims VALUES ('2', 'd6', 'bob', 't', '2099-01-01T00:00:00.000+00:00')",
])
def test_an_assessor_may_not_write_under_anothers_name(bobs: Logins, sql: str) -> None:
    with JudgmentStore.open(bobs.assessor) as store:
        _refused(store, sql, [])


@pytest.mark.parametrize("sql", [
    "UPDATE note_drafts SET note = 'changed' WHERE assessor = 'bob'",
    "DELETE FROM note_drafts WHERE assessor = 'bob'",
    "UPDATE scan_terms SET terms = '[]' WHERE assessor = 'bob'",
    "UPDATE ui_positions SET docno = 'd1' WHERE assessor = 'bob'",
    "DELETE FROM claims WHERE assessor = 'bob'",
    "UPDATE claims SET expires_at = 'z' WHERE assessor = 'bob'",
])
def test_an_assessor_may_not_change_anothers_rows(bobs: Logins, sql: str) -> None:
    with JudgmentStore.open(bobs.store) as owner:
        before = _bobs_rows(owner.conn)
    with JudgmentStore.open(bobs.assessor) as store:
        _unchanged(store, sql, [])
        assert _bobs_rows(store.conn) == before and len(before) == 5


def test_an_assessor_claims_for_a_day_at_most_and_takes_only_lapsed_claims(
        bobs: Logins) -> None:
    alice = bobs.assessor_login
    with JudgmentStore.open(bobs.assessor) as store:
        _refused(store, "INSERT INTO claims VALUES ('2', 'd6', ?, 't', "
                 "'2099-01-01T00:00:00.000+00:00')", [alice])
        assert not store.claim("1", "d3", alice, 5.0)  # bob's claim has not lapsed
        assert store.claim("2", "d6", alice, 5.0)
        _refused(store, "UPDATE claims SET expires_at = '2099-01-01T00:00:00.000+00:00' "
                 "WHERE assessor = ?", [alice])
    with JudgmentStore.open(bobs.admin) as admin, admin.writing() as conn:
        conn.execute("UPDATE claims SET expires_at = '2000-01-01T00:00:00.000+00:00' "
                     "WHERE assessor = 'bob'")
    with JudgmentStore.open(bobs.assessor) as store:
        assert store.claim("1", "d3", alice, 5.0)  # lapsed: anyone's
        assert store.claimed_by_others("1", BOB) == {"d3"}


def test_an_assessor_adds_to_an_adaptive_pool_only_what_the_app_writes(bobs: Logins) -> None:
    with JudgmentStore.open(bobs.assessor) as store:
        live, main = store.pool_id("live"), store.pool_id("main")
        live_round = int(store.query("SELECT round_id FROM pool_rounds WHERE pool_id = ?",
                                     [live])["round_id"][0])
        run_b = store.run_id("runB")
        # what the app writes: the next choice on topic 2 (budget 2, one chosen so far)
        chosen = set(store.pool_docs("live", topics=["2"])["docno"])
        rank, docno = next((r, d) for r, d in enumerate(["d2", "d6", "d1"], 1) if d not in chosen)
        assert len(chosen) == 1 and store.add_choice("live", "2", docno, [("runA", rank)])
        # topic 1 has its budget of 2: nothing more, evil or not
        _refused(store, "INSERT INTO pool_docs VALUES (?, '1', 'evil-doc', ?)", [live, live_round])
        # not into a depth pool, nor into another pool's round
        _refused(store, "INSERT INTO pool_docs VALUES (?, '2', 'evil-doc', ?)", [main, live_round])
        main_round = int(store.query("SELECT MIN(round_id) AS r FROM pool_rounds WHERE "
                                     "pool_id = ?", [main])["r"][0])
        _refused(store, "INSERT INTO pool_docs VALUES (?, '2', 'evil-doc', ?)", [live, main_round])
        # hits only for a document of the pool, by a run that built it
        _refused(store, "INSERT INTO pool_hits VALUES (?, '2', 'evil-doc', ?, 1, ?)",
                 [live, run_b, live_round])
        _unchanged(store, "UPDATE pool_rounds SET docs_added = 99 WHERE pool_id = ?", [main])
        assert "evil-doc" not in set(store.pool_docs("live")["docno"])


def test_an_assessor_adjudicates_only_under_their_own_name(bobs: Logins) -> None:
    """An adjudication's link rows may name only the login's own adjudicated judgment;
    the login may not read the accounts' password hashes."""
    with JudgmentStore.open(bobs.assessor) as store:
        bobs_judgment = int(store.judgment_log()["judgment_id"][0])
        _refused(store, "INSERT INTO adjudications(judgment_id, resolves) VALUES (?, ?)",
                 [bobs_judgment, bobs_judgment])
        own = store.record_adjudication("1", "d1", 1, bobs.assessor_login, [bobs_judgment])
        assert store.live_adjudications()["judgment_id"].tolist() == [own]
        with pytest.raises(StoreError, match="permission denied"):
            store.query("SELECT * FROM accounts")
