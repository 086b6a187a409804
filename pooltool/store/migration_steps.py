"""The store's migrations from m014 on, each written once for both engines (one SQL
script where the dialects agree, a body per engine where they differ), in the order a
store applies them: :data:`STEPS`, which :mod:`pooltool.store.migrations` registers.

A new schema change is a new :func:`step` call at the end of this module; never edit
one that has shipped (``tests/test_store_migrations.py`` upgrades a store of the
previous schema on both engines).
"""

from __future__ import annotations

from typing import NamedTuple


class Step(NamedTuple):
    """One migration: ``sql`` for both engines, or ``sqlite`` and ``postgresql``;
    ``readers_need`` False when it adds only rules on writes or tables a reader can do
    without (see :func:`pooltool.store.migrations.migration`)."""

    name: str
    sql: str | None = None
    sqlite: str | None = None
    postgresql: str | None = None
    readers_need: bool = True


STEPS: list[Step] = []
"""Every migration after the PostgreSQL baseline, oldest first."""


def step(name: str, *, sql: str | None = None, sqlite: str | None = None,
         postgresql: str | None = None, readers_need: bool = True) -> None:
    """Add the migration ``name`` at the end of :data:`STEPS`."""
    STEPS.append(Step(name, sql, sqlite, postgresql, readers_need))

_RETRACTION_RULE = ("a retraction names a judgment of its topic and docno that is not "
                    "itself a retraction")

step(
    "m014_retraction_rules",
    # A judgment is retracted at most once, and a retraction names a real judgment of
    # its own pair: before, only retract() checked this, in Python, so a row written
    # by hand (or by a race) could retract a retraction or hide another pair's grade.
    # Rules on writes only: a store without them reads the same.
    readers_need=False,
    sqlite=f"""
DROP INDEX judgments_retracts;
CREATE UNIQUE INDEX judgments_retracts ON judgments(retracts) WHERE retracts IS NOT NULL;
CREATE TRIGGER judgments_retraction_rules BEFORE INSERT ON judgments
WHEN NEW.retracts IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM judgments j WHERE j.judgment_id = NEW.retracts AND j.grade IS NOT NULL
    AND j.topic = NEW.topic AND j.docno = NEW.docno)
BEGIN SELECT RAISE(ABORT, '{_RETRACTION_RULE}'); END;
""",
    postgresql=f"""
DROP INDEX judgments_retracts;
CREATE UNIQUE INDEX judgments_retracts ON judgments(retracts) WHERE retracts IS NOT NULL;
CREATE FUNCTION pooltool_retraction_rules() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.retracts IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM judgments j WHERE j.judgment_id = NEW.retracts
            AND j.grade IS NOT NULL AND j.topic = NEW.topic AND j.docno = NEW.docno) THEN
        RAISE EXCEPTION '{_RETRACTION_RULE}' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER judgments_retraction_rules BEFORE INSERT ON judgments FOR EACH ROW
    EXECUTE FUNCTION pooltool_retraction_rules();
""")


def _duplicate_tables(key: str, integer: str, real: str, append_only: str) -> str:
    """The tables of :mod:`pooltool.store.duplicates`, with ``key`` the dialect's
    auto-numbered primary key, ``integer`` and ``real`` its names of those types, and
    ``append_only`` its rules refusing updates and deletes."""
    return f"""
CREATE TABLE duplicate_findings (
    finding_id {key},
    threshold {real} NOT NULL,
    shingle_words {integer} NOT NULL,
    num_perm {integer} NOT NULL,
    seed {integer} NOT NULL,
    documents {integer} NOT NULL,
    found_at TEXT NOT NULL
);
CREATE TABLE duplicate_members (
    finding_id {integer} NOT NULL REFERENCES duplicate_findings(finding_id),
    group_no {integer} NOT NULL,
    docno TEXT NOT NULL,
    exact_class {integer} NOT NULL,
    how TEXT NOT NULL CHECK (how IN ('leader', 'exact', 'near')),
    similarity {real} NOT NULL,
    PRIMARY KEY (finding_id, docno)
);
CREATE INDEX duplicate_members_group ON duplicate_members(finding_id, group_no);
CREATE TABLE duplicate_splits (
    split_id {key},
    topic TEXT NOT NULL,
    docno TEXT NOT NULL,
    assessor TEXT NOT NULL,
    split_at TEXT NOT NULL,
    origin TEXT NOT NULL
);
CREATE INDEX duplicate_splits_pair ON duplicate_splits(topic, docno);
{append_only}
"""


_DUPLICATES_KEPT = "duplicate findings and splits are append-only: find again, or split again"

