"""Copies of one text in the store, and how one judgment reaches them.

Tables (migration ``m015_duplicate_groups``; all append-only):

* ``duplicate_findings``: one row per ``pooltool duplicates find`` (or ``add-docs
  --duplicates``): its parameters (:class:`pooltool.duplicates.Parameters`), the
  documents it read, when;
* ``duplicate_members``: that finding's groups (``group_no``, ``docno``,
  ``exact_class``, ``how``: ``leader`` / ``exact`` / ``near``, ``similarity``: exact
  Jaccard of shingle sets to the leader). The newest finding is the one in force;
  an older one stays, so a qrels version made before a new finding is exported as it was;
* ``duplicate_splits``: an assessor's "this one is not a copy" for a (topic, docno):
  from then on that pair neither gives nor takes a propagated grade on that topic.

**Propagation** (:func:`propagate`) is computed when qrels are read, from the log and
these tables; nothing is written to the judgment log. So the log stays append-only,
and an undo or a regrade of the source moves its copies with it (the copies are the
source's grade, read again). A *unit* is what one judgment covers: an exact class of
a group (``propagate="exact"``, the default: same normalised text) or the whole group
(``"near"``: near copies too, opt-in, since a near copy may differ where it matters);
``"none"`` turns it off. For each topic and unit, the source is the latest chosen
judgment (grade >= 0) of a member that is not split off (under ``near``, a member's own
exact class first); every other member of the
unit with no grade >= 0 of its own under the policy, and not split off, gets the
source's grade as a *derived* row naming ``source_judgment_id`` and
``source_docno``. A member's own judgment always wins over a derived grade; a
negative grade (no judgment) is never propagated. Copies receive the grade wherever
they are, pooled or not: their text is the source's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pooltool.errors import InvalidArgument
from pooltool.records import Document, is_judged
from pooltool.store.core import StoreCore
from pooltool.store.provenance import utc_now

if TYPE_CHECKING:
    import pandas as pd

_MIGRATION = "m015_duplicate_groups"
PROPAGATE = ("exact", "near", "none")
DEFAULT_PROPAGATE = "exact"
_MEMBERS = ["group_no", "docno", "exact_class", "how", "similarity"]


class DuplicateTables(StoreCore):
    """Duplicate-group methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def add_duplicate_finding(self, groups: pd.DataFrame, parameters: dict[str, Any],
                              documents: int) -> int:
        """Store a finding and its groups (one transaction); it is in force from now on.

        :param groups: rows as :func:`pooltool.duplicates.find_groups` returns them.
        :param parameters: ``threshold, shingle_words, num_perm, seed``.
        :param documents: how many documents were read.
        :returns: the new ``finding_id``.
        """
        with self.writing() as conn:
            finding = conn.insert_id(
                "INSERT INTO duplicate_findings(threshold, shingle_words, num_perm, seed, "
                "documents, found_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING finding_id",
                [float(parameters["threshold"]), int(parameters["shingle_words"]),
                 int(parameters["num_perm"]), int(parameters["seed"]), documents, utc_now()])
            conn.executemany(
                "INSERT INTO duplicate_members(finding_id, group_no, docno, exact_class, how, "
                "similarity) VALUES (?, ?, ?, ?, ?, ?)",
                [(finding, int(g), str(d), int(c), str(h), float(s))
                 for g, d, c, h, s in groups[_MEMBERS].itertuples(index=False)])
        return finding

    def all_documents(self, batch: int = 20_000) -> Iterator[Document]:
        """Every stored document, by docno, read ``batch`` rows at a time (so that a
        large collection is never one result in memory twice)."""
        after = ""
        while True:
            rows = self.conn.execute(
                "SELECT docno, title, text FROM documents WHERE docno > ? ORDER BY docno "
                "LIMIT ?", [after, batch]).fetchall()
            yield from (Document(str(d), str(t or ""), str(x or "")) for d, t, x in rows)
            if len(rows) < batch:
                return
            after = str(rows[-1][0])

    def duplicate_finding(self, at: str | None = None) -> dict[str, Any] | None:
        """The finding in force at time ``at`` (UTC ISO 8601; default now), as a dict of
        its columns, or ``None`` when there is none (or the store, read as it is, predates
        the tables: its qrels are then as before)."""
        if not self._has_duplicate_tables():
            return None
        frame = self.query(
            "SELECT finding_id, threshold, shingle_words, num_perm, seed, documents, found_at "
            "FROM duplicate_findings WHERE found_at <= ? ORDER BY finding_id DESC LIMIT 1",
            [at or _END])
        return None if frame.empty else frame.iloc[0].to_dict()

    def _has_duplicate_tables(self) -> bool:
        """Whether the store has this module's tables (read once per connection: a store
        is upgraded only as it is opened)."""
        known = getattr(self, "_duplicate_tables_known", None)
        if known is None:
            known = _MIGRATION not in self.conn.pending_migrations()
            self._duplicate_tables_known = known
        return bool(known)

    def duplicate_groups(self, at: str | None = None) -> pd.DataFrame:
        """The groups of the finding in force at ``at`` (default now): columns
        ``group_no, docno, exact_class, how, similarity``, by group and docno (empty
        when nothing was found)."""
        finding = self.duplicate_finding(at)
        return self.query(
            f"SELECT {', '.join(_MEMBERS)} FROM duplicate_members WHERE finding_id = ? "
            "ORDER BY group_no, docno", [-1 if finding is None else int(finding["finding_id"])])

    def split_copy(self, topic: str, docno: str, assessor: str, origin: str = "api",
                   split_at: str | None = None) -> int:
        """Record that on ``topic`` the document ``docno`` is not a copy of its group
        (it neither gives nor takes a propagated grade there from now on).

        :param split_at: when (UTC, ISO 8601; default now: a split that waited in a
            journal keeps its key press's time).
        :returns: the new ``split_id``.
        :raises InvalidArgument: the document is in no group now.
        """
        groups = self.duplicate_groups()
        if docno not in set(groups["docno"]):
            raise InvalidArgument(f"document {docno!r} is in no duplicate group")
        with self.writing() as conn:
            return conn.insert_id(
                "INSERT INTO duplicate_splits(topic, docno, assessor, split_at, origin) "
                "VALUES (?, ?, ?, ?, ?) RETURNING split_id",
                [topic, docno, assessor, split_at or utc_now(), origin])

    def duplicate_splits(self, at: str | None = None) -> pd.DataFrame:
        """The splits made up to ``at`` (default now): ``topic, docno, assessor,
        split_at``, oldest first."""
        return self.query("SELECT topic, docno, assessor, split_at FROM duplicate_splits "
                          "WHERE split_at <= ? ORDER BY split_id", [at or _END])

    def propagated(self, chosen: pd.DataFrame, propagate: str = DEFAULT_PROPAGATE,
                   at: str | None = None) -> pd.DataFrame:
        """:func:`propagate` with the groups and splits in force at ``at``."""
        import pandas as pd  # here, not at the top: the store opens without pandas

        check_propagate(propagate)
        if propagate == "none" or self.duplicate_finding(at) is None:
            return chosen.assign(source_judgment_id=pd.NA, source_docno=pd.NA)
        return propagate_grades(chosen, self.duplicate_groups(at), self.duplicate_splits(at),
                                propagate)

    def pooled_copies(self, pairs: pd.DataFrame, propagate: str = DEFAULT_PROPAGATE
                      ) -> pd.DataFrame:
        """Which pooled pairs the judging queue shows through another copy: of each
        topic's pooled members of a unit (module docstring) not split off, the first by
        docno is shown, the others are its copies.

        :param pairs: the pooled pairs, columns ``topic, docno``.
        :returns: columns ``topic, docno, shown`` (the docno shown for it), one row
            per hidden copy.
        """
        import pandas as pd  # here, not at the top: the store opens without pandas

        check_propagate(propagate)
        empty = pd.DataFrame({"topic": [], "docno": [], "shown": []}, dtype=object)
        if propagate == "none" or self.duplicate_finding() is None:
            return empty
        members = copy_units(self.duplicate_groups(), propagate)
        pooled = pairs[["topic", "docno"]].merge(members, on="docno")
        pooled = _drop_split(pooled, self.duplicate_splits())
        if pooled.empty:
            return empty
        pooled = pooled.sort_values(["topic", "unit", "docno"], kind="mergesort")
        pooled["shown"] = pooled.groupby(["topic", "unit"])["docno"].transform("first")
        return pooled.loc[pooled["docno"] != pooled["shown"], ["topic", "docno", "shown"]
                          ].reset_index(drop=True)


