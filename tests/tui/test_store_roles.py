"""Roles on a PostgreSQL store (``pooltool init --roles``): an assessor's login judges
and reads, an administrator's imports and pools; both are refused what their group
lacks, with a clean ``Error:`` line. Real login roles on the test server."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import psycopg
import pytest
from click.testing import CliRunner
from judge_fixtures import RUN, build_store
from postgresql_server import Server

from pooltool.cli import cli
from pooltool.errors import StoreWriteFailed
from pooltool.store import JudgmentStore, workspace
from pooltool.store.journal import BUSY_WAIT_MS, WriteQueue
from pooltool.store.roles import (
    ADMIN_CHANGES,
    ADMINS_READ,
    ASSESSOR_WRITES,
    roles_sql,
    store_tables,
)
from pooltool.tui.app import JudgeApp, make_app
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.widgets.grade_bar import GradeBar

QRELS = "1 0 d1 1\n"
TOPICS = "3\tanother topic\n"


@dataclass
class Logins:
    """A store with the group roles applied, and one login role in each group."""

    store: str  # the URL as the server's superuser (the store's owner)
    admin: str  # the URL as a login role in the administrators' group
    assessor: str  # the URL as a login role in the assessors' group
    admin_group: str
    assessor_group: str
    assessor_login: str  # the assessor's login role: the only name they may judge under


def login_url(url: str, user: str) -> str:
    """``url`` with another user name."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{user}@{rest.split('@', 1)[1]}"


def records(frame: pd.DataFrame, columns: list[str]) -> list[dict[str, object]]:
    """Rows of ``frame``'s ``columns``, a missing value as ``None``."""
    part = frame[columns].astype(object)
    return list(part.where(part.notna(), None).to_dict("records"))


def invoke(db: str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--db", db, *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def logins(postgresql_server: Server, postgresql_empty_url: str,
           tmp_path: Path) -> Iterator[Logins]:
    """The judging fixture store (two pooled topics) on PostgreSQL, with the roles
    applied by ``init --roles apply`` under names of this test's own (roles are the
    whole server's), and a login role in each group; all dropped afterwards."""
    suffix = uuid.uuid4().hex[:8]
    names = [f"pt_admins_{suffix}", f"pt_assessors_{suffix}",
             f"carol_{suffix}", f"alice_{suffix}"]
    with psycopg.connect(postgresql_server.admin_url, autocommit=True) as conn:
        for login in names[2:]:
            conn.execute(f"CREATE ROLE {login} LOGIN")
    build_store(postgresql_empty_url)  # a URL opens as a path does
    code, _, err = invoke(postgresql_empty_url, "init", "--roles", "apply",
                          "--admin-role", names[0], "--assessor-role", names[1],
                          "--admin", names[2], "--assessor", names[3])
    assert (code, err.splitlines()[0]) == (0, f"roles {names[0]} (administrators) and "
                                              f"{names[1]} (assessors) granted on "
                                              f"{postgresql_empty_url}")
    yield Logins(postgresql_empty_url, login_url(postgresql_empty_url, names[2]),
                 login_url(postgresql_empty_url, names[3]), names[0], names[1], names[3])
    with psycopg.connect(postgresql_empty_url, autocommit=True) as conn:
        conn.execute(f"DROP OWNED BY {', '.join(names)}")
    with psycopg.connect(postgresql_server.admin_url, autocommit=True) as conn:
        database = postgresql_empty_url.rsplit("/", 1)[1]
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE datname = %s AND pid <> pg_backend_pid()", [database])
        conn.execute(f"DROP ROLE {', '.join(names)}")


