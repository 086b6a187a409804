"""``init``, ``add-runs`` and ``pool --depth`` as the CLI runs them load no pandas (each
is a process of its own in a campaign's chain, and pandas is half a CPU-second of
start-up), nor :mod:`pyarrow.compute` (about 45 ms), nor sqlite-utils on a current
store; ``init`` loads neither pyarrow nor numpy; and the tables they print from columns
are what the API's DataFrames give."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from pooltool.cli.runs import added_columns
from pooltool.pooling import pool_runs
from pooltool.report import FORMATS, emit
from pooltool.store import JudgmentStore

DEMO = Path(__file__).resolve().parents[1] / "demo"
# a tag CSV must quote, and a file of two tags (two runs from one file)
ODD_RUN = ('1 Q0 argparse 1 2.0 t,"q\n1 Q0 getopt 2 2.0 t,"q\n1 Q0 zz 3 1.0 t,"q\n'
           "2 Q0 argparse 1 1.0 t,\"q\n1 Q0 getopt 1 5 second\n3 Q0 only 1 1 second\n")


def _runs(tmp_path: Path) -> list[Path]:
    (tmp_path / "odd.run").write_text(ODD_RUN)
    return sorted((DEMO / "runs").glob("*.run")) + [tmp_path / "odd.run"]


def test_init_add_runs_and_pool_never_import_pandas(tmp_path: Path) -> None:
    """Every output format, a file of two tags, a tag given twice to --runs, and a
    second round into a pool that holds pairs already: pandas, pyarrow's pandas shim,
    sqlite-utils' pandas and :mod:`pyarrow.compute` (its kernels are called by name:
    :mod:`pooltool.arrow.kernels`) stay unloaded."""
    files = [str(path) for path in _runs(tmp_path)]
    script = f"""
import contextlib, io, sys
from pooltool.cli import cli
db = {str(tmp_path / "s.db")!r}
calls = [["init"]]
calls += [["add-runs", {files[0]!r}, "--format", fmt] for fmt in ("table",)]
calls += [["add-runs", "--replace", *{files!r}, "--format", fmt] for fmt in {FORMATS!r}]
calls += [["pool", "--depth", "2", "--runs", "bm25", "--runs", "bm25", "--runs", "second"]]
calls += [["pool", "--depth", str(depth), "--format", fmt]
          for depth, fmt in zip(range(3, 8), {FORMATS!r}, strict=True)]
for call in calls:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        cli.main(["--db", db, *call], standalone_mode=False)
    assert out.getvalue() or call == ["init"], call
import sqlite_utils.db
print(sorted(name for name in ("pandas", "pyarrow.pandas_compat", "pyarrow.compute")
             if name in sys.modules), sqlite_utils.db.pd)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] None", done.stderr


def test_init_loads_neither_arrow_nor_numpy(tmp_path: Path) -> None:
    """``init`` makes a store without loading pyarrow, numpy or pandas (the store's
    modules import them where entries are read or written), and the store it makes
    takes runs and pools in the same process afterwards."""
    script = f"""
import contextlib, io, sys
from pooltool.cli import cli
db = {str(tmp_path / "s.db")!r}
cli.main(["--db", db, "init"], standalone_mode=False)
print(sorted(name for name in ("numpy", "pyarrow", "pandas") if name in sys.modules))
with contextlib.redirect_stdout(io.StringIO()) as out:
    cli.main(["--db", db, "add-runs", {str(_runs(tmp_path)[0])!r}, "--format", "csv"],
             standalone_mode=False)
    cli.main(["--db", db, "pool", "--depth", "2", "--format", "csv"], standalone_mode=False)
print(out.getvalue().splitlines()[1].split(",")[0])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "bm25"], done.stderr


def test_a_current_store_opens_without_sqlite_utils(tmp_path: Path) -> None:
    """``add-runs`` and ``pool`` on a store whose schema is current never import
    sqlite-utils (it migrates only), and its connection has the settings sqlite-utils'
    ``Database`` gave it (recursive triggers on, foreign keys on)."""
    JudgmentStore.open(tmp_path / "s.db", create=True).close()
    script = f"""
