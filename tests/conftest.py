"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """The team's real data folder, ``../shared/data`` next to the repository.

    Tests using it are skipped (not failed) when the folder is absent, as in a
    user's clone of the repository.
    """
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data not present (a user's clone)")
    return SHARED_DATA
