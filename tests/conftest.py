"""Shared pytest fixtures."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import postgresql_server as postgresql_server_module
import pytest
from hypothesis import settings

from pooltool import demo
from pooltool.native import run_pass
from pooltool.store import JudgmentStore

# No per-example time limit for hypothesis: its default 200 ms deadline failed
# tests on a loaded machine (an example took 278 ms once, 135 ms when rerun). A
# test that fails by timing is a defect; speed is measured in bench/.
settings.register_profile("pooltool", deadline=None)
settings.load_profile("pooltool")

# The tests start many Python processes (xdist workers, the CLI in subprocesses, servers'
# watchdogs); where PYTHONDONTWRITEBYTECODE is set (as in our development shells) each compiled
# pooltool's and the test modules' sources again: about 0.3 s of CPU per process. Their
# bytecode is cached outside the checkout instead (the variable's usual intent is a
# checkout without __pycache__ folders).
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    sys.pycache_prefix = os.environ.setdefault(
        "PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "pooltool-test-pycache"))
    sys.dont_write_bytecode = False

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject.toml's addopts): one worker more than the CPUs this process
    may use. Many tests wait rather than compute (a PostgreSQL server, the CLI in a
    subprocess, a Textual pilot's pauses, a browser), and a third worker on 2 cores fills
    those waits: the README's command took 3 min 38 s with 3 workers against 4 min 20 s
    with 2 (2026-12-05, one fresh clone, back to back; 3 min 42 s against 3 min 53 s on
    the development checkout)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cpus or 1) + 1


@pytest.fixture(autouse=True)
def no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables are as wide as ``COLUMNS`` says (pooltool.report.table_width): without this,
    a test's expected table depended on the shell or worker that ran the tests (with
    ``COLUMNS=80`` exported, the recall and status tables split into parts and two tests
    failed). A test that wants a width sets it itself."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The team's real data folder, ``../shared/data`` next to the repository.

    Tests using it are skipped (not failed) when the folder is absent, as in a
    user's clone of the repository.
    """
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data not present (a user's clone)")
    return SHARED_DATA


ENGINES = ["sqlite", "postgresql"]
"""The engines a store can live on."""

EVERY_TEST_ON_BOTH = os.environ.get("POOLTOOL_TEST_ENGINES") == "both"
"""``POOLTOOL_TEST_ENGINES=both`` runs every engine test on both engines (the old, fuller
and slower run; CI's second pass), ``sqlite_only`` tests excepted."""

# Which engine a test's store is on. A test takes its store through the ``engine``
# fixture (directly, or through memory_store, store_address, new_store, demo_store, the
# judging UI's store_path) or through module_store. The rule:
#
# * SQLite by default. The judging UI, the CLI's reports and the measures sit above the
#   store's API, which is one for both engines: a flow checked on SQLite is checked.
# * Both engines for the tests marked ``both_engines`` (a test, or a module's
#   ``pytestmark``): those whose outcome rests on what the engines do differently, so on
#   code or database behaviour of PostgreSQL's own: claims, the write lock and a busy
#   store, other connections' writes and read snapshots, change notifications (LISTEN),
#   reconnects, roles and row-level security, migrations, copy between engines,
#   streaming reads, the judging journal (kept beside a SQLite file, under
#   $XDG_STATE_HOME for a PostgreSQL store), and the store's own SQL on its tables
#   (rewritten for PostgreSQL by pooltool.store.postgresql: the store tests).
# * SQLite only, even under POOLTOOL_TEST_ENGINES=both, for those marked ``sqlite_only``
#   (about SQLite itself: WAL, files, its locks, old SQLite stores).
#
# Tests that need PostgreSQL alone take postgresql_store_url / postgresql_empty_url.

# one template per xdist worker: on a server given to the tests (CI's), the workers
# share the server, and one's drop-and-create must not pull another's template away
_TEMPLATE = "pooltool_template" + (f"_{os.environ['PYTEST_XDIST_WORKER']}"
                                   if os.environ.get("PYTEST_XDIST_WORKER") else "")
_NOTES: list[str] = []

RUN_SLOW = os.environ.get("POOLTOOL_TEST_SLOW") == "1"
"""``POOLTOOL_TEST_SLOW=1`` also runs the tests marked ``slow`` (CI does): long
reproductions on real data (reference implementations transcribed line by line,
simulations over thousands of draws) and extra variants of a check whose first
variant runs anyway. The README's command leaves them out to stay within minutes."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only: the test is about SQLite itself (WAL, files, locks, old "
        "SQLite stores): it runs on the SQLite engine only")
    config.addinivalue_line(
        "markers", "slow: a long reproduction on real data or an extra variant: run with "
        "POOLTOOL_TEST_SLOW=1 (CI does), left out of the README's command")
    config.addinivalue_line(
        "markers", "both_engines: the test checks what differs between the engines (see "
        "tests/conftest.py): its store is on SQLite, then on PostgreSQL")


def engines_of(definition: pytest.Function | pytest.Item) -> list[str]:
    """The engines a test's store is on, by the rule above."""
    if definition.get_closest_marker("sqlite_only"):
        return ["sqlite"]
    if EVERY_TEST_ON_BOTH or definition.get_closest_marker("both_engines"):
        return ENGINES
    return ["sqlite"]


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The ``engine`` fixture's and ``module_store``'s values, by :func:`engines_of`."""
    engines = engines_of(metafunc.definition)
    if "engine" in metafunc.fixturenames:
        metafunc.parametrize("engine", engines)
    if "module_store" in metafunc.fixturenames:
        metafunc.parametrize("module_store", engines, indirect=True, scope="module")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave the ``slow`` tests out unless ``POOLTOOL_TEST_SLOW=1`` (see :data:`RUN_SLOW`)."""
    if RUN_SLOW:
        return
    skip = pytest.mark.skip(reason="slow: a long reproduction or an extra variant; "
                                   "POOLTOOL_TEST_SLOW=1 runs it (CI does)")
    slow = [item for item in items if item.get_closest_marker("slow")]
    for item in slow:
        item.add_marker(skip)
    if slow:
        _NOTES.append(f"{len(slow)} slow tests (long reproductions on real data, extra "
                      "variants) were left out; POOLTOOL_TEST_SLOW=1 runs them, as CI does.")


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> str:
    """The engine of the test's store (given by :func:`pytest_generate_tests`)."""
    return str(request.param)


class PostgresqlDatabases:
    """The test server's databases, handed out fast: a store database is a copy of the
    template (an empty store) made once and, after a test, emptied back to the template's
    rows (its tables truncated with triggers off) for the next test, instead of being
    dropped and copied again. A database that is not a plain store after its test (its
    tables or schema changed) is dropped."""

    def __init__(self, server: postgresql_server_module.Server) -> None:
        self.server = server
        self.free: list[str] = []
        with _connect(server.url(_TEMPLATE)) as conn:
            self.tables = _table_names(conn)
            self.seed = {table: _rows(conn, table) for table in self.tables}
            self.identities = conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = 'public' AND is_identity = 'YES'").fetchall()

    def store(self) -> str:
        """The URL of a database holding an empty store."""
        return self.free.pop() if self.free else self.server.create_database(template=_TEMPLATE)

    def empty(self) -> str:
        """The URL of a new database with no tables."""
        return self.server.create_database()

    def give_back(self, url: str) -> None:
        """Empty ``url``'s store for the next test, or drop the database."""
        try:
            with _connect(url) as conn:
                conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             "WHERE datname = current_database() AND pid <> pg_backend_pid()")
                if _table_names(conn) != self.tables:
                    raise LookupError("not a plain store")
                with conn.transaction():
                    conn.execute("SET LOCAL session_replication_role = replica")
                    conn.execute(f"TRUNCATE {', '.join(self.tables)} RESTART IDENTITY")
                    self._seed(conn)
        except Exception:  # anything amiss: a new database next time
            self.server.drop_database(url)
            return
        self.free.append(url)

    def _seed(self, conn: Any) -> None:
        for table, (columns, rows) in self.seed.items():
            if rows:
                marks = ", ".join(["%s"] * len(columns))
                conn.cursor().executemany(
                    f"INSERT INTO {table} ({', '.join(columns)}) OVERRIDING SYSTEM VALUE "
                    f"VALUES ({marks})", rows)
        for table, column in self.identities:
            if self.seed[table][1]:
                conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                             f"(SELECT MAX({column}) FROM {table}))")

    def drop_all(self) -> None:
        """Drop the databases kept for reuse; on a server started for these tests, none:
        stopping it removes its folder, every database with it (dropping them one by one
        took 10-40 s at the end of a run)."""
        if self.server.folder is not None:
            return
        for url in self.free:
            self.server.drop_database(url)


