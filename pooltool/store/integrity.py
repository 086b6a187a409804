"""Checking a whole store (``pooltool store check``): the database's own checks, every
run's entries against their sha256, and the rules the judgment log and the pools keep.

What is checked, each a :class:`Finding` kind when broken:

* ``database``: the engine's own checks (:meth:`~pooltool.store.engine.Engine.integrity_problems`:
  SQLite's ``PRAGMA integrity_check`` and ``foreign_key_check``; a PostgreSQL server
  checks its pages and enforces foreign keys itself);
* ``run``: each run's blob (``run_columns``) decodes, matches its sha256 and holds as
  many lines as ``runs.lines`` says;
* ``retraction``: each retraction names a judgment (not a retraction) of its own topic
  and docno, made by the same assessor, retracted by it alone;
* ``pool``: each pooled document's round belongs to its pool, and a document of a depth
  pool has the runs' hits that put it there (``pool_hits``);
* ``version``: each qrels version ends inside the log (``last_judgment_id`` at most the
  log's last id).

Read in one snapshot (:meth:`~pooltool.store.engine.Engine.begin_snapshot`), so judging
may go on meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from pooltool.errors import StoreDamaged, StoreError
from pooltool.store import run_columns

if TYPE_CHECKING:
    from pooltool.store.store import JudgmentStore


class Finding(NamedTuple):
    """One broken rule: its kind (see the module's docstring) and what, where."""

    kind: str
    detail: str


class Check(NamedTuple):
    """What :func:`check_store` looked at (counts by kind) and what it found."""

    looked_at: dict[str, int]
    findings: list[Finding]


def check_store(store: JudgmentStore) -> Check:
    """Run every check of the module's docstring on ``store``, in one snapshot.

    :returns: the counts of what was checked and every finding (none: the store is whole).
    """
    looked_at: dict[str, int] = {}
    findings: list[Finding] = []
    checks: list[tuple[str, Callable[[JudgmentStore], tuple[int, Iterator[Finding]]]]] = [
        ("database", _database), ("run", _runs), ("retraction", _retractions),
        ("pool", _pools), ("version", _versions)]
    began = not store.conn.in_transaction
    if began:
        store.conn.begin_snapshot()
    try:
        for kind, check in checks:
            try:
                count, found = check(store)
                looked_at[kind] = count
                findings += list(found)
            except StoreDamaged as exc:  # the rows of this check cannot even be read
                looked_at.setdefault(kind, 0)
                findings.append(Finding(kind, f"cannot be read: {exc.__cause__ or exc}"))
    finally:
        if began:
            store.conn.rollback()
    return Check(looked_at, findings)


def _database(store: JudgmentStore) -> tuple[int, Iterator[Finding]]:
    problems = store.conn.integrity_problems()
    return 1, (Finding("database", problem) for problem in problems)


def _runs(store: JudgmentStore) -> tuple[int, Iterator[Finding]]:
    rows = store.conn.execute(
        "SELECT r.run_id, r.run_tag, r.lines, c.sha256, c.lines, c.entries FROM runs r "
        "LEFT JOIN run_columns c USING (run_id) ORDER BY r.run_id").fetchall()

    def found() -> Iterator[Finding]:
        for run_id, tag, lines, sha256, blob_lines, blob in rows:
            what = f"run {tag!r} (id {run_id})"
            if blob is None:
                yield Finding("run", f"{what} has no stored entries")
                continue
            try:
                entries = run_columns.decode(bytes(blob), str(sha256), what)
            except StoreError as exc:
                yield Finding("run", str(exc))
                continue
            except Exception as exc:  # noqa: BLE001  a blob that matches but does not decode
                yield Finding("run", f"the stored entries of {what} do not decode ({exc})")
                continue
            if not entries.num_rows == int(blob_lines) == int(lines):
                yield Finding("run", f"{what} holds {entries.num_rows} lines, but its records "
                                     f"say {lines} (runs) and {blob_lines} (run_columns)")

    return len(rows), found()


def _retractions(store: JudgmentStore) -> tuple[int, Iterator[Finding]]:
    rows = store.conn.execute(
        "SELECT r.judgment_id, r.topic, r.docno, r.assessor, r.retracts, j.judgment_id, "
        "j.topic, j.docno, j.assessor, j.grade, (SELECT COUNT(*) FROM judgments o "
        "WHERE o.retracts = r.retracts) FROM judgments r LEFT JOIN judgments j "
        "ON j.judgment_id = r.retracts WHERE r.retracts IS NOT NULL "
        "ORDER BY r.judgment_id").fetchall()

    def found() -> Iterator[Finding]:
        for rid, topic, docno, assessor, target, jid, jtopic, jdocno, jassessor, grade, \
                times in rows:
            what = f"retraction {rid} (of judgment {target})"
            if jid is None:
                yield Finding("retraction", f"{what} names no judgment of the log")
            elif grade is None:
                yield Finding("retraction", f"{what} retracts a retraction")
            elif (jtopic, jdocno) != (topic, docno):
                yield Finding("retraction", f"{what} is of topic {topic!r}, docno {docno!r}, "
                                            f"but the judgment of {jtopic!r}, {jdocno!r}")
            elif jassessor != assessor:
                yield Finding("retraction", f"{what} was made by {assessor!r}, the judgment "
                                            f"by {jassessor!r}")
            if int(times) > 1:
                yield Finding("retraction", f"{what}: judgment {target} is retracted "
                                            f"{times} times")

    return len(rows), found()


def _pools(store: JudgmentStore) -> tuple[int, Iterator[Finding]]:
    count = int(store.conn.execute("SELECT COUNT(*) FROM pool_docs").fetchone()[0])
    strays = store.conn.execute(
        "SELECT p.name, d.topic, d.docno, d.round_id FROM pool_docs d JOIN pools p "
        "USING (pool_id) LEFT JOIN pool_rounds r ON r.round_id = d.round_id "
        "AND r.pool_id = d.pool_id WHERE r.round_id IS NULL ORDER BY 1, 2, 3").fetchall()
    unhit = store.conn.execute(
        "SELECT p.name, d.topic, d.docno FROM pool_docs d JOIN pools p USING (pool_id) "
        "WHERE p.strategy = 'depth' AND NOT EXISTS (SELECT 1 FROM pool_hits h WHERE "
        "h.pool_id = d.pool_id AND h.topic = d.topic AND h.docno = d.docno) "
        "ORDER BY 1, 2, 3").fetchall()

    def found() -> Iterator[Finding]:
        for pool, topic, docno, round_id in strays:
            yield Finding("pool", f"pool {pool!r}: topic {topic!r}, docno {docno!r} names "
                                  f"round {round_id}, not a round of the pool")
        for pool, topic, docno in unhit:
            yield Finding("pool", f"pool {pool!r}: topic {topic!r}, docno {docno!r} has no "
                                  "run's hit that pooled it")

    return count, found()


def _versions(store: JudgmentStore) -> tuple[int, Iterator[Finding]]:
    last = int(store.conn.execute("SELECT COALESCE(MAX(judgment_id), 0) FROM judgments")
               .fetchone()[0])
    rows = store.conn.execute("SELECT name, last_judgment_id FROM qrels_versions "
                              "ORDER BY name").fetchall()

    def found() -> Iterator[Finding]:
        for name, point in rows:
            if not 0 <= int(point) <= last:
                yield Finding("version", f"qrels version {name!r} ends at judgment {point}, "
                                         f"outside the log (1 to {last})")

    return len(rows), found()


__all__ = ["Check", "Finding", "check_store"]
