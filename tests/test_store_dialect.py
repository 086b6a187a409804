"""Every statement of the store's SQL, rewritten for PostgreSQL, is one the server
accepts: each SQL literal of ``pooltool/store/`` (but the SQLite engine's own) is run
through :func:`~pooltool.store.dialect.postgresql_sql` and ``PREPARE``\\ d on a real
store. Dialect drift shows here in seconds, so the behaviour tests need not all run on
both engines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import psycopg

from pooltool.store.dialect import postgresql_sql

STORE = Path(__file__).resolve().parents[1] / "pooltool" / "store"
# SQLite's own SQL (the SQLite engine, the migrations that came before PostgreSQL), and
# the rewriter's own patterns
LEFT_OUT = {"sqlite.py", "sqlite_history.py", "migrations.py", "dialect.py"}
# a whole statement (not a privilege name such as "INSERT" in roles.py)
STATEMENT = re.compile(r"^\s*((SELECT|WITH)\b.*\bFROM\b|INSERT\s+(OR\s+IGNORE\s+)?INTO\b"
                       r"|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b)", re.DOTALL)


def store_statements(folder: Path = STORE) -> list[tuple[str, str]]:
    """``(path:line, sql)`` of each SQL statement written as a plain string literal
    (implicit concatenation included; f-strings, whose text is made at run time, left
    out) in the store's modules that both engines run."""
    found = []
    for path in sorted(folder.glob("*.py")):
        if path.name in LEFT_OUT:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        formatted = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                     for part in ast.walk(node)}
        found += [(f"{path.name}:{node.lineno}", node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in formatted and STATEMENT.match(node.value)]
    return found


def _numbered(sql: str) -> str:
    """psycopg's placeholders (``%s``, ``%(name)s``) as PREPARE's ``$1, $2, ...``."""
    count = 0
    names: dict[str, int] = {}

    def positional(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    text = re.sub(r"%s", positional, sql)
    text = re.sub(r"%\((\w+)\)s", lambda m: f"${names.setdefault(m[1], count + len(names) + 1)}",
                  text)
    return text.replace("%%", "%")


def test_every_store_statement_prepares_on_postgresql(postgresql_store_url: str) -> None:
    statements = store_statements()
    assert len(statements) > 100  # the store's SQL, not a few strings found by chance
    refused = []
    with psycopg.connect(postgresql_store_url, autocommit=True) as conn:
        for where, sql in statements:
            try:
                conn.execute("PREPARE statement AS " + _numbered(postgresql_sql(sql)),
                             prepare=False)
                conn.execute("DEALLOCATE statement")
            except psycopg.Error as exc:
                refused.append(f"{where}: {str(exc).splitlines()[0]}")
    assert refused == []


def test_the_check_finds_statements_and_refusals(tmp_path: Path,
                                                 postgresql_store_url: str) -> None:
    (tmp_path / "ok.py").write_text(
        'A = "SELECT topic FROM judgments WHERE docno = ?"\nB = "INSERT"\n'
        'C = f"SELECT {A} FROM x"\nD = ("DELETE FROM claims "\n     "WHERE topic = :t")\n')
    (tmp_path / "sqlite.py").write_text('E = "SELECT name FROM sqlite_master"\n')
    found = store_statements(tmp_path)
    assert found == [("ok.py:1", "SELECT topic FROM judgments WHERE docno = ?"),
                     ("ok.py:4", "DELETE FROM claims WHERE topic = :t")]
    assert _numbered(postgresql_sql(found[1][1])) == "DELETE FROM claims WHERE topic = $1"
    with psycopg.connect(postgresql_store_url, autocommit=True) as conn:
        try:
            conn.execute("PREPARE s AS SELECT group_concat(x) FROM nowhere", prepare=False)
        except psycopg.Error as exc:
            assert "nowhere" in str(exc)
        else:
            raise AssertionError("PREPARE accepted a missing table")
