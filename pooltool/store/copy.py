"""Copy a whole store into a new one, on either engine, and check the copy.

:func:`copy_store` moves a campaign between engines (SQLite to PostgreSQL and
back, or SQLite to SQLite): every row of every table, every id kept
(``judgment_id``, ``run_id``, ``pool_id``, ``round_id``, ...), run blobs byte for
byte. The tables come from the schema itself (not a list kept by hand), copied in
foreign-key order, each streamed in primary-key order, all in one transaction on
the destination: a failure leaves it as it was. The source is read in one
snapshot (a read transaction), so writes made to it meanwhile are not half copied.

Two details of the schema:

* ``pool_rounds_record_runs`` (a trigger on both engines) records each pooling
  round's runs in ``pool_round_runs`` when a round is inserted, from the runs live
  *now*; a copied round would record today's runs, not those that built it. A
  table that triggers filled while earlier tables were copied is therefore
  emptied before it is copied itself, so it ends equal to the source's.
* On PostgreSQL the ids are identity columns: after the copy each one's sequence
  is set past the largest copied id (``setval``), so new rows continue the ids.
  SQLite does this by itself (``max(rowid) + 1``, ``sqlite_sequence``).

:func:`compare_stores` then checks the copy against the source's snapshot: per
table the row count and a sha256 over its rows in primary-key order (each row as
its Python literal: integers as integers, floats by ``repr``, text, bytes, so
``1``, ``1.0`` and ``'1'`` differ); the qrels of every version (and of the log
now) under every export policy (:data:`~pooltool.store.policy.POLICIES`:
``assessor:NAME`` for each assessor, ``prefer:`` over all of them), whose sha256
is that of the file ``export-qrels`` writes; and the judgment log as
:meth:`~pooltool.store.judgments.JudgmentLog.judgment_log` reads it. The first
difference raises :class:`CopyMismatch` naming what differs and the first
differing key.

The schema's bookkeeping (``_sqlite_migrations``, ``pooltool_migrations``) is not
copied: the destination records its own when it is created.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from pooltool.errors import StoreError
from pooltool.records import QRELS_COLUMNS
from pooltool.store.engine import Engine, Table
from pooltool.store.migrations import WRITTEN_BY
from pooltool.store.policy import apply_policy

if TYPE_CHECKING:
    import pandas as pd

    from pooltool.store.store import JudgmentStore

BOOKKEEPING_TABLES = frozenset({"_sqlite_migrations", "pooltool_migrations"})
"""Tables of the schema's own history, not of the campaign: never copied."""

BATCH_ROWS = 10_000
"""Rows fetched from a source at a time (:meth:`~pooltool.store.engine.Engine.stream`)."""

_PEOPLE_POLICIES = ("latest", "majority", "max", "latest:all", "majority:all", "max:all",
                    "adjudicated")


class CopyMismatch(StoreError):
    """The copy differs from its source (the message names the table or qrels, and
    the first differing key)."""


@dataclass(frozen=True)
class Digest:
    """What was checked equal on both sides: a table, one qrels, or the log.

    :ivar what: e.g. ``table judgments``, ``qrels official latest``.
    :ivar rows: rows on each side.
    :ivar sha256: hex sha256 over the normalised rows, in order.
    """

    what: str
    rows: int
    sha256: str


@dataclass(frozen=True)
class CopyCheck:
    """The checks :func:`compare_stores` made, all equal on both sides.

    :ivar tables: one per table, in copy (foreign-key) order.
    :ivar qrels: one per (version, policy); version ``(log now)`` is the whole log.
    :ivar log: the judgment log (every row, retractions included).
    """

    tables: list[Digest]
    qrels: list[Digest]
    log: Digest


def copy_store(src: JudgmentStore, dst: JudgmentStore) -> CopyCheck:
    """Copy every row of ``src`` into ``dst`` (a new or empty store, either engine) in
    one transaction, keeping every id, then check the copy (:func:`compare_stores`).

    :returns: what was checked equal.
    :raises StoreError: ``dst`` already holds rows (nothing is written), or the two
        stores' schemas differ (different pooltool versions).
    :raises CopyMismatch: the copy (committed) differs from the source: the
        message names the table or qrels and the first differing key.
    :raises StoreWriteFailed: ``dst`` cannot be written; nothing was copied.
    """
    order = copy_order(src, dst)
    with snapshot(src):
        with dst.writing("copied") as conn:
            _refuse_rows(dst, order)
            for table in order:
                _copy_table(src, dst, conn, table)
            dst.conn.after_copy(schema_tables(dst).values())
        try:
            return compare_stores(src, dst)
        except CopyMismatch as exc:
            raise CopyMismatch(f"the copy in {dst.address} differs from {src.address}, "
                               f"do not use it: {exc}") from exc


