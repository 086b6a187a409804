"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture
def memory_store() -> Iterator[JudgmentStore]:
    """A new, empty store in memory, closed after the test."""
    store = JudgmentStore.memory()
    yield store
    store.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say plainly when the real-data tests did not run."""
    if not SHARED_DATA.is_dir():
        terminalreporter.write_line(
            f"note: {SHARED_DATA} is absent, so the tests on real TREC data were skipped; "
            "they run where ../shared/data sits beside the repository.", yellow=True)
