"""The measure registry: every trec_eval 10.0 measure pooltool computes, one definition each.

Each :class:`TrecMeasure` names its trec_eval family, its kind of parameters and
defaults (:mod:`pooltool.measures.trec.params`), the function computing its per-topic
values, how the ``all`` line combines topics, and the ``m_*.c`` file that defines it.
:data:`MEASURES` is in the order of trec_eval's table ``te_trec_measures``
(``measures.c``), which is the order trec_eval prints, whatever order ``-m`` names
them in. :data:`NICKNAMES` holds ``all_trec``, ``official`` and ``set``.

ir_measures' spellings (``nDCG@10``, ``AP``, ``P(rel=2)@10``) map onto the same
definitions in :mod:`pooltool.measures.trec.names`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pooltool.measures.trec import (
    average_precision,
    bpref,
    counts,
    interpolated,
    ndcg,
    normalized_gain,
    precision,
    rank,
    rbp,
    recall,
    set_based,
)
from pooltool.measures.trec.ranked import Options, Ranked

#: Per-topic values of a batch of topics: float64 ``(T, names)``, or one str per topic.
Compute = Callable[[Ranked, tuple, Options], "np.ndarray | list[str]"]  # type: ignore[type-arg]

#: How the ``all`` line combines the per-topic values.
SUMMARIES = ("mean", "sum", "geometric", "num_q", "num_rel", "runid", "none")

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure family.

    :ivar name: trec_eval's name (``ndcg_cut``).
    :ivar kind: its parameters' kind (``cut_long``, ``cut_double``, ``double``,
        ``pair``, ``none``).
    :ivar default: the default parameter values.
    :ivar compute: per-topic values of a batch, one column per printed name (one ``str``
        per topic for relstring).
    :ivar summary: how the ``all`` line is formed (:data:`SUMMARIES`).
    :ivar integer: printed as an integer (``%ld``), else ``%6.4f``.
    :ivar per_topic: printed per topic under ``-q``.
    :ivar source: the trec_eval file defining it.
    """

    name: str
    kind: str
    default: tuple[object, ...]
    compute: Compute
    summary: str
    source: str
    integer: bool = False
    per_topic: bool = True


def _m(name: str, compute: Compute, source: str, kind: str = "none",
       default: tuple[object, ...] = (), summary: str = "mean", **flags: bool) -> TrecMeasure:
    return TrecMeasure(name, kind, default, compute, summary, source, **flags)


MEASURES: tuple[TrecMeasure, ...] = (
    _m("runid", counts.nothing, "m_runid.c", summary="runid", per_topic=False),
    _m("num_q", counts.one, "m_num_q.c", summary="num_q", integer=True, per_topic=False),
    _m("num_ret", counts.num_ret, "m_num_ret.c", summary="sum", integer=True),
    _m("num_rel", counts.num_rel, "m_num_rel.c", summary="num_rel", integer=True),
    _m("num_rel_ret", counts.num_rel_ret, "m_num_rel_ret.c", summary="sum", integer=True),
    _m("map", average_precision.average_precision, "m_map.c"),
    _m("gm_map", average_precision.log_average_precision, "m_gm_map.c", summary="geometric",
       per_topic=False),
    _m("Rprec", precision.r_precision, "m_Rprec.c"),
    _m("bpref", bpref.bpref, "m_bpref.c"),
    _m("recip_rank", rank.reciprocal_rank, "m_recip_rank.c"),
    _m("iprec_at_recall", interpolated.interpolated_precision, "m_iprec_at_recall.c",
       "cut_double", _RECALL_POINTS),
    _m("P", precision.precision, "m_P.c", "cut_long", _CUTS),
    _m("relstring", rank.relstring, "m_relstring.c", "double", (10.0,), summary="none"),
    _m("recall", recall.recall, "m_recall.c", "cut_long", _CUTS),
    _m("infAP", average_precision.inferred_average_precision, "m_infap.c"),
    _m("gm_bpref", bpref.log_bpref, "m_gm_bpref.c", summary="geometric", per_topic=False),
    _m("Rprec_mult", precision.r_precision_mult, "m_Rprec_mult.c", "cut_double",
       (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    _m("utility", set_based.utility, "m_utility.c", "double", (1.0, -1.0, 0.0, 0.0)),
    _m("11pt_avg", interpolated.eleven_point_average, "m_11pt_avg.c", "double", _RECALL_POINTS),
    _m("binG", normalized_gain.binary_gain, "m_binG.c"),
    _m("G", normalized_gain.gain, "m_G.c", "pair"),
    _m("dcg", ndcg.dcg, "m_ndcg.c", "pair"),
    _m("ideal_dcg", ndcg.ideal_dcg, "m_ndcg.c", "pair"),
    _m("ndcg", ndcg.ndcg, "m_ndcg.c", "pair"),
    _m("ndcg_rel", ndcg.ndcg_rel, "m_ndcg_rel.c", "pair"),
    _m("Rndcg", ndcg.r_ndcg, "m_Rndcg.c", "pair"),
    _m("ndcg_cut", ndcg.ndcg_cut, "m_ndcg_cut.c", "cut_long", _CUTS),
    _m("map_cut", average_precision.average_precision_cut, "m_map_cut.c", "cut_long", _CUTS),
    _m("relative_P", precision.relative_precision, "m_rel_P.c", "cut_long", _CUTS),
    _m("success", precision.success, "m_success.c", "cut_long", (1, 5, 10)),
    _m("set_P", set_based.set_precision, "m_set_P.c"),
    _m("set_relative_P", set_based.set_relative_precision, "m_set_rel_P.c"),
    _m("set_recall", set_based.set_recall, "m_set_recall.c"),
    _m("set_map", set_based.set_map, "m_set_map.c"),
    _m("set_F", set_based.set_f, "m_set_F.c", "double", (1.0,)),
    _m("num_nonrel_judged_ret", counts.num_nonrel_judged_ret, "m_num_nonrel_judged_ret.c",
       summary="sum", integer=True),
    _m("rbp", rbp.rbp, "m_rbp.c", "pair"),
    _m("rbp_resid", rbp.rbp_residual, "m_rbp_resid.c", "pair"),
    _m("unj", rank.unjudged, "m_unjudged.c", "cut_long", (5, 10, 20)),
    # not trec_eval's: ir_measures' Judged@k, after every trec_eval measure
    _m("judged", rank.judged, "ir_measures providers/judged_provider.py", "cut_long", (10,)),
)

BY_NAME: dict[str, TrecMeasure] = {m.name: m for m in MEASURES}

#: trec_eval's nicknames (``measures.c``); ``all_trec`` is every measure above but
#: ``dcg``, ``ideal_dcg`` and pooltool's ``judged``.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "all_trec": tuple(m.name for m in MEASURES if m.name not in ("dcg", "ideal_dcg", "judged")),
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
}
