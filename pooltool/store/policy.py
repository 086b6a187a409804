"""The qrels policies: how one grade per (topic, docno) is picked from the live rows of
the judgment log (:mod:`pooltool.store.judgments`).

* ``latest`` (default): the most recent live judgment by a person;
* ``max``: each person's latest, then the highest grade among them;
* ``majority``: each person's latest, then the most frequent grade; a
  tie goes to the tied grade judged most recently;
* ``latest:all``, ``max:all``, ``majority:all``: the same over every
  assessor, machines included;
* ``assessor:NAME``: that assessor's latest judgment only (person or machine);
* ``prefer:A,B,...``: A's own grade where A judged the pair (grade >= 0),
  else B's, and so on; where none of them judged it, the first of them
  with a (negative) grade;
* ``adjudicated`` (``adjudicated:POLICY``): the latest live adjudication of the
  pair (:mod:`pooltool.store.adjudications`) where one exists, else the grade
  POLICY (default ``latest``; any policy above) picks from the rows that are not
  adjudications. Under the other policies an adjudication is the adjudicator's
  judgment like any other (a person's: ``latest`` then gives it, since it came
  last; ``majority`` counts it as one vote).

Under every policy a negative grade ("pooled, not judged": NIST's ``-1``) is no
judgment: it never replaces, outvotes or outranks a grade >= 0. Each policy picks
among the rows with a grade >= 0; only a pair that has none gets the negative
grade its rows give by the same policy (so it stays in the qrels as unjudged).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pooltool.errors import InvalidArgument, StoreError
from pooltool.records import is_judged

if TYPE_CHECKING:
    import pandas as pd

POLICIES = ("latest", "majority", "max", "latest:all", "majority:all", "max:all",
            "assessor:NAME", "prefer:A,B", "adjudicated", "adjudicated:POLICY")
ADJUDICATED = "adjudicated"
ADJUDICATED_FALLBACK = "latest"
"""The policy ``adjudicated`` falls back to where a pair has no adjudication."""
_PEOPLE_POLICIES = ("latest", "majority", "max")
LOG_COLUMNS = [  # the judgment log's columns, as the policies read its rows
    "judgment_id", "topic", "docno", "grade", "iteration", "assessor",
    "judged_at", "ms_spent", "ms_active", "note", "origin", "retracts",
]


def is_policy(name: str) -> bool:
    """Whether ``name`` is spelled as one of :data:`POLICIES` (its assessors unchecked)."""
    base, colon, scope = name.partition(":")
    if base == ADJUDICATED:
        return not colon or (is_policy(scope) and not scope.startswith(ADJUDICATED))
    if base in _PEOPLE_POLICIES:
        return scope == "all" or not colon
    return base in ("assessor", "prefer") and bool(scope)


def apply_policy(live: pd.DataFrame, policy: str,
                 machines: frozenset[str] = frozenset(),
                 adjudications: frozenset[int] = frozenset()) -> pd.DataFrame:
    """Pick one judgment per (topic, docno) from live log rows.

    :param live: rows as :meth:`JudgmentLog.live_judgments` returns (log order).
    :param policy: one of :data:`POLICIES` (see the module docstring).
    :param machines: the assessors that are machines; ``latest``, ``max`` and
        ``majority`` leave their rows out.
    :param adjudications: the ``judgment_id`` of every adjudication
        (:meth:`~pooltool.store.adjudications.AdjudicationTable.adjudication_ids`),
        for ``adjudicated``.
    :returns: the chosen rows, in log order.
    :raises StoreError: unknown policy, or ``prefer:`` naming an assessor with
        no row in ``live``.
    """
    base, _, scope = policy.partition(":")
    if base == ADJUDICATED and is_policy(policy):
        return _adjudicated(live, scope or ADJUDICATED_FALLBACK, machines, adjudications)
    if base in _PEOPLE_POLICIES and scope in ("", "all"):
        rows = live if scope == "all" else live[~live["assessor"].isin(machines)]
        return _judged_first(rows, _PICK[base])
    if base == "assessor" and scope:
        return _judged_first(live[live["assessor"] == scope], _pick_latest)
    if base == "prefer" and scope:
        names = [name.strip() for name in scope.split(",")]
        _check_known(live, names)
        return _judged_first(live[live["assessor"].isin(names)],
                             lambda rows: _prefer(rows, names))
    raise InvalidArgument(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")


def _adjudicated(live: pd.DataFrame, fallback: str, machines: frozenset[str],
                 adjudications: frozenset[int]) -> pd.DataFrame:
    """The latest adjudication of each pair that has one; ``fallback`` over the other
    rows for the pairs that have none."""
    import pandas as pd  # here, not at the top: the store opens without pandas

    is_adjudication = live["judgment_id"].isin(adjudications)
    settled = _pick_latest(live[is_adjudication])
    rest = apply_policy(live[~is_adjudication], fallback, machines)
    keys = ["topic", "docno"]
    rest = rest[~pd.MultiIndex.from_frame(rest[keys]).isin(pd.MultiIndex.from_frame(settled[keys]))]
    return pd.concat([settled, rest]).sort_values("judgment_id")


def _judged_first(rows: pd.DataFrame,
                  pick: Callable[[pd.DataFrame], pd.DataFrame]) -> pd.DataFrame:
    """``pick`` over the rows with a grade >= 0; for the pairs with none, over their
    negative rows (see the module docstring: a negative grade is no judgment)."""
    import pandas as pd  # here, not at the top: the store opens without pandas

    judged = is_judged(rows["grade"])
    if judged.all():  # no negative grade: nothing to set apart (the common case, and fast)
        return pick(rows)
    chosen = pick(rows[judged])
    keys = ["topic", "docno"]
    done = pd.MultiIndex.from_frame(chosen[keys])
    unjudged = rows[~judged]
    unjudged = unjudged[~pd.MultiIndex.from_frame(unjudged[keys]).isin(done)]
    if unjudged.empty:
        return chosen
    return pd.concat([chosen, pick(unjudged)]).sort_values("judgment_id")


def _pick_latest(rows: pd.DataFrame) -> pd.DataFrame:
    return _latest(rows, ["topic", "docno"])


def _pick_max(rows: pd.DataFrame) -> pd.DataFrame:
    own = _latest(rows, ["topic", "docno", "assessor"])
    ranked = own.sort_values(["grade", "judgment_id"], kind="mergesort")
    return _latest(ranked, ["topic", "docno"], by_order=True).sort_values("judgment_id")


def _pick_majority(rows: pd.DataFrame) -> pd.DataFrame:
    return _majority(_latest(rows, ["topic", "docno", "assessor"]))


_PICK = {"latest": _pick_latest, "max": _pick_max, "majority": _pick_majority}


def _check_known(live: pd.DataFrame, names: list[str]) -> None:
    """Refuse ``prefer:`` naming an assessor with no live judgment (a typo, most often)."""
    unknown = [n for n in names if not n or n not in set(live["assessor"])]
    if unknown:
        known = ", ".join(sorted(set(live["assessor"]))) or "none yet"
        raise StoreError(f"policy prefer: names {unknown[0]!r}, who has no live judgment "
                         f"(assessors: {known})")


def _prefer(rows: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The own grade of the first of ``names`` with one for the pair."""
    own = _latest(rows, ["topic", "docno", "assessor"])
    ranked = own.assign(_priority=own["assessor"].map({n: i for i, n in enumerate(names)}))
    chosen = ranked.sort_values("_priority", kind="mergesort").drop_duplicates(
        ["topic", "docno"], keep="first")
    return chosen.drop(columns="_priority").sort_values("judgment_id")


def _latest(rows: pd.DataFrame, keys: list[str], by_order: bool = False) -> pd.DataFrame:
    """The last row of each group (by log order, or by the frame's order)."""
    ordered = rows if by_order else rows.sort_values("judgment_id", kind="mergesort")
    return ordered.drop_duplicates(keys, keep="last").sort_values("judgment_id")


def _majority(own: pd.DataFrame) -> pd.DataFrame:
    counts = own.groupby(["topic", "docno", "grade"], sort=False).agg(
        votes=("judgment_id", "size"), last=("judgment_id", "max")).reset_index()
    winners = counts.sort_values(["votes", "last"], kind="mergesort").drop_duplicates(
        ["topic", "docno"], keep="last")
    return own[own["judgment_id"].isin(winners["last"])].sort_values("judgment_id")


__all__ = ["ADJUDICATED", "LOG_COLUMNS", "POLICIES", "apply_policy", "is_policy"]
