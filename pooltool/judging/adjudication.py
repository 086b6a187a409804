"""Disagreements between assessors, and how they were adjudicated.

A **disagreement** is a (topic, docno) that two or more people judged (each
person's own grade: their latest live judgment, >= 0, adjudications and machines
left out: :mod:`pooltool.store.judged`) with different grades. Its **distance** is
the highest of those grades minus the lowest (between the two of ``pair`` when a
pair is asked for). It is **resolved** when a live adjudication
(:mod:`pooltool.store.adjudications`) names every one of those own grades'
judgments: a grade changed after the adjudication makes the pair a disagreement
again, to adjudicate anew.

:func:`adjudication_agreement` measures agreement (the figures of
:mod:`pooltool.judging.agreement`) at three stages: ``before`` (the assessors'
own grades), ``after`` (each assessor's grade of an adjudicated pair replaced by
the adjudicated one, so what stays apart is what remains unresolved) and
``adjudicator`` (each assessor against the adjudicated grades, on the pairs both
have).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pooltool.errors import InvalidArgument
from pooltool.judging.agreement import (
    DEFAULT_ALPHA_LEVEL,
    agreement_columns,
    agreement_table,
    judged_grades,
    swap_sides,
)
from pooltool.records import topic_key
from pooltool.store import JudgmentStore

DISAGREEMENT_COLUMNS = ["topic", "docno", "assessors", "grades", "distance", "adjudicated",
                        "resolved", "judgment_ids"]
ADJUDICATED_SIDE = "@adjudicated"
"""The name of the adjudicated grades' side in :func:`adjudication_agreement`."""
STAGES = ("before", "after", "adjudicator")


def people_grades(store: JudgmentStore, topics: Sequence[str] | None = None) -> pd.DataFrame:
    """Each person's own grade (>= 0) of each document, adjudications left out.

    :returns: columns ``topic, docno, assessor, grade, judgment_id`` (log order).
    """
    grades = judged_grades(store, list(topics) if topics else None)
    return grades[~grades["assessor"].isin(store.machines())].reset_index(drop=True)


def disagreements(store: JudgmentStore, topics: Sequence[str] | None = None,
                  pair: tuple[str, str] | None = None, min_distance: int = 1,
                  include_resolved: bool = False) -> pd.DataFrame:
    """The documents people's grades disagree on (see the module docstring).

    :param topics: only these topics (default: all).
    :param pair: only documents both of these two assessors judged, apart by
        ``min_distance`` or more between the two of them.
    :param min_distance: the least distance listed (>= 1).
    :param include_resolved: list resolved disagreements too (default: open ones only).
    :returns: columns :data:`DISAGREEMENT_COLUMNS`, one row per document:
        ``assessors`` and ``grades`` (lists, in name order), ``distance`` (int),
        ``adjudicated`` (the latest live adjudicated grade, or ``None``), ``resolved``
        (bool), ``judgment_ids`` (the own grades' judgments, what an adjudication
        resolves); topics in :func:`~pooltool.records.topic_key` order, then docno.
    :raises InvalidArgument: ``min_distance`` below 1, or a pair naming one assessor twice.
    """
    if min_distance < 1:
        raise InvalidArgument(f"a disagreement's distance is at least 1, not {min_distance}")
    if pair is not None and pair[0] == pair[1]:
        raise InvalidArgument(f"a pair names two assessors, not {pair[0]} twice")
    grades = people_grades(store, topics)
    settled = _settlements(store, topics)
    rows = [_row(pair_rows, settled.get(key, []), pair)
            for key, pair_rows in grades.groupby(["topic", "docno"], sort=False)]
    table = pd.DataFrame([r for r in rows if r is not None], columns=DISAGREEMENT_COLUMNS)
    table = table[table["distance"] >= min_distance].astype({"adjudicated": "Int64"})
    if not include_resolved:
        table = table[~table["resolved"].astype(bool)]
    order = sorted(range(len(table)), key=lambda i: (topic_key(table["topic"].iat[i]),
                                                     table["docno"].iat[i]))
    return table.iloc[order].reset_index(drop=True)


def _settlements(store: JudgmentStore,
                 topics: Sequence[str] | None) -> dict[tuple[str, str], list[tuple[int, set[int]]]]:
    """(topic, docno) -> its live adjudications as ``(grade, judgments resolved)``, oldest
    first."""
    found: dict[tuple[str, str], list[tuple[int, set[int]]]] = {}
    adjudications = store.live_adjudications(list(topics) if topics else None)
    for _, rows in adjudications.groupby("judgment_id", sort=True):
        key = (str(rows["topic"].iat[0]), str(rows["docno"].iat[0]))
        found.setdefault(key, []).append((int(rows["grade"].iat[0]),
                                          {int(j) for j in rows["resolves"]}))
    return found


