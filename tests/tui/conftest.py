"""Fixtures for the judging UI tests (the store itself is built in ``judge_fixtures``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from judge_fixtures import build_store
from textual.widgets import Input

from pooltool.tui.app import JudgeApp, make_app


@pytest.fixture
def store_path(new_store: str) -> str:
    """The fixture store, on the engine of the rule in tests/conftest.py (a SQLite file's
    path, a PostgreSQL URL):
    topic 1 pools d1 d2 d3 d4 d5 (d5 without text), topic 2 pools d1 d2 d6."""
    return build_store(new_store)


@pytest.fixture
def app_factory(store_path: str) -> Callable[..., JudgeApp]:
    """Build judging apps on the fixture store (``make_app`` with the store path bound)."""
    def factory(assessor: str = "alice", topics: tuple[str, ...] = ("1",),
                **options: object) -> JudgeApp:
        return make_app(store_path, assessor, list(topics), **options)  # type: ignore[arg-type]
    return factory


@pytest.fixture(autouse=True)
def no_settle_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the app's settle step (a full garbage collection, then ``gc.freeze``: about
    key latency in a long session, see :meth:`JudgeApp.settle`) out of these short
    apps: in the test process, whose heap holds every test module, each full pass cost
    about 0.3 s, twice per app, more than the rest of most tests."""
    monkeypatch.setattr("pooltool.tui.app.SETTLE_S", 3600.0)


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep a focused Input's cursor shown: a blink tick between frames would make
    snapshots differ from run to run (as harlequin's functional tests do)."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
