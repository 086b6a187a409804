"""``pooltool simulate``: replay pooling strategies against complete qrels.

In Python: :func:`pooltool.analysis.simulation.simulate` and
:mod:`pooltool.judging.strategies`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from pooltool.cli.group import cli, level_option, output_option, plot_option, warn
from pooltool.cli.sources import load_qrels, load_runs_after, note_positives_only
from pooltool.json_documents import SIMULATE_NOTE, simulate_document
from pooltool.judging.strategies import STRATEGIES, Strategy, parse_strategy
from pooltool.report import emit, emit_json

if TYPE_CHECKING:
    import pandas as pd

    from pooltool.analysis.simulation import SimulationResult

#: The strategies whose k --depth sets.
DEPTH_STRATEGIES = ("depth", "rundepth")
COMPACT = ["strategy", "budget", "found", "found_share", "MAE_recall", "tau_ap"]
COMPACT_PER_TOPIC = ["strategy", "budget", "topic", "found", "num_rel"]


def parse_budgets(_ctx: click.Context, _param: click.Parameter, value: str) -> list[int]:
    """``--budget 10,20,50`` -> ``[10, 20, 50]`` (sorted, duplicates dropped)."""
    try:
        budgets = sorted({int(part) for part in value.split(",")})
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None
    if min(budgets) < 1:
        raise click.BadParameter(f"budgets must be integers >= 1, got {value!r}")
    return budgets


@cli.command()
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("--qrels", "qrels_spec", required=True, metavar="QRELS",
              help="The complete qrels: a qrels file or a version name in the store.")
@click.option("--strategy", "strategy_texts", multiple=True, metavar="NAME[:KEY=VALUE,...]",
              help=f"A strategy to replay (repeat; default: all of them): "
                   f"{', '.join(STRATEGIES)}.")
@click.option("--budget", "budgets", default="10,20,50,100", show_default=True, metavar="N,...",
              callback=parse_budgets, help="Judgments per topic, comma-separated.")
@click.option("--depth", default=7, show_default=True, type=click.IntRange(min=1),
              help="The k of the depth strategy unless written depth:k=N.")
@click.option("-k", "k", default=100, show_default=True, type=click.IntRange(min=1),
              help="Cutoff of Recall@k and P@k for the bias columns.")
@click.option("-m", "--measure", "measure", metavar="MEASURE",
              help="Also the bias of any measure of 'pooltool eval -m' averaged over topics "
                   "(map, ndcg_cut.10, 'nDCG@10'): MAE_score, Kendall_tau_score, tau_ap_score.")
@level_option
@click.option("-q", "per_topic", is_flag=True,
              help="Also report each topic (a second table; csv: only the topic rows).")
@output_option(choices=("table", "csv", "json"))
@plot_option("Draw relevant found against judgments per topic, one line per strategy, "
             "to FILE (.png, .svg or .pdf).")
@click.pass_context
def simulate(ctx: click.Context, runs: tuple[str, ...], qrels_spec: str,
             strategy_texts: tuple[str, ...], budgets: list[int], depth: int, k: int,
             measure: str | None, level: int, per_topic: bool, fmt: str,
             plot: Path | None) -> None:
    """Replay pooling strategies against complete qrels and compare what they find.

    Each strategy judges every topic's documents in its own order, up to each
    budget (judgments per topic), taking the relevance from QRELS; a
    document without a qrels line counts as non-relevant, as in the
    literature. Per strategy and budget: relevant found (total and as a share
    of the qrels' relevant), and the bias of the partial qrels so built:
    MAE of every run's Recall@k and P@k against the full qrels, and Kendall's
    tau-b and tau_ap between the two rankings of the runs by Recall@k
    (ties in the partial ranking averaged over their orders: no value depends
    on the order runs are given in; strategies that choose among runs break
    their ties by run tag, as their sources say). With -m MEASURE, the same
    for any measure averaged over topics, each run scored whole by
    trec_eval's definition under the full and each partial qrels.
    RUN is a run file or a stored run tag; every run takes part. Strategies
    and their sources: 'pydoc pooltool.judging.strategies'; a column:
    'pooltool explain NAME'.

    \b
    Example:
      pooltool simulate runs/* --qrels qrels.txt --strategy depth --strategy mtf \\
          --strategy mmns --budget 10,20,50,100 --depth 7 --plot found.png
      pooltool simulate runs/* --qrels qrels.txt --strategy mtf --budget 20 -m 'nDCG@10'
      pooltool simulate bm25 dense --qrels official --strategy rrf:k=60 -q --format csv
    """
    from pooltool.analysis.simulation import simulate as run_simulation

    strategies = _strategies(strategy_texts, depth)

    def complete_qrels() -> pd.DataFrame:
        qrels = load_qrels(ctx, qrels_spec)
        note_positives_only(ctx, qrels, level, qrels_spec,
                            "simulate counts every document it does not list as not relevant")
        return qrels

    # the run files are read while the store gives the qrels
    qrels, lines = load_runs_after(ctx, runs, complete_qrels, ranked=True)
    result = run_simulation(lines, qrels, strategies, budgets, k, level, measure)
    if result.left_out:
        warn(f"note: {len(result.left_out)} qrels topic(s) no run retrieved for were left "
             f"out: {', '.join(result.left_out[:20])}{', ...' if len(result.left_out) > 20 else ''}")
    if fmt == "json":
        emit_json(simulate_document(result, qrels_spec, budgets, [s.label for s in strategies],
                                    per_topic, measure))
    elif fmt == "csv":
        warn(f"note: {SIMULATE_NOTE}")
        emit(result.per_topic if per_topic else result.summary, fmt)
    else:
        _tables(result, per_topic)
    if plot is not None:
        from pooltool.analysis.plots import plot_simulation

        warn(f"plot written: {plot_simulation(result, plot)}")


def _strategies(texts: tuple[str, ...], depth: int) -> list[Strategy]:
    return [parse_strategy(text, {"k": depth} if text.partition(":")[0] in DEPTH_STRATEGIES
                           else None)
            for text in texts or tuple(STRATEGIES)]


def _tables(result: SimulationResult, per_topic: bool) -> None:
    topics = len(result.topics)
    measured = ["MAE_score", "tau_ap_score"] if "MAE_score" in result.summary.columns else []
    emit(result.summary, "table", compact=[*COMPACT, *measured],
         title=f"simulated judging, {topics} topics: budget = judgments per topic; bias at "
               f"k = {result.k} (relevant: grade >= {result.level})")
    if per_topic:
        emit(result.per_topic, "table", compact=COMPACT_PER_TOPIC, title="per topic")
    click.echo(f"note: {SIMULATE_NOTE}")
