"""The status command: judging progress per topic and per assessor."""

from __future__ import annotations

from typing import Any

import click

from pooltool.cli.group import cli, level_option, open_store, output_option, warn
from pooltool.judging.copies import saved_judgments
from pooltool.judging.pace import judging_stats
from pooltool.judging.queue import pool_status
from pooltool.report import emit, emit_json, records
from pooltool.store import DEFAULT_POOL
from pooltool.store.journal import waiting_writes

#: Decimal places of the judging pace for people (csv/json keep every digit).
PACE_DECIMALS = {"judgments_per_hour": 0, "median_seconds": 1, "eta_hours": 1}


@cli.command()
@click.option("--pool", "pool_name", default=DEFAULT_POOL, show_default=True,
              help="The pool whose progress to show (as named by 'pool --pool').")
@level_option
@click.option("--estimate", "sample_name", metavar="NAME",
              help="Add the relevant documents the pool missed, estimated from the judged "
                   "sample NAME (est_missed, with a 95% interval).")
@output_option()
@click.pass_context
def status(ctx: click.Context, pool_name: str, level: int, fmt: str,
           sample_name: str | None) -> None:
    """Judging progress per topic (pooled, judged, unjudged, relevant) and per assessor
    (judgments per hour, median seconds per document, remaining, ETA in hours).

    CSV, TSV and JSONL give the per-topic rows; JSON gives both tables,
    the writes waiting in judging apps' journals (the store was busy when they
    were made; stderr names them in the other formats) and, as "qrels", whose
    judgments by kind the counts use (people's only, by the default policy;
    a table says so on stderr when the store has a machine assessor).

    An adaptive pool (pool --strategy) adds per topic its budget,
    budget_used (chosen documents judged), relevant_found, recent_rate and
    est_unfound: the relevant documents not found yet, estimated as the
    share relevant among the last 10 judgments times the documents the runs
    retrieved that nobody has judged (errs high; near 0: stop).

    A store with duplicate groups (pooltool duplicates find) adds saved per
    topic: pooled documents judged through a judged copy (--propagate exact),
    judgments nobody had to make.

    --estimate NAME adds est_missed per topic: the estimated relevant
    documents outside the pool (est_R of 'recall --estimate' minus the pooled
    relevant ones), with its 95% interval; csv/tsv/jsonl rows name the
    interval method, and JSON says in "estimate" the sample, its frame, its
    judged sampled documents and the method.

    \b
    Example:
      pooltool status --format csv
      pooltool status --estimate s1
    """

    with open_store(ctx) as store:
        topics = pool_status(store, pool_name, level)
        if store.adaptive_design(pool_name) is not None:
            from pooltool.judging.adaptive import adaptive_status

            topics = topics.merge(adaptive_status(store, pool_name), on="topic", how="left")
        if store.duplicate_finding() is not None:  # judged once for several copies
            topics = topics.merge(saved_judgments(store, pool_name), on="topic", how="left")
        pace = judging_stats(store, pool=pool_name)
        note, machines = store.policy_note(), bool(store.machines())
        estimate: dict[str, Any] = {}
        if sample_name is not None:
            from pooltool.cli.estimate import with_missed

            topics, estimate, interval = with_missed(store, topics, sample_name, level,
                                                     pool_name)
            if fmt in ("csv", "tsv", "jsonl"):  # rows travel alone: each names its method
                topics = topics.assign(interval=interval)
    base = store.journal_base
    waiting = {} if base is None else {str(path): count for path, count
                                       in waiting_writes(base).items()}
    if fmt == "json":
        emit_json({"topics": records(topics), "assessors": records(pace),
                   "waiting_writes": waiting, "qrels": note,
                   **({"estimate": estimate} if estimate else {})})
        return
    emit(topics, fmt, title=f"pool {pool_name!r}")
    if fmt == "table":
        if machines:
            warn(f"judged and relevant count the qrels of {note}")
        emit(pace, fmt, title="judging pace", decimals=PACE_DECIMALS)
    for path, count in waiting.items():
        warn(f"{count} judging write(s) wait in {path} (a judging app still retrying "
             "while the store is busy)")
