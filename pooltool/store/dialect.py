"""The store's SQL, written once in SQLite's dialect, rewritten for PostgreSQL.

The store's statements keep to constructs both engines read alike (``RETURNING``,
``ON CONFLICT``, ``CAST``, ``||``); :func:`postgresql_sql` rewrites the few whose
spelling differs. A test runs every SQL literal of :mod:`pooltool.store` through it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_TOKENS = re.compile(r"""
    (?P<quoted>'(?:[^']|'')*'|"(?:[^"]|"")*")
  | (?P<named>(?<!:):(?P<name>[A-Za-z_]\w*))
  | (?P<param>\?)
  | (?P<percent>%)
  | (?P<other>[^'"?:%]+|:)
""", re.VERBOSE)


@lru_cache(maxsize=1024)
def postgresql_sql(sql: str) -> str:
    """A store statement in SQLite's dialect, rewritten for PostgreSQL.

    ``?`` becomes ``%s`` and ``:name`` becomes ``%(name)s`` (psycopg's
    placeholders), a literal ``%`` becomes ``%%``; ``INSERT OR IGNORE INTO`` becomes
    ``INSERT INTO ... ON CONFLICT DO NOTHING``; ``group_concat(x, sep)`` becomes
    ``string_agg(CAST(x AS TEXT), sep)``; ``json_each(x)`` (a JSON list, read as
    ``SELECT value FROM json_each(x)``) becomes
    ``jsonb_array_elements_text(CAST(x AS jsonb)) AS value``. Text inside quotes is
    left alone (but for ``%``).
    """
    out = []
    for match in _TOKENS.finditer(sql):
        if match["quoted"]:
            out.append(match["quoted"].replace("%", "%%"))
        elif match["named"]:
            out.append(f"%({match['name']})s")
        elif match["param"]:
            out.append("%s")
        elif match["percent"]:
            out.append("%%")
        else:
            out.append(match["other"])
    text = "".join(out)
    text = _rewrite_calls(text, "group_concat", _string_agg)
    text = _rewrite_calls(text, "json_each", _json_elements)
    if re.match(r"\s*INSERT\s+OR\s+IGNORE\s+INTO\b", text, re.IGNORECASE):
        text = re.sub(r"^\s*INSERT\s+OR\s+IGNORE\s+INTO", "INSERT INTO", text,
                      flags=re.IGNORECASE) + " ON CONFLICT DO NOTHING"
    return text


def _rewrite_calls(sql: str, function: str, rewrite: Any) -> str:
    """Replace every call ``function(args)`` (case-insensitive) by ``rewrite(args)``."""
    pattern = re.compile(rf"\b{function}\s*\(", re.IGNORECASE)
    while (match := pattern.search(sql)) is not None:
        start, depth, end = match.end(), 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(sql[end], 0)
            end += 1
        sql = sql[:match.start()] + rewrite(_split_arguments(sql[start:end - 1])) + sql[end:]
    return sql


def _split_arguments(text: str) -> list[str]:
    """A call's arguments, split on the commas outside parentheses and quotes."""
    arguments: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            arguments.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    arguments.append("".join(current).strip())
    return arguments


def _string_agg(arguments: list[str]) -> str:
    separator = arguments[1] if len(arguments) > 1 else "','"
    return f"string_agg(CAST({arguments[0]} AS TEXT), {separator})"


def _json_elements(arguments: list[str]) -> str:
    return f"jsonb_array_elements_text(CAST({arguments[0]} AS jsonb)) AS value"


__all__ = ["postgresql_sql"]