def compare_stores(src: JudgmentStore, dst: JudgmentStore) -> CopyCheck:
    """Check that ``dst`` holds exactly what ``src`` holds (each read in one snapshot):
    every table's rows, the qrels of every version under every export policy, and
    the judgment log (see the module docstring).

    :returns: what was checked, with row counts and digests.
    :raises CopyMismatch: at the first difference.
    :raises StoreError: the schemas differ.
    """
    order = copy_order(src, dst)
    with snapshot(src), snapshot(dst):
        tables = [_compare_table(src, dst, table) for table in order]
        qrels = _compare_qrels(src, dst)
        log = _compare(
            "judgment log", _frame_rows(src.judgment_log()), _frame_rows(dst.judgment_log()),
            lambda row: f"judgment_id {row[0]}")
    return CopyCheck(tables, qrels, log)


# -- the schema ---------------------------------------------------------------------------

def schema_tables(store: JudgmentStore) -> dict[str, Table]:
    """The store's tables (bookkeeping left out), read from its schema, by name."""
    return {t.name: t for t in store.conn.tables() if t.name not in BOOKKEEPING_TABLES}


def copy_order(src: JudgmentStore, dst: JudgmentStore) -> list[Table]:
    """The tables of ``src`` in foreign-key order (a table after those it references),
    with their columns as ``src`` has them.

    :raises StoreError: ``dst`` lacks a table or column of ``src``, or has more
        (the stores are of different pooltool versions), or the foreign keys of
        different tables form a cycle.
    """
    ours, theirs = schema_tables(src), schema_tables(dst)
    for name in sorted(ours.keys() | theirs.keys()):
        if name not in ours or name not in theirs or \
                set(ours[name].columns) != set(theirs[name].columns):
            raise StoreError(
                f"{src.address} and {dst.address} have different schemas (table {name}): "
                "copy between stores of the same pooltool version")
    graph = TopologicalSorter({name: sorted(ours[name].references & ours.keys())
                               for name in sorted(ours)})
    try:
        names = list(graph.static_order())
    except CycleError as exc:
        raise StoreError(f"the schema's foreign keys form a cycle: {exc.args[1]}") from exc
    return [ours[name] for name in names]


# -- copying ------------------------------------------------------------------------------

@contextmanager
def snapshot(store: JudgmentStore) -> Iterator[None]:
    """Read ``store`` in one transaction (one snapshot of it) until the block ends;
    inside an open transaction, that one."""
    if store.conn.in_transaction:
        yield
        return
    store.conn.begin_snapshot()
    try:
        yield
    finally:
        store.conn.rollback()


def _select(table: Table) -> str:
    columns = ", ".join(f'"{c}"' for c in table.columns)
    return f'SELECT {columns} FROM "{table.name}" ORDER BY ' + ", ".join(
        f'"{c}"' for c in table.key)


def _rows(store: JudgmentStore, table: Table) -> Iterator[tuple[Any, ...]]:
    """Every row of ``table`` in key order, streamed."""
    yield from store.conn.stream(_select(table), BATCH_ROWS)


def _refuse_rows(dst: JudgmentStore, tables: list[Table]) -> None:
    # a new store's one row is the record of the pooltool that made its schema
    new_store_rows = {"settings": f"WHERE key <> '{WRITTEN_BY}' "}
    filled = [t.name for t in tables if dst.conn.execute(
        f'SELECT 1 FROM "{t.name}" {new_store_rows.get(t.name, "")}LIMIT 1').fetchone()
        is not None]
    if filled:
        raise StoreError(
            f"{dst.address} already holds rows (in {', '.join(filled[:5])}"
            f"{', ...' if len(filled) > 5 else ''}): 'store copy' writes only into a new or "
            "empty store and overwrites nothing; nothing was copied")


def _copy_table(src: JudgmentStore, dst: JudgmentStore, conn: Engine,
                table: Table) -> None:
    """Copy one table; rows a trigger put there while earlier tables were copied
    (``pool_round_runs``) are removed first, so that the table ends as in ``src``."""
    if conn.execute(f'SELECT 1 FROM "{table.name}" LIMIT 1').fetchone() is not None:
        conn.execute(f'DELETE FROM "{table.name}"')
    conn.copy_rows(table.name, table.columns, _rows(src, table))


# -- checking -----------------------------------------------------------------------------

def _compare_table(src: JudgmentStore, dst: JudgmentStore, table: Table) -> Digest:
    at = [table.columns.index(c) for c in table.key]

    def key(row: Sequence[Any]) -> str:
        return ", ".join(f"{table.columns[i]}={row[i]!r}" for i in at)

    return _compare(f"table {table.name}", _rows(src, table), _rows(dst, table), key)


