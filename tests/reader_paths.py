"""Every test of a module on both paths of the run readers: the compiled pass
(:mod:`pooltool.native`, skipped where it is not built) and the Python readers alone
(``POOLTOOL_NATIVE=0``). A module takes it with ``from reader_paths import
reader_path``: a module-scoped autouse fixture (Hypothesis refuses function-scoped
ones), which sets the variable for the module's tests and its subprocesses."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from pooltool.native import run_pass


@pytest.fixture(scope="module", autouse=True, params=["native", "python"])
def reader_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """``"native"`` or ``"python"``: the path the module's tests run on."""
    saved = os.environ.pop("POOLTOOL_NATIVE", None)
    if request.param == "python":
        os.environ["POOLTOOL_NATIVE"] = "0"
    try:
        if request.param == "native" and run_pass() is None:
            pytest.skip("pooltool.native is not built (no C compiler at install)")
        yield request.param
    finally:
        os.environ.pop("POOLTOOL_NATIVE", None)
        if saved is not None:
            os.environ["POOLTOOL_NATIVE"] = saved
