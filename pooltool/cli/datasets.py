"""The command line's ir_datasets sources (``irds:NAME``) where a command imports a
file it cannot stream: qrels (written to a file for the store to import and fingerprint)
and scoreddocs (runs). Reading is :mod:`pooltool.formats.irds`'."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from pooltool.cli.group import open_store_to_write
from pooltool.formats.qrels import write_qrels
from pooltool.report import emit


@contextmanager
def qrels_file(source: Path | str) -> Iterator[Path]:
    """The qrels file to import: ``source`` itself, or an ir_datasets id's qrels written
    to a temporary file as TREC lines (the store imports and fingerprints a file)."""
    if isinstance(source, Path):
        yield source
        return
    from pooltool.formats.irds import dataset_name, irds_qrels

    qrels = irds_qrels(str(dataset_name(source)))
    with tempfile.TemporaryDirectory(prefix="pooltool-irds-") as folder:
        path = Path(folder) / "qrels.txt"
        with open(path, "w", encoding="utf-8") as handle:
            write_qrels(qrels, handle)
        yield path


def add_dataset_runs(ctx: click.Context, specs: tuple[Path | str, ...], options: bool,
                     fmt: str) -> None:
    """``add-runs irds:NAME ...``: the datasets' scoreddocs, one transaction."""
    if options or not all(isinstance(spec, str) for spec in specs):
        raise click.UsageError("irds:NAME goes alone: not with run files, --replace, --force "
                               "or --strict-* in the same call")
    import pandas as pd

    from pooltool.formats.irds import dataset_name, irds_run

    frame = pd.concat([irds_run(str(dataset_name(str(spec)))) for spec in specs],
                      ignore_index=True)
    with open_store_to_write(ctx) as store:
        added = store.add_run_frame(frame, source=" ".join(str(spec) for spec in specs))
    emit(added, fmt, title="runs added")
