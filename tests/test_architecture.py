"""The store is the only place SQL is written against its tables (issue: one home for
the store's rules). The import contracts in pyproject.toml (run by ``lint-imports``)
check the layers; this test checks the SQL itself, which imports cannot show."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pooltool"
# SQL as this code base writes it: upper-case keywords
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|PRAGMA|WITH|CREATE|BEGIN|COMMIT|ROLLBACK)\b")
CONNECTION_USE = {"execute", "executemany", "executescript", "query"}
# receivers that are a store or a connection (Textual's DOM has a ``query`` too)
STORE_LIKE = re.compile(r"(store|conn|db|cursor)\b", re.IGNORECASE)


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a Python file's syntax tree (each file parsed once for all the
    checks of this module)."""
    return tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def sql_outside(root: Path, allowed: str = "store") -> list[str]:
    """``path:line: what`` for every SQL string or connection use in the Python files
    under ``root``, except those in folders named ``allowed``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.parent.name == allowed:
            continue
        name = path.relative_to(root.parent)
        for node in _nodes(path):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and SQL.match(node.value):
                found.append(f"{name}:{node.lineno}: SQL {node.value[:40]!r}")
            elif isinstance(node, ast.Attribute) and (
                    node.attr == "conn" or node.attr in CONNECTION_USE
                    and STORE_LIKE.search(ast.unparse(node.value))):
                found.append(f"{name}:{node.lineno}: .{node.attr}")
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


# -- what a grade means: records.is_judged / is_relevant, and nowhere else ---------------

ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _is_grade(node: ast.expr) -> bool:
    """A name, attribute or string subscript called ``grade``, ``grades`` or ``grade_*``
    (``grade``, ``m.grade``, ``own["grade"]``, ``merged["grade_a"]``), or
    ``JUDGED_MIN_GRADE``."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    else:
        name = node.id if isinstance(node, ast.Name) else \
            node.attr if isinstance(node, ast.Attribute) else None
    return name is not None and (name in ("grade", "grades", "JUDGED_MIN_GRADE")
                                 or name.startswith("grade_"))


def grade_rules_outside(root: Path, allowed: str = "records.py") -> list[str]:
    """``path:line: comparison`` for every ordering comparison of a grade (``grade >= 0``,
    ``m.grade >= level``, ``own["grade"] < 0``, ``x >= JUDGED_MIN_GRADE``) in the Python
    files under ``root`` except ``allowed``: whether a grade is judged or relevant is
    :func:`pooltool.records.is_judged` / :func:`~pooltool.records.is_relevant`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == allowed:
            continue
        for node in _nodes(path):
            if isinstance(node, ast.Compare) and any(isinstance(op, ORDERING) for op in node.ops) \
                    and any(_is_grade(side) for side in [node.left, *node.comparators]):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_grade_rule_outside_records() -> None:
    assert grade_rules_outside(PACKAGE) == []


def test_the_check_finds_grade_comparisons(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "records.py").write_text("def is_judged(grade):\n    return grade >= 0\n")
    (package / "queue.py").write_text(
        "def f(grade, m, own, level, JUDGED_MIN_GRADE, g):\n"
        "    a = grade >= 0\n    b = m.grade >= level\n    c = own['grade'] < 0\n"
        "    d = g >= JUDGED_MIN_GRADE\n    e = grade == 0\n    f = own['grade_a'] >= level\n"
        "    return own['score'] > 0\n")
    assert grade_rules_outside(package) == [
        "pkg/queue.py:2: grade >= 0",
        "pkg/queue.py:3: m.grade >= level",
        "pkg/queue.py:4: own['grade'] < 0",
        "pkg/queue.py:5: g >= JUDGED_MIN_GRADE",
        "pkg/queue.py:7: own['grade_a'] >= level",
    ]


# -- trec_eval's order: ranking.py, and nowhere else --------------------------------------

SORTS = {"lexsort", "sort_indices", "sort_values", "sort_by", "argsort", "sorted", "sort", "nlargest"}
# sorts by a score that are not a run's documents
NOT_A_RUN = {"analysis/stability.py": "systems by their mean score (a system ranking)"}


def score_sorts_outside(root: Path, allowed: str = "ranking.py",
                        not_a_run: dict[str, str] | None = None) -> list[str]:
    """``path:line: call`` for every sort whose arguments name a score (``np.lexsort((-score,
    topic))``, ``frame.sort_values(["topic", "score"])``) in the Python files under
    ``root`` except ``allowed`` and ``not_a_run``: ordering a run is
    :mod:`pooltool.ranking`'s alone."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == allowed or path.relative_to(root).as_posix() in (not_a_run or {}):
            continue
        for node in _nodes(path):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            arguments = " ".join(ast.unparse(a) for a in [*node.args, *node.keywords])
            if name in SORTS and re.search(r"\bscores?\b", arguments):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {ast.unparse(node)[:60]}")
    return found


def test_no_run_ordering_outside_ranking() -> None:
    assert score_sorts_outside(PACKAGE, not_a_run=NOT_A_RUN) == []


def test_the_check_finds_sorts_by_score(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "ranking.py").write_text("import numpy as np\no = np.lexsort((-score, group))\n")
    (package / "run.py").write_text(
        "import numpy as np\na = np.lexsort((-score, topic))\n"
        "b = frame.sort_values(['topic', 'score'], ascending=False)\n"
        "c = np.lexsort((which, ranks))\nd = sorted(rows, key=lambda r: r.score)\n")
    assert score_sorts_outside(package) == [
        "pkg/run.py:2: np.lexsort((-score, topic))",
        "pkg/run.py:3: frame.sort_values(['topic', 'score'], ascending=False)",
        "pkg/run.py:5: sorted(rows, key=lambda r: r.score)",
    ]


# -- JSON documents: json_documents.py, and nowhere else ----------------------------------


def schema_documents_outside(root: Path, allowed: str = "json_documents.py") -> list[str]:
    """``path:line`` of every dict literal with a ``"schema"`` key (a JSON document naming
    its schema) in the Python files under ``root`` except ``allowed``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == allowed:
            continue
        for node in _nodes(path):
            if isinstance(node, ast.Dict) and any(
                    isinstance(key, ast.Constant) and key.value == "schema" for key in node.keys):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


def test_json_documents_are_built_in_one_module() -> None:
    from pooltool.json_documents import SCHEMAS

    assert schema_documents_outside(PACKAGE) == []
    on_disk = sorted(p.stem for p in (PACKAGE.parent / "schemas").glob("*.json"))
    assert sorted(SCHEMAS) == on_disk


def test_the_check_finds_documents_with_a_schema(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "json_documents.py").write_text('D = {"schema": "a-v1"}\n')
    (package / "cli.py").write_text('E = {"x": 1}\nD = {"rows": [], "schema": "b-v1"}\n')
    assert schema_documents_outside(package) == ["pkg/cli.py:2"]
