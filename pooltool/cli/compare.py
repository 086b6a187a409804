"""``pooltool compare``: paired significance tests between runs over topics, for any
measure, with a verdict that knows about the holes.

In Python: :func:`pooltool.analysis.comparison.compare_runs` on
:func:`pooltool.measures.topic_scores.topic_scores`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from pooltool.cli.group import (
    cli,
    level_option,
    output_option,
    qrels_options,
    stored_or_file,
    warn,
)
from pooltool.cli.sources import (
    check_run_specs,
    load_runs,
    measured_qrels,
    qrels_source,
    some_topics,
)
from pooltool.records import topic_key
from pooltool.report import emit, emit_json
from pooltool.text import visible

if TYPE_CHECKING:
    import pandas as pd

#: The choices of --test and --adjust (pooltool.analysis.comparison's, named here so
#: that --help imports no analysis).
TESTS = ("t", "randomization", "bootstrap")
ADJUSTMENTS = ("holm", "tukey", "none")
PAIRS_SHOWN = ["run_a", "run_b", "difference", "p_value", "verdict", "p_worst", "hole"]
P_COLUMNS = ("p_value", "p_worst", "p_best")


@cli.command()
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", callback=check_run_specs)
@qrels_options
@click.option("-m", "--measure", default="ndcg_cut.10", show_default=True, metavar="MEASURE",
              help="One measure averaged over topics, trec_eval's or ir_measures' spelling "
                   "(map, ndcg_cut.10, 'nDCG@10', P.10, bpref, 'RBP(p=0.8)').")
@click.option("--test", "test", type=click.Choice(TESTS), default="t", show_default=True,
              help="Paired t test, Fisher's randomization test (exact for 20 topics or fewer) "
                   "or the paired bootstrap.")
@click.option("--adjust", "adjustment", type=click.Choice(ADJUSTMENTS), default="holm",
              show_default=True,
              help="For many pairs: Holm-Bonferroni over the pairs, Tukey's HSD (topics as "
                   "blocks; instead of --test), or none.")
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1,
              min_open=True, max_open=True), help="Significance level.")
@click.option("--samples", default=100_000, show_default=True, type=click.IntRange(min=1),
              help="Random sign flips (randomization) or resamples (bootstrap).")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Seed of the randomization and bootstrap draws.")
@level_option
@click.option("-c", "--complete", is_flag=True,
              help="Score qrels topics missing from a run as 0 and compare on all of them "
                   "(trec_eval -c); else only topics every run has are compared.")
@output_option(choices=("table", "csv", "json"))
@click.pass_context
def compare(ctx: click.Context, runs: tuple[str, ...], qrels_file: Path | None,
            version: str | None, policy: str | None, measure: str, test: str,
            adjustment: str, alpha: float, samples: int, seed: int, level: int,
            complete: bool, fmt: str) -> None:
    """Is one run significantly better than another, and could judging change that?

    RUN is a run file or a stored run tag; give two or more. Every pair is
    tested over the topics, paired, two-sided, on one measure (trec_eval's
    values; -m takes 'pooltool eval' spellings): Student's paired t
    (scipy.stats.ttest_rel's p-value), Fisher's randomization test (every
    sign flip counted for 20 topics or fewer, else --samples seeded flips)
    or the paired bootstrap (Efron and Tibshirani 1993, seeded). With more
    than two runs the p-values are Holm-adjusted over the pairs (or Tukey's
    HSD replaces the test: --adjust tukey).

    Beyond the usual test, each pair is tested twice more, at the ends of
    the two runs' holes (the lowest and highest per-topic score their
    unjudged documents allow): the better run at its lows against the worse
    at its highs (difference_worst, p_worst), and the other way round. The
    verdict 'holds' only when it is the same at both ends; else the output
    says judging the unjudged documents could change it. A measure without
    a hole bound says 'no hole'.

    csv writes the pairs; json (schemas/compare-v1.json) the runs, the pairs
    with their sentences, and the options.

    \b
    Example:
      pooltool compare run1 bm25 --qrels qrels.txt -m 'nDCG@10'
      pooltool compare runs/* --version official -m map --test randomization --seed 7
      pooltool compare a.run b.run c.run --qrels qrels.txt -m P.10 --adjust tukey --format json
    """
    from pooltool.analysis.comparison import compare_runs
    from pooltool.measures.topic_scores import one_measure, topic_scores

    stored = stored_or_file(qrels_file, version, policy)
    one_measure(measure)  # refuse a bad measure before reading anything
    qrels = measured_qrels(ctx, qrels_file, stored, level)
    scores = topic_scores(load_runs(ctx, runs), qrels, measure, level, complete, holes=True)
    values = _shared_topics(scores.per_topic)
    result = compare_runs(values, measure, test, adjustment, alpha, samples, seed)
    unjudged = values.groupby("run_tag", sort=False)["unjudged"].mean()
    runs_table = result.runs.assign(unjudged=result.runs["run_tag"].map(unjudged).to_numpy())
    if fmt == "json":
        from pooltool.json_documents import compare_document

        source = str(qrels_file) if qrels_file else qrels_source(*stored)
        emit_json(compare_document(result, runs_table, measure, source,
                                   {"level": level, "complete": complete}))
    elif fmt == "csv":
        emit(result.pairs, fmt)
    else:
        how = {"tukey": "Tukey's HSD", "holm": f"{test} test, Holm-adjusted",
               "none": f"{test} test"}[adjustment]
        emit(runs_table, "table", title=f"{measure} over {len(result.topics)} topics "
                                        "(low, high: the holes' mean ends)")
        # p-values in 4 significant digits: 4 decimals would show 3.9e-07 as 0.0000
        pairs = result.pairs.drop(columns=["sentence"]).assign(
            **{c: result.pairs[c].map(lambda p: "-" if p != p else f"{p:.4g}") for c in P_COLUMNS})
        emit(pairs, "table", shown=PAIRS_SHOWN, title=f"pairs: {how}, alpha {alpha}")
        for line in result.pairs["sentence"]:
            click.echo(visible(line))


def _shared_topics(per_topic: pd.DataFrame) -> pd.DataFrame:
    """The rows of the topics every run was scored on (the others named on stderr)."""
    counts = per_topic.groupby("topic")["run_tag"].nunique()
    runs = per_topic["run_tag"].nunique()
    dropped = sorted(counts.index[counts < runs], key=topic_key)
    if dropped:
        warn(f"note: {len(dropped)} topic(s) not in every run, left out of the comparison "
             f"(use -c to score them as 0): {some_topics(dropped)}")
    return per_topic[~per_topic["topic"].isin(dropped)]
