"""Webber and Park's correction of pool bias for any measure, and its validation.

Webber and Park 2009, "Score adjustment for correction of pooling bias" (SIGIR): the
drop :math:`\\delta_p = M(p, Q) - M(p, Q_{\\setminus p})` each pooled run p suffers
when left out of the pool is the bias a run outside the pool suffers, and a new
run's corrected score is :math:`M(s, Q) + \\frac{1}{|R_p|} \\sum_p \\delta_p`. Nothing
in it depends on the measure, so it is offered here for every measure of
:mod:`pooltool.analysis.measure_bias` (``map``, ``ndcg_cut.10``, ``nDCG@10``,
``bpref`` ...), the drops measured by re-scoring each run whole on the reduced qrels.
P@k and Recall@k keep :func:`pooltool.analysis.bias_correction.corrected_scores`,
which also offers the estimators defined for those two only.

Validation as there: each pooled group is left out in turn, its unique judgments
removed, the shift fitted on the other groups alone (their own leave-one-out under
the reduced qrels) and the group's corrected scores compared with their full-qrels
scores (:meth:`~pooltool.analysis.bias_correction.Corrected.overall`: MAE, Kendall's
tau-b, tau_ap). A corrected score outside 0..1 is clipped, as there; ``utility``,
the one mean measure that is not a fraction, is refused.
"""

from __future__ import annotations

import pandas as pd

from pooltool.analysis.bias import (
    contributors,
    pair_owners,
    qrels_without_owner,
    top_ranks,
    unique_pairs,
)
from pooltool.analysis.bias_correction import Corrected, clipped_and_ranked
from pooltool.analysis.measure_bias import leave_one_out_measure
from pooltool.errors import PooltoolError
from pooltool.measures.topic_scores import one_measure, ranked_lines, topic_scores


def corrected_measure(runs: pd.DataFrame, qrels: pd.DataFrame, new_runs: pd.DataFrame | None,
                      depth: int, measure: str, level: int = 1,
                      groups: dict[str, str] | None = None, complete: bool = False) -> Corrected:
    """Webber-Park corrected ``measure`` of every pooled run under leave-one-out (the
    validation) and of every new run.

    :param runs: the pooled runs' lines, whole (``run_tag, topic, docno, score``).
    :param qrels: ``topic, docno, grade`` (the full qrels).
    :param new_runs: lines of runs outside the pool, or None.
    :param depth: the pool depth D.
    :param measure: one mean measure, trec_eval's or ir_measures' spelling.
    :param groups: run tag -> group (left out together); default: each run alone.
    :returns: a :class:`~pooltool.analysis.bias_correction.Corrected` whose columns are
        ``score_plain``, ``score_corrected``, ``score_full`` and ``label`` the measure.
    :raises InvalidArgument: the measure is unknown, gives several values or is not a mean.
    :raises PooltoolError: ``utility``; fewer than three pooled groups; bad input as
        :func:`~pooltool.analysis.measure_bias.leave_one_out_measure`.
    """
    request = one_measure(measure)
    if request.measure.name == "utility":
        raise PooltoolError(f"webber-park clips corrected scores to 0..1; {measure!r} is not a "
                            "fraction of 0..1")
    # ordered once for every evaluation of the validation (its inner leave-one-outs too)
    lines = ranked_lines(runs)
    pool = top_ranks(lines[["run_tag", "topic", "docno", "score"]], depth)
    group_of = contributors(pool, qrels, level, groups)
    if len(set(group_of.values())) < 3:
        raise PooltoolError("corrected scores under leave-one-out need at least three pooled "
                            "runs (or groups): each is left out and fitted on the others")
    unique = unique_pairs(pool, depth, group_of, qrels)
    full = topic_scores(lines, qrels, measure, level, complete,
                        ranked=True).summary.set_index("run_tag")
    owners = pair_owners(qrels, unique)
    rows = []
    for group in dict.fromkeys(group_of.values()):
        mine = [tag for tag, owner in group_of.items() if owner == group]
        reduced = qrels_without_owner(qrels, owners, group)
        others = {tag: owner for tag, owner in group_of.items() if owner != group}
        # the others' pool is their rows of the pool (order_run orders each run alone)
        shift = _mean_drop(lines[lines["run_tag"].isin(list(others))], reduced, depth, measure,
                           level, others, complete,
                           pool[pool["run_tag"].isin(list(others))].reset_index(drop=True))
        rows += _rows(lines[lines["run_tag"].isin(mine)], reduced, measure, level, complete,
                      shift, "left out", full["value"])
    if new_runs is not None and len(new_runs):
        shift = _mean_drop(lines, qrels, depth, measure, level, group_of, complete, pool)
        rows += _rows(ranked_lines(new_runs), qrels, measure, level, complete, shift, "new",
                      None)
    return clipped_and_ranked(pd.DataFrame(rows), "webber-park", "score", 0, label=measure)


def _mean_drop(lines: pd.DataFrame, qrels: pd.DataFrame, depth: int, measure: str, level: int,
               group_of: dict[str, str], complete: bool, pool: pd.DataFrame) -> float:
    """The pooled runs' mean leave-one-out drop: Webber and Park's shift (``pool``: the
    lines' top ``depth`` per topic, :func:`~pooltool.analysis.bias.top_ranks`'s)."""
    fitted = leave_one_out_measure(lines, qrels, depth, measure, level, group_of, complete,
                                   pool)
    return float(fitted.per_run["drop"].mean())


def _rows(lines: pd.DataFrame, qrels: pd.DataFrame, measure: str, level: int, complete: bool,
          shift: float, scored_as: str, full: pd.Series | None) -> list[dict[str, object]]:
    """One row per run of ``lines`` (which carry their ``trec_rank``, :func:`ranked_lines`):
    its plain, corrected (plain + ``shift``) and full-qrels score."""
    scores = topic_scores(lines, qrels, measure, level, complete, ranked=True).summary
    return [{"run_tag": row.run_tag, "scored_as": scored_as, "unjudged": float(row.unjudged),
             "score_plain": float(row.value), "score_corrected": float(row.value) + shift,
             "score_full": float(full[row.run_tag]) if full is not None else float("nan")}
            for row in scores.itertuples(index=False)]
