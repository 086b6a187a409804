"""``pooltool impact``: how a change of qrels moves Recall@k (or any mean measure) and the
ranking of runs.

In Python: :func:`pooltool.analysis.impact.qrels_impact`,
:func:`pooltool.analysis.measure_impact.measure_impact`.
"""

from __future__ import annotations

from typing import Any

import click
import pandas as pd

from pooltool.cli.group import cli, level_option, output_option, plot_option, warn
from pooltool.cli.sources import load_qrels, load_runs, note_positives_only, some_topics
from pooltool.json_documents import impact_document, measure_impact_document
from pooltool.report import emit, emit_json

IMPACT_COMPACT = ["run_tag", "recall_a", "recall_b", "recall_change", "unjudged_b", "rank_a",
                  "rank_b"]


@cli.command()
@click.option("--from", "qrels_from", required=True, metavar="A",
              help="The reference qrels: a qrels file, a version name in the store, or a "
                   "policy over the store's log now (assessor:alice, prefer:alice,gpt-judge).")
@click.option("--to", "qrels_to", required=True, metavar="B",
              help="The qrels compared with A: a qrels file, a version name or a policy.")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-k", "k", default=100, show_default=True, type=click.IntRange(min=1),
              help="Cutoff of Recall@k, unjudged@k and P@k.")
@click.option("-m", "--measure", "measure", metavar="MEASURE",
              help="Any measure of 'pooltool eval -m' averaged over topics (map, ndcg_cut.10, "
                   "'nDCG@10', bpref) instead of Recall@k; -k is then unused.")
@level_option
@click.option("-c", "--complete", is_flag=True,
              help="Score qrels topics missing from a run as 0 and count them (trec_eval -c).")
@click.option("--top", default=5, show_default=True, type=click.IntRange(min=1),
              help="Topics listed per run, and over all runs, among those that moved most.")
