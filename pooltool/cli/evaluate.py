"""``pooltool eval``: every trec_eval 10.0 measure, trec_eval's or ir_measures' spelling.

In Python: :func:`pooltool.measures.trec.evaluate_files`, :func:`~pooltool.measures.trec.evaluate`
and :func:`~pooltool.measures.trec.evaluate_tables`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

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
    check_run_names,
    check_run_specs,
    load_runs,
    measured_qrels,
    qrels_source,
    say_runs_per_file,
    some_topics,
    stored_run_tables,
    use_system_allocator,
)
from pooltool.errors import InvalidArgument
from pooltool.measures.trec import EvalResult, Options, evaluate_files, evaluate_tables
from pooltool.measures.trec import evaluate as evaluate_frame
from pooltool.measures.trec.evaluate import RunEval
from pooltool.records import topic_key
from pooltool.report import FORMATS, emit, emit_json

EVAL_FORMATS = ("trec", *FORMATS)


@cli.command("eval")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", callback=check_run_specs)
@qrels_options
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="A measure: trec_eval's (map, P.5,10, ndcg_cut.10, ndcg.1=0,2=3, rbp.p=0.8, "
                   "all_trec, official) or ir_measures' (nDCG@10, AP, P(rel=2)@10, RBP(p=0.8), "
                   "Judged@10). Repeat for more; default official.")
@click.option("-q", "--per-topic", is_flag=True, help="Also give every topic's values (trec_eval -q).")
@click.option("-c", "--complete", is_flag=True,
              help="Score qrels topics missing from a run and count them (trec_eval -c).")
@level_option
@click.option("-M", "--max-docs", type=click.IntRange(min=1),
              help="Use only the first N documents per topic (trec_eval -M).")
@click.option("-J", "--judged-only", is_flag=True,
              help="Drop unjudged documents from each ranking first (trec_eval -J).")
@click.option("-N", "--num-docs", type=click.IntRange(min=0), default=0, show_default=True,
              help="Documents in the collection, for utility's 4th coefficient (trec_eval -N).")
@click.option("-n", "--no-summary", is_flag=True,
              help="No 'all' lines (trec_eval -n); with -q only the per-topic values.")
@output_option(default="trec", choices=EVAL_FORMATS)
@click.pass_context
def eval_command(ctx: click.Context, runs: tuple[str, ...], qrels_file: Path | None,
                 version: str | None, policy: str | None, measures: tuple[str, ...],
                 per_topic: bool, complete: bool, level: int, max_docs: int | None,
                 judged_only: bool, num_docs: int, no_summary: bool, fmt: str) -> None:
    """Any trec_eval 10.0 measure of runs, byte for byte as trec_eval prints it.

    RUN is a run file, or the tag of a run in the store. Measures follow
    trec_eval (-m all_trec prints all 37 families in trec_eval's order, whatever
    order -m names them in; a measure named twice keeps its first parameters);
    ir_measures names map onto the same definitions (nDCG@10 is ndcg_cut.10,
    AP@100 map_cut.100, P(rel=2)@10 P.10 at level 2, RBP alone p = 0.8; the table
    is in pooltool/measures/trec/names.py). Documents are ranked by score, ties by docno descending. A
    qrels topic missing from a run is left out of its means (named on stderr;
    trec_eval 10.0 stops there) unless -c.

    --format trec prints trec_eval's layout; csv, tsv, json and jsonl one row per
    run, topic ('all' for the summary) and measure, with the share of unjudged
    documents in the ranks the value looks at and the value's hole, low and high:
    what judging those documents could make it (schemas/eval-v1.json); table one
    column per measure.

    \b
    Example:
      pooltool eval runs/* --qrels qrels.txt -m all_trec -q -c
      pooltool eval bm25 --version official -m nDCG@10 -m AP -m 'RBP(p=0.8)' --format table
      pooltool eval run.txt --qrels qrels.txt -m ndcg_cut.5,10 -m P.10 -l 2 --format csv
    """
    stored = stored_or_file(qrels_file, version, policy)
    use_system_allocator()
    options = Options(level, complete, max_docs, judged_only, num_docs,
                      holes=fmt not in ("trec", "table"))  # only the long shape prints holes
    from pooltool.measures.trec.select import select

    requests = select(list(measures))  # refuse a bad measure before reading anything
    texts: dict[str, str] = {}  # trec's layout of each run, made as soon as it is scored
    then = None
    if fmt == "trec":
        from pooltool.measures.trec.trec_output import run_text

        def then(run: RunEval) -> None:
            texts[run.run_tag] = run_text(requests, run, per_topic, summary=not no_summary)

    result = _evaluate(ctx, runs, qrels_file, stored, list(measures), options, then)
    _warn_topics(result)
    _write(result, fmt, per_topic, no_summary, str(qrels_file) if qrels_file else qrels_source(*stored),
           texts)


def _evaluate(ctx: click.Context, runs: tuple[str, ...], qrels_file: Path | None,
              stored: tuple[str | None, str], measures: list[str], options: Options,
              then: Callable[[RunEval], None] | None) -> EvalResult:
    check_run_names(ctx, runs)
    if all(Path(run).is_file() for run in runs):  # the qrels read while the first files are
        result, sources = evaluate_files(
            [Path(run) for run in runs],
            lambda: measured_qrels(ctx, qrels_file, stored, options.level), measures, options,
            then=then)
        say_runs_per_file((file, tag) for tag, file in sources.items())
        return result
    qrels = measured_qrels(ctx, qrels_file, stored, options.level)
    if not any(Path(run).is_file() for run in runs):
        return evaluate_tables(stored_run_tables(ctx, runs), qrels, measures, options)
    return evaluate_frame(load_runs(ctx, runs), qrels, measures, options)


def _warn_topics(result: EvalResult) -> None:
    for run in result.runs:
        if run.missing and not result.options.complete:
            warn(f"warning: run {run.run_tag}: {len(run.missing)} qrels topic(s) not in the run, "
                 f"left out of its means (use -c to score them): "
                 f"{some_topics(sorted(run.missing, key=topic_key))}")
        if run.ignored:
            warn(f"note: run {run.run_tag}: {len(run.ignored)} run topic(s) not in the qrels, "
                 f"ignored: {some_topics(sorted(run.ignored, key=topic_key))}")


def _write(result: EvalResult, fmt: str, per_topic: bool, no_summary: bool, source: str,
           texts: dict[str, str]) -> None:
    """``texts``: per run tag, its trec layout when already made (run files)."""
    from pooltool.measures.trec.shapes import long_rows, wide_rows

    if fmt == "trec":
        from pooltool.measures.trec.trec_output import run_text

        for run in result.runs:  # a run at a time: no copy of the whole output
            sys.stdout.write(texts.pop(run.run_tag) if run.run_tag in texts
                             else run_text(result.requests, run, per_topic,
                                           summary=not no_summary))
    elif fmt == "json":
        from pooltool.json_documents import eval_document

        emit_json(eval_document(result, per_topic, source, summary=not no_summary))
    elif fmt == "table":
        if per_topic:
            emit(wide_rows(result, per_topic=True), "table", title="per topic")
        if not no_summary:
            emit(wide_rows(result), "table", title="summary (all topics)")
    else:
        rows = long_rows(result, per_topic)
        if no_summary:
            keep = rows["topic"] != "all"
            if per_topic:
                rows = {name: column[keep] for name, column in rows.items()}
            else:
                raise InvalidArgument("-n without -q leaves nothing to write")
        emit(rows, fmt)
