"""sqlite-utils, imported without pandas.

sqlite-utils imports pandas when it can, only to give a ``pandas.Timestamp`` the column
type TEXT when it creates a table from Python values; the store never does (its
migrations and reads are SQL), yet that import is about 0.5 CPU-s of every process
that opens a store (``init``, ``add-runs``, ``pool``). So sqlite-utils is imported here
with pandas marked absent, unless pandas is loaded already (then it is the same as a
plain import). ``tests/test_store_imports.py`` checks that opening, importing and
pooling load no pandas.
"""

from __future__ import annotations

import importlib
import sys

if "sqlite_utils" not in sys.modules and "pandas" not in sys.modules:
    sys.modules["pandas"] = None  # type: ignore[assignment]  # import_module("pandas") raises ImportError
    try:
        importlib.import_module("sqlite_utils")
    finally:
        del sys.modules["pandas"]

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

__all__ = ["Database", "Migrations"]
