"""The append-only judgment log, the qrels derived from it, and named qrels versions.

Every judgment ever made is a row of ``judgments``; nothing is updated or
deleted (SQLite triggers refuse it). A correction is a new row; an undo is a
*retraction* row (``grade`` NULL, ``retracts`` = the id it cancels). The
qrels at any point of the log are derived:

1. *live* judgments: rows with a grade, up to the point, not retracted by a
   row up to the point;
2. a *policy* picks one grade per (topic, docno) from the live rows
   (:mod:`pooltool.store.policy`).

An assessor is a *person* unless marked a *machine* (``import-qrels
--machine``, ``assessor-kind``; :mod:`pooltool.store.judged`): the policies
without ``:all`` leave machines' judgments out, so machine grades reach
qrels only by a policy that asks for them.

A qrels *version* names a point of the log (``last_judgment_id``), so any
version can be exported again exactly, whatever was judged after it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pooltool.errors import InvalidArgument, NoGrades, StoreError, UnknownVersion
from pooltool.formats.source import in_int64
from pooltool.records import QRELS_COLUMNS
from pooltool.store.adjudications import adjudication_ids
from pooltool.store.docno_check import OnMissingDocnos, check_docnos
from pooltool.store.duplicates import DEFAULT_PROPAGATE, DuplicateTables
from pooltool.store.engine import Engine
from pooltool.store.judged import live, record_kind
from pooltool.store.policy import ADJUDICATED, LOG_COLUMNS, apply_policy
from pooltool.store.provenance import file_sha256, utc_now
from pooltool.store.topic_check import OnUnknownTopics, check_topics

if TYPE_CHECKING:
    import pandas as pd


class JudgmentLog(DuplicateTables):
    """Judgment-log methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    # -- writing the log -------------------------------------------------------

    def record_judgment(self, topic: str, docno: str, grade: int, assessor: str, *,
                        ms_spent: int | None = None, ms_active: int | None = None,
                        note: str | None = None,
                        origin: str = "api", iteration: str = "0",
                        judged_at: str | None = None) -> int:
        """Append one judgment and commit it at once.

        :param grade: the integer grade (negative grades are stored as given).
        :param ms_spent: milliseconds the document was on screen (wall time), if known.
        :param ms_active: of those, the milliseconds the judging app was in use
            (:mod:`pooltool.tui.activity`), if known.
        :param judged_at: when the judgment was made (UTC, ISO 8601 as
            :func:`~pooltool.store.provenance.utc_now` writes it); default now. The
            judging UI passes the time of the key press, which is earlier than
            the write when the store was busy.
        :returns: the new row's ``judgment_id``.
        :raises StoreError: a grade that is not an integer in the 64-bit range, or a
            blank topic, docno or assessor.
        """
        _check_judgment(topic, docno, grade, assessor)
        with self.writing() as conn:
            return conn.insert_id(
                "INSERT INTO judgments(topic, docno, grade, iteration, assessor, judged_at, "
                "ms_spent, ms_active, note, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING judgment_id",
                [topic, docno, int(grade), iteration, assessor, judged_at or utc_now(),
                 ms_spent, ms_active, note, origin],
            )

    def retract(self, judgment_id: int, assessor: str, *, origin: str = "api",
                note: str | None = None) -> int:
        """Append a retraction of judgment ``judgment_id`` (an undo) and commit it.

        The pair's grade falls back to what the policy picks from the other
        live judgments (for an assessor's own undo: their previous grade).

        :returns: the retraction row's ``judgment_id``.
        :raises StoreError: no such judgment, it is itself a retraction, or it
            is already retracted.
        """
        with self.writing() as conn:
            row = conn.execute(
                "SELECT topic, docno, grade FROM judgments WHERE judgment_id = ?", [judgment_id]
            ).fetchone()
            if row is None or row[2] is None:
                raise StoreError(f"no judgment {judgment_id} to retract")
            if conn.execute("SELECT 1 FROM judgments WHERE retracts = ?", [judgment_id]).fetchone():
                raise StoreError(f"judgment {judgment_id} is already retracted")
            return conn.insert_id(
                "INSERT INTO judgments(topic, docno, grade, assessor, judged_at, note, origin, "
                "retracts) VALUES (?, ?, NULL, ?, ?, ?, ?, ?) RETURNING judgment_id",
                [row[0], row[1], assessor, utc_now(), note, origin, judgment_id],
            )

    def import_qrels(self, path: str | Path, version: str, assessor: str = "qrels", *,
                     replace: bool = False, machine: bool = False, strict_topics: bool = False,
                     on_unknown_topics: OnUnknownTopics | None = None, strict_docs: bool = False,
                     on_missing_docnos: OnMissingDocnos | None = None,
                     source: str | None = None) -> dict[str, Any]:
        """Import a qrels file into the log as ``assessor``'s judgments and name the
        result as a version (one transaction).

        A line is *unchanged* (not appended again) only when ``assessor``'s own
        live grade of that (topic, docno) equals it, iteration included; every
        other line is appended under ``assessor``, even when another assessor
        gave the same grade, so each assessor's grades stay theirs (agreement,
        ``assessor:NAME`` exports). With ``replace``, ``assessor``'s live
        judgments of pairs absent from the file are retracted, so
        ``qrels(version, "assessor:" + assessor)`` equals the file exactly;
        other assessors' judgments are left as they are.

        :param machine: mark ``assessor`` a machine (in the same transaction), so
            the default policies leave these judgments out; without it an
            assessor keeps the kind it has (a new one is a person).
        :param strict_topics: refuse a file with topics the store does not hold
            (when it holds topics; see :mod:`pooltool.store.topic_check`).
        :param on_unknown_topics: called after the import when the file has
            such topics (and not ``strict_topics``).
        :param strict_docs: refuse a file naming docnos no stored document has (when
            the store holds documents; see :mod:`pooltool.store.docno_check`).
        :param on_missing_docnos: called after the import when the file has such
            docnos (and not ``strict_docs``).
        :param source: what the judgments and the version record as their source
            (default: ``path``; ``irds:NAME`` for a dataset's qrels written to a file).
        :returns: ``{"source", "read", "added", "unchanged", "retracted", "version",
            "folded"}`` (counts of qrels lines, except ``retracted``: judgment rows
            retracted; ``folded``: lines repeated word for word, kept once).
        :raises FormatError: a malformed line (nothing is imported).
        :raises StoreError: the version name is taken (nothing is imported).
        :raises UnknownTopic: ``strict_topics`` and the file has unknown topics
            (nothing is imported).
        :raises UnknownDocnos: ``strict_docs`` and the file names docnos the store's
            documents lack (nothing is imported).
        """
        from pooltool.formats.qrels import folded_lines, read_qrels  # Arrow: not at init

        path = Path(path)
        name = source or str(path)
        qrels = read_qrels(path)
        with self.writing("imported") as conn:
            self._check_new_version(conn, version)
            unknown = check_topics(conn, qrels["topic"].unique(), name, strict_topics)
            missing = check_docnos(conn, qrels["docno"].unique(), name, strict_docs)
            if machine:
                record_kind(conn, assessor, "machine", f"import-qrels {name}")
            own = self.qrels(policy=f"assessor:{assessor}", propagate="none")
            added = self._append_qrels(conn, qrels, own, assessor, f"qrels:{name}")
            retracted = self._retract_absent(conn, qrels, assessor, name) if replace else 0
            self._insert_version(conn, version, name, file_sha256(path), None)
        if unknown is not None and on_unknown_topics is not None:
            on_unknown_topics(unknown)
        if missing is not None and on_missing_docnos is not None:
            on_missing_docnos(missing)
        return {"source": name, "read": len(qrels), "added": added,
                "unchanged": len(qrels) - added, "retracted": retracted, "version": version,
                "folded": folded_lines(qrels)}

    def _append_qrels(self, conn: Engine, qrels: pd.DataFrame,
                      own: pd.DataFrame, assessor: str, origin: str) -> int:
        """Append the lines of ``qrels`` that differ from ``own`` (``assessor``'s live
        grades, one per pair); returns how many were appended."""
        merged = qrels.merge(own, on=["topic", "docno"], how="left", suffixes=("", "_now"))
        same = (merged["grade"] == merged["grade_now"]) & (
            merged["iteration"] == merged["iteration_now"])
        new = merged.loc[~same, QRELS_COLUMNS]
        now = utc_now()
        conn.executemany(
            "INSERT INTO judgments(topic, docno, grade, iteration, assessor, judged_at, origin) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            ((r.topic, r.docno, int(r.grade), r.iteration, assessor, now, origin)
             for r in new.itertuples(index=False)),
        )
        return len(new)

    def _retract_absent(self, conn: Engine, qrels: pd.DataFrame,
                        assessor: str, path: str) -> int:
        """Retract every live judgment by ``assessor`` of a pair absent from ``qrels``
        (all of them, so no older grade of theirs comes back); returns how many."""
        live = self.live_judgments()
        live = live[live["assessor"] == assessor]
        keep = set(zip(qrels["topic"], qrels["docno"], strict=True))
        absent = [int(r.judgment_id) for r in live.itertuples(index=False)
                  if (r.topic, r.docno) not in keep]
        now = utc_now()
        conn.executemany(
            "INSERT INTO judgments(topic, docno, grade, assessor, judged_at, origin, retracts) "
            "SELECT topic, docno, NULL, ?, ?, ?, judgment_id FROM judgments WHERE judgment_id = ?",
            ((assessor, now, f"qrels-replace:{path}", jid) for jid in absent),
        )
        return len(absent)

    # -- versions ----------------------------------------------------------------

    def tag_version(self, name: str, note: str | None = None) -> int:
        """Name the current point of the log as qrels version ``name``.

        :returns: the log point (last ``judgment_id`` included).
        :raises StoreError: the name is taken.
        """
        with self.writing() as conn:
            self._check_new_version(conn, name)
            return self._insert_version(conn, name, None, None, note)

    def _check_new_version(self, conn: Engine, name: str) -> None:
        if not name.strip():
            raise InvalidArgument("a qrels version needs a name that is not blank")
        row = conn.execute(
            "SELECT created_at FROM qrels_versions WHERE name = ?", [name]).fetchone()
        if row is not None:
            raise StoreError(f"qrels version {name!r} already exists (created {row[0]})")

    def _insert_version(self, conn: Engine, name: str, source: str | None,
                        sha: str | None, note: str | None) -> int:
        point = conn.execute("SELECT COALESCE(MAX(judgment_id), 0) FROM judgments").fetchone()[0]
        conn.execute(
            "INSERT INTO qrels_versions(name, last_judgment_id, source_path, sha256, created_at, "
            "note) VALUES (?, ?, ?, ?, ?, ?)",
            [name, point, source, sha, utc_now(), note],
        )
        return int(point)

    def versions(self) -> pd.DataFrame:
        """The named versions: ``name, last_judgment_id, created_at, source_path, note``."""
        return self.query(
            "SELECT name, last_judgment_id, created_at, source_path, note FROM qrels_versions "
            "ORDER BY last_judgment_id, created_at")

    def version_point(self, name: str) -> int:
        """The log point of a version.

        :raises UnknownVersion: no version of that name.
        """
        row = self.conn.execute(
            "SELECT last_judgment_id FROM qrels_versions WHERE name = ?", [name]).fetchone()
        if row is None:
            names = ", ".join(self.versions()["name"]) or "none"
            raise UnknownVersion(f"no qrels version {name!r} in the store (versions: {names})")
        return int(row[0])

    # -- reading the log -----------------------------------------------------------

    def judgment_log(self, until: int | None = None) -> pd.DataFrame:
        """Every row of the log (retractions included) up to ``until``, oldest first."""
        limit = until if until is not None else _NO_LIMIT
        return self.query(
            f"SELECT {', '.join(LOG_COLUMNS)} FROM judgments WHERE judgment_id <= ? "
            "ORDER BY judgment_id", [limit])

    def judgment_log_with_kinds(self) -> pd.DataFrame:
        """:meth:`judgment_log` whole, with each row's assessor ``kind`` (``person`` or
        ``machine``, as the assessor's kind is now: the kinds are a log too, and an
        assessor never marked is a person).

        :returns: ``judgment_id, topic, docno, grade`` (null on a retraction),
            ``iteration, assessor, kind, judged_at`` (UTC, ISO 8601), ``ms_spent,
            ms_active`` (null for imported lines), ``note, origin`` (where it came from:
            ``qrels:FILE``, the judging app, the API), ``retracts`` (the judgment a
            retraction cancels), oldest first.
        """
        log = self.judgment_log()
        machines = self.machines()
        kinds = ["machine" if name in machines else "person" for name in log["assessor"]]
        log.insert(log.columns.get_loc("assessor") + 1, "kind", kinds)
        for column in ("grade", "ms_spent", "ms_active", "retracts"):  # NULL stays null
            log[column] = log[column].astype("Int64")
        return log

    def live_judgments(self, until: int | None = None,
                       topics: Sequence[str] | None = None) -> pd.DataFrame:
        """Judgments with a grade, up to ``until``, not retracted by a row up to ``until``.

        :param topics: only judgments of these topics (default: all), read through
            the index on topic and docno.
        """
        limit = until if until is not None else _NO_LIMIT
        only = "" if topics is None else "AND topic IN (SELECT value FROM json_each(:topics)) "
        return self.query(
            f"SELECT {', '.join(LOG_COLUMNS)} FROM judgments j WHERE judgment_id <= :limit "
            f"{only}AND {live(until=':limit')} ORDER BY judgment_id",
            {"limit": limit, "topics": json.dumps(list(topics or []))})


    def qrels(self, version: str | None = None, policy: str = "latest",
              topics: Sequence[str] | None = None,
              propagate: str = DEFAULT_PROPAGATE) -> pd.DataFrame:
        """The qrels of a version (or of the whole log now), one grade per pair.

        :param version: a version name; ``None`` means the current log.
        :param policy: see the module docstring.
        :param topics: only these topics (default: all; a ``prefer:`` assessor
            must then have judged one of them).
        :param propagate: which copies take a judged copy's grade (``exact``,
            ``near``, ``none``; :mod:`pooltool.store.duplicates`), with the duplicate
            groups and splits of the version's time.
        :returns: columns ``topic, iteration, docno, grade`` (as
            :func:`~pooltool.formats.qrels.read_qrels`), in log order.
        :raises UnknownVersion: no such version.
        :raises StoreError: unknown policy, or ``prefer:`` naming an assessor
            with no live judgment.
        """
        until = None if version is None else self.version_point(version)
        live = self.live_judgments(until, topics)
        adjudications = _adjudications_for(self.conn, policy)
        chosen = apply_policy(live, policy, self.machines(), adjudications)
        if propagate != "none":
            chosen = self.propagated(chosen, propagate, self._version_time(version))
        return chosen[QRELS_COLUMNS].reset_index(drop=True)

    def _version_time(self, version: str | None) -> str | None:
        if version is None:
            return None
        row = self.conn.execute(
            "SELECT created_at FROM qrels_versions WHERE name = ?", [version]).fetchone()
        return None if row is None else str(row[0])

    def nonempty_qrels(self, version: str | None = None, policy: str = "latest",
                       propagate: str = DEFAULT_PROPAGATE) -> pd.DataFrame:
        """:meth:`qrels`, refusing an empty result with how to reach what the log holds.

        :raises NoGrades: no grade under ``policy``; when the version's judgments are
            all machines', the message names them and the policies that take them
            (``assessor:NAME``, ``latest:all``, ``prefer:A,B``).
        :raises UnknownVersion: no such version.
        """
        qrels = self.qrels(version, policy, propagate=propagate)
        if not qrels.empty:
            return qrels
        until = None if version is None else self.version_point(version)
        judged_by = sorted(set(self.live_judgments(until)["assessor"]))
        what = f"version {version!r}" if version else "the judgment log"
        machines = [name for name in judged_by if name in self.machines()]
        if machines and len(machines) == len(judged_by):
            raise NoGrades(
                f"{what} has no grade under policy {policy!r}: its judgments are all by "
                f"machine assessor(s) {', '.join(machines)}, which the people-only policies "
                f"leave out; use --policy assessor:{machines[0]}, latest:all, or prefer:"
                f"PERSON,{machines[0]} to fill people's qrels")
        raise NoGrades(f"no judgments in {f'version {version!r}' if version else 'the store'}"
                         f" under policy {policy!r}: nothing to measure against (judge, or "
                         "import-qrels, first)" + (
                             f"; assessors with judgments: {', '.join(judged_by)}"
                             if judged_by else ""))

    def policy_note(self, version: str | None = None, policy: str = "latest") -> str:
        """One line saying whose judgments the qrels of ``policy`` took, by kind, and
        which machines' judgments it left out, e.g. ``policy latest: people (alice,
        bob); left out: machine (gpt-judge)``.

        :raises UnknownVersion: no such version.
        :raises StoreError: as :meth:`qrels`.
        """
        until = None if version is None else self.version_point(version)
        live = self.live_judgments(until)
        machines = self.machines()
        chosen = apply_policy(live, policy, machines, _adjudications_for(self.conn, policy))
        used = sorted(set(chosen["assessor"]))
        left = sorted(set(live["assessor"]) & machines - set(used))
        return f"policy {policy}: {_by_kind(used, machines)}" + (
            f"; left out: {_by_kind(left, machines)}" if left else "")