def test_every_table_is_read_by_both_and_written_by_name() -> None:
    sql = roles_sql()
    select, admins = (line for line in sql.splitlines() if line.startswith("GRANT SELECT"))
    shared = [table for table in store_tables() if table not in ADMINS_READ]
    assert all(f" {table}," in select or f" {table} TO" in select for table in shared)
    assert admins == 'GRANT SELECT ON accounts TO "pooltool_admin";'  # password hashes
    assert "live_runs" in select
    assert set(ASSESSOR_WRITES) <= set(store_tables())
    assert set(ADMIN_CHANGES) <= set(store_tables())
    assert "TRUNCATE" not in sql and "GRANT DELETE ON judgments" not in sql
    assert 'GRANT "pooltool_assessor" TO "alice";' in roles_sql(assessors=("alice",))


def test_roles_are_refused_on_a_sqlite_store(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    code, _, err = invoke(db, "init", "--roles", "print")
    assert code == 1
    assert err == (f"Error: {db} is a SQLite store: it has no roles (the file's permissions "
                   "decide who may write it); roles are for a PostgreSQL store "
                   "(--db postgresql://...)\n")
    assert not Path(db).exists()


def test_print_shows_the_sql_without_connecting() -> None:
    code, out, _ = invoke("postgresql://owner@127.0.0.1:1/nowhere", "init", "--roles", "print",
                          "--assessor", "alice")
    # psql stops at the first error (a tester's psql ran on past "no store" and made roles)
    assert code == 0 and out == "\\set ON_ERROR_STOP on\n" + roles_sql(assessors=("alice",))


def test_the_printed_sql_on_a_database_without_a_store_says_to_init_first(
        postgresql_empty_url: str) -> None:
    """A tester ran the printed script before ``init``: each grant failed on a missing
    table. The script's first statement now fails first, saying what to do."""
    with psycopg.connect(postgresql_empty_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.RaiseException,
                           match=r"holds no pooltool store: make it first \(pooltool --db "
                                 r"postgresql://\.\.\. init\)"):
            conn.execute(roles_sql())
    psql = shutil.which("psql")
    if psql is None:
        return
    code, script, _ = invoke(postgresql_empty_url, "init", "--roles", "print",
                             "--admin-role", "pt_never_admin", "--assessor-role",
                             "pt_never_assessor")
    done = subprocess.run([psql, "-X", "-q", postgresql_empty_url], input=script, text=True,
                          capture_output=True, check=False)
    assert (code, done.returncode) == (0, 3)  # psql's code for a script stopped by an error
    assert "holds no pooltool store" in done.stderr and "does not exist" not in done.stderr
    with psycopg.connect(postgresql_empty_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname LIKE "
                            "'pt_never_%'").fetchone() == (0,)


def test_the_administrator_imports_and_pools(logins: Logins, tmp_path: Path) -> None:
    (tmp_path / "c.run").write_text("1 Q0 d9 1 9 C\n")
    (tmp_path / "topics.tsv").write_text(TOPICS)
    (tmp_path / "qrels.txt").write_text(QRELS)
    assert invoke(logins.admin, "add-runs", str(tmp_path / "c.run"))[0] == 0
    code, _, err = invoke(logins.admin, "pool", "--depth", "10")
    assert code == 0 and err == "1 documents added; the pool now holds 9\n"
    assert invoke(logins.admin, "import-qrels", str(tmp_path / "qrels.txt"),
                  "--version", "v1")[0] == 0
    assert invoke(logins.admin, "grades", "set", "0:x:no", "1:r:yes")[0] == 0
    assert invoke(logins.admin, "add-topics", str(tmp_path / "topics.tsv"))[0] == 0


ADMIN_WORK = [
    ["assign", "alice", "bob"],
    ["guidelines", "--grade-definition", "1:on topic"],
    ["judge-settings", "--show-runs"],
    ["assessors", "--set-kind", "bot", "machine"],
    ["qrels", "tag", "start"],
    ["sample", "--name", "s1", "--budget", "2", "--seed", "1"],
    ["pool", "--name", "live", "--strategy", "mtf", "--budget", "3"],
    ["remove-run", "runB", "--force"],
]


def test_the_administrator_does_the_rest_of_a_campaign(logins: Logins) -> None:
    for command in ADMIN_WORK:
        code, _, err = invoke(logins.admin, *command)
        assert (command, code) == (command, 0), err


@pytest.mark.parametrize("command", ADMIN_WORK[:4], ids=lambda c: c[0])
def test_an_assessor_may_not_assign_or_set(logins: Logins, command: list[str]) -> None:
    code, _, err = invoke(logins.assessor, *command)
    assert code == 1 and "this role may not do this (permission denied for table " in err


def test_apply_again_and_a_missing_login(logins: Logins) -> None:
    code, _, err = invoke(logins.store, "init", "--roles", "apply", "--admin-role",
                          logins.admin_group, "--assessor-role", logins.assessor_group)
    assert code == 0
    code, _, err = invoke(logins.store, "init", "--roles", "apply", "--admin-role",
                          logins.admin_group, "--assessor-role", logins.assessor_group,
                          "--assessor", "nobody_at_all")
    assert (code, err) == (1, f"Error: {logins.store}: the roles could not be set (role "
                              '"nobody_at_all" does not exist); nothing was granted\n')
    code, _, err = invoke(logins.assessor, "init", "--roles", "apply")
    assert code == 1 and err.startswith(f"Error: {logins.assessor}: this role may not do this")
    assert err.endswith("; nothing was granted\n")


@pytest.mark.parametrize(("command", "what"), [
    (["add-runs", "c.run"], "imported"),
    (["import-qrels", "qrels.txt", "--version", "v1"], "imported"),
    (["add-topics", "topics.tsv"], "imported"),
    (["grades", "set", "0:x:no", "1:r:yes"], "changed"),
    (["pool", "--depth", "10"], "changed"),
])
def test_an_assessor_may_not_import_pool_or_set(logins: Logins, tmp_path: Path,
                                                command: list[str], what: str) -> None:
    (tmp_path / "c.run").write_text("1 Q0 d9 1 9 C\n")
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "topics.tsv").write_text("3\tanother topic\n")
    args = [str(tmp_path / a) if a.endswith((".run", ".txt", ".tsv")) else a for a in command]
    code, _, err = invoke(logins.assessor, *args)
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"Error: {logins.assessor}: this role may not do this (")
    assert ("permission denied for table " in err  # no grant
            or 'row-level security policy for table "judgments"' in err)  # qrels' assessor
    assert err.endswith(f"); nothing was {what}\n")
    with JudgmentStore.open(logins.store) as store:
        assert store.run_tags() == sorted(set(RUN["run_tag"]))
        assert store.judgment_log().empty


