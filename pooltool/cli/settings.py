"""Store settings for judging: the grade scale, the judging screen's settings, and the
guidelines assessors read."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from textwrap import indent

import click
import pandas as pd

from pooltool.cli.group import cli, open_store, open_store_to_write, output_option, warn
from pooltool.errors import InvalidArgument
from pooltool.records import topic_key
from pooltool.report import emit
from pooltool.store import GradeLevel, JudgmentStore
from pooltool.store.claims import claim_minutes as claim_length
from pooltool.store.guidelines import (
    GuidelineText,
    add_guidelines,
    current_guidelines,
    guideline_history,
)
from pooltool.text import visible
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
    screen's command keys (u n s j h / g ? q). A name may hold spaces, quoted
    or not. Judgments already given keep their grades; a grade they use that
    the new scale drops is named on stderr.

    \b
    Example:
      pooltool --db covid.db grades set 0:x:not relevant 1:r:relevant 2:v:very relevant
    """
    from pooltool.tui.keys import check_grade_scale

    scale = [_parse_level(spec) for spec in _join_words(levels)]
    check_grade_scale(scale)
    with open_store_to_write(ctx) as store:
        store.set_grade_scale(scale)
        used = store.own_grades()["grade"]
    emit(_scale_frame(scale), "table")
    warn(f"grade scale set: {len(scale)} grades")
    _warn_dropped(used, {level.grade for level in scale})


def _warn_dropped(used: pd.Series, kept: set[int]) -> None:
    """Warn when judgments (each assessor's current grade, >= 0) use a grade the new
    scale lacks: they keep it, but the judging screen has no key or name for it."""
    from pooltool.records import is_judged

    counts = used[is_judged(used)].astype(int).value_counts()
    dropped = sorted(int(g) for g in counts.index if int(g) not in kept)
    if dropped:
        uses = ", ".join(f"{g} ({int(counts[g])} judgment(s))" for g in dropped)
        warn(f"warning: the new scale drops grade(s) the judgments use: {uses}; those "
             "judgments keep their grades, which the judging screen shows without a key or "
             "name (add the grade back to keep it)")


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
@click.option("--claim-minutes", type=click.FloatRange(min=0, min_open=True), default=None,
              help="How long a judging app's claim on the document it shows lasts on a shared "
                   "topic (more than 0; default 5); renewed while the document stays on "
                   "screen, given up when the assessor leaves the topic.")
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
        claim = claim_length(store.setting("claim_minutes"))
    click.echo(f"show runs: {'yes' if shown else 'no'}")
    click.echo(f"require end: {'yes' if end else 'no'}")
    click.echo(f"idle after: {idle:g} s")
    click.echo(f"claims last: {claim:g} min")


def _read_text(path: str) -> str:
    """The text of a guidelines file (``-``: stdin), trailing blanks removed
    (:func:`~pooltool.formats.guidelines.read_guidelines`).

    :raises FormatError: a pipe or device, a damaged gzip file, not UTF-8, a NUL byte.
    :raises InvalidArgument: nothing in it.
    """
    from pooltool.formats.guidelines import read_guidelines

    text = read_guidelines(sys.stdin if path == "-" else Path(path))
    if not text:
        raise InvalidArgument(f"{path} is empty: use --clear to withdraw a text")
    return text


def _grade_definition(spec: str, scale: list[GradeLevel]) -> GuidelineText:
    """``GRADE:TEXT`` as a guideline text (an empty TEXT withdraws the definition).

    :raises InvalidArgument: no ``:``, or a grade the scale does not have.
    """
    grade, colon, text = spec.partition(":")
    grades = {str(level.grade) for level in scale}
    if not colon:
        raise InvalidArgument(f"--grade-definition {spec!r}: write GRADE:TEXT, e.g. "
                              "'1:on topic, answers part of the question'")
    if grade.strip() not in grades:
        raise InvalidArgument(f"--grade-definition {spec!r}: the grade scale has no grade "
                              f"{grade.strip()!r} (it has {', '.join(sorted(grades))}; see "
                              "'pooltool grades')")
    return GuidelineText("grade", grade.strip(), text.strip(), "command line")


