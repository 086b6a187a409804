"""ir_measures' spellings (``nDCG@10``, ``AP@100``, ``P(rel=2)@10``, ``RBP(p=0.8)``) of
the registry's measures, read with ``ir_measures.parse_measure`` (ir_measures 0.4.x).

Each maps onto one trec_eval definition (:mod:`pooltool.measures.trec.registry`),
which is the one computed:

==========================  ==========================  ======================================
ir_measures                 trec_eval                   note
==========================  ==========================  ======================================
``nDCG``, ``nDCG@k``        ``ndcg``, ``ndcg_cut.k``    ``gains=`` only without a cutoff
``AP``, ``AP@k``            ``map``, ``map_cut.k``
``P@k``, ``P``              ``P.k``, ``set_P``
``R@k``, ``R``              ``recall.k``, ``set_recall``
``RR``                      ``recip_rank``              no cutoff (trec_eval has none)
``RBP(p=x)``                ``rbp.p=x``                 ``RBP`` alone: p = 0.8, ir_measures'
                                                        default (trec_eval's is 0.9); gains
                                                        are trec_eval's graded ones
``Bpref``, ``infAP``        ``bpref``, ``infAP``
``Rprec``                   ``Rprec``
``Success@k``               ``success.k``
``IPrec@x``                 ``iprec_at_recall.x``
``SetP``, ``SetP(relative``  ``set_P``,                   ``relative=True``
``=True)``, ``SetR``,       ``set_relative_P``,
``SetF(beta=b)``, ``SetAP``  ``set_recall``,
                            ``set_F.b``, ``set_map``
``NumQ``, ``NumRet``,       ``num_q``, ``num_ret``,
``NumRel``, ``NumRelRet``   ``num_rel``, ``num_rel_ret``
``Judged@k``                ``judged.k`` (pooltool's)   ir_measures' definition
==========================  ==========================  ======================================

``rel=r`` sets that measure's own relevance level (trec_eval has only the global
``-l``); ``judged_only=True`` is refused (use ``-J``, which applies to every measure),
as are ir_measures measures trec_eval does not have (``ERR``, ``Compat``, ...).
"""

from __future__ import annotations

from typing import Any

from pooltool.errors import InvalidArgument
from pooltool.measures.trec.registry import BY_NAME
from pooltool.measures.trec.select import Request, request

#: ir_measures name -> (trec_eval name without a cutoff, with a cutoff ``.k``).
_PLAIN: dict[str, tuple[str | None, str | None]] = {
    "nDCG": ("ndcg", "ndcg_cut"), "AP": ("map", "map_cut"), "P": ("set_P", "P"),
    "R": ("set_recall", "recall"), "RR": ("recip_rank", None), "Bpref": ("bpref", None),
    "infAP": ("infAP", None), "Rprec": ("Rprec", None), "Success": (None, "success"),
    "SetR": ("set_recall", None), "SetAP": ("set_map", None), "NumQ": ("num_q", None),
    "NumRel": ("num_rel", None), "Judged": (None, "judged"), "RBP": ("rbp", None),
    "SetP": ("set_P", None), "SetF": ("set_F", None), "IPrec": (None, None),
    "NumRet": ("num_ret", None),
}


def from_ir_measures(spec: str) -> list[Request]:
    """The request an ir_measures measure string stands for.

    :raises InvalidArgument: not a measure of either tool, or one (or a parameter)
        with no trec_eval definition.
    """
    import ir_measures

    try:
        measure = ir_measures.parse_measure(spec)
    except (NameError, ValueError, SyntaxError, TypeError) as error:
        raise InvalidArgument(f"unknown measure {spec!r} (neither trec_eval's nor "
                              f"ir_measures': {error})") from None
    name, params = measure.NAME, dict(measure.params)
    if name not in _PLAIN:
        raise InvalidArgument(f"measure {spec!r}: ir_measures' {name} has no trec_eval "
                              "definition in pooltool")
    if params.pop("judged_only", False):
        raise InvalidArgument(f"measure {spec!r}: judged_only is not per measure here; "
                              "use -J (every measure)")
    level = params.pop("rel", None)
    if name == "NumRet" and level is not None:  # ir_measures' NumRelRet is NumRet(rel=1)
        return [request(BY_NAME["num_rel_ret"], None, int(level), (spec,))]
    trec, text = _trec(spec, name, params)
    return [request(BY_NAME[trec], text, None if level is None else int(level), (spec,))]


def _trec(spec: str, name: str, params: dict[str, Any]) -> tuple[str, str | None]:
    """The trec_eval name and parameter text of an ir_measures measure's parameters."""
    plain, cut = _PLAIN[name]
    cutoff = params.pop("cutoff", None)
    if name == "IPrec":
        return "iprec_at_recall", str(params.pop("recall"))
    if name == "RBP":
        _refuse(spec, params, {"p"})
        if cutoff is not None:
            raise InvalidArgument(f"measure {spec!r}: trec_eval's rbp has no cutoff")
        return "rbp", f"p={params.get('p', 0.8)}"
    if name == "SetP" and params.pop("relative", False):
        plain = "set_relative_P"
    if name == "SetF":
        beta = params.pop("beta", None)
        _refuse(spec, params, set())
        return "set_F", None if beta is None else str(beta)
    if name == "nDCG":
        if params.pop("dcg", "log2") != "log2":
            raise InvalidArgument(f"measure {spec!r}: trec_eval's ndcg discounts by log2 only")
        gains = params.pop("gains", None)
        if gains is not None:
            if cutoff is not None:
                raise InvalidArgument(f"measure {spec!r}: trec_eval's ndcg_cut takes no gains")
            return "ndcg", ",".join(f"{g}={v}" for g, v in sorted(gains.items()))
    _refuse(spec, params, set())
    chosen = cut if cutoff is not None else plain
    if chosen is None:
        raise InvalidArgument(f"measure {spec!r}: no trec_eval measure "
                              f"{'with' if cutoff is not None else 'without'} a cutoff")
    return chosen, None if cutoff is None else str(cutoff)


def _refuse(spec: str, params: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(params) - allowed)
    if extra:
        raise InvalidArgument(f"measure {spec!r}: parameter {extra[0]} has no trec_eval "
                              "counterpart")
