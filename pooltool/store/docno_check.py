"""Docnos of an input (a qrels file, a run file) that the store's documents lack.

With documents in the store (``add-docs``), a qrels or run naming docnos no stored
document has is almost always a corpus-version or id mismatch (``zz-404``, or ``A``
where the collection has ``a``): imports name them on stderr, the count, the first few
and each one's nearest case-insensitive match, as they name unknown topics
(:mod:`pooltool.store.topic_check`); with ``strict_docs`` they refuse the input. A store
without documents checks nothing (runs and qrels are often imported before, or without,
the collection).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pooltool.errors import UnknownDocnos
from pooltool.store.engine import Engine

SHOWN = 5
"""How many unknown docnos a message lists before "... (N more)"."""

_BATCH = 500  # docnos per IN (...) look-up: well under SQLite's and psycopg's limits


@dataclass(frozen=True)
class MissingDocnos:
    """The docnos of one input that the store (which holds documents) lacks.

    :ivar source: the input, as messages name it (a file path).
    :ivar docnos: the unknown docnos, in string order.
    :ivar likely: for the first :data:`SHOWN` of them, a stored docno equal to it but
        for case.
    """

    source: str
    docnos: list[str]
    likely: dict[str, str] = field(default_factory=dict)

    def message(self) -> str:
        """``SOURCE: N docno(s) not among the store's documents: A (likely a), zz-404``."""
        listed = [f"{d!r} (likely {self.likely[d]!r})" if d in self.likely else repr(d)
                  for d in self.docnos[:SHOWN]]
        more = f", ... ({len(self.docnos) - SHOWN} more)" if len(self.docnos) > SHOWN else ""
        return (f"{self.source}: {len(self.docnos)} docno(s) not among the store's documents "
                f"(another corpus version or id scheme?): {', '.join(listed)}{more}")


OnMissingDocnos = Callable[[MissingDocnos], None]
"""Called after an import with the unknown docnos of each input that has some."""


def find_missing_docnos(conn: Engine, docnos: Iterable[str], source: str) -> MissingDocnos | None:
    """The docnos among ``docnos`` that no stored document has.

    :returns: ``None`` when every docno is stored, or when the store holds no
        documents at all (then there is nothing to check against).
    """
    if conn.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is None:
        return None
    wanted = sorted(set(docnos))
    stored: set[str] = set()
    for start in range(0, len(wanted), _BATCH):
        batch = wanted[start:start + _BATCH]
        marks = ", ".join("?" * len(batch))
        stored.update(row[0] for row in conn.execute(
            f"SELECT docno FROM documents WHERE docno IN ({marks})", batch))
    missing = [docno for docno in wanted if docno not in stored]
    if not missing:
        return None
    return MissingDocnos(source, missing, _case_matches(conn, missing[:SHOWN]))


def _case_matches(conn: Engine, docnos: list[str]) -> dict[str, str]:
    """A stored docno equal to each of ``docnos`` but for case (one scan of documents)."""
    lowered = {docno.lower(): docno for docno in docnos}
    marks = ", ".join("?" * len(lowered))
    found: dict[str, str] = {}
    for (stored,) in conn.execute(
            f"SELECT docno FROM documents WHERE lower(docno) IN ({marks}) ORDER BY docno",
            list(lowered)):
        found.setdefault(lowered[stored.lower()], stored)
    return found


def check_docnos(conn: Engine, docnos: Iterable[str], source: str,
                 strict: bool) -> MissingDocnos | None:
    """:func:`find_missing_docnos`, refusing them when ``strict``.

    :raises UnknownDocnos: ``strict`` and some docnos are not stored; the message names
        them and says that nothing was imported (call it inside the import's
        transaction, so that this is true).
    """
    found = find_missing_docnos(conn, docnos, source)
    if found is not None and strict:
        raise UnknownDocnos(f"{found.message()}; nothing was imported")
    return found


__all__ = ["MissingDocnos", "OnMissingDocnos", "check_docnos", "find_missing_docnos"]
