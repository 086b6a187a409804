"""Store settings for judging: the grade scale and whether run names show."""

from __future__ import annotations

import re

import click
import pandas as pd

from pooltool.cli.group import cli, open_store, open_store_to_write, output_option, warn
from pooltool.report import emit
from pooltool.store import GradeLevel
from pooltool.store.claims import DEFAULT_CLAIM_MINUTES
from pooltool.tui.activity import DEFAULT_IDLE_S


def _scale_frame(scale: list[GradeLevel]) -> pd.DataFrame:
    return pd.DataFrame([tuple(level) for level in scale], columns=["grade", "key", "name"])


@cli.group(invoke_without_command=True)
@output_option()
@click.pass_context
def grades(ctx: click.Context, fmt: str) -> None:
    """Show the store's grade scale: each grade, its key and its name.

    The judging screen binds one key per grade and shows the names in its
    footer; 'pooltool grades set' changes them.

    \b
    Example:
      pooltool --db covid.db grades
      pooltool --db covid.db grades set 0:x:not relevant 1:r:relevant 2:v:very relevant
    """
    if ctx.invoked_subcommand is not None:
        return
    with open_store(ctx) as store:
        scale = store.grade_scale()
    emit(_scale_frame(scale), fmt)


LEVEL_START = re.compile(r"^\s*-?\d+:")


def _join_words(tokens: tuple[str, ...]) -> list[str]:
    """Unquoted names arrive as several words: a word that does not start a
    level (``GRADE:``) continues the name before it."""
    specs: list[str] = []
    for token in tokens:
        if specs and not LEVEL_START.match(token):
            specs[-1] += " " + token
        else:
            specs.append(token)
    return specs


def _parse_level(spec: str) -> GradeLevel:
    parts = spec.split(":", 2)
    if len(parts) != 3:
        raise click.BadParameter(f"{spec!r}: write each grade as GRADE:KEY:NAME, "
                                 "e.g. '1:r:relevant'", param_hint="LEVELS")
    grade, key, name = parts
    try:
        value = int(grade.strip())
    except ValueError:
        raise click.BadParameter(f"{spec!r}: the grade {grade!r} is not an integer",
                                 param_hint="LEVELS") from None
    if not name.strip():
        raise click.BadParameter(f"{spec!r}: the grade name must not be blank",
                                 param_hint="LEVELS")
    return GradeLevel(value, key, name.strip())


@grades.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("levels", nargs=-1, required=True)
@click.pass_context
def set_grades(ctx: click.Context, levels: tuple[str, ...]) -> None:
    """Replace the grade scale with LEVELS, each GRADE:KEY:NAME.

    Grades are distinct integers >= 0 (trec_eval reads a negative grade as
    unjudged, so a document given one would stay in the judging queue).
    Keys are distinct single printable characters, none of the judging
    screen's command keys (u n s j h / ? q). A name may hold spaces, quoted
    or not. Judgments already given keep their grades.

    \b
    Example:
      pooltool --db covid.db grades set 0:x:not relevant 1:r:relevant 2:v:very relevant
    """
    from pooltool.tui.keys import check_grade_scale

    scale = [_parse_level(spec) for spec in _join_words(levels)]
    check_grade_scale(scale)
    with open_store_to_write(ctx) as store:
        store.set_grade_scale(scale)
    emit(_scale_frame(scale), "table")
    warn(f"grade scale set: {len(scale)} grades")


@cli.command("judge-settings")
@click.option("--show-runs/--hide-runs", default=None,
              help="Show the judging screen which runs retrieved each document, at which "
                   "rank (hidden by default, as NIST does, so as not to bias assessors).")
@click.option("--require-end/--no-require-end", default=None,
              help="Take a grade only once the end of the document has been on screen "
                   "(off by default); the judging screen says why a grade key is refused.")
@click.option("--idle-seconds", type=click.FloatRange(min=1), default=None,
              help="Active judging time counts a gap between key or mouse events up to this "
                   "many seconds (default 60); pace and ETA use active time.")
@click.option("--claim-minutes", type=click.FloatRange(min=0), default=None,
              help="How long a judging app's claim on the document it shows lasts on a shared "
                   "topic, renewed as the assessor moves on (default 5).")
@click.pass_context
def judge_settings(ctx: click.Context, show_runs: bool | None, require_end: bool | None,
                   idle_seconds: float | None, claim_minutes: float | None) -> None:
    """Show or change the store's judging-screen settings.

    Without an option, prints the current settings.

    \b
    Example:
      pooltool --db covid.db judge-settings --show-runs --require-end
    """
    changes = (show_runs, require_end, idle_seconds, claim_minutes)
    opener = open_store if all(value is None for value in changes) else open_store_to_write
    with opener(ctx) as store:
        for key, value in (("show_runs", show_runs), ("require_end", require_end),
                           ("idle_seconds", idle_seconds), ("claim_minutes", claim_minutes)):
            if value is not None:
                store.set_setting(key, value)
        shown = bool(store.setting("show_runs", False))
        end = bool(store.setting("require_end", False))
        idle = float(store.setting("idle_seconds", DEFAULT_IDLE_S))
        claim = float(store.setting("claim_minutes", DEFAULT_CLAIM_MINUTES))
    click.echo(f"show runs: {'yes' if shown else 'no'}")
    click.echo(f"require end: {'yes' if end else 'no'}")
    click.echo(f"idle after: {idle:g} s")
    click.echo(f"claims last: {claim:g} min")
