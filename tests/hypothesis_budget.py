"""How many examples a property test draws: its full count where the slow tests run
(``POOLTOOL_TEST_SLOW=1``, CI), a quarter of it (at least 20) in the README's command,
which runs before every commit. The properties are the same; CI searches wider."""

from __future__ import annotations

import os

FULL = os.environ.get("POOLTOOL_TEST_SLOW") == "1"


def examples(full: int) -> int:
    """``full`` under ``POOLTOOL_TEST_SLOW=1``, else ``max(20, full // 4)``."""
    return full if FULL else max(20, full // 4)
