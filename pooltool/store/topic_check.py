"""Topic ids of an input (a run file, a qrels file) that the store does not hold.

Imports name them (``999``, or ``07`` where the store has ``7``) so that a typo
or a zero-padded id does not slip into the pool and the status silently; with
``strict_topics`` they refuse the input. A store without topics checks nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pooltool.errors import UnknownTopic
from pooltool.records import topic_key
from pooltool.store.engine import Engine

SHOWN = 5
"""How many unknown topic ids a message lists before "... (N more)"."""


@dataclass(frozen=True)
class UnknownTopics:
    """The topic ids of one input that the store (which holds topics) does not hold.

    :ivar source: the input, as messages name it (a file path).
    :ivar topics: the unknown ids, numeric ids in numeric order, then the rest.
    :ivar likely: for an unknown id that is a stored id written with other
        leading zeros (``07`` for ``7``, ``7`` for ``07``), that stored id.
    """

    source: str
    topics: list[str]
    likely: dict[str, str] = field(default_factory=dict)

    def message(self) -> str:
        """``SOURCE: N topic(s) not in the store: 07 (likely 7), 999``, listing the
        first :data:`SHOWN` ids."""
        listed = [f"{t} (likely {self.likely[t]})" if t in self.likely else t
                  for t in self.topics[:SHOWN]]
        more = f", ... ({len(self.topics) - SHOWN} more)" if len(self.topics) > SHOWN else ""
        return (f"{self.source}: {len(self.topics)} topic(s) not in the store: "
                f"{', '.join(listed)}{more}")


OnUnknownTopics = Callable[[UnknownTopics], None]
"""Called after an import with the unknown topics of each input that has some."""


def find_unknown_topics(conn: Engine, topics: Iterable[str],
                        source: str) -> UnknownTopics | None:
    """The ids among ``topics`` that the store's ``topics`` table lacks.

    :returns: ``None`` when every id is known, or when the store holds no
        topics at all (then there is nothing to check against).
    """
    known = sorted((row[0] for row in conn.execute("SELECT topic FROM topics")), key=topic_key)
    if not known:
        return None
    unknown = sorted(set(topics) - set(known), key=topic_key)
    if not unknown:
        return None
    by_number: dict[str, str] = {}
    for topic in known:
        if topic.isdigit():
            by_number.setdefault(str(int(topic)), topic)
    likely = {t: by_number[str(int(t))] for t in unknown
              if t.isdigit() and str(int(t)) in by_number}
    return UnknownTopics(source, unknown, likely)


def check_topics(conn: Engine, topics: Iterable[str], source: str,
                 strict: bool) -> UnknownTopics | None:
    """:func:`find_unknown_topics`, refusing them when ``strict``.

    :raises UnknownTopic: ``strict`` and some ids are unknown; the message
        names them and says that nothing was imported (call it inside the
        import's transaction, so that this is true).
    """
    found = find_unknown_topics(conn, topics, source)
    if found is not None and strict:
        raise UnknownTopic(f"{found.message()}; nothing was imported")
    return found
