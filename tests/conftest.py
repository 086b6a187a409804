"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import postgresql_server as postgresql_server_module
import pytest

from pooltool.store import JudgmentStore

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


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
"""The engines a store can live on; tests using :func:`memory_store` or
:func:`store_address` run once on each."""

_TEMPLATE = "pooltool_template"
_POSTGRESQL_NOTE: list[str] = []


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
            _POSTGRESQL_NOTE.append(f"the PostgreSQL tests were skipped: {exc}")
            pytest.skip(f"no PostgreSQL server: {exc}")
        _POSTGRESQL_NOTE.append(f"the PostgreSQL server did not start: {exc}")
        raise
    template = server.url(_TEMPLATE)
    try:
        server.drop_database(template)
        import psycopg

        with psycopg.connect(server.admin_url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {_TEMPLATE}")
        JudgmentStore.open(template, create=True).close()
        _POSTGRESQL_NOTE.append(f"PostgreSQL tests ran on {server.admin_url.rsplit('/', 1)[0]}")
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgresql_store_url(postgresql_server: postgresql_server_module.Server) -> Iterator[str]:
    """The URL of a new PostgreSQL database holding an empty store, dropped after the test."""
    url = postgresql_server.create_database(template=_TEMPLATE)
    yield url
    postgresql_server.drop_database(url)


@pytest.fixture
def postgresql_empty_url(postgresql_server: postgresql_server_module.Server) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database (no store yet), dropped after the test."""
    url = postgresql_server.create_database()
    yield url
    postgresql_server.drop_database(url)


@pytest.fixture(params=ENGINES)
def memory_store(request: pytest.FixtureRequest) -> Iterator[JudgmentStore]:
    """A new, empty store, once on each engine: SQLite in memory, and a new
    PostgreSQL database; closed after the test."""
    if request.param == "sqlite":
        store = JudgmentStore.memory()
    else:
        store = JudgmentStore.open(request.getfixturevalue("postgresql_store_url"))
    yield store
    store.close()


@pytest.fixture(params=ENGINES)
def store_address(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a new store goes, once on each engine: a SQLite file path that does not
    exist yet, and the URL of an empty PostgreSQL database (give it to ``--db`` or
    :meth:`JudgmentStore.open`; ``init`` or ``create=True`` makes the store)."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return str(request.getfixturevalue("postgresql_empty_url"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say plainly when the real-data or the PostgreSQL tests did not run."""
    for note in _POSTGRESQL_NOTE:
        terminalreporter.write_line(f"note: {note}", yellow="ran" not in note)
    if not SHARED_DATA.is_dir():
        terminalreporter.write_line(
            f"note: {SHARED_DATA} is absent, so the tests on real TREC data were skipped; "
            "they run where ../shared/data sits beside the repository.", yellow=True)
