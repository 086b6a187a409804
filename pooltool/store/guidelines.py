"""Judging guidelines kept in the store: what assessors read on the guidelines screen.

Three kinds (scopes) of text, set with ``pooltool guidelines``:

* **collection**: guidelines for every topic of the collection;
* **grade**: the definition of one grade of the scale (target: the grade);
* **topic**: instructions for one topic (target: the topic id); without them
  the judging app shows the topic's narrative instead.

The table ``guidelines`` (migration ``m010_guidelines``) is append-only, as the
judgment log is: setting a text adds a row, the latest row of a (scope, target)
is the text in force, and an empty text withdraws it. Earlier rows stay as
the history of what assessors were told, and when.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple

from pooltool.store.provenance import utc_now

if TYPE_CHECKING:
    from pooltool.store.store import JudgmentStore

Scope = Literal["collection", "grade", "topic"]


class GuidelineText(NamedTuple):
    """One text to set: ``target`` is ``""`` for the collection, the grade as text,
    or the topic id; an empty ``text`` withdraws the one in force; ``source`` says
    where it came from (a file path, ``command line``)."""

    scope: Scope
    target: str
    text: str
    source: str


@dataclass(frozen=True)
class Guidelines:
    """The guidelines in force (texts withdrawn or never set are absent).

    :param collection: the collection-wide text, ``""`` when none.
    :param grades: grade -> its definition.
    :param topics: topic id -> its instructions.
    """

    collection: str = ""
    grades: dict[int, str] = field(default_factory=dict)
    topics: dict[str, str] = field(default_factory=dict)


def current_guidelines(store: JudgmentStore) -> Guidelines:
    """The texts in force: for each scope and target, the latest row if its text is
    not empty."""
    rows = store.conn.execute(
        "SELECT g.scope, g.target, g.text FROM guidelines g JOIN ("
        "  SELECT max(guideline_id) AS guideline_id FROM guidelines GROUP BY scope, target"
        ") latest USING (guideline_id) WHERE g.text != '' ORDER BY g.guideline_id").fetchall()
    collection = next((text for scope, _, text in rows if scope == "collection"), "")
    grades = {int(target): text for scope, target, text in rows if scope == "grade"}
    topics = {target: text for scope, target, text in rows if scope == "topic"}
    return Guidelines(collection, grades, topics)


def add_guidelines(store: JudgmentStore, texts: list[GuidelineText],
                   at: str | None = None) -> list[GuidelineText]:
    """Set guideline texts, in one transaction (a row each; nothing is updated). A text
    equal to the one in force (withdrawing what is not set, or setting the same text
    again) adds no row.

    :param at: when they were set (UTC, ISO 8601); default now.
    :returns: the texts that changed something (a row each).
    """
    now = current_guidelines(store)
    in_force = {("collection", ""): now.collection,
                **{("grade", str(grade)): text for grade, text in now.grades.items()},
                **{("topic", topic): text for topic, text in now.topics.items()}}
    changed = []
    for text in texts:  # in order: a later text of the same target sees the earlier one
        if in_force.get((text.scope, text.target), "") != text.text:
            changed.append(text)
            in_force[(text.scope, text.target)] = text.text
    stamp = at or utc_now()
    with store.writing() as conn:
        conn.executemany(
            "INSERT INTO guidelines(scope, target, text, source, set_at) VALUES (?, ?, ?, ?, ?)",
            [(*text, stamp) for text in changed])
    return changed


def guideline_history(store: JudgmentStore) -> list[tuple[str, str, str, str, str]]:
    """Every row ever set, oldest first: ``(scope, target, text, source, set_at)``."""
    return store.conn.execute(
        "SELECT scope, target, text, source, set_at FROM guidelines "
        "ORDER BY guideline_id").fetchall()
