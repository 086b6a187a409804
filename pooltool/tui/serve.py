"""``pooltool judge --serve``: the judging app in web browsers, one assessor per tab.

Each browser tab runs its own ``python -m pooltool.tui`` process on the store,
exactly like a terminal session, so several assessors can judge at once. The
assessor's name comes from the tab: the first page asks for it, or the
address carries it (``/?assessor=NAME``); it is checked by
:func:`assessor_name` and passed to that tab's process as one quoted argument.
The server (:mod:`pooltool.tui.web_server`, on textual-serve) binds to
127.0.0.1 unless told otherwise, since it has no login, and every page,
script, style sheet and font it serves comes from this machine.
"""

from __future__ import annotations

import re
import shlex
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pooltool.errors import InvalidArgument, PooltoolError
from pooltool.records import is_postgresql_url
from pooltool.store import DEFAULT_POOL

LOOPBACK = "127.0.0.1"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
"""The host names a server bound to loopback answers to (in a request's ``Host``)."""
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
NAME_MAX = 64
NAME_RULE = (f"1 to {NAME_MAX} letters, digits, spaces or . _ - @ ' (with at least one "
             "letter or digit)")
_NAME = re.compile(rf"[\w .@'-]{{1,{NAME_MAX}}}")

if TYPE_CHECKING:
    from pooltool.tui.logins import Logins

CommandFor = Callable[[str], str]
"""Builds the shell command of one tab's judging app from its assessor name."""


def assessor_name(text: str) -> str:
    """Check an assessor name typed in a browser (or put in its address).

    :param text: the name as received; spaces around it are dropped.
    :returns: the name to judge as.
    :raises InvalidArgument: the name breaks :data:`NAME_RULE` (blank, too
        long, or holding other characters: quotes, brackets, slashes, control
        characters).
    """
    name = text.strip()
    if not _NAME.fullmatch(name) or not re.search(r"[^\W_]", name):
        raise InvalidArgument(f"an assessor name is {NAME_RULE}")
    return name


def served_names(host: str) -> frozenset[str]:
    """The host names a server started with ``--host HOST`` answers to, lower-case: a
    request whose ``Host`` header names another is refused, so that a page of another
    site whose name was made to point at this machine (DNS rebinding) cannot reach it.

    Loopback (the default) answers to ``127.0.0.1``, ``localhost`` and ``::1``; a named
    host or address to that name only; every address (``0.0.0.0``, ``::``) to the
    loopback names, this machine's host name and fully qualified name, and the
    addresses they resolve to.
    """
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return LOOPBACK_NAMES
    if name not in WILDCARDS:
        return frozenset({name})
    names = {*LOOPBACK_NAMES, socket.gethostname().lower(), socket.getfqdn().lower()}
    for machine in list(names - LOOPBACK_NAMES):
        try:
            names.update(str(info[4][0]).lower() for info in socket.getaddrinfo(machine, None))
        except OSError:
            pass
    return frozenset(names)


def app_command(db: str | Path, assessor: str, topics: Sequence[str] = (),
                order: str = "docno", seed: int = 0, pool: str = DEFAULT_POOL) -> str:
    """The shell command that runs one judging app (what each browser tab runs);
    every argument is quoted, the name given as ``--assessor=NAME``."""
    where = db if is_postgresql_url(db) else str(Path(db).resolve())
    args = [sys.executable, "-m", "pooltool.tui", "--db", str(where),
            f"--assessor={assessor}", "--order", order, "--seed", str(seed), "--pool", pool]
    for topic in topics:
        args += ["--topic", topic]
    return shlex.join(args)


def command_for(db: str | Path, topics: Sequence[str] = (), order: str = "docno",
                seed: int = 0, pool: str = DEFAULT_POOL) -> CommandFor:
    """:func:`app_command` for these settings, the assessor left to each tab."""
    def command(assessor: str) -> str:
        return app_command(db, assessor, topics, order, seed, pool)
    return command