def _connect(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)


def _table_names(conn: Any) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
        "AND table_type = 'BASE TABLE' ORDER BY table_name")]


def _rows(conn: Any, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    cursor = conn.execute(f"SELECT * FROM {table}")
    return [c.name for c in cursor.description], cursor.fetchall()


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[postgresql_server_module.Server]:
    """A PostgreSQL server for the tests (:mod:`tests.postgresql_server`), with a
    template database that holds an empty store's schema.

    Skipped when the server binaries are not installed, unless
    ``POOLTOOL_REQUIRE_POSTGRESQL=1`` (CI): then, as whenever the binaries are there
    but the server does not start, the tests fail.
    """
    try:
        server = postgresql_server_module.start()
    except postgresql_server_module.ServerUnavailable as exc:
        if os.environ.get("POOLTOOL_REQUIRE_POSTGRESQL") != "1" and \
                postgresql_server_module.binaries() is None:
            _NOTES.append(f"the PostgreSQL tests were skipped: {exc}")
            pytest.skip(f"no PostgreSQL server: {exc}")
        _NOTES.append(f"the PostgreSQL server did not start: {exc}")
        raise
    template = server.url(_TEMPLATE)
    try:
        server.drop_database(template)
        with _connect(server.admin_url) as conn:
            conn.execute(f"CREATE DATABASE {_TEMPLATE}")
        JudgmentStore.open(template, create=True).close()
        _NOTES.append(f"PostgreSQL tests ran on {server.admin_url.rsplit('/', 1)[0]}")
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgresql_databases(postgresql_server: postgresql_server_module.Server) -> Iterator[PostgresqlDatabases]:
    """The test server's databases (:class:`PostgresqlDatabases`)."""
    databases = PostgresqlDatabases(postgresql_server)
    yield databases
    databases.drop_all()


@pytest.fixture
def own_postgresql_server(postgresql_journals: Path) -> Iterator[postgresql_server_module.Server]:
    """A PostgreSQL server of this test's own, which it may stop and start again
    (:meth:`~tests.postgresql_server.Server.halt`, ``start_again``): the session's server
    is shared by every test. A new server even when the tests run on a given one
    (``POOLTOOL_TEST_POSTGRESQL``, CI's: not this test's to stop). Skipped as
    :func:`postgresql_server` is."""
    try:
        server = postgresql_server_module.start(own=True)
    except postgresql_server_module.ServerUnavailable as exc:
        if os.environ.get("POOLTOOL_REQUIRE_POSTGRESQL") != "1" and \
                postgresql_server_module.binaries() is None:
            pytest.skip(f"no PostgreSQL server: {exc}")
        raise
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgresql_journals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder of this test's judging journals for PostgreSQL stores
    (``$XDG_STATE_HOME``, see :func:`pooltool.store.postgresql_connection.journal_base`): the
    test's own, so that no journal is replayed into a later test's database of the
    same name (databases are reused) nor left in the user's home."""
    state = tmp_path / "xdg-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state / "pooltool"


@pytest.fixture
def postgresql_store_url(postgresql_databases: PostgresqlDatabases,
                         postgresql_journals: Path) -> Iterator[str]:
    """The URL of a PostgreSQL database holding an empty store, for this test alone."""
    url = postgresql_databases.store()
    yield url
    postgresql_databases.give_back(url)


@pytest.fixture
def postgresql_empty_url(postgresql_databases: PostgresqlDatabases,
                         postgresql_journals: Path) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database (no store yet), for this test alone."""
    url = postgresql_databases.empty()
    yield url
    postgresql_databases.give_back(url)


@pytest.fixture
def memory_store(engine: str, request: pytest.FixtureRequest) -> Iterator[JudgmentStore]:
    """A new, empty store (by the engine rule): SQLite in memory, or a PostgreSQL
    database; closed after the test."""
    if engine == "sqlite":
        store = JudgmentStore.memory()
    else:
        store = JudgmentStore.open(request.getfixturevalue("postgresql_store_url"))
    yield store
    store.close()


@pytest.fixture
def store_address(engine: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a new store goes (by the engine rule): a SQLite file path that does not
    exist yet, or the URL of an empty PostgreSQL database (give it to ``--db`` or
    :meth:`JudgmentStore.open`; ``init`` or ``create=True`` makes the store)."""
    if engine == "sqlite":
        return str(tmp_path / "store.db")
    return str(request.getfixturevalue("postgresql_empty_url"))


@pytest.fixture
def new_store(engine: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The address of an empty store (by the engine rule): a SQLite file, or a
    PostgreSQL database's URL (open it with :meth:`JudgmentStore.open`, or give it to
    ``--db``: it needs no ``init``)."""
    if engine == "sqlite":
        path = tmp_path / "store.db"
        JudgmentStore.open(path, create=True).close()
        return str(path)
    return str(request.getfixturevalue("postgresql_store_url"))


@pytest.fixture(scope="module")
def module_store(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of an empty store that a module's tests share (as :func:`new_store`,
    for costly real-data stores a module builds once; its engine by :func:`engines_of`)."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("store") / "store.db"
        JudgmentStore.open(path, create=True).close()
        yield str(path)
        return
    databases: PostgresqlDatabases = request.getfixturevalue("postgresql_databases")
    url = databases.store()
    yield url
    databases.give_back(url)


@pytest.fixture
def demo_store(new_store: str) -> str:
    """The demo store (``pooltool demo``'s content, pooled at its depth), by the engine
    rule: :func:`pooltool.demo.build_demo`'s steps on :func:`new_store`."""
    with JudgmentStore.open(new_store) as store:
        demo.fill_demo(store)
    return new_store


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands its notes to the controller (which prints the summary)."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["pooltool_notes"] = list(_NOTES)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """The notes of an xdist worker that finished (see :func:`pytest_sessionfinish`)."""
    for note in getattr(node, "workeroutput", {}).get("pooltool_notes", []):
        if note not in _NOTES:
            _NOTES.append(note)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say plainly when the real-data or the PostgreSQL tests did not run."""
    for note in _NOTES:
        terminalreporter.write_line(f"note: {note}", yellow="ran" not in note)

    if not SHARED_DATA.is_dir():
        terminalreporter.write_line(
            f"note: {SHARED_DATA} is absent, so the tests on real TREC data were skipped; "
            "they run where ../shared/data sits beside the repository.", yellow=True)


@pytest.fixture
def native() -> ModuleType:
    """The compiled run pass (:mod:`pooltool.native`); the test is skipped where it was
    not built (no C compiler at install; CI insists on it: test_native_runpass)."""
    module = run_pass()
    if module is None:
        pytest.skip("pooltool.native is not built (no C compiler at install)")
    return module