def test_an_assessor_judges_through_the_store(logins: Logins) -> None:
    alice = logins.assessor_login
    with JudgmentStore.open(logins.assessor) as store:
        writes = WriteQueue(store, None)
        graded = writes.submit("judgment", topic="1", docno="d1", grade=1, assessor=alice,
                               note="measured")
        writes.submit("retract", assessor=alice, judgment_id=graded.result)
        steps: list[tuple[str, dict[str, Any]]] = [
            ("skip", {"docno": "d3"}), ("position", {"docno": "d4"}),
            ("note_draft", {"docno": "d4", "note": "maybe"}),
            ("note_draft", {"docno": "d4", "note": None}),
            ("scan_terms", {"terms": ["plate"]}), ("scan_terms", {"terms": ["layer"]})]
        for kind, args in steps:
            writes.submit(kind, assessor=alice, topic="1", **args)
        assert writes.failed == [] and writes.pending == 0
        assert store.claim("1", "d2", alice, 5.0)
        assert store.claim("1", "d2", alice, 5.0)  # renewed: an update
        store.release_claims("1", alice)
        assert workspace.scan_terms(store, alice, "1") == ["layer"]
        assert workspace.last_position(store, alice, "1") == "d4"
    with JudgmentStore.open(logins.store) as store:
        log = store.judgment_log()
        assert records(log, ["docno", "grade", "note"]) == [
            {"docno": "d1", "grade": 1, "note": "measured"},
            {"docno": "d1", "grade": None, "note": None}]


