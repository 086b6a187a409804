"""Running a Textual app of pooltool's (judging, adjudicating) in this terminal: the
checks before it starts and what is said when it ends, one home for both commands."""

from __future__ import annotations

import sys
from typing import Any

import click

from pooltool.cli.group import db_path, warn
from pooltool.errors import PooltoolError, StoreWriteFailed


def run_in_terminal(ctx: click.Context, app: Any, command: str, work: str) -> None:
    """Run ``app`` (a ``JudgeApp`` or an ``AdjudicateApp``: ``store``, ``writes``,
    ``run()``, ``return_code``) for ``pooltool COMMAND``, which does ``work``
    ("judging", "adjudicating").

    Writes left unsaved when it ends (an unreachable server) are named with the journal
    they wait in; the next pooltool command on this machine commits them.

    :raises StoreWriteFailed: the store can be read but not written.
    :raises PooltoolError: stdin or stdout is not a terminal (``--serve`` is the way).
    :raises SystemExit: with the app's return code (128 + a signal's number, or 1 for a
        crash, whose line says where) when it is not 0.
    """
    if app.store.read_only:
        app.store.close()
        raise StoreWriteFailed(f"{db_path(ctx)}: the store can be read but not written "
                               f"(read-only file or folder), and {work} writes to it")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        app.store.close()
        raise PooltoolError(f"{command} needs a terminal (its input and output are not one); "
                            f"use --serve to {command} in a web browser")
    app.run()
    if app.writes.pending and app.writes.journal is not None:
        warn(f"{app.writes.pending} {work} write(s) wait in {app.writes.journal}: the store's "
             "server was unreachable when the app ended; the next pooltool command run on "
             "this machine saves them")
    if app.return_code:
        raise SystemExit(app.return_code)
