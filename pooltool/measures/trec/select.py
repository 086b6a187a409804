"""Which measures a command asks for: ``-m`` arguments in trec_eval's spelling
(``P.5,10``, ``all_trec``, ``ndcg.1=0,2=3``) or ir_measures' (``nDCG@10``, ``AP``),
turned into :class:`Request` objects in the order trec_eval prints them.

trec_eval's rules are kept: measures print in registry order whatever order ``-m``
names them in; a measure named twice takes the parameters of its first ``-m`` that has
any (``-m recall.10 -m recall.100`` gives only recall_10).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pooltool.errors import InvalidArgument
from pooltool.measures.trec.params import Params, parse, printed_names
from pooltool.measures.trec.registry import BY_NAME, MEASURES, NICKNAMES, TrecMeasure


@dataclass(frozen=True)
class Request:
    """One measure to compute.

    :ivar measure: its definition.
    :ivar params: its parameters.
    :ivar names: the names it prints, one per value (``P_5``, ``P_10``).
    :ivar level: a relevance level of its own (ir_measures' ``rel=``), else ``None``
        (the ``-l`` of the evaluation).
    :ivar labels: the names as asked for, one per value (``nDCG@10`` for an
        ir_measures spelling; the trec_eval names otherwise).
    """

    measure: TrecMeasure
    params: Params
    names: tuple[str, ...]
    level: int | None = None
    labels: tuple[str, ...] = ()


def select(specs: Sequence[str]) -> list[Request]:
    """The requests of ``-m`` arguments, in trec_eval's printing order.

    trec_eval spellings are tried first; anything else is read as an ir_measures
    measure (:func:`pooltool.measures.trec.names.from_ir_measures`).

    :param specs: the ``-m`` values; an empty sequence means ``official``.
    :raises InvalidArgument: an unknown measure or bad parameters.
    """
    from pooltool.measures.trec.names import from_ir_measures

    marked: dict[str, str | None] = {}
    extra: list[Request] = []
    for spec in specs or ["official"]:
        name, dot, text = spec.partition(".")
        if name in NICKNAMES and not dot:
            for member in NICKNAMES[name]:
                marked.setdefault(member, None)
        elif name in BY_NAME:
            if marked.get(name) is None:
                marked[name] = text if dot else None
        else:
            extra.extend(from_ir_measures(spec))
    requests = [request(m, marked[m.name]) for m in MEASURES if m.name in marked]
    return requests + [r for r in extra if r not in requests]


def request(measure: TrecMeasure, text: str | None, level: int | None = None,
            labels: tuple[str, ...] = ()) -> Request:
    """A :class:`Request` for ``measure`` with parameter text ``text`` (``None``: defaults)."""
    params = Params(measure.default) if text is None else parse(measure.name, measure.kind, text)
    names = tuple(printed_names(measure.name, measure.kind, params))
    return Request(measure, params, names, level, labels or names)


def check_known(spec: str) -> None:
    """:raises InvalidArgument: ``spec`` names no measure."""
    select([spec])


__all__ = ["InvalidArgument", "Request", "check_known", "request", "select"]
