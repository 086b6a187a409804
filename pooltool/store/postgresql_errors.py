"""psycopg's errors raised as the store's, by :func:`store_errors` around each
statement of :class:`~pooltool.store.postgresql.PostgresqlEngine`:

* a refused write (an append-only trigger, a unique or foreign key) is
  :class:`~pooltool.errors.StoreRefused`;
* waiting longer than the lock timeout for another writer is
  :class:`~pooltool.errors.StoreBusy` ``"database is locked ..."`` (as SQLite's busy
  store);
* a role that may not write a table is :class:`RoleRefused` (a
  :class:`~pooltool.errors.StoreWriteFailed`);
* a server that went away (stopped, restarted, the network dropped) is
  :class:`~pooltool.errors.StoreConnectionLost`; the next statement outside a
  transaction connects again (:meth:`~pooltool.store.postgresql.PostgresqlEngine.reconnect`), and one inside
  the transaction the server took with it does not (so a long write is never
  finished half outside it): the transaction is rolled back whole;
* a refused connection is :class:`~pooltool.errors.StoreError`; a role named that
  does not exist, :class:`StatementRefused`;
* a statement of pooltool's own that the server cannot run is a bug, and raised as
  psycopg's error (as SQLite's own error is on SQLite).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pooltool.errors import (
    StoreBusy,
    StoreConnectionLost,
    StoreError,
    StoreFull,
    StoreRefused,
    StoreWriteFailed,
)

if TYPE_CHECKING:
    from pooltool.store.postgresql import PostgresqlEngine


class RoleRefused(StoreWriteFailed):
    """The server refused the login role a privilege it needs for this (see
    :mod:`pooltool.store.roles`); the transaction was rolled back.

    :param address: the store's URL (no password).
    :param reason: the server's message (``permission denied for table runs``).
    :param what: the past participle for "nothing was ..." (see :meth:`saying`).
    """

    def __init__(self, address: str, reason: str, what: str = "changed") -> None:
        self.address, self.reason = address, reason
        super().__init__(f"{address}: this role may not do this ({reason}); "
                         f"nothing was {what}")

    def saying(self, what: str) -> RoleRefused:
        """The same refusal, saying "nothing was ``what``"."""
        return RoleRefused(self.address, self.reason, what)


class StatementRefused(StoreError):
    """The server refused a statement naming an object that does not exist (a login
    role given to ``init --roles apply``).

    :param address: the store's URL (no password).
    :param reason: the server's message.
    """

    def __init__(self, address: str, reason: str) -> None:
        self.address, self.reason = address, reason
        super().__init__(f"{address}: the database refused a statement ({reason})")



@contextmanager
def store_errors(engine: PostgresqlEngine) -> Iterator[None]:
    """Raise psycopg's errors as the store's (see the module's docstring)."""
    import psycopg
    from psycopg import errors

    try:
        yield
    except psycopg.Error as exc:
        message = (exc.diag.message_primary or str(exc)).strip()
        if isinstance(exc, errors.LockNotAvailable):
            raise StoreBusy(f"database is locked ({message})") from exc
        if isinstance(exc, errors.InsufficientPrivilege):
            raise RoleRefused(engine.address, message) from exc
        if isinstance(exc, psycopg.IntegrityError):
            raise StoreRefused(message) from exc
        if isinstance(exc, errors.DiskFull):
            raise StoreFull(f"{engine.address}: the disk is full ({message})") from exc
        if engine.raw.closed or engine.raw.broken or isinstance(
                exc, errors.AdminShutdown | errors.CrashShutdown | errors.CannotConnectNow):
            raise StoreConnectionLost(
                f"{engine.address}: the PostgreSQL server went away ({message})") from exc
        if isinstance(exc, errors.UndefinedObject):  # a role named that does not exist
            raise StatementRefused(engine.address, message) from exc
        if isinstance(exc, psycopg.OperationalError):
            raise StoreError(f"{engine.address}: {message}") from exc
        raise  # a statement of pooltool's own the server cannot run: a bug, shown as one