def _compare_qrels(src: JudgmentStore, dst: JudgmentStore) -> list[Digest]:
    """The qrels of the log now and of every version, under every policy, on both sides."""
    checks = []
    for version in [None, *src.versions()["name"]]:
        until = None if version is None else src.version_point(version)
        live = src.live_judgments(until), dst.live_judgments(until)
        machines = src.machines(), dst.machines()
        # each side's own adjudications: without them 'adjudicated' is its fallback policy,
        # and a copy that lost them would pass
        settled = src.adjudication_ids(), dst.adjudication_ids()
        for policy in export_policies(live[0]):
            ours, theirs = (_qrels_lines(apply_policy(rows, policy, kinds, ids))
                            for rows, kinds, ids in zip(live, machines, settled, strict=True))
            what = f"qrels {version or '(log now)'} {policy}"
            if ours != theirs:
                raise CopyMismatch(f"{what}: SRC and DST differ at {_first_difference(ours, theirs)}")
            checks.append(Digest(what, len(ours), hashlib.sha256(
                "".join(ours).encode("utf-8")).hexdigest()))
    return checks


def _qrels_lines(qrels: pd.DataFrame) -> list[str]:
    """The qrels as ``export-qrels`` writes them (so a qrels digest is the sha256 of
    that file)."""
    columns = (qrels[c].tolist() for c in QRELS_COLUMNS)
    return [f"{topic} {iteration} {docno} {grade}\n"
            for topic, iteration, docno, grade in zip(*columns, strict=True)]


def _first_difference(ours: list[str], theirs: list[str]) -> str:
    for a, b in zip_longest(ours, theirs):
        if a != b:
            topic, _, docno, *_ = (a or b or "").split()
            side = " (in DST only)" if a is None else " (in SRC only)" if b is None else ""
            return f"topic {topic!r} docno {docno!r}{side}"
    return "nowhere"


def export_policies(live: pd.DataFrame) -> list[str]:
    """Every export policy that applies to these live judgments: the six by kind,
    ``assessor:NAME`` for each assessor, and ``prefer:`` over all of them."""
    assessors = sorted(set(live["assessor"]))
    return [*_PEOPLE_POLICIES, *(f"assessor:{name}" for name in assessors),
            *([f"prefer:{','.join(assessors)}"] if assessors else [])]


def _compare(what: str, ours: Iterator[tuple[Any, ...]], theirs: Iterator[tuple[Any, ...]],
             key: Callable[[Sequence[Any]], str]) -> Digest:
    """Walk both row streams in step, hashing the source's; raise at the first difference."""
    digest = hashlib.sha256()
    count = 0
    with closing(ours), closing(theirs):  # type: ignore[type-var]  # generators close
        for a, b in zip_longest(ours, theirs):
            if a is None or b is None:
                row, side = (b, "DST") if a is None else (a, "SRC")
                raise CopyMismatch(f"{what}: the row {key(row)} is in {side} only "
                                   f"(after {count} equal rows)")
            encoded = _encoded_row(a)
            if encoded != _encoded_row(b):
                where = key(a) if key(a) == key(b) else f"{key(a)} (SRC) / {key(b)} (DST)"
                raise CopyMismatch(f"{what}: SRC and DST differ at {where}")
            digest.update(encoded)
            count += 1
    return Digest(what, count, digest.hexdigest())


def _encoded_row(row: tuple[Any, ...]) -> bytes:
    """A row as typed bytes: its Python literal (``repr``: integers as integers, floats
    by ``repr``, text quoted, bytes as a bytes literal, NULL as ``None``), one line.
    Unlike ``==``, it tells ``1`` from ``1.0`` and ``'1'``."""
    return repr(row).encode("utf-8") + b"\n"


def _frame_rows(frame: pd.DataFrame) -> Iterator[tuple[Any, ...]]:
    """A frame's rows as plain Python values. pandas reads a column of integers that
    holds a NULL as floats on one engine and objects on the other, and a NULL in a
    text column as NaN: missing values become ``None`` and whole floats integers, so
    the two compare equal."""
    columns = [frame[c].tolist() if frame[c].dtype.kind in "iu" else
               [_plain(value) for value in frame[c].tolist()] for c in frame.columns]
    yield from zip(*columns, strict=True)


def _plain(value: Any) -> Any:
    import pandas as pd  # here, not at the top: the store opens without pandas

    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


__all__ = ["CopyCheck", "CopyMismatch", "Digest", "Table", "compare_stores", "copy_order",
           "copy_store", "export_policies", "schema_tables", "snapshot"]
