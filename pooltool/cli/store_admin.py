"""Commands about a store as a whole: ``store copy`` moves a campaign between engines,
``store backup`` makes a checked backup, ``store check`` looks for damage."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from pooltool.cli.group import (
    cli,
    db_path,
    open_store_at,
    say_if_store_busy,
    store_address,
    warn,
)

if TYPE_CHECKING:
    from pooltool.store.copy import CopyCheck


def _address(_ctx: click.Context, param: click.Parameter, value: str) -> str | Path:
    try:
        return store_address(value)
    except click.BadParameter as exc:
        raise click.BadParameter(exc.message, param=param) from exc


def _optional_address(ctx: click.Context, param: click.Parameter,
                      value: str | None) -> str | Path | None:
    return None if value is None else _address(ctx, param, value)


_CHECKED = {"database": "database check", "run": "runs", "retraction": "retractions",
            "pool": "pooled documents", "version": "qrels versions"}


@cli.group("store")
def store_group() -> None:
    """Whole stores: copy one to another engine or file, back one up, check one.

    \b
    Example:
      pooltool store copy covid.db postgresql://me@dbhost:5432/covid
      pooltool --db covid.db store backup backups/covid-2026-12-01.db
      pooltool --db covid.db store check
    """


@store_group.command("copy")
@click.argument("source", metavar="SRC", callback=_address)
@click.argument("target", metavar="DST", callback=_address)
@click.option("--verify-only", is_flag=True,
              help="Copy nothing: compare SRC and DST as the check after a copy does "
                   "(for a copy whose check was cut short, or two backups).")
def store_copy(source: str | Path, target: str | Path, verify_only: bool) -> None:
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
    from pooltool.store.copy import compare_stores, copy_store

    if _same_store(source, target):
        raise click.BadParameter("SRC and DST are the same store", param_hint="DST")
    if verify_only:
        with open_store_at(source) as src, open_store_at(target) as dst:
            _print_check(compare_stores(src, dst), "SRC and DST")
        return
    say_if_store_busy(target)
    with open_store_at(source) as src, JudgmentStore.open(target, create=True) as dst:
        warn(f"copying {src.address} to {dst.address}, then checking the copy ...")
        check = copy_store(src, dst)
        shown = f"{src.address} ({src.engine}) -> {dst.address} ({dst.engine})"
    copied = sum(digest.rows for digest in check.tables)
    warn(f"copied {shown}: {len(check.tables)} tables, {copied:,} rows, every id kept")
    _print_check(check, "SRC and DST")
    if not isinstance(target, Path):
        warn(f"roles are not copied: grant them on DST with 'pooltool --db {dst.address} "
             "init --roles apply --assessor LOGIN ...' (see docs/shared-store.md)")


def _same_store(source: str | Path, target: str | Path) -> bool:
    if isinstance(source, Path) and isinstance(target, Path):
        return source.resolve() == target.resolve()
    return source == target


def _print_check(check: CopyCheck, where: str) -> None:
    click.echo(f"checked, equal in {where} (rows, sha256 of the rows in order):")
    width = max(len(d.what) for d in [*check.tables, *check.qrels, check.log])
    for digest in [*check.tables, *check.qrels, check.log]:
        click.echo(f"  {digest.what:<{width}}  {digest.rows:>10,}  {digest.sha256}")


@store_group.command("backup")
@click.argument("target", metavar="DST", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def store_backup(ctx: click.Context, target: Path) -> None:
    """Back up the store (--db) into DST, a new SQLite file, and check the backup.

    The backup holds the store as it was when the backup began, judging apps
    still open included (a SQLite store: SQLite's online backup API, which takes
    the judgments that wait in the -wal file; a PostgreSQL store: its tables
    copied). It is written beside DST under a temporary name, compared with the
    store (every table, the qrels of every version under every policy, the
    log) and only then named DST; DST must not exist. A plain 'cp' of a store
    a judging app has open is not a backup: it misses the -wal file's judgments.

    \b
    Example:
      pooltool --db covid.db store backup backups/covid-2026-12-01.db
      pooltool --db postgresql://me@dbhost/covid store backup covid-archive.db
    """
    from pooltool.store.backup import backup_store

    with open_store_at(db_path(ctx)) as store:
        check = backup_store(store, target)
        warn(f"backed up {store.address} to {target}: {len(check.tables)} tables, "
             f"{sum(d.rows for d in check.tables):,} rows")
    _print_check(check, "the store and the backup")


@store_group.command("check")
@click.argument("address", metavar="[STORE]", required=False, callback=_optional_address)
@click.pass_context
def store_check(ctx: click.Context, address: str | Path | None) -> None:
    """Check a store for damage: the database's own checks, every run's entries against
    their sha256, and the rules of the judgment log and the pools.

    STORE is the store to check (default: --db). Found: each problem on a line
    of its own (kind: what), exit status 1. Whole: what was checked, exit 0.
    Read in one snapshot, so judging may go on meanwhile.

    \b
    Checked (kind: what):
      database    SQLite's integrity_check and foreign_key_check
      run         each run's entries decode, match their sha256 and line count
      retraction  each names a judgment of its own pair and assessor, once
      pool        each pooled document's round is its pool's; depth pools' hits
      version     each qrels version ends inside the judgment log

    \b
    Example:
      pooltool --db covid.db store check
      pooltool store check covid-copy.db
    """
    from pooltool.errors import StoreDamaged
    from pooltool.store.integrity import check_store

    chosen = address if address is not None else db_path(ctx)
    try:
        store = open_store_at(chosen)
    except StoreDamaged as exc:
        click.echo(f"database: {exc.__cause__ or exc}")
        raise click.ClickException(f"{chosen}: the file is too damaged to open; restore it "
                                   "from a backup") from exc
    with store:
        check = check_store(store)
        shown = store.address
    looked = ", ".join(f"{count:,} {_CHECKED[kind]}" for kind, count in check.looked_at.items())
    for finding in check.findings:
        click.echo(f"{finding.kind}: {finding.detail}")
    if check.findings:
        raise click.ClickException(f"{shown}: {len(check.findings)} problem(s) found "
                                   f"(checked {looked})")
    click.echo(f"{shown}: no problem found (checked {looked})")


@store_group.command("upgrade")
@click.pass_context
def store_upgrade(ctx: click.Context) -> None:
    """Bring the store's schema (--db) up to this pooltool's, keeping every row.

    Each migration the store lacks is applied in one transaction. Commands that
    only read never upgrade a store; commands that write upgrade a SQLite store
    by themselves, while a PostgreSQL store, shared by assessors who may run an
    older pooltool, is upgraded only by this command, run by its owner: older
    pooltools refuse the store afterwards, saying which pooltool made it.

    \b
    Example:
      pooltool --db postgresql://owner@dbhost/covid store upgrade
    """
    from pooltool.store.migrations import pooltool_version

    with open_store_at(db_path(ctx), upgrade=True) as store:
        if not store.upgraded:
            click.echo(f"{store.address}: the schema is this pooltool's ({pooltool_version()}) "
                       "already; nothing to do")
            return
        click.echo(f"{store.address}: applied {', '.join(store.upgraded)}")