@output_option(choices=("table", "csv", "json"))
@plot_option("Draw Recall@k under A against under B per run into FILE (.png, .svg or .pdf).")
@click.pass_context
def impact(ctx: click.Context, qrels_from: str, qrels_to: str, runs: tuple[str, ...], k: int,
           measure: str | None, level: int, complete: bool, top: int, fmt: str,
           plot: str | None) -> None:
    """How changing the qrels from A to B moves each run's Recall@k and the ranking.

    A and B are qrels files, version names in the store, or policies over
    the store's log now (assessor:NAME, prefer:A,B, latest:all: so a
    machine's judgments can be set against the people's); RUN is a run file
    or a stored run tag. Per run: Recall@k, unjudged@k and P@k under A and B,
    and its rank by Recall@k on each side; then Kendall's tau-b, tau_ap
    (Yilmaz, Aslam and Robertson 2008) and the largest rank change between
    the two rankings, on all judgments and on the documents judged in both
    (disagreement alone, without the difference in coverage); then the
    topics whose recall@k moved most. Topics follow trec_eval: only qrels
    topics count, and a topic a run lacks is left out of its mean unless -c.
    When A and B hold different topics, the topics on one side only are
    named, and each run's recall_change is split in two parts that sum to
    it: recall_change_judgments, the mean change over the topics scored
    under both A and B (what changed judgments did), and
    recall_change_topics = recall_change - recall_change_judgments, that is
    [mean under B over B's topics - mean under B over the shared topics] -
    [mean under A over A's topics - mean under A over the shared topics]
    (what the changed topic set did).
    csv writes the per-run rows only; json (schemas/impact-v1.json) has all.
    Columns NAME_a / NAME_b are under A / B, NAME_change is B minus A;
    'pooltool explain NAME' defines each.

    With -m MEASURE the same for any measure averaged over topics (map,
    ndcg_cut.10, 'nDCG@10'): columns score_a, score_b, score_change, ...;
    unjudged is the share of unjudged documents in the ranks the measure
    looks at.

    \b
    In Python: pooltool.analysis.impact.qrels_impact,
    pooltool.analysis.measure_impact.measure_impact

    \b
    Example:
      pooltool impact --from official --to round2 bm25 dense -k 100
      pooltool impact --from qrels-v1.txt --to qrels-v2.txt runs/* --top 10 --plot impact.png
      pooltool impact --from assessor:alice --to assessor:gpt-judge runs/* -k 10
    """
    from pooltool.analysis.impact import qrels_impact

    generic = measure is not None and measure != "recall"
    if generic:
        from pooltool.measures.topic_scores import one_measure

        one_measure(measure)  # type: ignore[arg-type]
        if plot:
            raise click.UsageError("--plot draws Recall@k; it does not go with -m MEASURE")
    # Recall@k's lines numbered as they are read (simulate's way: no second sort)
    frame = load_runs(ctx, runs, ranked=not generic)
    qrels_a, qrels_b = load_qrels(ctx, qrels_from), load_qrels(ctx, qrels_to)
    for spec, qrels in ((qrels_from, qrels_a), (qrels_to, qrels_b)):
        note_positives_only(ctx, qrels, level, spec)
    if generic:
        _measure_impact(frame, qrels_a, qrels_b, measure, level,  # type: ignore[arg-type]
                        complete, top, fmt, (qrels_from, qrels_to))
        return
    from pooltool.analysis.impact import first_k_lines
    from pooltool.formats.frames import check_run_frame

    # scored four times (A, B, and both on the documents judged in both): checked and
    # ordered once, then only the first k lines of each topic, all that @k reads
    check_run_frame(frame)
    ranked = first_k_lines(frame, k)
    result = qrels_impact(ranked, qrels_a, qrels_b, k, level, complete, top, ranked=True)
    shared = _both_judged_ranking(ranked, qrels_a, qrels_b, k, level, complete)
    _warn_impact_topics(result)
    _say_topics_only(result)
    if fmt == "json":
        emit_json(impact_document(result, qrels_from, qrels_to, shared))
    elif fmt == "csv":
        emit(result.per_run, fmt)
    else:
        _impact_table(result, qrels_from, qrels_to, shared)
    if plot is not None:
        from pooltool.analysis.plots import plot_impact

        click.echo(f"plot written: {plot_impact(result, plot, qrels_from, qrels_to)}", err=True)


def _measure_impact(runs: pd.DataFrame, qrels_a: pd.DataFrame, qrels_b: pd.DataFrame,
                    measure: str, level: int, complete: bool, top: int, fmt: str,
                    sources: tuple[str, str]) -> None:
    from pooltool.analysis.impact import both_judged
    from pooltool.analysis.measure_impact import measure_impact

    result = measure_impact(runs, qrels_a, qrels_b, measure, level, complete, top)
    cut_a, cut_b = both_judged(qrels_a, qrels_b)
    shared = (measure_impact(runs, cut_a, cut_b, measure, level, complete, top)
              if not cut_a.empty else None)
    for side, topics in (("A", result.topics_only_a), ("B", result.topics_only_b)):
        if topics:
            warn(f"note: {len(topics)} topic(s) only in qrels {side}: {some_topics(topics)} "
                 "(they change the means, score_change_topics, not a topic's score)")
    if fmt == "json":
        emit_json(measure_impact_document(result, *sources, shared))
    elif fmt == "csv":
        emit(result.per_run, fmt)
    else:
        emit(result.per_run, "table", title=f"{measure}: {sources[0]} -> {sources[1]} "
                                            f"(relevant: grade >= {level})")
        click.echo(_ranking_line(result, "on all judgments", measure))
        click.echo(_ranking_line(shared, "on the documents judged in both", measure)
                   if shared is not None else "on the documents judged in both: none")
        if not result.topics_moved.empty:
            emit(result.topics_moved, "table",
                 title=f"topics whose {measure} moved most (top {top} per run)")


