"""Commands about how qrels changes move the scores: qrels versions/diff, impact, bias."""

from __future__ import annotations

import click
import pandas as pd

from pooltool.analysis.qrels_diff import diff_qrels, qrels_counts
from pooltool.cli.group import cli, db_path, output_option
from pooltool.cli.sources import load_qrels
from pooltool.report import emit, emit_json, records
from pooltool.store import JudgmentStore

level_option = click.option("-l", "--level", default=1, show_default=True,
                            help="Relevant means grade >= LEVEL (trec_eval -l).")


@cli.group()
def qrels() -> None:
    """Qrels versions in the store and the differences between qrels.

    \b
    Example:
      pooltool qrels versions
      pooltool qrels diff official round2
    """


@qrels.command("versions")
@level_option
@output_option()
@click.pass_context
def qrels_versions(ctx: click.Context, level: int, fmt: str) -> None:
    """List the named qrels versions with their sizes.

    Columns: topics, judged (qrels lines), judged_nonneg (grade >= 0),
    relevant (grade >= LEVEL).

    \b
    Example:
      pooltool qrels versions -l 2 --format csv
    """
    with JudgmentStore.open(db_path(ctx)) as store:
        versions = store.versions()
        counts = [qrels_counts(store.qrels(name), level) for name in versions["name"]]
    table = pd.concat([versions[["name", "created_at", "source_path"]],
                       pd.DataFrame(counts, index=versions.index)], axis=1)
    emit(table, fmt, title="qrels versions")


@qrels.command("diff")
@click.argument("qrels_a", metavar="A")
@click.argument("qrels_b", metavar="B")
@level_option
@click.option("--changes", "show_changes", is_flag=True,
              help="List every changed judgment instead of the per-topic counts.")
@output_option()
@click.pass_context
def qrels_diff(ctx: click.Context, qrels_a: str, qrels_b: str, level: int,
               show_changes: bool, fmt: str) -> None:
    """Judgments added, removed and regraded from A to B, per topic and in total.

    A and B are qrels files or version names in the store. num_rel counts
    grade >= LEVEL on each side.

    \b
    Example:
      pooltool qrels diff official round2 -l 2
      pooltool qrels diff qrels-v1.txt qrels-v2.txt --changes --format csv
    """
    diff = diff_qrels(load_qrels(ctx, qrels_a), load_qrels(ctx, qrels_b), level)
    if fmt == "json":
        emit_json({"a": qrels_a, "b": qrels_b, "level": level, "totals": diff.totals(),
                   "per_topic": records(diff.per_topic), "changes": records(diff.changes)})
        return
    if show_changes:
        emit(diff.changes, fmt, title=f"changes from {qrels_a} to {qrels_b}")
        return
    totals = pd.DataFrame([{"topic": "all", **diff.totals()}])
    emit(pd.concat([diff.per_topic, totals], ignore_index=True), fmt,
         title=f"qrels diff {qrels_a} -> {qrels_b} (relevant: grade >= {level})")
