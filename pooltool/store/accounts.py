"""Accounts of the served apps' logins (``pooltool users``, ``judge --serve``).

Table ``accounts`` (migration ``m017_accounts``) is append-only: a name's latest row
is its account, so a new password or role is a new row and role ``disabled`` ends
an account. Passwords are hashed with Argon2id (argon2-cffi's ``PasswordHasher``,
RFC 9106 defaults); only the hash is stored, and nothing here logs a password.

Roles (:data:`ROLES`): an *assessor* judges, an *adjudicator* adjudicates, an *admin*
does both.
"""

from __future__ import annotations

from typing import NamedTuple

from pooltool.errors import InvalidArgument, StoreError
from pooltool.store.core import StoreCore
from pooltool.store.provenance import utc_now

ROLES = ("assessor", "adjudicator", "admin")
DISABLED = "disabled"
MIGRATION = "m017_accounts"
MIN_PASSWORD = 8
#: What each served app lets in: judging, adjudicating.
MAY = {"judge": frozenset({"assessor", "admin"}), "adjudicate": frozenset({"adjudicator", "admin"})}


class Account(NamedTuple):
    """A name's current account: its role and its password's Argon2 hash."""

    name: str
    role: str
    password_hash: str


def hash_password(password: str) -> str:
    """The Argon2id hash of ``password`` (salted: two hashes of one password differ).

    :raises InvalidArgument: a password shorter than :data:`MIN_PASSWORD` characters.
    """
    from argon2 import PasswordHasher

    if len(password) < MIN_PASSWORD:
        raise InvalidArgument(f"a password has at least {MIN_PASSWORD} characters")
    return PasswordHasher().hash(password)


def password_matches(password_hash: str, password: str) -> bool:
    """Whether ``password`` is the one ``password_hash`` was made from."""
    from argon2 import PasswordHasher
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return PasswordHasher().verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


class AccountTable(StoreCore):
    """Account methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def add_account(self, name: str, role: str, password: str) -> None:
        """Give ``name`` an account (or a new password or role: a new row).

        :param role: one of :data:`ROLES`, or ``disabled``.
        :raises InvalidArgument: an unknown role, a blank name or a short password.
        :raises StoreError: the store lacks the accounts table (not upgraded yet).
        """
        if role not in (*ROLES, DISABLED):
            raise InvalidArgument(f"unknown role {role!r}; choose one of {', '.join(ROLES)}")
        if not name.strip():
            raise InvalidArgument("an account needs a name that is not blank")
        password_hash = hash_password(password)
        self._require_accounts()
        with self.writing() as conn:
            conn.execute("INSERT INTO accounts(name, role, password_hash, created_at) "
                         "VALUES (?, ?, ?, ?)", [name, role, password_hash, utc_now()])

    def account(self, name: str) -> Account | None:
        """``name``'s current account (``None``: none, or disabled)."""
        if not self._has_accounts_table():
            return None
        row = self.conn.execute("SELECT name, role, password_hash FROM accounts WHERE name = ? "
                                "ORDER BY account_id DESC LIMIT 1", [name]).fetchone()
        return None if row is None or row[1] == DISABLED else Account(*map(str, row))

    def accounts(self) -> list[tuple[str, str]]:
        """Every current account as ``(name, role)``, in name order (disabled left out)."""
        if not self._has_accounts_table():
            return []
        rows = self.conn.execute(
            "SELECT a.name, a.role FROM accounts a WHERE a.account_id = (SELECT MAX(b.account_id) "
            "FROM accounts b WHERE b.name = a.name) ORDER BY a.name").fetchall()
        return [(str(n), str(r)) for n, r in rows if r != DISABLED]

    def _has_accounts_table(self) -> bool:
        return MIGRATION not in self.conn.pending_migrations()

    def _require_accounts(self) -> None:
        if not self._has_accounts_table():
            raise StoreError(f"the store lacks {MIGRATION}: upgrade it first ('pooltool store "
                             "upgrade', by its owner) to add accounts")
