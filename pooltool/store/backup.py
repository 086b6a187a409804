"""Backups of a store (``pooltool store backup``): a new SQLite file holding the store as
it was at one moment, checked against the store before it is given its name.

A plain ``cp`` of a SQLite store is not a backup: while a judging app has it open, the
latest judgments sit in the ``-wal`` file beside it (a test saw 0 of 5 judgments in such
a copy). A SQLite store is backed up with SQLite's online backup API, a PostgreSQL store
by copying its tables (:func:`~pooltool.store.copy.copy_store`); either is read in one
snapshot, so judging may go on meanwhile (what is judged after the backup starts is not
in it). The backup is written under a temporary name beside the target, compared with
the store (:func:`~pooltool.store.copy.compare_stores`: every table, the qrels of every
version under every policy, the log), and renamed only when equal: a backup that was
killed or failed leaves no file at the target.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pooltool.errors import StoreError
from pooltool.store.copy import CopyCheck, compare_stores, copy_store

if TYPE_CHECKING:
    from pooltool.store.store import JudgmentStore


def backup_store(src: JudgmentStore, target: Path) -> CopyCheck:
    """Back ``src`` up into the new SQLite file ``target``, checked.

    :returns: what was checked equal in ``src`` and the backup.
    :raises StoreError: ``target`` exists (a backup never overwrites), or its folder
        cannot be written.
    :raises CopyMismatch: the backup differs from the store (no file is left at
        ``target``).
    """
    from pooltool.store.store import JudgmentStore

    if target.exists():
        raise StoreError(f"{target} exists: a backup goes into a new file (nothing was "
                         "overwritten)")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    began = not src.conn.in_transaction
    if began:
        src.conn.begin_snapshot()
    try:
        written = src.conn.backup_file(partial)
        with JudgmentStore.open(partial, create=True) as copy:
            check = compare_stores(src, copy) if written else copy_store(src, copy)
        os.replace(partial, target)
    except OSError as exc:
        raise StoreError(f"cannot write the backup {target}: {exc.strerror or exc}") from exc
    finally:
        if began and src.conn.in_transaction:
            src.conn.rollback()
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
    return check


__all__ = ["backup_store"]