_NO_LIMIT = 2**62


def _adjudications_for(conn: Engine, policy: str) -> frozenset[int]:
    """The adjudications' ids when ``policy`` reads them (``adjudicated``), else none (the
    other policies take an adjudication as the adjudicator's judgment: no query)."""
    return adjudication_ids(conn) if policy.startswith(ADJUDICATED) else frozenset()


def _check_judgment(topic: str, docno: str, grade: int, assessor: str) -> None:
    import numbers

    if isinstance(grade, bool) or not isinstance(grade, numbers.Integral):
        raise InvalidArgument(f"a grade must be an integer, got {grade!r}")
    if not in_int64(int(grade)):
        raise InvalidArgument(f"grade {grade} is out of range (64-bit integer)")
    for what, value in (("topic", topic), ("docno", docno), ("assessor", assessor)):
        if not isinstance(value, str) or not value.strip():
            raise InvalidArgument(f"the judgment's {what} must be a non-blank string, got {value!r}")


def _by_kind(names: list[str], machines: frozenset[str]) -> str:
    people = [n for n in names if n not in machines]
    robots = [n for n in names if n in machines]
    parts = ([f"people ({', '.join(people)})"] if people else []) + (
        [f"machine{'s' if len(robots) > 1 else ''} ({', '.join(robots)})"] if robots else [])
    return " and ".join(parts) or "no judgments"