@pytest.mark.parametrize("who", ["admin", "assessor"])
def test_nobody_updates_or_deletes_judgments(logins: Logins, who: str) -> None:
    with JudgmentStore.open(logins.admin) as store:
        store.record_judgment("1", "d1", 1, "carol")
    with JudgmentStore.open(getattr(logins, who)) as store:
        for sql in ("UPDATE judgments SET grade = 0", "DELETE FROM judgments"):
            with pytest.raises(StoreWriteFailed, match="permission denied for table judgments"), \
                    store.writing():
                store.conn.execute(sql)
        assert store.judgment_log()["grade"].tolist() == [1]


def test_an_assessor_runs_the_commands_of_judging(logins: Logins) -> None:
    with JudgmentStore.open(logins.assessor) as store:
        store.record_judgment("1", "d1", 1, logins.assessor_login)
    code, out, _ = invoke(logins.assessor, "status", "--format", "csv")
    assert code == 0 and out.splitlines()[1] == "1,5,1,4,1,0,0.2"
    code, out, _ = invoke(logins.assessor, "export-qrels")
    assert (code, out) == (0, "1 0 d1 1\n")


async def test_an_assessor_judges_in_the_app(logins: Logins) -> None:
    app = make_app(logins.assessor, logins.assessor_login, ["1"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, JudgeScreen)
        first = app.screen.session.docno
        await pilot.press("1")  # relevant (the default scale's key)
        await pilot.press("n", *"kept", "enter")  # a draft on the next document
        await pilot.press("u")  # undo the grade
        await pilot.pause()
        assert app.writes.failed == [] and app.writes.pending == 0
        session = app.screen.session
        second = session.queue[session.next_unjudged() or 0]
    with JudgmentStore.open(logins.store) as store:
        assert second != first
        assert workspace.note_drafts(store, logins.assessor_login, "1") == {second: "kept"}
        log = store.judgment_log()
        assert records(log, ["docno", "grade", "assessor"]) == [
            {"docno": first, "grade": 1, "assessor": logins.assessor_login},
            {"docno": first, "grade": None, "assessor": logins.assessor_login}]
        assert store.judgment_log()["retracts"].tolist()[1] == log["judgment_id"][0]


def test_an_assessor_judges_only_under_their_own_name(logins: Logins) -> None:
    """Row-level security: an assessor's login may not append another's judgment, nor
    add documents to a pool that is not adaptive (found by a fresh tester: both were
    possible with the table grants alone)."""
    with JudgmentStore.open(logins.assessor) as store:
        with pytest.raises(StoreWriteFailed, match="row-level security policy for table "
                                                   '"judgments"'):
            store.record_judgment("1", "d1", 1, "bob")
        with pytest.raises(StoreWriteFailed, match="row-level security policy for table "
                                                   '"pool_docs"'), store.writing() as conn:
            conn.execute("INSERT INTO pool_docs(pool_id, topic, docno, round_id) "
                         "SELECT pool_id, '1', 'fake', 1 FROM pools WHERE name = 'main'")
    with JudgmentStore.open(logins.store) as store:
        assert store.judgment_log().empty
        assert "fake" not in set(store.pool_docs()["docno"])


def test_a_login_without_grants_is_told_to_ask_for_them(postgresql_server: Server,
                                                        postgresql_empty_url: str) -> None:
    """A tester's login with no grants was told the store "is an empty database"
    (information_schema hides tables a login may not read)."""
    login = f"dave_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgresql_server.admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {login} LOGIN")
    try:
        build_store(postgresql_empty_url)
        url = login_url(postgresql_empty_url, login)
        code, _, err = invoke(url, "status")
        assert code == 1
        assert err == (f"Error: {url} is a pooltool store this login may not read "
                       "(permission denied for table pooltool_migrations): its owner grants "
                       f"a role with 'pooltool --db {url} init --roles apply --assessor LOGIN' "
                       "(or --admin LOGIN)\n")
    finally:
        with psycopg.connect(postgresql_server.admin_url, autocommit=True) as conn:
            database = postgresql_empty_url.rsplit("/", 1)[1]
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = %s AND usename = %s", [database, login])
            conn.execute(f"DROP ROLE {login}")