def check_propagate(propagate: str) -> None:
    """:raises InvalidArgument: ``propagate`` is not one of :data:`PROPAGATE`."""
    if propagate not in PROPAGATE:
        raise InvalidArgument(f"unknown propagation {propagate!r}; choose one of "
                              f"{', '.join(PROPAGATE)}")


def propagate_grades(chosen: pd.DataFrame, groups: pd.DataFrame, splits: pd.DataFrame,
                     propagate: str) -> pd.DataFrame:
    """Add derived rows for copies to the rows a qrels policy chose (module docstring).

    Under ``near``, exact copies take their own exact class's grade first; only the
    members left without a grade take the group's latest.

    :param chosen: one row per (topic, docno) with at least ``judgment_id, topic,
        iteration, docno, grade`` (:func:`pooltool.store.policy.apply_policy`).
    :param groups: as :meth:`DuplicateTables.duplicate_groups`.
    :param splits: as :meth:`DuplicateTables.duplicate_splits`.
    :param propagate: ``exact`` or ``near``.
    :returns: ``chosen`` (a copy's own negative row replaced by its derived grade) plus
        the derived rows, with ``source_judgment_id`` and ``source_docno`` (NA on
        chosen rows), in log order (a derived row at its source's place).
    """
    import pandas as pd  # here, not at the top: the store opens without pandas

    rows = _propagate_once(chosen.assign(source_judgment_id=pd.NA, source_docno=pd.NA),
                           copy_units(groups, "exact"), splits)
    if propagate == "near":
        rows = _propagate_once(rows, copy_units(groups, "near"), splits)
    return rows


