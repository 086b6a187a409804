"""Where a command's qrels and runs come from: a file, or a version / run tag in the store.

A store is opened only when a name is not an existing file, so the
measuring commands work as a trec_eval replacement without any store.
"""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd

from pooltool.cli.group import db_path
from pooltool.errors import UnknownRun
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run


def load_qrels(ctx: click.Context, spec: str, policy: str = "latest") -> pd.DataFrame:
    """Qrels from a file path, else from the store version named ``spec``.

    :returns: columns ``topic, iteration, docno, grade``.
    :raises FormatError: a malformed file.
    :raises StoreError: no store, or no such version (the message says both
        were tried).
    """
    if Path(spec).is_file():
        return read_qrels(Path(spec))
    from pooltool.store import JudgmentStore

    with JudgmentStore.open(db_path(ctx)) as store:
        return store.qrels(spec, policy)


def load_runs(ctx: click.Context, specs: tuple[str, ...] | list[str]) -> pd.DataFrame:
    """Runs from files, else from the store's run tags, concatenated.

    :returns: columns ``run_tag, topic, docno, rank, score`` (as
        :func:`~pooltool.formats.run.read_run`).
    :raises FormatError: a malformed file.
    :raises UnknownRun: a name that is neither a file nor a stored run tag.
    :raises StoreError: a tag given but no store to look it up in.
    """
    files = [s for s in specs if Path(s).is_file()]
    tags = [s for s in specs if not Path(s).is_file()]
    frames = [read_run(Path(f)) for f in files]
    if tags:
        frames += _stored_runs(ctx, tags)
    return pd.concat(frames, ignore_index=True) if frames else read_run("")


def _stored_runs(ctx: click.Context, tags: list[str]) -> list[pd.DataFrame]:
    from pooltool.store import JudgmentStore

    path = db_path(ctx)
    if not path.exists():
        raise UnknownRun(f"{tags[0]!r} is neither a run file nor (no store at {path}) a run tag")
    with JudgmentStore.open(path) as store:
        return [store.run_frame(tag).drop(columns="trec_rank") for tag in tags]
