"""Who judged what: each assessor's live judgments and latest grades, and topic assignments.

The rules, defined here once and used by the judging queue, the judging UI,
agreement and pace (docs/store-rules.md says the same):

* a judgment is **live** when it has a grade and no retraction row cancels it
  (:func:`live`, the one SQL statement of it; read by
  :meth:`~pooltool.store.judgments.JudgmentLog.live_judgments`);
* an assessor's **own grade** of a document is their latest live judgment of it;
* a document is **judged** by an assessor when their own grade is >= 0
  (:func:`~pooltool.records.is_judged`; a negative grade is unjudged, as in
  trec_eval), and **relevant** at level ``l`` when it is >= ``l``
  (:func:`~pooltool.records.is_relevant`);
* a document is **judged by anyone** now when its grade in the current qrels
  (policy :data:`CURRENT_POLICY`, ``latest``: people only) is >= 0
  (:meth:`JudgedRules.current_grades`, :meth:`JudgedRules.judged_docnos`; the
  judging queue, the judging screen and claims all read it so);
* an assessor is a **person** or a **machine**: the latest row of
  ``assessor_kinds`` for the name, a person when there is none
  (:meth:`JudgedRules.assessor_kinds`); the default qrels policies use
  people's judgments only (:mod:`pooltool.store.judgments`);
* a topic is **assigned** to an assessor when ``assignments`` has a row for the
  pair (role ``primary`` or ``overlap``; see :mod:`pooltool.judging.assignment`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from pooltool.errors import StoreError
from pooltool.records import JUDGED_MIN_GRADE, is_judged
from pooltool.store.core import StoreCore
from pooltool.store.engine import Engine
from pooltool.store.provenance import utc_now

if TYPE_CHECKING:
    import pandas as pd

KINDS = ("person", "machine")

CURRENT_POLICY = "latest"
"""The qrels policy of "judged by anyone now" (the queue's rule): the latest live
judgment by a person (:mod:`pooltool.store.judgments`); machines' judgments do not
take a document out of a person's queue."""


def live(until: str | None = None) -> str:
    """The SQL condition of a *live* judgment row ``j`` of table ``judgments``: it has
    a grade and no retraction row cancels it (the one statement of the rule).

    :param until: a SQL expression (a placeholder such as ``:limit``): count only
        retraction rows up to that ``judgment_id`` (the log as it stood then).
    """
    upto = "" if until is None else f" AND r.judgment_id <= {until}"
    return ("j.grade IS NOT NULL AND NOT EXISTS "
            f"(SELECT 1 FROM judgments r WHERE r.retracts = j.judgment_id{upto})")


LIVE = live()
""":func:`live` of the log now."""

PERSON = ("NOT EXISTS (SELECT 1 FROM assessor_kinds k WHERE k.assessor = j.assessor "
          "AND k.kind = 'machine' AND k.kind_id = "
          "(SELECT MAX(m.kind_id) FROM assessor_kinds m WHERE m.assessor = j.assessor))")
"""The SQL condition that the assessor of judgment row ``j`` is a person: the latest
``assessor_kinds`` row of the name is not ``machine`` (:meth:`JudgedRules.machines`, in
SQL), for the reads the judging screen makes on every grade key
(:meth:`JudgedRules.judged_docnos`, :meth:`JudgedRules.current_judgment`): one statement
each, where the qrels' path takes several round trips to a server and pandas."""


class OwnJudgment(NamedTuple):
    """One live judgment of an assessor: the log row id, the document, its grade,
    the milliseconds counted for pace (active time, else wall time; ``None`` when
    not timed) and its note."""

    judgment_id: int
    docno: str
    grade: int
    ms_spent: int | None
    note: str | None = None


class JudgedRules(StoreCore):
    """Methods of :class:`~pooltool.store.JudgmentStore` that apply the rules above (a mixin)."""

    if TYPE_CHECKING:
        # pooltool.store.duplicates' (whether the store has the findings' tables)
        def _has_duplicate_tables(self) -> bool: ...

    # -- judgments ------------------------------------------------------------

    def own_judgments(self, topic: str, assessor: str) -> list[OwnJudgment]:
        """An assessor's live judgments of a topic, oldest first (several per document
        when they regraded it; the last one is their own grade)."""
        rows = self.conn.execute(
            "SELECT judgment_id, docno, grade, COALESCE(ms_active, ms_spent), note "
            "FROM judgments j "
            f"WHERE topic = ? AND assessor = ? AND {LIVE} ORDER BY judgment_id",
            [topic, assessor]).fetchall()
        return [OwnJudgment(*row) for row in rows]

    def own_grades(self, assessor: str | None = None, imported: bool = True,
                   leave_out: frozenset[int] = frozenset()) -> pd.DataFrame:
        """Each assessor's own grade (latest live judgment) of each document they graded,
        negative grades included.

        :param assessor: only this assessor's (default: everyone's).
        :param imported: count judgments imported from qrels files (``import-qrels``);
            false: only those made in pooltool (judging, the API).
        :param leave_out: the ``judgment_id`` of judgments not counted (e.g. adjudications:
            :mod:`pooltool.store.adjudications`), so an earlier judgment is the own grade.
        :returns: columns ``judgment_id, topic, docno, assessor, grade``, in log order.
        """
        where, params = ("AND assessor = ?", [assessor]) if assessor is not None else ("", [])
        if not imported:
            where += " AND origin NOT LIKE 'qrels:%'"
        rows = self.query(
            "SELECT judgment_id, topic, docno, assessor, grade FROM judgments j "
            f"WHERE {LIVE} {where} ORDER BY judgment_id", params)
        if leave_out:
            rows = rows[~rows["judgment_id"].isin(leave_out)]
        return rows.drop_duplicates(["topic", "docno", "assessor"], keep="last").reset_index(
            drop=True)

    def current_grades(self, topics: list[str] | None = None) -> pd.DataFrame:
        """The current qrels of "judged by anyone" (policy :data:`CURRENT_POLICY`:
        people's latest live judgments; the queue's rule, :mod:`pooltool.judging.queue`).

        :param topics: only these topics (default: all).
        :returns: columns ``topic, iteration, docno, grade``, one row per pair.
        """
        return self.qrels(policy=CURRENT_POLICY, topics=topics)

    def judged_docnos(self, topic: str) -> set[str]:
        """Docnos of a topic judged by anyone now: their grade in
        :meth:`current_grades` is >= 0 (people only).

        Policy ``latest`` prefers a grade >= 0 to a negative one, so a pair is judged
        when a person's live judgment of it has a grade >= 0: read so in one statement
        (:meth:`judged_statement`), unless a duplicate finding gives copies their judged
        copy's grade (then through :meth:`current_grades`)."""
        docnos = {row[0] for row in self.conn.execute(self.judged_statement(), [topic])}
        if None in docnos:
            grades = self.current_grades([topic])
            return {str(d) for d in grades.loc[is_judged(grades["grade"]), "docno"]}
        return {str(docno) for docno in docnos}

    def judged_statement(self) -> str:
        """The statement of :meth:`judged_docnos`' docnos (parameter: the topic), one row
        each, and a ``NULL`` row when a duplicate finding is in force (any finding:
        :meth:`~pooltool.store.JudgmentStore.duplicate_finding` of now), whose grades
        only the qrels' path gives: checked in the same round trip, not with a query of
        its own on every grade key. A ``UNION`` may follow."""
        finding = (" UNION SELECT NULL WHERE EXISTS (SELECT 1 FROM duplicate_findings)"
                   if self._has_duplicate_tables() else "")
        return (f"SELECT docno FROM judgments j WHERE topic = ? AND j.grade >= {JUDGED_MIN_GRADE} "
                f"AND {LIVE} AND {PERSON}{finding}")

    def current_judgment(self, topic: str, docno: str) -> tuple[str, int] | None:
        """``(assessor, grade)`` of the judgment that gives the pair its grade in
        :meth:`current_grades` (``None``: none), read in the caller's transaction: policy
        ``latest`` for one pair in one statement (a person's latest live judgment with a
        grade >= 0, else their latest negative one), as a claim reads it under the
        store's write lock on every grade key."""
        row = self.conn.execute(
            f"SELECT assessor, grade FROM judgments j WHERE topic = ? AND docno = ? "
            f"AND {LIVE} AND {PERSON} ORDER BY CASE WHEN j.grade >= {JUDGED_MIN_GRADE} "
            "THEN 1 ELSE 0 END DESC, j.judgment_id DESC LIMIT 1", [topic, docno]).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def judged_by(self, assessor: str) -> pd.DataFrame:
        """The ``topic, docno`` pairs an assessor has judged (own grade >= 0); none (not
        an error) for an assessor who has judged nothing yet."""
        own = self.own_grades(assessor)
        return own.loc[is_judged(own["grade"]), ["topic", "docno"]].reset_index(drop=True)

    def timed_judgments(self) -> pd.DataFrame:
        """Live judgments that carry a time (the judging UI's): ``assessor, ms_spent``
        (the milliseconds counted for pace: active time, :mod:`pooltool.tui.activity`,
        else for older rows the wall time on screen), in log order. Retracted (undone)
        judgments are left out, so counts agree with the qrels and the judging screen."""
        return self.query(
            f"SELECT assessor, COALESCE(ms_active, ms_spent) AS ms_spent FROM judgments j "
            f"WHERE {LIVE} "
            "AND ms_spent IS NOT NULL ORDER BY judgment_id")

    # -- assessor kinds -------------------------------------------------------

    def assessor_kinds(self) -> pd.DataFrame:
        """Every assessor with a live judgment or a recorded kind: ``assessor, kind``
        (``person`` or ``machine``; a person when no kind was ever set), ``judged``
        (pairs whose own grade is >= 0), in name order."""
        import pandas as pd  # here, not at the top: the store opens without pandas

        own = self.own_grades()
        judged = own[is_judged(own["grade"])].groupby("assessor").size()
        names = sorted(set(own["assessor"]) | set(self._kinds()))
        kinds = self._kinds()
        return pd.DataFrame({
            "assessor": names,
            "kind": [kinds.get(n, "person") for n in names],
            "judged": [int(judged.get(n, 0)) for n in names],
        }, columns=["assessor", "kind", "judged"])

    def machines(self) -> frozenset[str]:
        """The assessors whose kind is ``machine``."""
        return frozenset(n for n, kind in self._kinds().items() if kind == "machine")

    def _kinds(self) -> dict[str, str]:
        rows = self.conn.execute(
            "SELECT assessor, kind FROM assessor_kinds ORDER BY kind_id").fetchall()
        return {str(name): str(kind) for name, kind in rows}

    def set_assessor_kind(self, assessor: str, kind: str, origin: str = "api") -> bool:
        """Record ``assessor``'s kind (a new row; nothing is overwritten).

        :param kind: ``person`` or ``machine``.
        :param origin: what set it, e.g. ``import-qrels FILE``.
        :returns: whether the kind changed (no row is added when it is already so).
        :raises StoreError: an unknown kind or a blank name.
        """
        if kind not in KINDS:
            raise StoreError(f"an assessor's kind is person or machine, not {kind!r}")
        if not assessor.strip():
            raise StoreError("the assessor's name must not be blank")
        with self.writing() as conn:
            return record_kind(conn, assessor, kind, origin)

    # -- assignments ----------------------------------------------------------

    def assigned_topics(self, assessor: str) -> list[str]:
        """The topics assigned to an assessor (string order; empty when none are)."""
        rows = self.conn.execute(
            "SELECT topic FROM assignments WHERE assessor = ? ORDER BY topic", [assessor])
        return [str(row[0]) for row in rows]

    def assignments(self, assessor: str | None = None) -> pd.DataFrame:
        """Stored assignments: ``topic, assessor, role, assigned_at`` (one assessor's, or all)."""
        where, params = ("WHERE assessor = ?", [assessor]) if assessor else ("", [])
        return self.query(
            f"SELECT topic, assessor, role, assigned_at FROM assignments {where} "
            "ORDER BY topic, role, assessor", params)

    def assigned_assessors(self) -> list[str]:
        """Every assessor with at least one assigned topic, in name order."""
        rows = self.conn.execute("SELECT DISTINCT assessor FROM assignments ORDER BY assessor")
        return [str(row[0]) for row in rows]

    def replace_assignments(self, topics: list[str], rows: list[tuple[str, str, str]]) -> None:
        """Replace the assignments of ``topics`` with ``(topic, assessor, role)`` rows (one
        transaction; other topics keep theirs). Assignments are working state, not
        evidence: earlier rows of these topics are deleted."""
        now = utc_now()
        with self.writing() as conn:
            conn.executemany("DELETE FROM assignments WHERE topic = ?", [(t,) for t in topics])
            conn.executemany(
                "INSERT INTO assignments(topic, assessor, role, assigned_at) VALUES (?, ?, ?, ?)",
                [(*row, now) for row in rows])


def record_kind(conn: Engine, assessor: str, kind: str, origin: str) -> bool:
    """Append ``assessor``'s kind within an open transaction unless it is already
    ``kind`` (an assessor with no row is a person); returns whether a row was added."""
    row = conn.execute("SELECT kind FROM assessor_kinds WHERE assessor = ? "
                       "ORDER BY kind_id DESC LIMIT 1", [assessor]).fetchone()
    if (row[0] if row else "person") == kind:
        return False
    conn.execute("INSERT INTO assessor_kinds(assessor, kind, origin, set_at) VALUES (?, ?, ?, ?)",
                 [assessor, kind, origin, utc_now()])
    return True