def _propagate_once(rows: pd.DataFrame, members: pd.DataFrame,
                    splits: pd.DataFrame) -> pd.DataFrame:
    """Give each unit's members without a grade >= 0 the grade of its latest own
    (not derived) judged row."""
    import pandas as pd  # here, not at the top: the store opens without pandas

    judged = rows[is_judged(rows["grade"]).to_numpy()]
    own = judged[judged["source_judgment_id"].isna()]
    sources = _drop_split(own.merge(members, on="docno"), splits)
    if sources.empty:
        return rows
    sources = sources.sort_values("judgment_id").drop_duplicates(["topic", "unit"], keep="last")
    targets = sources[["topic", "unit", "judgment_id", "iteration", "grade", "docno"]].rename(
        columns={"docno": "source_docno"}).merge(members, on="unit")
    targets = _drop_split(targets, splits)
    graded = pd.MultiIndex.from_frame(judged[["topic", "docno"]])
    targets = targets[~pd.MultiIndex.from_frame(targets[["topic", "docno"]]).isin(graded)]
    derived = targets.assign(source_judgment_id=targets["judgment_id"])
    replaced = pd.MultiIndex.from_frame(derived[["topic", "docno"]])
    rows = rows[~pd.MultiIndex.from_frame(rows[["topic", "docno"]]).isin(replaced)]
    rows = pd.concat([rows, derived[[c for c in rows.columns if c in derived.columns]]])
    return rows.sort_values(["judgment_id", "docno"], kind="mergesort").reset_index(drop=True)


def copy_units(groups: pd.DataFrame, propagate: str) -> pd.DataFrame:
    """``docno, unit``: the unit one judgment covers (an exact class, or the group)."""
    import pandas as pd  # here, not at the top: the store opens without pandas

    unit = groups["group_no"].astype(str)
    if propagate == "exact":
        unit = unit + "." + groups["exact_class"].astype(str)
    return pd.DataFrame({"docno": groups["docno"], "unit": unit})


def _drop_split(rows: pd.DataFrame, splits: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd  # here, not at the top: the store opens without pandas

    if splits.empty or rows.empty:
        return rows
    split = pd.MultiIndex.from_frame(splits[["topic", "docno"]])
    return rows[~pd.MultiIndex.from_frame(rows[["topic", "docno"]]).isin(split)]


_END = "9999-12-31T23:59:59"  # later than any time utc_now() writes

__all__ = ["DEFAULT_PROPAGATE", "PROPAGATE", "DuplicateTables", "check_propagate", "copy_units",
           "propagate_grades"]
