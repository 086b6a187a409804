"""Plain records and the column names shared by readers, the store and DataFrames.

TREC names end to end: ``topic, docno, run_tag, rank, score, grade, assessor``.
Topic ids and docnos are strings everywhere ("9" and "09" are different topics,
as in trec_eval, which compares them with ``strcmp``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

RUN_COLUMNS = ["run_tag", "topic", "docno", "rank", "score"]
QRELS_COLUMNS = ["topic", "iteration", "docno", "grade"]


class RunEntry(NamedTuple):
    """One line of a TREC run: ``topic Q0 docno rank score run_tag``."""

    topic: str
    docno: str
    rank: int
    score: float
    run_tag: str


class Qrel(NamedTuple):
    """One line of a TREC qrels file: ``topic iteration docno grade``."""

    topic: str
    iteration: str
    docno: str
    grade: int


class Topic(NamedTuple):
    """A topic statement.

    ``title`` is the short query (TREC ``<title>``, TREC-COVID ``<query>``),
    ``description`` the question, ``narrative`` the assessor's instructions;
    missing fields are empty strings.
    """

    topic: str
    title: str
    description: str = ""
    narrative: str = ""


class Document(NamedTuple):
    """A document as shown to assessors: ``docno``, ``title`` and ``text``."""

    docno: str
    title: str
    text: str


def topic_key(topic: str) -> tuple[int, int, str]:
    """Sort key that puts numeric topic ids in numeric order ("2" before "10"), then the rest.

    For display only: measures keep trec_eval's ``strcmp`` order.
    """
    return (0, int(topic), topic) if topic.isdigit() else (1, 0, topic)


def topic_order(topics: Sequence[str], groups: Sequence[object] | None = None) -> list[int]:
    """Row positions that put rows in :func:`topic_key` order (for people: every table,
    CSV and JSON output; only ``--format trec`` keeps trec_eval's ``strcmp`` order).

    :param topics: the topic id of each row.
    :param groups: optionally a group of each row (e.g. the run tag): groups keep the
        order of their first row, and topics are ordered within each group.
    :returns: a permutation of ``range(len(topics))``, for ``frame.iloc[...]``.
    """
    first: dict[object, int] = {}
    for group in groups if groups is not None else ():
        first.setdefault(group, len(first))
    return sorted(range(len(topics)), key=lambda i: (
        first[groups[i]] if groups is not None else 0, topic_key(str(topics[i]))))


# -- where a store is ---------------------------------------------------------------

POSTGRESQL_URL_SCHEMES = ("postgresql://", "postgres://")
"""How a ``--db`` value names a PostgreSQL store (libpq's URL schemes); anything else
is a SQLite file's path."""


def is_postgresql_url(address: object) -> bool:
    """Whether a store address (a ``--db`` value) names a PostgreSQL store."""
    return isinstance(address, str) and address.startswith(POSTGRESQL_URL_SCHEMES)


def url_holds_password(url: str) -> bool:
    """Whether a PostgreSQL URL carries a password, as ``USER:PASSWORD@`` or as a
    ``password=`` parameter (libpq takes both)."""
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    return parts.password is not None or "password" in parse_qs(parts.query)


# -- what a grade means (the one place; trec_eval's m_unjudged.c, m_recall.c) ----------

JUDGED_MIN_GRADE = 0
"""A document is *judged* when its grade is >= 0; a negative grade (``-1``, "pooled
but not judged") is unjudged, as in trec_eval (``m_unjudged.c`` counts ``rel < 0``
as unjudged)."""

def is_judged(grade: Any) -> Any:
    """Whether a grade (an int, or element-wise over a Series/array) is a judgment:
    grade >= :data:`JUDGED_MIN_GRADE`. NaN (no judgment) gives False."""
    return grade >= JUDGED_MIN_GRADE


def is_relevant(grade: Any, level: int = 1) -> Any:
    """Whether a grade is relevant at threshold ``level`` (trec_eval ``-l``,
    ``m_recall.c``: ``rel >= relevance_level``), element-wise as :func:`is_judged`."""
    return grade >= level


def positives_only(grades: Any, level: int = 1) -> bool:
    """Whether qrels list relevant documents only (BEIR's and MS MARCO's qrels do): some
    grade, and none judged not relevant (``0 <= grade < level``). Such qrels leave every
    other document unjudged, so unjudged@k is 1 - P@k for every run.

    :param grades: the qrels' grades (a Series or array of ints; negative ones are no
        judgment, :func:`is_judged`).
    :param level: relevant means ``grade >= level``; at ``level <= 0`` every judged
        grade is relevant by definition, and the answer is False (nothing to say).
    """
    if level <= JUDGED_MIN_GRADE or not len(grades):
        return False
    return not bool((is_judged(grades) & (grades < level)).any())