import contextlib, io, sys
from pooltool.cli import cli
from pooltool.store import JudgmentStore
db = {str(tmp_path / "s.db")!r}
for call in (["add-runs", {str(_runs(tmp_path)[0])!r}], ["pool", "--depth", "3"]):
    with contextlib.redirect_stdout(io.StringIO()):
        cli.main(["--db", db, *call], standalone_mode=False)
store = JudgmentStore.open(db)
print(sorted(name for name in sys.modules if name.startswith("sqlite_utils")),
      [store.conn.execute(f"PRAGMA {{name}}").fetchone()[0]
       for name in ("recursive_triggers", "foreign_keys")])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] [1, 1]", done.stderr


@pytest.mark.parametrize("fmt", FORMATS)
def test_added_runs_are_written_as_the_frame_is(tmp_path: Path, fmt: str) -> None:
    """``add-runs`` prints :func:`added_columns` of :meth:`add_run_records`: the same
    text as :meth:`add_runs`' DataFrame, which holds the same rows."""
    files = _runs(tmp_path)
    frame = JudgmentStore.open(tmp_path / "a.db", create=True).add_runs(files)
    records = JudgmentStore.open(tmp_path / "b.db", create=True).add_run_records(files)
    assert frame.to_dict(orient="records") == records
    assert [row["run_tag"] for row in records] == ["bm25", "qld", "tfidf", "titlematch", 't,"q',
                                                  "second"]
    assert records[-2:] == [{"run_tag": 't,"q', "source_path": str(files[-1]), "lines": 4,
                             "topics": 2},
                            {"run_tag": "second", "source_path": str(files[-1]), "lines": 2,
                             "topics": 2}]
    from_frame, from_columns = io.StringIO(), io.StringIO()
    emit(frame, fmt, stream=from_frame)
    emit(added_columns(records), fmt, stream=from_columns)
    assert from_columns.getvalue() == from_frame.getvalue()


def _top_pairs(store: JudgmentStore, tag: str, depth: int) -> set[tuple[str, str]]:
    entries = store.run_frame(tag)
    top = entries[entries["trec_rank"] <= depth]
    return set(zip(top["topic"], top["docno"], strict=True))


@pytest.mark.parametrize("fmt", FORMATS)
def test_contributions_count_and_print_as_the_frame(tmp_path: Path, fmt: str) -> None:
    """pooled, unique and new per run against sets of each run's top pairs (two rounds,
    the second into a pool holding pairs; a tag asked for twice gives two rows), and
    the columns print as the DataFrame does."""
    store = JudgmentStore.open(tmp_path / "s.db", create=True)
    store.add_runs(_runs(tmp_path))
    pooled_before: set[tuple[str, str]] = set()
    for depth, tags in ((2, ["bm25", "second", "bm25"]), (4, None)):
        result = pool_runs(store, depth, tags)
        asked = tags or store.run_tags()
        tops = {tag: _top_pairs(store, tag, depth) for tag in asked}
        expected = pd.DataFrame({
            "run_tag": asked,
            "pooled": [len(tops[tag]) for tag in asked],
            "unique": [len(tops[tag] - set().union(*(tops[t] for t in tops if t != tag)))
                       for tag in asked],
            "new": [len(tops[tag] - pooled_before) for tag in asked]})
        pd.testing.assert_frame_equal(result.contributions, expected)
        assert result.docs_added == len(set().union(*tops.values()) - pooled_before)
        pooled_before |= set().union(*tops.values())
        assert result.pool_size == len(pooled_before)
        from_frame, from_columns = io.StringIO(), io.StringIO()
        emit(result.contributions, fmt, stream=from_frame, title="t")
        emit(result.contribution_columns, fmt, stream=from_columns, title="t")
        assert from_columns.getvalue() == from_frame.getvalue()
