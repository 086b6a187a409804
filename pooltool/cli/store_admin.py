"""Commands about a store as a whole: ``store copy`` moves a campaign between engines."""

from __future__ import annotations

from pathlib import Path

import click

from pooltool.cli.group import cli, open_store_at, say_if_store_busy, store_address, warn


def _address(_ctx: click.Context, param: click.Parameter, value: str) -> str | Path:
    try:
        return store_address(value)
    except click.BadParameter as exc:
        raise click.BadParameter(exc.message, param=param) from exc


@cli.group("store")
def store_group() -> None:
    """Whole stores: copy one to another engine or file.

    \b
    Example:
      pooltool store copy covid.db postgresql://me@dbhost:5432/covid
    """


@store_group.command("copy")
@click.argument("source", metavar="SRC", callback=_address)
@click.argument("target", metavar="DST", callback=_address)
def store_copy(source: str | Path, target: str | Path) -> None:
    """Copy the whole store SRC into DST, a new or empty store, and check the copy.

    SRC and DST are stores as --db takes them: a SQLite file, or a PostgreSQL
    database as postgresql://USER@HOST:PORT/DB (password from PGPASSWORD or
    ~/.pgpass). Either engine to either: every table, every id (judgments,
    runs, pools, rounds, samples), run entries byte for byte, in one
    transaction on DST. DST is created when missing; a store with any rows is
    refused (nothing is overwritten). SRC is read as one snapshot, so judging
    may go on meanwhile; what is judged after the copy starts stays in SRC only.

    Then the copy is checked against SRC, and the checks are printed: each
    table's rows and sha256 (rows in key order), the qrels of every version
    and of the log now under every export policy, and the judgment log. A
    difference is an error naming the table or qrels and the first differing
    key (exit status 1).

    \b
    Example:
      pooltool store copy covid.db postgresql://me@dbhost:5432/covid
      pooltool store copy postgresql://me@dbhost:5432/covid covid-archive.db
    """
    from pooltool.store import JudgmentStore
    from pooltool.store.copy import copy_store

    if _same_store(source, target):
        raise click.BadParameter("SRC and DST are the same store", param_hint="DST")
    say_if_store_busy(target)
    with open_store_at(source) as src, JudgmentStore.open(target, create=True) as dst:
        warn(f"copying {src.address} to {dst.address}, then checking the copy ...")
        check = copy_store(src, dst)
        shown = f"{src.address} ({src.engine}) -> {dst.address} ({dst.engine})"
    copied = sum(digest.rows for digest in check.tables)
    warn(f"copied {shown}: {len(check.tables)} tables, {copied:,} rows, every id kept")
    click.echo("checked, equal in SRC and DST (rows, sha256 of the rows in order):")
    width = max(len(d.what) for d in [*check.tables, *check.qrels, check.log])
    for digest in [*check.tables, *check.qrels, check.log]:
        click.echo(f"  {digest.what:<{width}}  {digest.rows:>10,}  {digest.sha256}")
    if not isinstance(target, Path):
        warn(f"roles are not copied: grant them on DST with 'pooltool --db {dst.address} "
             "init --roles apply --assessor LOGIN ...' (see README, Shared store)")


def _same_store(source: str | Path, target: str | Path) -> bool:
    if isinstance(source, Path) and isinstance(target, Path):
        return source.resolve() == target.resolve()
    return source == target