def _row(rows: pd.DataFrame, settled: list[tuple[int, set[int]]],
         pair: tuple[str, str] | None) -> dict[str, object] | None:
    """One document's disagreement row, or ``None`` when its people agree (or, with
    ``pair``, the two did not both judge it)."""
    rows = rows.sort_values("assessor")
    grades = dict(zip(rows["assessor"], rows["grade"].astype(int), strict=True))
    if len(grades) < 2 or (pair is not None and not set(pair) <= set(grades)):
        return None
    compared = [grades[a] for a in pair] if pair is not None else list(grades.values())
    distance = max(compared) - min(compared)
    if distance == 0:
        return None
    current = {int(j) for j in rows["judgment_id"]}
    return {"topic": str(rows["topic"].iat[0]), "docno": str(rows["docno"].iat[0]),
            "assessors": list(grades), "grades": list(grades.values()), "distance": distance,
            "adjudicated": settled[-1][0] if settled else None,
            "resolved": any(current <= resolves for _, resolves in settled),
            "judgment_ids": sorted(current)}


def pair_judgments(store: JudgmentStore, topic: str, docno: str) -> pd.DataFrame:
    """Every person's own judgment of one document, for the adjudicator to read.

    :returns: columns ``judgment_id, assessor, grade, note, judged_at`` (name order;
        ``note`` is ``None`` where there is none).
    """
    own = people_grades(store, [topic])
    own = own[own["docno"] == docno]
    log = store.live_judgments(topics=[topic])
    rows = log[log["judgment_id"].isin(own["judgment_id"])]
    rows = rows.assign(note=rows["note"].astype(object).where(rows["note"].notna(), None))
    return rows[["judgment_id", "assessor", "grade", "note", "judged_at"]].sort_values(
        "assessor").reset_index(drop=True)


def adjudication_agreement(store: JudgmentStore, threshold: int = 1,
                           topics: Sequence[str] | None = None,
                           level: str = DEFAULT_ALPHA_LEVEL) -> pd.DataFrame:
    """Agreement before and after adjudication, and of each assessor with the adjudicated
    grades (see the module docstring; figures as
    :func:`~pooltool.judging.agreement.agreement_table`, each stage's ``all`` rows pooling
    the documents of every topic).

    :returns: column ``stage`` (:data:`STAGES`), then :func:`agreement_columns`.
    """
    before = people_grades(store, topics)
    adjudicated = _adjudicated_grades(store, topics)
    key = ["topic", "docno"]
    merged = before.merge(adjudicated, on=key, how="left", suffixes=("", "_adjudicated"))
    after = merged.assign(grade=merged["grade_adjudicated"].fillna(merged["grade"]).astype(int))
    machines = store.machines()
    tables = {
        "before": agreement_table(before, threshold, machines, level),
        "after": agreement_table(after[before.columns], threshold, machines, level),
        "adjudicator": _with_adjudicator(before, adjudicated, threshold, machines, level),
    }
    parts = [table.assign(stage=stage) for stage, table in tables.items() if not table.empty]
    columns = ["stage", *agreement_columns(level)]
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


def _adjudicated_grades(store: JudgmentStore, topics: Sequence[str] | None) -> pd.DataFrame:
    """The latest live adjudicated grade of each pair: ``topic, docno, grade``."""
    rows = store.live_adjudications(list(topics) if topics else None)
    latest = rows.drop_duplicates(["topic", "docno"], keep="last")
    return latest[["topic", "docno", "grade"]].reset_index(drop=True)


def _with_adjudicator(before: pd.DataFrame, adjudicated: pd.DataFrame, threshold: int,
                      machines: frozenset[str], level: str) -> pd.DataFrame:
    """Each assessor against the adjudicated grades (one pair per assessor)."""
    side = adjudicated.assign(assessor=ADJUDICATED_SIDE, judgment_id=0)
    tables = []
    for name in sorted(set(before["assessor"])):
        own = before[before["assessor"] == name]
        shared = own[own.set_index(["topic", "docno"]).index.isin(
            side.set_index(["topic", "docno"]).index)]
        if shared.empty:
            continue
        table = agreement_table(pd.concat([own, side[before.columns]], ignore_index=True),
                                threshold, machines, level)
        tables.append(_assessor_first(table, name))
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


def _assessor_first(table: pd.DataFrame, name: str) -> pd.DataFrame:
    """``table`` with ``name`` as ``assessor_a`` (agreement_table orders a pair by name:
    ``@adjudicated`` sorts before letters)."""
    if table.empty or table["assessor_a"].iat[0] == name:
        return table
    return swap_sides(table)