def _echo(text: str) -> None:
    """Print a line of store data for people (control characters shown visibly)."""
    click.echo(visible(text, lines=True))


def _show_guidelines(store: JudgmentStore) -> None:
    """Print the guidelines in force as text (stdout)."""
    now = current_guidelines(store)
    _echo("Grades")
    for level in store.grade_scale():
        definition = now.grades.get(level.grade, "(no definition: --grade-definition)")
        _echo(f"  {level.grade} {level.name}: {definition}")
    _echo("Collection guidelines")
    _echo(indent(now.collection or "(none: --text FILE)", "  "))
    _echo("Topic instructions" + ("" if now.topics else
                                       " (none: the judging app shows each narrative)"))
    for topic in sorted(now.topics, key=topic_key):
        _echo(f"  topic {topic}:")
        _echo(indent(now.topics[topic], "    "))


@cli.command("guidelines")
@click.option("--text", "text_file", type=click.Path(exists=True, dir_okay=False, allow_dash=True),
              help="Set the collection-wide guidelines (with --topic: that topic's "
                   "instructions) to the text of this file; - reads stdin.")
@click.option("--topic", help="With --text or --clear: the topic whose instructions to set "
                              "(they replace its narrative on the guidelines screen).")
@click.option("--clear", is_flag=True,
              help="Withdraw the collection-wide guidelines (with --topic: that topic's "
                   "instructions).")
@click.option("--grade-definition", "definitions", multiple=True, metavar="GRADE:TEXT",
              help="Define a grade of the scale (repeat for each grade; GRADE: alone "
                   "withdraws the definition).")
@click.option("--history", is_flag=True,
              help="Print every text ever set, oldest first, with its source and time.")
@click.pass_context
def guidelines(ctx: click.Context, text_file: str | None, topic: str | None, clear: bool,
               definitions: tuple[str, ...], history: bool) -> None:
    """Show or set the judging guidelines assessors read on the guidelines screen (g).

    Grade definitions, collection-wide guidelines and per-topic instructions
    (a topic without them shows its narrative). Nothing is overwritten: a new
    text supersedes the old one, which stays in the history (--history).
    Without an option, prints the guidelines in force.

    \b
    Example:
      pooltool --db covid.db guidelines --grade-definition "0:off topic" \\
          --grade-definition "1:on topic, answers part of the question"
      pooltool --db covid.db guidelines --text guidelines.txt
      pooltool --db covid.db guidelines --topic 7 --text topic7.txt
    """
    if text_file is not None and clear:
        raise InvalidArgument("give --text FILE or --clear, not both")
    if topic is not None and text_file is None and not clear:
        raise InvalidArgument("--topic needs --text FILE (set its instructions) or --clear")
    changing = text_file is not None or clear or bool(definitions)
    with (open_store_to_write if changing else open_store)(ctx) as store:
        texts = [_grade_definition(spec, store.grade_scale()) for spec in definitions]
        if text_file is not None or clear:
            if topic is not None:
                store.topic(topic)  # raises UnknownTopic
            text = "" if clear else _read_text(text_file or "-")
            texts.append(GuidelineText("collection" if topic is None else "topic",
                                       topic or "", text,
                                       "command line" if clear else _source(text_file or "-")))
        if texts:
            changed = add_guidelines(store, texts)
            warn(f"guidelines: {len(changed)} text(s) set" if changed else
                 "guidelines: nothing changed (each text given is already the one in force)")
        if history:
            for scope, target, text, source, at in guideline_history(store):
                _echo(f"{at}  {scope} {target}".rstrip() + f"  from {source}")
                _echo(indent(text or "(withdrawn)", "    "))
        else:
            _show_guidelines(store)


def _source(path: str) -> str:
    """A guidelines file as its source is recorded: the absolute path, or ``stdin``."""
    return "stdin" if path == "-" else str(Path(path).resolve())