def _both_judged_ranking(runs: pd.DataFrame, qrels_a: pd.DataFrame, qrels_b: pd.DataFrame,
                         k: int, level: int, complete: bool) -> Any:
    """The impact on the documents judged in both A and B, or None when there are none
    or a run shares no topic with them (``runs`` carry their ``trec_rank``)."""
    from pooltool.analysis.impact import both_judged, qrels_impact
    from pooltool.errors import NothingToScore

    cut_a, cut_b = both_judged(qrels_a, qrels_b)
    if cut_a.empty:
        return None
    try:
        return qrels_impact(runs, cut_a, cut_b, k, level, complete, ranked=True)
    except NothingToScore:
        return None


def _warn_impact_topics(result) -> None:  # type: ignore[no-untyped-def]
    fate = "scored 0 and counted (-c)" if result.complete else "left out of its mean"
    for tag in result.recall_a.run_tags:
        missing_a = result.recall_a.missing_topics[tag]
        missing_b = result.recall_b.missing_topics[tag]
        sides = ([("A and B", missing_a)] if missing_a == missing_b
                 else [("A", missing_a), ("B", missing_b)])
        for side, missing in sides:
            if missing:
                shown = ", ".join(missing[:20]) + (", ..." if len(missing) > 20 else "")
                click.echo(f"warning: run {tag}: {len(missing)} topic(s) of qrels {side} not in "
                           f"the run, {fate}: {shown}", err=True)


def _say_topics_only(result) -> None:  # type: ignore[no-untyped-def]
    """Name the topics in only one of qrels A and B (they move the means, not a topic)."""
    for side, topics in (("A", result.topics_only_a), ("B", result.topics_only_b)):
        if topics:
            shown = ", ".join(topics[:20]) + (", ..." if len(topics) > 20 else "")
            warn(f"note: {len(topics)} topic(s) only in qrels {side}: {shown} (they change the "
                 "means, recall_change_topics, not a topic's recall)")


def _impact_table(result, source_a: str, source_b: str,  # type: ignore[no-untyped-def]
                  shared=None) -> None:
    per_run, mode = result.per_run, ", -c" if result.complete else ""
    counts = {*per_run["num_q_a"], *per_run["num_q_b"]}
    if len(counts) == 1:  # one topic count everywhere: say it once, keep the table narrow
        per_run, mode = per_run.drop(columns=["num_q_a", "num_q_b"]), f"{mode}, {counts.pop()} topics"
    emit(per_run, "table", compact=IMPACT_COMPACT,
         title=f"Recall@{result.k}: {source_a} -> {source_b} "
               f"(relevant: grade >= {result.level}{mode})")
    click.echo(_ranking_line(result))
    click.echo(_ranking_line(shared, "on the documents judged in both") if shared is not None
               else "on the documents judged in both: none, or a run shares no topic with them")
    if result.topics_moved.empty:
        both = (" on the topics both qrels hold" if result.topics_only_a or result.topics_only_b
                else "")
        click.echo(f"no topic's recall@{result.k} changed for any run{both}")
        return
    emit(result.topics_moved, "table",
         title=f"topics whose recall@{result.k} moved most (top {result.top} per run)")
    emit(result.topics_overall, "table",
         title=f"topics that moved most over all runs (mean over runs, top {result.top})")


def _ranking_line(result, where: str = "on all judgments",  # type: ignore[no-untyped-def]
                  measure: str | None = None) -> str:
    def show(value: float) -> str:
        return "n/a" if value != value else f"{value:.4f}"

    ranking = result.ranking
    moved = ", ".join(ranking.ranks.loc[ranking.ranks["rank_change"].abs()
                                        == ranking.largest_rank_change, "run_tag"]
                      if ranking.largest_rank_change else []) or "no run moved"
    return (f"ranking by {measure or f'Recall@{result.k}'} {where}: Kendall's tau-b "
            f"{show(ranking.kendall_tau)}, tau_ap {show(ranking.tau_ap)}, largest rank change "
            f"{ranking.largest_rank_change} ({moved})")