def adjudicate_command_for(db: str | Path, topics: Sequence[str] = (),
                           pair: tuple[str, str] | None = None,
                           min_distance: int = 1) -> CommandFor:
    """The shell command of one tab's adjudication app (``python -m
    pooltool.tui.adjudicate``), the adjudicator's name left to each tab; every argument
    quoted, the name given as ``--adjudicator=NAME``."""
    where = db if is_postgresql_url(db) else str(Path(db).resolve())
    args = [sys.executable, "-m", "pooltool.tui.adjudicate", "--db", str(where),
            "--min-distance", str(min_distance)]
    for topic in topics:
        args += ["--topic", topic]
    if pair is not None:
        args += ["--pair", *pair]

    def command(adjudicator: str) -> str:
        return shlex.join([*args, f"--adjudicator={adjudicator}"])
    return command


MISSING = "--serve needs textual-serve: pip install 'pooltool[serve]'"


def require_textual_serve() -> None:
    """Check that textual-serve can be imported (before anything is printed or opened).

    :raises PooltoolError: it cannot.
    """
    try:
        import textual_serve.server  # noqa: F401
    except ImportError as exc:
        raise PooltoolError(MISSING) from exc


def refuse_busy_port(host: str, port: int) -> None:
    """Check that the server can listen on ``host:port`` before saying it serves there.

    :raises InvalidArgument: the address cannot be bound (in use, or not this machine's),
        with the operating system's reason.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(infos[0][4])
    except OSError as exc:
        raise InvalidArgument(f"cannot serve on {host}:{port}: {exc.strerror or exc}; "
                              "choose another --port or --host") from None


#: The loggers of the serve console: the root (textual-serve's handler), aiohttp's access
#: log (one line per HTTP request) and server log, and textual-serve's own.
CONSOLE_LOGGERS = ("", "aiohttp.access", "aiohttp.server", "aiohttp.web", "textual-serve")


def console_log_level(verbose: bool) -> None:
    """Set the serve console's loggers (:data:`CONSOLE_LOGGERS`) to errors only, or with
    ``verbose`` to every request and event (INFO, textual-serve's own default)."""
    import logging

    for name in CONSOLE_LOGGERS:
        logging.getLogger(name or None).setLevel(logging.INFO if verbose else logging.ERROR)


def is_loopback(host: str) -> bool:
    """Whether ``--host`` binds to this machine only: a loopback name or address
    (127.0.0.0/8, ::1)."""
    import ipaddress

    name = host.strip("[]").lower()
    try:
        return name in LOOPBACK_NAMES or ipaddress.ip_address(name).is_loopback
    except ValueError:  # a host name other than localhost
        return False


def login_rule(db: str | Path, host: str, no_login: bool, app: str) -> Logins | None:
    """Whether the served ``app`` (``judge``, ``adjudicate``) asks for a login: when the
    store has accounts (``pooltool users add``), unless ``no_login``.

    :returns: the logins to put in front of the app, or ``None`` (each tab names itself).
    :raises InvalidArgument: a host other than loopback, no accounts and no ``no_login``.
    """
    from pooltool.store import JudgmentStore
    from pooltool.store.accounts import MAY
    from pooltool.tui.logins import Logins, store_check

    with JudgmentStore.open(db) as store:
        accounts = store.accounts()
    if accounts and not no_login:
        return Logins(store_check(str(db)), MAY[app], app)
    if not is_loopback(host) and not no_login:
        raise InvalidArgument(f"--host {host} is not loopback and the store has no accounts: "
                              "anyone reaching the port could work under any name; add accounts "
                              "('pooltool users add NAME'), or give --no-login to serve without")
    return None


def serve(command: CommandFor, host: str = LOOPBACK, port: int = 8000,
          verbose: bool = False, logins: Logins | None = None,
          server_names: tuple[str, ...] = ()) -> None:
    """Serve one judging app per browser tab (see :func:`command_for`) over HTTP
    until Ctrl+C. The console logs errors only (and failed logins), every request with
    ``verbose``.

    :param logins: ask for a login first (:mod:`pooltool.tui.logins`); ``None``: no login.
    :param server_names: more host names to answer to (a reverse proxy's public name).
    :raises PooltoolError: textual-serve is not installed.
    """
    require_textual_serve()
    import logging

    from pooltool.tui.web_server import JudgeServer

    server = JudgeServer(command, host=host, port=port, logins=logins,
                         server_names=server_names)
    set_up = server.initialize_logging

    def initialize_logging() -> None:  # textual-serve's handler, then the levels
        set_up()
        console_log_level(verbose)
        logging.getLogger("pooltool.login").setLevel(logging.INFO)  # failed logins shown

    server.initialize_logging = initialize_logging  # type: ignore[method-assign]
    server.serve()
