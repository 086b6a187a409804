"""Commands for assessors: judge (the terminal UI), assign, agreement."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pooltool.cli.group import (
    check_assessor,
    cli,
    db_path,
    open_store,
    open_store_to_write,
    output_option,
    warn,
)
from pooltool.cli.terminal_app import run_in_terminal
from pooltool.errors import InvalidArgument
from pooltool.judging.agreement import store_agreement
from pooltool.judging.assignment import assign_topics
from pooltool.judging.queue import ORDERS
from pooltool.report import emit
from pooltool.store import DEFAULT_POOL

if TYPE_CHECKING:
    import pandas as pd

pool_option = click.option("--pool", "pool_name", default=DEFAULT_POOL, show_default=True,
                           help="The pool to judge.")


@cli.command()
@click.option("-a", "--assessor", callback=check_assessor,
              help="Who is judging (recorded with each grade); with --serve "
              "each browser tab gives its own name instead.")
@click.option("-t", "--topic", "topics", multiple=True,
              help="Judge this topic (repeatable); one topic opens straight on it.")
@click.option("--order", type=click.Choice(ORDERS),
              help="Queue order: docno (as NIST; the default), rank (best rank over runs), or "
                   "seeded random (the only order with --with-sample).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --order random.")
@pool_option
@click.option("--with-sample", "sample_name", metavar="SAMPLE",
              help="Judge the pool and the sample SAMPLE drawn beyond it in one queue, shuffled "
                   "for each assessor, so no one can tell sampled documents from pooled ones.")
@click.option("--serve", is_flag=True,
              help="Serve the app to web browsers (textual-serve), one assessor per tab.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for --serve.")
@click.option("-v", "--verbose", is_flag=True,
              help="With --serve: log every HTTP request on the console (default: errors only).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="Port for --serve (1-65535).")
@click.option("--no-login", is_flag=True,
              help="With --serve: no login even on a non-loopback --host or with accounts "
                   "(anyone reaching the port judges under any name).")
@click.option("--server-name", "server_names", multiple=True, metavar="NAME",
              help="With --serve: also answer to this host name (a TLS reverse proxy's "
                   "public name; repeatable).")
@click.pass_context
def judge(ctx: click.Context, assessor: str | None, topics: tuple[str, ...], order: str | None,
          seed: int, pool_name: str, sample_name: str | None, serve: bool, host: str,
          verbose: bool, port: int, no_login: bool, server_names: tuple[str, ...]) -> None:
    """Judge pooled documents in the terminal (a Textual app).

    Lists your assigned topics (or all pooled topics) with their progress,
    the cursor on the topic you used last; Enter opens one. Each grade key
    saves a judgment at once (0-3 by default); u undoes, n adds a note, s
    skips, left/right revisit, j jumps to the next unjudged document, ? lists
    every key, q quits. Reopen to continue where you stopped. Several
    assessors can judge one store at once; the others' judgments show
    within a second (the topic list's counts, "others N" on the judging screen).

    Your queue on a topic assigned to you (either role) holds the pooled
    documents you have not judged yet, so overlap topics get a second
    judgment; on other topics, the pooled documents nobody has judged
    (imported qrels count; a negative grade does not). Documents you judged
    stay in the queue to revisit. "Remaining" counts what is left of it.

    On an adaptive pool (pool --strategy) each next document is the one the
    strategy chooses from everyone's judgments so far, one at a time, until
    the topic's budget is used; the status line shows the budget used and
    the estimated relevant documents not found yet.

    A note written before the grade is saved at once and joins the grade.
    While another process holds the store busy, or a PostgreSQL store's server
    is unreachable, your writes wait in a journal next to the store
    (DB.pending-ASSESSOR-PID.jsonl) and are saved as soon as the store is free
    (the app connects again by itself), or by the next pooltool command if the
    app ends first.

    --with-sample SAMPLE judges the pool and a sample drawn beyond it
    ('pooltool sample --pool POOL') in one queue: the pool POOL+SAMPLE, which
    holds both (brought up to date each time, so a grown sample joins it) and
    no run hits, in random order seeded by --seed and the assessor's name
    (reproducible, different for each assessor). The runs line then says
    nothing about where a document came from.

    With --serve, each browser tab runs its own app under the name it gives
    (the first page asks; /?assessor=NAME in the address skips the question).
    The server listens on 127.0.0.1 unless --host says otherwise. When the
    store has accounts ('pooltool users add NAME') a login page comes first
    and each tab judges under its login's name (role assessor or admin); a
    non-loopback --host without accounts is refused unless --no-login. Its
    pages load nothing from outside this machine. Its console logs errors
    and failed logins only; --verbose logs every HTTP request.

    \b
    Example:
      pooltool --db covid.db judge --assessor alice
      pooltool --db covid.db judge -a bob --topic 7 --order random --seed 3
      pooltool --db covid.db judge -a carol --with-sample s1
      pooltool --db covid.db judge --serve --port 8000
    """
    from pooltool.tui.app import make_app

    if sample_name is not None:
        if serve or assessor is None:
            raise click.UsageError("--with-sample shuffles the queue for one named assessor: "
                                   "give --assessor (it does not work with --serve)")
        pool_name, order, seed = _mixed_queue(ctx, pool_name, sample_name, order, seed, assessor)
    order = order or "docno"

    if serve:
        _serve(db_path(ctx), assessor, topics, order, seed, pool_name, host, port, verbose,
               no_login, server_names)
        return
    app = make_app(db_path(ctx), assessor or "", list(topics), order, seed, pool_name)
    run_in_terminal(ctx, app, "judge", "judging")


def _mixed_queue(ctx: click.Context, pool_name: str, sample_name: str, order: str | None,
                 seed: int, assessor: str) -> tuple[str, str, int]:
    """Bring the pool mixing ``pool_name`` and the sample up to date; its name, the
    random order and the assessor's seed (:func:`~pooltool.judging.queue.assessor_seed`).

    :raises click.UsageError: an order other than random.
    """
    from pooltool.judging.queue import assessor_seed

    if order not in (None, "random"):
        raise click.UsageError("--with-sample shuffles the queue for each assessor "
                               f"(--order random); --order {order} would set the sample apart")
    with open_store_to_write(ctx) as store:
        mixed, added = store.mix_sample(pool_name, sample_name)
    if added:
        warn(f"pool {mixed!r}: {added} document(s) of pool {pool_name!r} and sample "
             f"{sample_name!r} added")
    return mixed, "random", assessor_seed(seed, assessor)


def _serve(db: str | Path, assessor: str | None, topics: tuple[str, ...], order: str, seed: int,
           pool_name: str, host: str, port: int, verbose: bool = False,
           no_login: bool = False, server_names: tuple[str, ...] = ()) -> None:
    """Check, then serve one judging app per browser tab (each tab names its assessor)."""
    from pooltool.tui.judgeable import check_judgeable
    from pooltool.tui.serve import (
        LOOPBACK,
        command_for,
        login_rule,
        refuse_busy_port,
        require_textual_serve,
        serve,
    )

    require_textual_serve()
    if assessor is not None:
        raise InvalidArgument("with --serve each browser tab names its assessor (the first "
                              "page asks, or open /?assessor=NAME): drop --assessor")
    check_judgeable(db, topics, order, pool_name)
    logins = login_rule(db, host, no_login, "judge")
    refuse_busy_port(host, port)
    address = f"[{host}]" if ":" in host else host  # an IPv6 address goes in brackets
    warn(f"serving the judging app on http://{address}:{port}/ (Ctrl+C stops); " + (
        "each browser tab logs in first" if logins else
        "each browser tab asks for its assessor's name, or open /?assessor=NAME"))
    if logins is None and host not in (LOOPBACK, "localhost", "::1"):
        warn(f"{host} is not loopback: anyone who reaches this port can judge, under any "
             "name (--no-login)")
    serve(command_for(db, topics, order, seed, pool_name), host, port, verbose, logins,
          server_names)


def _assessor_names(_ctx: click.Context, _param: click.Parameter,
                    value: tuple[str, ...]) -> tuple[str, ...]:
    """Refuse a blank name: reassigning replaces earlier assignments, so a stray
    ``""`` would hand the topics to nobody."""
    if any(not name.strip() for name in value):
        raise click.BadParameter("an assessor name must not be blank", param_hint="ASSESSORS")
    return tuple(name.strip() for name in value)


@cli.command()
@click.argument("assessors", nargs=-1, required=True, callback=_assessor_names)
@click.option("-t", "--topic", "topics", multiple=True,
              help="Assign this topic (repeatable; default: every pooled topic).")
@click.option("--overlap", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="Share of topics judged by a second assessor (for agreement).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Picks which topics overlap.")
@click.option("--rebalance", is_flag=True,
              help="Deal topics anew even where assessors have judged (by default such a "
                   "topic stays with whoever judged most of it).")
@pool_option
@output_option()
@click.pass_context
def assign(ctx: click.Context, assessors: tuple[str, ...], topics: tuple[str, ...],
           overlap: float, seed: int, rebalance: bool, pool_name: str, fmt: str) -> None:
    """Give pooled topics to ASSESSORS, balancing the documents left to judge.

    The work of a topic (column unjudged) is its pooled documents nobody has
    judged yet, imported qrels included (import-qrels before assign, so that
    judged documents are not dealt); stderr says how many pooled documents
    of the topics are already judged and how many unjudged each assessor
    gets. Topics are listed in numeric order where ids are numbers.
    Topics assigned again replace their earlier assignment. A topic on which
    assessors have judged stays with the one who judged most of it (column
    judged; judgments imported with import-qrels do not count), unless
    --rebalance. With --overlap, that share of topics also
    goes to a second assessor. Open judging apps pick the new assignment up
    when a topic opens or the topic list is refreshed (r).

    \b
    Example:
      pooltool --db covid.db assign alice bob carol --overlap 0.2
    """
    with open_store_to_write(ctx) as store:
        plan = assign_topics(store, list(assessors), list(topics) or None, overlap, seed,
                             pool_name, rebalance)
    emit(plan, fmt)
    kept = plan[(plan["role"] == "primary") & (plan["judged"] > 0)]
    others = kept[~kept["assessor"].isin(assessors)]
    warn(f"assigned {plan['topic'].nunique()} topics to {len(assessors)} assessors"
         + (f", of which {len(others)} {'stays' if len(others) == 1 else 'stay'} with "
            f"{_names(others['assessor'])}, not named here" if len(others) else ""))
    if len(kept) and not rebalance:
        warn(f"{len(kept)} topic(s) stay with the assessor who judged most of them "
             "(--rebalance deals them anew)")
    warn(_work_line(plan))


def _work_line(plan: pd.DataFrame) -> str:
    """What ``assign`` dealt: the topics' pooled documents already judged, and the
    unjudged ones each assessor has to judge (an overlap topic counts for both)."""
    topics = plan.drop_duplicates("topic")
    pooled, left = int(topics["pooled"].sum()), int(topics["unjudged"].sum())
    per = plan.groupby("assessor", sort=False)["unjudged"].sum()
    shares = ", ".join(f"{name} {int(per[name])}" for name in per.index)
    return (f"{pooled - left} of the {pooled} pooled documents of these topics are already "
            f"judged (imported qrels included); {left} unjudged to judge: {shares}"
            + (" (an overlap topic counts for both its assessors)"
               if (plan["role"] == "overlap").any() else ""))


def _names(assessors: Iterable[str]) -> str:
    """``ann`` / ``ann and ben`` / ``ann, ben and cat``: the distinct names, sorted."""
    names = sorted(set(assessors))
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@cli.command()
@click.option("--threshold", type=int, default=1, show_default=True,
              help="Lowest grade counted as relevant for binary kappa.")
@click.option("-t", "--topic", "topics", multiple=True, help="Only this topic (repeatable).")
@click.option("--a", "side_a", metavar="SIDE",
              help="Compare this side with --b only: an assessor, a comma list of assessors, "
                   "@people or @machines.")
@click.option("--b", "side_b", metavar="SIDE", help="The other side (see --a).")
@click.option("--alpha-level", "alpha_level", type=click.Choice(["nominal", "ordinal", "interval"]),
              default="ordinal", show_default=True,
              help="Krippendorff's level of measurement for alpha (the column is alpha_LEVEL).")
@click.option("--adjudication", is_flag=True,
              help="Agreement before and after adjudication, and of each assessor with the "
                   "adjudicated grades (column stage).")
@click.option("--many", is_flag=True,
              help="One row per topic over every assessor at once: Fleiss' kappa and "
                   "Krippendorff's alpha with missing judgments.")
@output_option()
@click.pass_context
def agreement(ctx: click.Context, threshold: int, topics: tuple[str, ...], side_a: str | None,
              side_b: str | None, alpha_level: str, adjudication: bool, many: bool,
              fmt: str) -> None:
    """Agreement between assessors on the documents both judged.

    One row per assessor pair and topic, plus one 'all' row per pair that
    pools the documents of every topic (each shared document counts once:
    not a mean of the topic rows), with each side's kind (person, machine,
    or mixed for a group of both): raw agreement on grades, binary
    agreement and Cohen's kappa at --threshold, linearly and quadratically
    weighted kappa on grades, and Krippendorff's alpha on grades at
    --alpha-level (ordinal by default: grades are ordered; nominal treats
    every disagreement alike, interval weighs the squared difference of
    grade values). Each assessor's latest grade counts; a group's grade is
    the latest of its members'. Disagreements stay in the log; adjudicated
    grades ('pooltool adjudicate') are no assessor's here.

    --adjudication gives three stages instead: before (people's own
    grades), after (each one's grade of an adjudicated document replaced by
    the adjudicated grade) and adjudicator (each person against
    @adjudicated, on the adjudicated documents they judged).

    --many compares every assessor at once, one row per topic: Fleiss'
    kappa on grades as categories and Krippendorff's alpha at --alpha-level,
    over the documents two or more judged (the others missing); 'undefined'
    says why a figure is NaN, and the 'all' row pools the documents of every
    topic.

    \b
    Example:
      pooltool --db covid.db agreement --threshold 2 --format csv
      pooltool --db covid.db agreement --adjudication
      pooltool --db covid.db agreement --many --alpha-level nominal
      pooltool agreement --a @people --b @machines
      pooltool agreement --a alice --b gpt-judge -t 3 --alpha-level interval
    """
    from pooltool.judging.agreement import judged_grades

    if (side_a is None) != (side_b is None):
        raise click.UsageError("give both --a and --b, or neither")
    sides = (side_a, side_b) if side_a is not None and side_b is not None else None
    if adjudication:
        _adjudication_agreement(ctx, threshold, topics, sides, alpha_level, fmt)
        return
    if many:
        _many_agreement(ctx, topics, sides, alpha_level, fmt)
        return
    with open_store(ctx) as store:
        table = store_agreement(store, threshold, list(topics) or None, sides, alpha_level)
        judges = sorted(set(judged_grades(store, list(topics) or None)["assessor"]))
    if table.empty:
        warn(_nothing_shared(sides, judges))
        if fmt == "table":
            return
    emit(table, fmt, title=f"agreement per assessor pair and topic ('all' pools the documents "
                           f"of every topic; alpha at the {alpha_level} level)")


def _adjudication_agreement(ctx: click.Context, threshold: int, topics: tuple[str, ...],
                            sides: tuple[str, str] | None, level: str, fmt: str) -> None:
    """``agreement --adjudication``: the stages of :func:`adjudication_agreement`."""
    from pooltool.judging.adjudication import adjudication_agreement

    if sides is not None:
        raise click.UsageError("--adjudication compares every pair of people: drop --a/--b")
    with open_store(ctx) as store:
        table = adjudication_agreement(store, threshold, list(topics) or None, level)
    if table.empty:
        warn("no document was judged by two people: nothing to adjudicate or compare")
    emit(table, fmt, title=f"agreement before and after adjudication ('all' pools the "
                           f"documents of every topic; alpha at the {level} level)")


def _many_agreement(ctx: click.Context, topics: tuple[str, ...], sides: tuple[str, str] | None,
                    level: str, fmt: str) -> None:
    """``agreement --many``: :func:`~pooltool.judging.multi_rater.multi_rater_table`."""
    from pooltool.judging.agreement import judged_grades
    from pooltool.judging.multi_rater import multi_rater_table

    if sides is not None:
        raise click.UsageError("--many compares every assessor at once: drop --a/--b")
    with open_store(ctx) as store:
        table = multi_rater_table(judged_grades(store, list(topics) or None), level)
    emit(table, fmt, title=f"agreement of every assessor per topic ('all' pools the documents "
                           f"of every topic; alpha at the {level} level)")


def _nothing_shared(sides: tuple[str, str] | None, judges: list[str]) -> str:
    """The one line ``agreement`` says when no document was judged by two sides."""
    if sides:
        return "no document was judged by both sides"
    if not judges:
        return "no assessor has judged a document yet: agreement needs documents judged by two"
    if len(judges) == 1:
        return (f"only one assessor ({judges[0]}) has judged: agreement needs documents judged "
                "by two (pooltool assign --overlap gives topics a second assessor)")
    return (f"no document was judged by two assessors ({len(judges)} assessors judged, "
            "each on other documents)")
