"""Commands on the stored runs: add-runs, remove-run, runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pooltool.cli.datasets import add_dataset_runs
from pooltool.cli.group import (
    F,
    cli,
    file_or_dataset,
    open_store,
    open_store_to_write,
    output_option,
    progress,
    warn,
)
from pooltool.cli.import_checks import (
    strict_docs_option,
    strict_topics_option,
    warn_missing_docnos,
    warn_unknown_topics,
)
from pooltool.cli.sources import say_runs_per_file
from pooltool.errors import RunInPool
from pooltool.report import emit
from pooltool.store.runs import ADDED_COLUMNS

if TYPE_CHECKING:
    import numpy as np

FORCE_HINT = ("; --force does it anyway: the pool keeps its documents, and its rounds "
              "still name the old run and its file's sha256")


def force_option(help_text: str) -> Callable[[F], F]:
    """Add ``--force`` (replace or remove a run even though it built a pool)."""
    return click.option("--force", is_flag=True, help=help_text)


@cli.command("add-runs")
@click.argument("files", nargs=-1, required=True, type=file_or_dataset)
@click.option("--replace", is_flag=True,
              help="A tag already in the store gets the new run; the old run stays in "
                   "'pooltool runs --all' as replaced.")
@force_option("With --replace: also replace runs that built a pool.")
@strict_topics_option
@strict_docs_option
@output_option()
@click.pass_context
def add_runs(ctx: click.Context, files: tuple[Path | str, ...], replace: bool, force: bool,
             strict_topics: bool, strict_docs: bool, fmt: str) -> None:
    """Import TREC run files (several tags in a file are several runs); one transaction.

    irds:NAME imports an ir_datasets dataset's scoreddocs as the run tagged NAME (the
    irds extra; not with files or the options in the same call).

    \b
    Example:
      pooltool add-runs runs/*.txt
      pooltool add-runs --replace runs/bm25-fixed.txt   # correct a run
      pooltool add-runs irds:msmarco-passage/dev/small
    """
    if any(isinstance(file, str) for file in files):
        add_dataset_runs(ctx, files, replace or force or strict_topics or strict_docs, fmt)
        return
    with open_store_to_write(ctx) as store, _force_hint():
        added = store.add_run_records(
            progress(files, "reading runs", total=len(files)), replace=replace, force=force,
            strict_topics=strict_topics, on_unknown_topics=warn_unknown_topics,
            strict_docs=strict_docs, on_missing_docnos=warn_missing_docnos)
    say_runs_per_file((row["source_path"], row["run_tag"]) for row in added)
    emit(added_columns(added), fmt, title="runs added")


def added_columns(added: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The runs :meth:`~pooltool.store.JudgmentStore.add_run_records` added as columns for
    :func:`~pooltool.report.emit`, with the dtypes of :meth:`add_runs`' DataFrame (text
    as objects, counts as int64), so every format writes them as it writes that frame,
    without loading pandas."""
    import numpy as np

    return {name: np.array([row[name] for row in added],
                           dtype=object if name in ("run_tag", "source_path") else np.int64)
            for name in ADDED_COLUMNS}


@cli.command("remove-run")
@click.argument("tag")
@force_option("Also remove a run that built a pool.")
@click.pass_context
def remove_run(ctx: click.Context, tag: str, force: bool) -> None:
    """Remove the run TAG from the runs pooling and measuring use.

    Nothing is deleted: the run, its entries and its provenance stay in
    'pooltool runs --all' as removed, and pools it built keep their documents.

    \b
    Example:
      pooltool remove-run bm25-broken
    """
    with open_store_to_write(ctx) as store, _force_hint():
        removed = store.remove_run(tag, force=force)
    warn(f"run {tag!r} removed (imported from {removed['source_path']} at "
         f"{removed['imported_at']}, sha256 {removed['sha256'] or 'none'})")


@cli.command("runs")
@click.option("--all", "show_all", is_flag=True,
              help="Also replaced and removed runs, with the pooling rounds each run built.")
@output_option()
@click.pass_context
def runs(ctx: click.Context, show_all: bool, fmt: str) -> None:
    """List the stored runs with their provenance (source file, sha256, import time).

    \b
    Example:
      pooltool runs --all --format csv
    """
    with open_store(ctx) as store:
        table = store.run_history() if show_all else store.runs()
    emit(table, fmt, title="runs (all, by import)" if show_all else "runs")


@contextmanager
def _force_hint() -> Iterator[None]:
    """Add how to go ahead to the refusal to retire a run that built a pool."""
    try:
        yield
    except RunInPool as exc:
        raise RunInPool(f"{exc}{FORCE_HINT}") from exc
