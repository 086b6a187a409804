"""``pooltool export-judgments`` and ``export-run``: the judgment log and stored runs for
pandas, polars, DuckDB (Parquet, JSON Lines), ranx and ir_measures (a JSON dict);
:func:`write_export` also serves ``export-qrels --format``.

The writers are :mod:`pooltool.formats.exports`'.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pooltool.cli.group import F, cli, open_store
from pooltool.errors import InvalidArgument

if TYPE_CHECKING:
    import pandas as pd

#: ``export-qrels`` and ``export-run`` formats besides TREC's lines.
DICT_FORMAT = "json"


def output_format_options(default: str, choices: tuple[str, ...],
                          what: str) -> Callable[[F], F]:
    """``-o/--output FILE`` and ``--format``, shared by the export commands."""
    def decorate(f: F) -> F:
        f = click.option("--format", "fmt", type=click.Choice(choices), default=default,
                         show_default=True,
                         help=f"parquet and jsonl: one row per {what} (for pandas, polars, "
                              "DuckDB); json: {topic: {docno: value}} (ranx, ir_measures).")(f)
        return click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                            help="Write to FILE instead of stdout (parquet needs a FILE).")(f)
    return decorate


def write_export(frame: pd.DataFrame, fmt: str, output: Path | None, value: str) -> None:
    """Write ``frame`` as Parquet, JSON Lines, or (``json``) the nested dict of its
    ``topic, docno`` and ``value`` columns, to ``output`` or stdout.

    :raises InvalidArgument: as :func:`pooltool.formats.exports.write_table` and
        :func:`~pooltool.formats.exports.nested_dict`.
    """
    from pooltool.formats.exports import nested_dict, write_table

    if fmt != DICT_FORMAT:
        write_table(frame, fmt, output, sys.stdout)
        return
    text = json.dumps(nested_dict(frame, value), ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


@cli.command("export-judgments")
@output_format_options("jsonl", ("jsonl", "parquet"), "judgment")
@click.pass_context
def export_judgments(ctx: click.Context, output: Path | None, fmt: str) -> None:
    """Write the whole judgment log: every judgment and retraction, oldest first.

    Columns: judgment_id, topic, docno, grade (null on a retraction), iteration,
    assessor, kind (person or machine, as now), judged_at (UTC), ms_spent, ms_active
    (null for imported lines), note, origin (where it came from), retracts (the
    judgment a retraction cancels). Machine judgments are in the log like any other:
    the kind column tells them apart.

    \b
    Example:
      pooltool export-judgments --format parquet -o judgments.parquet
      pooltool export-judgments | head -3
    """
    with open_store(ctx) as store:
        log = store.judgment_log_with_kinds()
    write_export(log, fmt, output, "grade")


@cli.command("export-run")
@click.argument("tag")
@output_format_options("json", ("json", "jsonl", "parquet"), "ranked document")
@click.pass_context
def export_run(ctx: click.Context, tag: str, output: Path | None, fmt: str) -> None:
    """Write the stored run TAG, each topic in trec_eval's order (score descending,
    ties by docno descending).

    json is {topic: {docno: score}} (ranx's Run.from_dict, ir_measures' run dict);
    jsonl and parquet have the columns run_tag, topic, docno, rank (as imported),
    score and trec_rank (the rank trec_eval gives it).

    \b
    Example:
      pooltool export-run bm25 -o bm25.json
      pooltool export-run bm25 --format parquet -o bm25.parquet
    """
    with open_store(ctx) as store:
        if not store.has_run(tag):
            raise InvalidArgument(f"no run {tag!r} in the store (runs: "
                                  f"{', '.join(store.run_tags()) or 'none'})")
        frame = store.run_frame(tag)
    write_export(frame, fmt, output, "score")
