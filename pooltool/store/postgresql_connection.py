"""Connecting to a PostgreSQL store from its URL: :func:`connect` (again, after the
server went away), the URL shown without its password, libpq's reason for a
refused connection, and where this machine keeps the URL's journals.

Connection details come from the URL and libpq's usual sources (``PGPASSWORD``,
``~/.pgpass``, ``PGSSLMODE``, service files): a password is never asked for on the
command line. libpq's default ``sslmode=prefer`` uses TLS when the server offers it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pooltool.errors import (
    StoreConnectionLost,
    StoreError,
)


def shown_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is not None:
        parts = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1))
    query = re.sub(r"(^|&)password=[^&]*", r"\1password=***", parts.query)
    return urlunsplit(parts._replace(query=query))


RECONNECT_TIMEOUT_S = 2
"""How long connecting again waits for the server (libpq's ``connect_timeout``, whose
least is 2 s), unless the URL or ``PGCONNECT_TIMEOUT`` says: a judging app connects
again on its UI thread, so a server behind a dropped network must not freeze it."""


def connect(url: str, again: bool = False) -> Any:
    """A psycopg connection to ``url`` in autocommit mode (each statement outside an
    explicit transaction is its own).

    :param again: connecting again after the connection went away (waits at most
        :data:`RECONNECT_TIMEOUT_S`).
    :raises StoreError: the server cannot be reached or refuses the login
        (:class:`~pooltool.errors.StoreConnectionLost` when connecting ``again``).
    """
    import psycopg  # imported only for PostgreSQL stores

    options: dict[str, Any] = {}
    if again and "connect_timeout" not in url and not os.environ.get("PGCONNECT_TIMEOUT"):
        options["connect_timeout"] = RECONNECT_TIMEOUT_S
    try:
        return psycopg.connect(url, autocommit=True, **options)
    except psycopg.Error as exc:
        reason = libpq_reason(str(exc))
        if again:
            raise StoreConnectionLost(f"{shown_url(url)}: the PostgreSQL server went away "
                                      f"and cannot be reached again ({reason})") from exc
        raise StoreError(f"cannot reach the store at {shown_url(url)}: {reason}; "
                         "nothing was changed") from exc


def libpq_reason(message: str) -> str:
    """libpq's message on one line: ``connection failed: connection to server at "h",
    port 5 failed: Connection refused\n\tIs the server running ...?`` becomes
    ``Connection refused (Is the server running ...?)``."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return "no reason given"
    first = re.sub(r"^connection failed: (connection to server .*? failed: )?", "", lines[0])
    return first + (f" ({' '.join(lines[1:])})" if len(lines) > 1 else "")


def journal_base(url: str) -> Path:
    """Where judging apps on this machine keep the journals of writes waiting for a
    PostgreSQL store (:mod:`pooltool.store.journal`): a name for the server, database
    and user under ``$XDG_STATE_HOME/pooltool`` (default ``~/.local/state/pooltool``).
    A journal is replayed by the next pooltool command run on this machine."""
    parts = urlsplit(url)
    name = "_".join(str(p) for p in (parts.hostname or "local", parts.port or 5432,
                                     parts.path.lstrip("/") or "db", parts.username or "user"))
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    folder = Path(state) / "pooltool"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / ("postgresql-" + re.sub(r"[^A-Za-z0-9_.-]", "_", name))
