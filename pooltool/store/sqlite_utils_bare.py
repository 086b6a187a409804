"""sqlite-utils, imported without pandas and numpy.

sqlite-utils imports pandas and numpy when it can, only to give their types (a
``pandas.Timestamp``, ``numpy.int64``, ...) a column type when it creates a table from
Python values; the store never does (its migrations and reads are SQL, the values it
records are Python strings), yet pandas is about 0.5 CPU-s of start-up and numpy 0.1,
and ``init`` needs neither. So sqlite-utils is imported here with those of the two not
loaded yet marked absent (a module loaded already is used as a plain import would).
Only migrations import this module (:func:`pooltool.store.migrations.sqlite_migrations`);
``tests/test_store_imports.py`` checks what ``init``, ``add-runs`` and ``pool`` load.
"""

from __future__ import annotations

import importlib
import sys

if "sqlite_utils" not in sys.modules:
    absent = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for name in absent:
        sys.modules[name] = None  # type: ignore[assignment]  # import_module(name) raises ImportError
    try:
        importlib.import_module("sqlite_utils")
    finally:
        for name in absent:
            del sys.modules[name]

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

__all__ = ["Database", "Migrations"]
