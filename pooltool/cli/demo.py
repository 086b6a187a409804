"""The demo command: a store built from the bundled collection, and what to do next."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import click
from click.core import ParameterSource

from pooltool.cli.group import cli, db_path
from pooltool.judging.queue import pool_status
from pooltool.report import emit
from pooltool.store import JudgmentStore


@cli.command()
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.pass_context
def demo(ctx: click.Context, folder: Path | None) -> None:
    """Build a demo store from the bundled collection, pool it, and show what to do next.

    FOLDER receives pooltool.db (default: a new temporary folder). With --db on
    the command line the demo is built there instead: a SQLite file (an earlier
    demo store is replaced, any other file refused) or a PostgreSQL database
    without a store (POOLTOOL_DB is not used: the demo never builds into your
    campaign's store). Works offline.

    \b
    Example:
      pooltool demo ./demo-store
      pooltool --db postgresql://me@localhost/demo demo
    """
    from pooltool.demo import DEMO_DEPTH, DEMO_VERSION, build_demo, build_demo_at

    if ctx.find_root().get_parameter_source("db") is not ParameterSource.COMMANDLINE:
        result = build_demo(folder or Path(tempfile.mkdtemp(prefix="pooltool-demo-")))
    elif folder is not None:
        raise click.UsageError("give FOLDER or --db, not both: the demo builds one store")
    else:
        result = build_demo_at(db_path(ctx))
    with JudgmentStore.open(result.store_path) as store:
        emit(pool_status(store), "table",
             title=f"demo pool (depth {DEMO_DEPTH}) against qrels {DEMO_VERSION!r}")
    db, runs, me = result.store_path, result.files / "runs", _invoked_as()
    click.echo(
        f"\nDemo store: {db}\nNext:\n"
        f"  {me} --db {db} judge --assessor you      # grade the unjudged pooled documents\n"
        f"  {me} --db {db} recall {runs}/*.run --version {DEMO_VERSION} -k 5,10,50\n"
        f"  {me} --db {db} export-qrels -o qrels.txt\n"
        f"  {me} --db {db} bias -k 10 --depth {DEMO_DEPTH}"
    )


def _invoked_as() -> str:
    """How to call pooltool again as this process was called: ``pooltool`` when that
    name on PATH is this program, else the path typed (``.venv/bin/pooltool``), else
    ``PYTHON -m pooltool``."""
    typed = Path(sys.argv[0])
    on_path = shutil.which("pooltool")
    if on_path is not None and Path(on_path).resolve() == typed.resolve():
        return "pooltool"
    if typed.name == "pooltool":
        return str(typed)
    return f"{sys.executable} -m pooltool"
