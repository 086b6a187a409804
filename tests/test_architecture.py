"""The store is the only place SQL is written against its tables (issue: one home for
the store's rules). The import contracts in pyproject.toml (run by ``lint-imports``)
check the layers; this test checks the SQL itself, which imports cannot show."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pooltool"
# SQL as this code base writes it: upper-case keywords
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|PRAGMA|WITH|CREATE|BEGIN|COMMIT|ROLLBACK)\b")
CONNECTION_USE = {"execute", "executemany", "executescript", "query"}
# receivers that are a store or a connection (Textual's DOM has a ``query`` too)
STORE_LIKE = re.compile(r"(store|conn|db|cursor)\b", re.IGNORECASE)


def sql_outside(root: Path, allowed: str = "store") -> list[str]:
    """``path:line: what`` for every SQL string or connection use in the Python files
    under ``root``, except those in folders named ``allowed``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.parent.name == allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(root.parent)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and SQL.match(node.value):
                found.append(f"{where}: SQL {node.value[:40]!r}")
            elif isinstance(node, ast.Attribute) and (
                    node.attr == "conn" or node.attr in CONNECTION_USE
                    and STORE_LIKE.search(ast.unparse(node.value))):
                found.append(f"{where}: .{node.attr}")
    return found


def test_no_sql_outside_the_store() -> None:
    assert sql_outside(PACKAGE) == []


def test_the_check_finds_sql_and_connection_use(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "store").mkdir(parents=True)
    (package / "store" / "ok.py").write_text('X = "SELECT 1 FROM t"\n')
    (package / "queue.py").write_text(
        '"""Update the queue."""\nQ = "SELECT docno FROM pool_docs"\n'
        "def f(store, message):\n    message.query\n    store.query(Q)\n"
        "    return store.conn.execute(Q)\n")
    assert sql_outside(package) == [
        "pkg/queue.py:2: SQL 'SELECT docno FROM pool_docs'",
        "pkg/queue.py:5: .query",
        "pkg/queue.py:6: .execute",
        "pkg/queue.py:6: .conn",
    ]
