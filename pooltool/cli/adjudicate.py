"""Commands for adjudicators: adjudicate (the terminal UI, or served), disagreements."""

from __future__ import annotations

import sys

import click

from pooltool.cli.group import check_assessor, cli, db_path, open_store, output_option, warn
from pooltool.cli.terminal_app import run_in_terminal

_topic_option = click.option("-t", "--topic", "topics", multiple=True,
                             help="Only this topic (repeatable).")
_pair_option = click.option("--pair", nargs=2, metavar="A B",
                            help="Only documents assessors A and B both judged, apart.")
_distance_option = click.option("--min-distance", type=click.IntRange(1), default=1,
                                show_default=True,
                                help="Only disagreements at least this many grades apart.")


@cli.command()
@click.option("-a", "--adjudicator", callback=check_assessor,
              help="Who adjudicates (recorded with each adjudicated grade).")
@_topic_option
@_pair_option
@_distance_option
@click.option("--serve", is_flag=True,
              help="Serve the app to web browsers (textual-serve), one adjudicator per tab.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for --serve.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="Port for --serve (1-65535).")
@click.option("--no-login", is_flag=True,
              help="With --serve: no login even on a non-loopback --host or with accounts.")
@click.option("--server-name", "server_names", multiple=True, metavar="NAME",
              help="With --serve: also answer to this host name (a TLS reverse proxy's "
                   "public name; repeatable).")
@click.pass_context
def adjudicate(ctx: click.Context, adjudicator: str | None, topics: tuple[str, ...],
               pair: tuple[str, str] | None, min_distance: int, serve: bool, host: str,
               port: int, no_login: bool, server_names: tuple[str, ...]) -> None:
    """Resolve disagreements between assessors (a Textual app).

    Lists the documents people judged with different grades (each person's
    latest grade; machines left out) that no adjudication resolves yet, per
    topic. The right side shows the topic, every assessor's grade, note and
    time, and the document with the query's terms marked. A grade key records
    your grade as an adjudicated judgment naming the judgments it resolves;
    u undoes your latest one (a retraction, as for judgments); r shows
    resolved disagreements too; q quits. New disagreements appear within a
    second while others judge. Export the result with 'export-qrels --policy
    adjudicated' (the adjudicated grade where there is one, else the latest).

    With --serve, each browser tab runs its own app, on 127.0.0.1 unless
    --host says otherwise: when the store has accounts, under its login's
    name (role adjudicator or admin), else under the name it gives
    (/?assessor=NAME); a non-loopback --host without accounts is refused
    unless --no-login.

    \b
    Example:
      pooltool --db covid.db adjudicate --adjudicator carol
      pooltool --db covid.db adjudicate -a carol --pair alice bob --min-distance 2
      pooltool --db covid.db adjudicate --serve --port 8001
    """
    if serve:
        _serve(ctx, adjudicator, topics, pair, min_distance, host, port, no_login, server_names)
        return
    from pooltool.tui.adjudicate import make_adjudicate_app

    app = make_adjudicate_app(db_path(ctx), adjudicator or "", topics, pair, min_distance)
    run_in_terminal(ctx, app, "adjudicate", "adjudicating")


def _serve(ctx: click.Context, adjudicator: str | None, topics: tuple[str, ...],
           pair: tuple[str, str] | None, min_distance: int, host: str, port: int,
           no_login: bool, server_names: tuple[str, ...]) -> None:
    """Serve one adjudication app per browser tab (as ``judge --serve`` does)."""
    from pooltool.errors import InvalidArgument
    from pooltool.tui.serve import (
        LOOPBACK_NAMES,
        adjudicate_command_for,
        login_rule,
        refuse_busy_port,
        serve,
    )

    if adjudicator is not None:
        raise InvalidArgument("with --serve each browser tab names its adjudicator (the "
                              "first page asks, or open /?assessor=NAME): drop --adjudicator")
    logins = login_rule(db_path(ctx), host, no_login, "adjudicate")
    refuse_busy_port(host, port)
    warn(f"serving the adjudication app on http://{host}:{port}/ (Ctrl+C stops)")
    if logins is None and host not in LOOPBACK_NAMES:
        warn(f"{host} is not loopback: anyone who reaches this port can adjudicate, under "
             "any name (--no-login)")
    serve(adjudicate_command_for(db_path(ctx), topics, pair, min_distance), host, port,
          logins=logins, server_names=server_names)


@cli.command()
@_topic_option
@_pair_option
@_distance_option
@click.option("--resolved", "include_resolved", is_flag=True,
              help="List resolved disagreements too.")
@output_option()
@click.pass_context
def disagreements(ctx: click.Context, topics: tuple[str, ...], pair: tuple[str, str] | None,
                  min_distance: int, include_resolved: bool, fmt: str) -> None:
    """Documents people judged with different grades, and whether they are adjudicated.

    One row per document: the assessors and their grades (name order), how
    far apart the grades are, the latest adjudicated grade, and whether an
    adjudication resolves the grades as they are now (a grade changed after
    it reopens the disagreement).

    \b
    Example:
      pooltool --db covid.db disagreements
      pooltool --db covid.db disagreements --pair alice bob --min-distance 2 --resolved
    """
    from pooltool.judging.adjudication import disagreements as find
    from pooltool.report import emit

    with open_store(ctx) as store:
        table = find(store, list(topics) or None, pair, min_distance, include_resolved)
    table = table.assign(
        assessors=table["assessors"].map(",".join),
        grades=table["grades"].map(lambda grades: ",".join(map(str, grades)))).drop(
        columns="judgment_ids")
    emit(table, fmt, title="disagreements between people's grades")


@cli.group("users")
def users_group() -> None:
    """Accounts for the served apps' logins (judge --serve, adjudicate --serve).

    \b
    Example:
      pooltool --db covid.db users add alice
      pooltool --db covid.db users add carol --role adjudicator
      pooltool --db covid.db users list
    """


@users_group.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(["assessor", "adjudicator", "admin", "disabled"]),
              default="assessor", show_default=True,
              help="assessor judges, adjudicator adjudicates, admin does both; disabled "
                   "ends the account.")
@click.option("--password-stdin", is_flag=True,
              help="Read the password from standard input (its first line) instead of a prompt.")
@click.pass_context
def users_add(ctx: click.Context, name: str, role: str, password_stdin: bool) -> None:
    """Give NAME an account, or a new password or role (a new row; nothing is overwritten).

    The password is asked twice at a prompt (never echoed), or read from
    standard input with --password-stdin; never from the command line. Only
    its Argon2id hash is stored. NAME follows the rule of assessor names.

    \b
    Example:
      pooltool --db covid.db users add alice
      printf '%s\\n' "$PASSWORD" | pooltool --db covid.db users add bob --password-stdin
    """
    from pooltool.cli.group import open_store_to_write
    from pooltool.tui.serve import assessor_name

    name = assessor_name(name)
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    with open_store_to_write(ctx) as store:
        store.add_account(name, role, password)
    warn(f"account {name}: role {role}")


@users_group.command("list")
@output_option()
@click.pass_context
def users_list(ctx: click.Context, fmt: str) -> None:
    """Every account's name and role (disabled ones left out; no hashes shown).

    \b
    Example:
      pooltool --db covid.db users list
    """
    import pandas as pd

    from pooltool.report import emit

    with open_store(ctx) as store:
        rows = store.accounts()
    emit(pd.DataFrame(rows, columns=["name", "role"]), fmt, title="accounts")
