"""``pooltool recall``: Recall@k as trec_eval computes it, with the unjudged rate beside it.

In Python: :func:`pooltool.measures.evaluate_recall` and
:func:`pooltool.measures.evaluate_recall_files`.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from pooltool.cli.group import (
    cli,
    level_option,
    output_option,
    plot_option,
    qrels_options,
    stored_or_file,
    warn,
)
from pooltool.cli.sources import (
    check_run_names,
    check_run_specs,
    load_qrels,
    load_runs,
    measured_qrels,
    note_positives_only,
    qrels_source,
    say_runs_per_file,
    some_topics,
    stored_qrels,
    stored_run_tables,
    use_system_allocator,
)
from pooltool.formats.prels import LAYOUTS as PRELS_LAYOUTS
from pooltool.measures import (
    RecallResult,
    evaluate_recall,
    evaluate_recall_files,
    evaluate_recall_tables,
)
from pooltool.records import topic_key, topic_order
from pooltool.report import FORMATS, Columns, emit, emit_json

if TYPE_CHECKING:
    import pandas as pd

RECALL_FORMATS = (*FORMATS, "trec")
#: Summary columns a table shows by default (--all-columns adds the rest; csv/json have all).
TABLE_SUMMARY = ["run_tag", "k", "num_q", "recall", "micro_recall", "median_recall",
                 "min_recall", "zero_recall_share", "ceiling", "P", "unjudged", "judged",
                 "recall_upper"]
#: The columns of a table too wide for the terminal.
COMPACT_SUMMARY = ["run_tag", "k", "num_q", "recall", "P", "unjudged"]
COMPACT_PER_TOPIC = ["run_tag", "topic", "k", "num_rel", "rel_ret", "recall", "P", "unjudged"]


def parse_ks(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[int, ...]:
    """``-k 10,100,1000`` -> ``(10, 100, 1000)``."""
    try:
        ks = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None
    if not ks or min(ks) < 1:
        raise click.BadParameter(f"cutoffs must be integers >= 1, got {value!r}")
    return ks


@cli.command()
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", callback=check_run_specs)
@qrels_options
@click.option("-k", "ks", default="10,100,1000", show_default=True, callback=parse_ks,
              help="Cutoffs, comma-separated.")
@level_option
@click.option("-c", "--complete", is_flag=True,
              help="Score qrels topics missing from a run as 0 and count them (trec_eval -c).")
@click.option("-M", "--max-docs", type=click.IntRange(min=1),
              help="Use only the first N documents per topic (trec_eval -M).")
@click.option("-q", "--per-topic", is_flag=True, help="Also give one row per run and topic.")
@output_option(choices=RECALL_FORMATS)
@plot_option("Draw Recall@k against k (with the unjudged rate) into FILE (.png, .svg, .pdf).")
@click.option("--estimate", "sample_name", metavar="NAME",
              help="Also estimate R and Recall@k, with 95% intervals, from the judged sample "
                   "NAME ('pooltool sample').")
@click.option("--prels", "prels_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Also estimate R and Recall@k, with 95% intervals, from the sampled "
                   "judgments in FILE, drawn outside pooltool (NIST's layouts: see "
                   "--prels-layout).")
@click.option("--prels-layout", type=click.Choice(PRELS_LAYOUTS), default="prels",
              show_default=True,
              help="The layout of --prels FILE: prels (topic docno grade method inclusion; "
                   "TREC Million Query) or strata (topic iteration docno stratum grade, -1 "
                   "not sampled; sample_eval.pl).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="With --prels --prels-layout strata: the seed of the interval's draws.")
@click.pass_context
def recall(ctx: click.Context, runs: tuple[str, ...], qrels_file: Path | None, version: str | None,
           policy: str | None, ks: tuple[int, ...], level: int, complete: bool,
           max_docs: int | None, per_topic: bool, fmt: str, plot: Path | None,
           sample_name: str | None, prels_file: Path | None, prels_layout: str,
           seed: int) -> None:
    """Recall@k, P@k and unjudged rates of runs, exactly as trec_eval 10.0 computes them.

    RUN is a run file, or the tag of a run in the store (a name that is both
    is refused: write ./NAME for the file). Documents are ranked
    by score, ties by docno descending (the rank column is ignored). Topics in
    the qrels but not in a run are left out of its mean (named on stderr)
    unless -c. --format trec prints trec_eval's own layout (num_ret, num_rel,
    num_rel_ret, P_k, recall_k, unj_k; with -q per topic), quirks included:
    with -c its num_rel 'all' counts every qrels line with grade > 0, whatever
    -l says.

    Columns (defined with their sources by 'pooltool explain NAME'): recall
    is Recall@k = rel_ret / num_rel (rel_ret: relevant in the first k;
    num_rel_ret: relevant at any rank); ceiling = min(k, R)/R, the best
    recall possible; recall_upper, recall if every unjudged top-k document
    were relevant; unjudged (trec_eval unj) and judged (ir_measures Judged)
    are not complements; micro_recall pools topics; zero_recall_share is the
    share of topics with recall 0; recall_nrel_BIN is the mean over topics
    with num_rel in BIN.

    --estimate NAME adds, per run and k (per topic with -q), estimates from
    the judged sample NAME beyond the pool: est_R (posterior mean of the
    relevant documents in the sample's frame) and est_recall (posterior mean
    of Recall@k), each with its 95% interval (_low, _high) from the same
    hierarchical Beta-binomial posterior draws, and est_R_ht (the
    Horvitz-Thompson estimate of R, not the model's: it may lie outside the
    interval); the table's title names the sample,
    its frame, its judged documents and the interval method. The qrels must
    hold the pool's and the sample's judgments. Not with --format trec.

    --prels FILE does the same from sampled judgments drawn outside pooltool
    (the estimates use FILE's judgments; --qrels still gives recall and
    num_rel): with --prels-layout strata (sample_eval.pl's stratified file)
    the same estimators as --estimate, and est_infAP, the run's xinfAP as
    sample_eval.pl computes it; with --prels-layout prels (one inclusion
    probability per document) Horvitz-Thompson estimates with Fay-Feuer gamma
    intervals (interval 'gamma'). See docs/sampled-judgments.md.

    \b
    Example:
      pooltool recall runs/* --qrels qrels.txt -k 10,100,1000 -c
      pooltool recall bm25 --version round1 -q --format csv
      pooltool recall runs/* --policy assessor:gpt-judge -k 10
      pooltool recall bm25 tfidf --version round2 -k 100 --estimate s1
      pooltool recall runs/* --qrels qrels.txt -k 100 --prels mq.prels
    """
    stored = stored_or_file(qrels_file, version, policy)
    use_system_allocator()
    if sample_name is not None and prels_file is not None:
        raise click.UsageError("give --estimate NAME or --prels FILE, not both")
    estimating = sample_name is not None or prels_file is not None
    if estimating and fmt == "trec":
        raise click.UsageError("--estimate and --prels have no trec_eval layout: use --format "
                               "table, csv, tsv, json or jsonl")
    options: dict[str, Any] = {"ks": ks, "level": level, "complete": complete,
                               "max_docs": max_docs}
    if estimating:  # the estimate needs the runs themselves
        from pooltool.cli.estimate import check_sample

        if sample_name is not None:
            check_sample(ctx, sample_name)  # before any note about the qrels
        frame = load_runs(ctx, runs, ranked=True)  # stored runs: not ordered again
        qrels = _qrels_frame(ctx, qrels_file, stored, level)  # once: reading notes what it read
        result = evaluate_recall(frame, qrels, **options)
    else:
        result = _evaluate(ctx, runs, qrels_file, stored, options)
    _warn_topics(result)
    source = str(qrels_file) if qrels_file else qrels_source(*stored)
    if sample_name is not None:
        from pooltool.cli.estimate import write_estimates

        write_estimates(ctx, result, frame, qrels, sample_name, fmt, per_topic, source)
        return
    if prels_file is not None:
        from pooltool.cli.estimate import write_prels_estimates

        write_prels_estimates(result, frame, prels_file, prels_layout, seed, fmt, per_topic,
                              source)
        return
    _write(result, fmt, per_topic, source)
    if plot is not None:
        from pooltool.measures.plot import plot_recall

        warn(f"plot written: {plot_recall(result, plot)}")


def _evaluate(ctx: click.Context, runs: tuple[str, ...], qrels_file: Path | None,
              stored: tuple[str | None, str], options: dict[str, Any]) -> RecallResult:
    """Score file by file when every RUN is a file, run by run from the store's columns
    when every RUN is a stored tag; else load the runs as one frame."""
    check_run_names(ctx, runs)
    if all(Path(run).is_file() for run in runs):
        files = [Path(run) for run in runs]
        qrels = measured_qrels(ctx, qrels_file, stored, options["level"])
        result = evaluate_recall_files(files, qrels, **options)
        say_runs_per_file((file, tag) for tag, file in result.sources.items())
        return result
    if runs and not any(Path(run).is_file() for run in runs):
        tables = stored_run_tables(ctx, runs)
        qrels = measured_qrels(ctx, qrels_file, stored, options["level"])
        return evaluate_recall_tables(tables, qrels, **options)
    frame = load_runs(ctx, runs)
    return evaluate_recall(frame, measured_qrels(ctx, qrels_file, stored, options["level"]),
                           **options)


def _qrels_frame(ctx: click.Context, qrels_file: Path | None,
                 stored: tuple[str | None, str], level: int) -> pd.DataFrame:
    """The qrels as a DataFrame (what the estimates take), said as :func:`_qrels` says."""
    qrels = load_qrels(ctx, str(qrels_file)) if qrels_file else _judged(ctx, stored)
    note_positives_only(ctx, qrels, level, str(qrels_file) if qrels_file else qrels_source(*stored))
    return qrels


def _judged(ctx: click.Context, stored: tuple[str | None, str]) -> pd.DataFrame:
    """The store's qrels (version, policy).

    :raises StoreError: there are none (a tester was told "the qrels frame has no rows").
    """
    return stored_qrels(ctx, *stored)


def _warn_topics(result: RecallResult) -> None:
    for tag in result.run_tags:
        missing = result.missing_topics[tag]
        if missing:
            fate = ("scored 0 and counted (-c)" if result.options.complete
                    else "left out of its mean (use -c to score them 0)")
            warn(f"warning: run {tag}: {len(missing)} qrels topic(s) not in the run, {fate}: "
                 f"{some_topics(sorted(missing, key=topic_key))}")
        ignored = result.ignored_topics[tag]
        if ignored:
            warn(f"note: run {tag}: {len(ignored)} run topic(s) not in the qrels, ignored: "
                 f"{some_topics(sorted(ignored, key=topic_key))}")


def _write(result: RecallResult, fmt: str, per_topic: bool, source: str) -> None:
    if fmt != "trec":  # trec_eval's strcmp order stays in its own layout only
        rows = result.per_topic_columns
        order = np.array(topic_order(rows["topic"].tolist(), rows["run_tag"].tolist()),
                         dtype=np.intp)
        result = replace(result, per_topic_columns={name: v[order] for name, v in rows.items()})
    if fmt == "trec":
        from pooltool.measures.trec_format import format_trec

        sys.stdout.write(format_trec(result, per_topic))
    elif fmt == "json":
        from pooltool.json_documents import recall_document

        emit_json(recall_document(result, per_topic, source))
    elif fmt == "table":
        if per_topic:
            emit(_long_per_topic(result), "table", title="per topic",
                 compact=COMPACT_PER_TOPIC)
        emit(result.summary_columns, "table", title="summary (means over topics)",
             shown=TABLE_SUMMARY, compact=COMPACT_SUMMARY)
    else:
        emit(result.per_topic_columns if per_topic else result.summary_columns, fmt)


def _long_per_topic(result: RecallResult) -> Columns:
    """Per-topic rows with one row per k (k within topic), narrow enough for a terminal."""
    rows, ks = result.per_topic_columns, result.options.ks
    repeat = len(ks)
    long = {name: np.repeat(rows[name], repeat) for name in ("run_tag", "topic")}
    long["k"] = np.tile(np.array(ks, dtype=np.int64), len(rows["topic"]))
    long.update({name: np.repeat(rows[name], repeat) for name in ("num_ret", "num_rel")})
    names = ["num_rel_ret", "recall", "P", "ceiling", "unjudged", "judged", "recall_upper"]
    for name, shown in zip(names, ["rel_ret", *names[1:]], strict=True):
        long[shown] = np.stack([rows[f"{name}@{k}"] for k in ks], axis=1).reshape(-1)
    return long