step(
    "m015_duplicate_groups",
    # Copies of one text (pooltool/store/duplicates.py): each `duplicates find` is a
    # finding with its parameters, its groups in duplicate_members; an assessor's "not
    # a copy" is a row of duplicate_splits. New tables only: the judgment log is as it
    # was, and derived grades are computed from it at qrels time.
    # A store without them has no copies, so readers read it as it is (duplicate_finding).
    readers_need=False,
    sqlite=_duplicate_tables("INTEGER PRIMARY KEY", "INTEGER", "REAL", "\n".join(
        f"CREATE TRIGGER {table}_no_{what} BEFORE {what.upper()} ON {table}\n"
        f"BEGIN SELECT RAISE(ABORT, '{_DUPLICATES_KEPT}'); END;"
        for table in ("duplicate_findings", "duplicate_members", "duplicate_splits")
        for what in ("update", "delete"))),
    postgresql=_duplicate_tables(
        "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "BIGINT", "DOUBLE PRECISION",
        f"""CREATE FUNCTION pooltool_duplicates_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '{_DUPLICATES_KEPT}' USING ERRCODE = 'integrity_constraint_violation';
END $$;
""" + "\n".join(
            f"CREATE TRIGGER {table}_kept BEFORE UPDATE OR DELETE ON {table} FOR EACH ROW\n"
            "    EXECUTE FUNCTION pooltool_duplicates_kept();"
            for table in ("duplicate_findings", "duplicate_members", "duplicate_splits"))))


_ADJUDICATIONS_APPEND_ONLY = "adjudications are append-only: retract the adjudicated judgment instead"

step(
    "m016_adjudications",
    # An adjudicated judgment is an ordinary row of the judgment log (so retracting it
    # undoes it, as for any judgment); this table names, for each, the judgments it
    # resolves: a new table, so the log's own table stays as it was. A store without
    # it holds no adjudication, and reads so (pooltool.store.adjudications).
    readers_need=False,
    sqlite=f"""
CREATE TABLE adjudications (
    judgment_id INTEGER NOT NULL REFERENCES judgments(judgment_id),
    resolves INTEGER NOT NULL REFERENCES judgments(judgment_id),
    PRIMARY KEY (judgment_id, resolves)
);
CREATE INDEX adjudications_resolves ON adjudications(resolves);
CREATE TRIGGER adjudications_no_update BEFORE UPDATE ON adjudications
BEGIN SELECT RAISE(ABORT, '{_ADJUDICATIONS_APPEND_ONLY}'); END;
CREATE TRIGGER adjudications_no_delete BEFORE DELETE ON adjudications
BEGIN SELECT RAISE(ABORT, '{_ADJUDICATIONS_APPEND_ONLY}'); END;
""",
    postgresql=f"""
CREATE TABLE adjudications (
    judgment_id BIGINT NOT NULL REFERENCES judgments(judgment_id),
    resolves BIGINT NOT NULL REFERENCES judgments(judgment_id),
    PRIMARY KEY (judgment_id, resolves)
);
CREATE INDEX adjudications_resolves ON adjudications(resolves);
CREATE TRIGGER adjudications_no_update BEFORE UPDATE ON adjudications FOR EACH ROW
    EXECUTE FUNCTION pooltool_refuse('{_ADJUDICATIONS_APPEND_ONLY}');
CREATE TRIGGER adjudications_no_delete BEFORE DELETE ON adjudications FOR EACH ROW
    EXECUTE FUNCTION pooltool_refuse('{_ADJUDICATIONS_APPEND_ONLY}');
CREATE TRIGGER adjudications_no_truncate BEFORE TRUNCATE ON adjudications FOR EACH STATEMENT
    EXECUTE FUNCTION pooltool_refuse('{_ADJUDICATIONS_APPEND_ONLY}');
""")

_ACCOUNTS_APPEND_ONLY = "accounts are append-only: add a row for the name instead"

step(
    "m017_accounts",
    # Logins of the served apps (pooltool.store.accounts): a name's latest row is its
    # account (a new password or role is a new row; role 'disabled' ends it). Only
    # argon2 hashes are stored, never a password.
    readers_need=False,
    sqlite=f"""
CREATE TABLE accounts (
    account_id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('assessor', 'adjudicator', 'admin', 'disabled')),
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX accounts_by_name ON accounts(name, account_id);
CREATE TRIGGER accounts_no_update BEFORE UPDATE ON accounts
BEGIN SELECT RAISE(ABORT, '{_ACCOUNTS_APPEND_ONLY}'); END;
CREATE TRIGGER accounts_no_delete BEFORE DELETE ON accounts
BEGIN SELECT RAISE(ABORT, '{_ACCOUNTS_APPEND_ONLY}'); END;
""",
    postgresql=f"""
CREATE TABLE accounts (
    account_id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name TEXT COLLATE "C" NOT NULL,
    role TEXT COLLATE "C" NOT NULL CHECK (role IN ('assessor', 'adjudicator', 'admin', 'disabled')),
    password_hash TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX accounts_by_name ON accounts(name, account_id);
CREATE TRIGGER accounts_no_update BEFORE UPDATE ON accounts FOR EACH ROW
    EXECUTE FUNCTION pooltool_refuse('{_ACCOUNTS_APPEND_ONLY}');
CREATE TRIGGER accounts_no_delete BEFORE DELETE ON accounts FOR EACH ROW
    EXECUTE FUNCTION pooltool_refuse('{_ACCOUNTS_APPEND_ONLY}');
CREATE TRIGGER accounts_no_truncate BEFORE TRUNCATE ON accounts FOR EACH STATEMENT
    EXECUTE FUNCTION pooltool_refuse('{_ACCOUNTS_APPEND_ONLY}');
""")
