"""The store's settings (``settings``: JSON values by key) and its grade scale."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from pooltool.errors import InvalidArgument
from pooltool.store.core import StoreCore


class GradeLevel(NamedTuple):
    """One grade of the store's scale: the integer written to qrels, its key and name."""

    grade: int
    key: str
    name: str


DEFAULT_GRADE_SCALE = [
    GradeLevel(0, "0", "not relevant"),
    GradeLevel(1, "1", "related"),
    GradeLevel(2, "2", "highly relevant"),
    GradeLevel(3, "3", "perfectly relevant"),
]



class SettingsTable(StoreCore):
    """Settings methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def setting(self, key: str, default: Any = None) -> Any:
        """A store setting (JSON value), or ``default`` when unset."""
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return default if row is None else json.loads(row[0])

    def set_setting(self, key: str, value: Any) -> None:
        """Set a store setting (any JSON-serialisable value)."""
        with self.writing() as conn:
            conn.execute(
                "INSERT INTO settings(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, json.dumps(value)],
            )

    def grade_scale(self) -> list[GradeLevel]:
        """The grades assessors can give, with their keys and names (default 0-3)."""
        stored = self.setting("grade_scale")
        if stored is None:
            return list(DEFAULT_GRADE_SCALE)
        return [GradeLevel(int(g), str(k), str(n)) for g, k, n in stored]

    def set_grade_scale(self, scale: list[GradeLevel]) -> None:
        """Replace the grade scale.

        :raises StoreError: see :func:`check_grade_scale`. A key that a judging
            command uses is refused by ``pooltool grades set`` and when the
            judging app starts (the store does not know the app's keys).
        """
        scale = [GradeLevel(*level) for level in scale]
        check_grade_scale(scale)
        self.set_setting("grade_scale", [list(level) for level in scale])


def check_grade_scale(scale: list[GradeLevel]) -> None:
    """Refuse a grade scale that cannot be used.

    A scale needs at least one grade; grades are distinct integers >= 0 (a
    negative grade is "unjudged" to trec_eval and to the judging queue, so a
    document given it would never leave the queue); keys are distinct single
    printable, non-space characters.

    :raises StoreError: with the reason.
    """
    if not scale:
        raise InvalidArgument("a grade scale needs at least one grade")
    grades = [level.grade for level in scale]
    if any(isinstance(g, bool) or not isinstance(g, int) for g in grades):
        raise InvalidArgument("grades must be integers")
    if len(set(grades)) != len(grades):
        raise InvalidArgument("a grade scale needs distinct grades")
    negative = [str(g) for g in grades if g < 0]
    if negative:
        raise InvalidArgument(f"negative grade(s) {', '.join(negative)}: trec_eval reads a negative "
                         "grade as unjudged, so the document would stay in the judging queue; "
                         "use grades >= 0")
    keys = [level.key for level in scale]
    bad = [k for k in keys if not isinstance(k, str) or len(k) != 1 or not k.isprintable()
           or k.isspace()]
    if bad:
        raise InvalidArgument(f"grade keys must be single printable characters, not "
                         f"{', '.join(map(repr, bad))}")
    if len(set(keys)) != len(keys):
        raise InvalidArgument("a grade scale needs distinct keys")



__all__ = ["DEFAULT_GRADE_SCALE", "GradeLevel", "SettingsTable", "check_grade_scale"]
