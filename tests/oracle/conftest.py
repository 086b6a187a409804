"""Fixtures for agreement tests on the team's real data (``../shared/data``)."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """``../shared/data`` next to the repository; tests skip (not fail) without it."""
    if not DATA.is_dir():
        pytest.skip("../shared/data not present (a user's clone): no trec_eval outputs to compare")
    return DATA