def test_judge_refuses_a_login_judging_under_another_name(logins: Logins) -> None:
    """Row-level security lets an assessor's login judge only under its own name: judge
    says so before the app starts (a tester judged as bob under alice's login, and saw
    each grade flash a notice while the store kept nothing)."""
    alice = logins.assessor_login
    code, out, err = invoke(logins.assessor, "judge", "-a", "bob", "-t", "1")
    assert (code, out, err) == (1, "", (
        f"Error: {logins.assessor}: the login {alice} may record judgments only under its "
        f"own name (the store's row-level security), not as bob: judge with '-a {alice}', "
        "or log in as bob\n"))
    for url, name in ((logins.assessor, alice), (logins.admin, "bob"), (logins.store, "bob")):
        make_app(url, name, ["1"]).store.close()  # her own name; an administrator, the owner: any


def test_judge_refuses_a_login_that_may_not_record_judgments(postgresql_server: Server,
                                                             logins: Logins) -> None:
    """A login that may read the store but is in neither group (read-only grants made by
    hand, past row-level security) is told so before the app starts."""
    dave = f"dave_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgresql_server.admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {dave} LOGIN BYPASSRLS")
    try:
        with psycopg.connect(logins.store, autocommit=True) as conn:
            conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {dave}")
        url = login_url(logins.store, dave)
        code, out, err = invoke(url, "judge", "-a", dave, "-t", "1")
        assert (code, out, err) == (1, "", (
            f"Error: {url}: the login {dave} may not record judgments in this store (it is in "
            "neither of the store's groups): its owner makes it an assessor with 'pooltool "
            f"--db {url} init --roles apply --assessor {dave}'\n"))
    finally:
        with psycopg.connect(logins.store, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE usename = %s", [dave])
            conn.execute(f"DROP OWNED BY {dave}")
        with psycopg.connect(postgresql_server.admin_url, autocommit=True) as conn:
            conn.execute(f"DROP ROLE {dave}")


async def test_a_refused_grade_leaves_the_document_unjudged(logins: Logins) -> None:
    """Whatever let it through (here an app built without make_app's check, as the
    tester's was), a grade the server refuses leaves the screen as the store is: the
    document unjudged, the count, the position, and a notice saying why. (A note drafted
    under another's name is refused too: tests/tui/test_store_row_security.py.)"""
    store = JudgmentStore.open(logins.assessor)
    store.set_busy_timeout(BUSY_WAIT_MS)
    app = JudgeApp(store, "bob", ["1"], "1")  # alice's login, judging as bob
    async with app.run_test(size=(110, 30), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        first = screen.session.docno
        await pilot.press("2")
        await pilot.pause()
        session = screen.session
        assert (session.docno, session.grade_of(first), session.judged) == (first, None, 0)
        assert session.history == []
        assert screen.query_one(GradeBar).grade is None
        total = len(session.queue)
        assert f"you 0 · left {total} of {total}" in str(screen.query_one("#status").render())
        assert [n.message for n in app._notifications][-1] == (
            f"Your grade 2 of {first} was not saved, and the document is unjudged again: "
            f"{logins.assessor}: this role may not do this (new row violates row-level "
            'security policy for table "judgments"); nothing was changed')
        assert app.writes.failed == [] and app.writes.pending == 0
        await pilot.press("u")  # nothing of this session to undo
        await pilot.pause()
        assert [n.message for n in app._notifications][-1] == "Nothing to undo on this topic."
    with JudgmentStore.open(logins.store) as owner:
        assert owner.judgment_log().empty
