"""JSON documents of the commands' results: the one place each is built (the report
layer, above measures and analysis; the CLI only writes them).

One function per schema of ``schemas/``: :func:`recall_document` (``recall-v1``),
:func:`eval_document` (``eval-v1``),
:func:`bias_document` (``bias-v1``), :func:`bias_correction_document`
(``bias-correction-v1``), :func:`impact_document` (``impact-v1``) and
:func:`simulate_document` (``simulate-v1``) and :func:`compare_document`
(``compare-v1``). Analysis types are imported for
typing only: ``recall`` on files loads neither pandas nor the analysis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pooltool.measures.recall import RecallResult
from pooltool.report import records

if TYPE_CHECKING:
    import pandas as pd

    from pooltool.analysis.bias import BiasResult, NewRunReport
    from pooltool.analysis.bias_correction import Corrected
    from pooltool.analysis.comparison import Comparison
    from pooltool.analysis.impact import ImpactResult
    from pooltool.analysis.measure_bias import MeasureBias
    from pooltool.analysis.measure_impact import MeasureImpact
    from pooltool.analysis.simulation import SimulationResult
    from pooltool.measures.trec import EvalResult

SCHEMA_ID = "recall-v1"
BIAS_SCHEMA = "bias-v1"
BIAS_CORRECTION_SCHEMA = "bias-correction-v1"
IMPACT_SCHEMA = "impact-v1"
SIMULATE_SCHEMA = "simulate-v1"
EVAL_SCHEMA = "eval-v1"
COMPARE_SCHEMA = "compare-v1"
SCHEMAS = (SCHEMA_ID, BIAS_SCHEMA, BIAS_CORRECTION_SCHEMA, IMPACT_SCHEMA, SIMULATE_SCHEMA,
           EVAL_SCHEMA, COMPARE_SCHEMA)
"""Every schema a document of this module names (``schemas/NAME.json``)."""

SIMULATE_NOTE = ("documents without a qrels line count as non-relevant (the qrels stand for "
                 "complete judgments, as in the literature)")


def recall_document(
    result: RecallResult, per_topic: bool = False, qrels_source: str | None = None
) -> dict[str, Any]:
    """The JSON-ready document ``pooltool recall --format json`` writes.

    :param result: what :func:`~pooltool.measures.recall.evaluate_recall` returned.
    :param per_topic: include the ``per_topic`` rows (``-q``).
    :param qrels_source: where the qrels came from (a path or ``version:NAME``).
    :returns: a dict with ``schema``, ``options``, ``qrels``, ``runs`` (tags
        with their missing and ignored topics), ``summary`` (one object per
        run x k, the columns of :attr:`RecallResult.summary`) and, with
        ``per_topic``, ``per_topic`` (one object per run x topic, the columns
        of :attr:`RecallResult.per_topic`). NaN becomes ``null``.
    """
    options = result.options
    document: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "options": {
            "ks": list(options.ks),
            "level": options.level,
            "complete": options.complete,
            "max_docs": options.max_docs,
        },
        "qrels": {
            "source": qrels_source,
            "topics": result.qrels_topics,
            "positive_lines": result.positive_lines,
        },
        "runs": [
            {
                "run_tag": tag,
                "missing_topics": result.missing_topics[tag],
                "ignored_topics": result.ignored_topics[tag],
            }
            for tag in result.run_tags
        ],
        "summary": records(result.summary_columns),
    }
    if per_topic:
        document["per_topic"] = records(result.per_topic_columns)
    return document


def bias_document(result: BiasResult, report: NewRunReport | None,
                  options: dict[str, Any]) -> dict[str, Any]:
    """The document ``pooltool bias --format json`` writes (``bias-v1``).

    :param result: what :func:`~pooltool.analysis.bias.leave_one_out` returned.
    :param report: the runs that did not contribute
        (:func:`~pooltool.analysis.bias.new_run_exposure`), or ``None``.
    :param options: the command's options, written as given.
    """
    return {"schema": BIAS_SCHEMA, "options": options, "overall": result.overall(),
            "per_run": records(result.per_run),
            "new_runs": records(report.per_run) if report is not None else []}


def measure_bias_document(result: MeasureBias, new_runs: pd.DataFrame,
                          options: dict[str, Any]) -> dict[str, Any]:
    """The document ``pooltool bias -m MEASURE --format json`` writes (``bias-v1``, its
    measure form: ``options.measure``, ``overall.measure``, and rows with ``score``).

    :param result: what :func:`~pooltool.analysis.measure_bias.leave_one_out_measure`
        returned.
    :param new_runs: :func:`~pooltool.analysis.measure_bias.new_run_scores`' rows (may
        be empty).
    :param options: the command's options, written as given.
    """
    return {"schema": BIAS_SCHEMA, "options": options, "overall": result.overall(),
            "per_run": records(result.per_run), "new_runs": records(new_runs)}


def bias_correction_document(result: Corrected, options: dict[str, Any]) -> dict[str, Any]:
    """The document ``pooltool bias --correct METHOD --format json`` writes
    (``bias-correction-v1``); ``result`` is what
    :func:`~pooltool.analysis.bias_correction.corrected_scores` returned."""
    return {"schema": BIAS_CORRECTION_SCHEMA, "options": options, "overall": result.overall(),
            "per_run": records(result.per_run)}


def impact_document(result: ImpactResult, source_a: str, source_b: str,
                    shared: ImpactResult | None = None) -> dict[str, Any]:
    """The document ``pooltool impact --format json`` writes (``impact-v1``).

    :param result: what :func:`~pooltool.analysis.impact.qrels_impact` returned.
    :param source_a: how qrels A was named (``--from``); ``source_b`` likewise.
    :param shared: the impact on the documents judged in both (or ``None``).
    """
    return {
        "schema": IMPACT_SCHEMA,
        "from": source_a,
        "to": source_b,
        "options": {"k": result.k, "level": result.level, "complete": result.complete,
                    "top": result.top},
        "runs": records(result.per_run),
        "ranking": _ranking(result),
        "ranking_both_judged": _ranking(shared) if shared is not None else None,
        "topics_moved": records(result.topics_moved),
        "topics_overall": records(result.topics_overall),
        "topics_only": {"a": result.topics_only_a, "b": result.topics_only_b},
        "missing_topics": {"a": result.recall_a.missing_topics,
                           "b": result.recall_b.missing_topics},
    }


def measure_impact_document(result: MeasureImpact, source_a: str, source_b: str,
                            shared: MeasureImpact | None = None) -> dict[str, Any]:
    """The document ``pooltool impact -m MEASURE --format json`` writes (``impact-v1``, its
    measure form: ``options.measure``, rows with ``score_a``, ``score_b``, ...).

    :param result: what :func:`~pooltool.analysis.measure_impact.measure_impact` returned.
    :param shared: the impact on the documents judged in both (or ``None``).
    """
    return {
        "schema": IMPACT_SCHEMA, "from": source_a, "to": source_b,
        "options": {"measure": result.measure, "level": result.level,
                    "complete": result.complete, "top": result.top},
        "runs": records(result.per_run),
        "ranking": _ranking(result, result.measure),
        "ranking_both_judged": _ranking(shared, result.measure) if shared is not None else None,
        "topics_moved": records(result.topics_moved),
        "topics_overall": records(result.topics_overall),
        "topics_only": {"a": result.topics_only_a, "b": result.topics_only_b},
        "missing_topics": {"a": result.scores_a.missing, "b": result.scores_b.missing},
    }


def _ranking(result: ImpactResult | MeasureImpact, measure: str | None = None) -> dict[str, Any]:
    ranking = result.ranking
    moved = ranking.ranks["rank_change"].abs() == ranking.largest_rank_change
    return {
        "measure": measure or f"recall@{result.k}",  # type: ignore[union-attr]
        "kendall_tau": _number(ranking.kendall_tau),
        "tau_ap": _number(ranking.tau_ap),
        "largest_rank_change": ranking.largest_rank_change,
        "largest_rank_change_runs": [str(t) for t in ranking.ranks.loc[moved, "run_tag"]]
        if ranking.largest_rank_change else [],
        "sum_rank_change": ranking.sum_rank_change,
    }


def _number(value: float) -> float | None:
    return None if value != value else float(value)  # NaN -> null


def simulate_document(result: SimulationResult, qrels_source: str, budgets: Sequence[int],
                      strategies: Sequence[str], per_topic: bool = False,
                      measure: str | None = None) -> dict[str, Any]:
    """The document ``pooltool simulate --format json`` writes (``simulate-v1``).

    :param result: what :func:`~pooltool.analysis.simulation.simulate` returned.
    :param qrels_source: how the complete qrels were named (``--qrels``).
    :param budgets: the budgets replayed; ``strategies``: their labels.
    :param per_topic: fill ``per_topic`` (``-q``; otherwise it is empty).
    :param measure: ``-m MEASURE`` as given, when the bias of a measure was asked for.
    """
    return {"schema": SIMULATE_SCHEMA, "note": SIMULATE_NOTE,
            "options": {"qrels": qrels_source, "budgets": list(budgets), "k": result.k,
                        "level": result.level, "strategies": list(strategies),
                        "topics": len(result.topics),
                        **({"measure": measure} if measure is not None else {})},
            "summary": records(result.summary), "per_run": records(result.per_run),
            "per_topic": records(result.per_topic) if per_topic else []}


def eval_document(result: EvalResult, per_topic: bool = False, qrels_source: str | None = None,
                  summary: bool = True) -> dict[str, Any]:
    """The JSON-ready document ``pooltool eval --format json`` writes (``eval-v1``).

    :param result: what :func:`pooltool.measures.trec.evaluate_files` (or its siblings)
        returned.
    :param per_topic: include the per-topic rows (``-q``).
    :param qrels_source: where the qrels came from (a path or ``version:NAME``).
    :param summary: include the ``all`` rows (``False`` for ``-n``).
    :returns: a dict with ``schema``, ``options``, ``qrels``, ``runs`` (tags with their
        missing and ignored topics) and ``rows``: one object per run x topic x measure
        value in the long shape of :mod:`pooltool.measures.trec.shapes` (``topic`` is
        ``all`` for a summary row; ``low``/``high`` are null).
    """
    from pooltool.measures.trec.shapes import long_rows

    rows = long_rows(result, per_topic)
    if not summary:
        keep = rows["topic"] != "all"
        rows = {name: column[keep] for name, column in rows.items()}
    options = result.options
    return {
        "schema": EVAL_SCHEMA,
        "options": {"measures": [name for r in result.requests for name in r.labels],
                    "level": options.level, "complete": options.complete,
                    "max_docs": options.max_docs, "judged_only": options.judged_only,
                    "num_docs": options.num_docs},
        "qrels": {"source": qrels_source},
        "runs": [{"run_tag": run.run_tag, "missing_topics": run.missing,
                  "ignored_topics": run.ignored} for run in result.runs],
        "rows": records(rows),
    }


def compare_document(result: Comparison, runs: pd.DataFrame, measure: str, qrels_source: str,
                     options: dict[str, Any]) -> dict[str, Any]:
    """The document ``pooltool compare --format json`` writes (``compare-v1``).

    :param result: what :func:`~pooltool.analysis.comparison.compare_runs` returned.
    :param runs: one row per run: ``run_tag, mean, low, high, unjudged``.
    :param measure: ``-m`` as given.
    :param qrels_source: where the qrels came from (a path or ``version:NAME``).
    :param options: the command's other options (``level``, ``complete``), as given.
    """
    return {"schema": COMPARE_SCHEMA,
            "options": {"measure": measure, "test": result.test,
                        "adjustment": result.adjustment, "alpha": result.alpha,
                        "seed": result.seed, "samples": result.samples, **options},
            "qrels": {"source": qrels_source},
            "topics": result.topics,
            "runs": records(runs), "pairs": records(result.pairs)}
