"""The click group every command hangs on, and the options commands share.

Each command parses its options, calls one public function of the core, and
hands the result to :mod:`pooltool.report`. Any :class:`PooltoolError` becomes
``Error: <message>`` on stderr with exit status 1, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from pooltool.errors import PooltoolError
from pooltool.report import FORMATS

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
F = TypeVar("F", bound=Callable[..., Any])


class PooltoolGroup(click.Group):
    """A click group that turns pooltool errors into clean ``Error:`` lines."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PooltoolError as exc:
            raise click.ClickException(str(exc)) from exc


@click.group(cls=PooltoolGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_name="pooltool")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default="pooltool.db",
    envvar="POOLTOOL_DB",
    show_default=True,
    help="The judgment store (SQLite file); also set by POOLTOOL_DB.",
)
@click.pass_context
def cli(ctx: click.Context, db: Path) -> None:
    """Build IR test collections the TREC way: pool runs, judge, measure recall.

    \b
    Start with:  pooltool demo
    Then:        pooltool --db my.db init && pooltool --db my.db add-runs runs/*
    """
    ctx.obj = db


def output_option(default: str = "table", choices: tuple[str, ...] = FORMATS) -> Callable[[F], F]:
    """Add ``--format`` (table for people; csv, tsv, json, jsonl for scripts)."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(choices),
        default=default,
        show_default=True,
        help="Output format.",
    )


def db_path(ctx: click.Context) -> Path:
    """The store path chosen with ``--db`` / ``POOLTOOL_DB``."""
    return ctx.find_root().obj  # type: ignore[no-any-return]


def warn(message: str) -> None:
    """Print a message for people on stderr (never mixed with data on stdout)."""
    click.echo(message, err=True)
