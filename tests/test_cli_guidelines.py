"""``pooltool guidelines``: grade definitions, collection guidelines and topic instructions,
appended to the store (a new text supersedes; nothing is updated in place)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.records import Topic
from pooltool.store import JudgmentStore
from pooltool.store.guidelines import Guidelines, current_guidelines

GUIDE = "Judge the abstract.\nA mere mention\nis not relevant.\n\nWhen unsure [b]grade[/] lower.\n"


@pytest.fixture
def db(new_store: str) -> str:
    """A store (once on each engine) with topics 1 and 2."""
    path = new_store
    with JudgmentStore.open(path) as store:
        store.add_topics([Topic("1", "boundary layer", "", "Measured layers only."),
                          Topic("2", "slabs", "", "")], "<t>")
    return path


def run(db: str, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--db", str(db), *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def stored(db: str) -> tuple[Guidelines, list[tuple[str, str, str, str]]]:
    with JudgmentStore.open(db) as store:
        rows = store.conn.execute(
            "SELECT scope, target, text, source FROM guidelines ORDER BY guideline_id").fetchall()
        return current_guidelines(store), rows


def test_set_show_and_supersede(db: str, tmp_path: Path) -> None:
    guide = tmp_path / "guide.txt"
    guide.write_text(GUIDE, encoding="utf-8")
    code, _, err = run(db, "guidelines", "--text", str(guide),
                       "--grade-definition", "1:on topic [bold", "--grade-definition", "3: full")
    assert (code, err) == (0, "guidelines: 3 text(s) set\n")
    assert run(db, "guidelines", "--topic", "2", "--text", "-", stdin="Slabs of [/] any kind\n")[0] == 0
    assert run(db, "guidelines", "--grade-definition", "1:partly answers")[0] == 0
    now, rows = stored(db)
    assert now == Guidelines(GUIDE.rstrip(), {1: "partly answers", 3: "full"},
                             {"2": "Slabs of [/] any kind"})
    assert rows == [("grade", "1", "on topic [bold", "command line"),
                    ("grade", "3", "full", "command line"),
                    ("collection", "", GUIDE.rstrip(), str(guide.resolve())),
                    ("topic", "2", "Slabs of [/] any kind", "stdin"),
                    ("grade", "1", "partly answers", "command line")]
    code, out, _ = run(db, "guidelines")
    assert code == 0 and out == (
        "Grades\n  0 not relevant: (no definition: --grade-definition)\n"
        "  1 related: partly answers\n"
        "  2 highly relevant: (no definition: --grade-definition)\n"
        "  3 perfectly relevant: full\n"
        "Collection guidelines\n  Judge the abstract.\n  A mere mention\n  is not relevant.\n\n"
        "  When unsure [b]grade[/] lower.\n"
        "Topic instructions\n  topic 2:\n    Slabs of [/] any kind\n")


def test_clear_withdraws_and_history_keeps_everything(db: str) -> None:
    run(db, "guidelines", "--topic", "1", "--text", "-", stdin="First.\n")
    run(db, "guidelines", "--topic", "1", "--clear")
    run(db, "guidelines", "--grade-definition", "2:very", "--grade-definition", "2:")
    now, rows = stored(db)
    assert now == Guidelines()
    assert [r[:3] for r in rows] == [("topic", "1", "First."), ("topic", "1", ""),
                                     ("grade", "2", "very"), ("grade", "2", "")]
    out = run(db, "guidelines", "--history")[1]
    assert out.count("(withdrawn)") == 2 and "  topic 1  from stdin\n    First.\n" in out
    code, _, err = run(db, "guidelines", "--clear", "--topic", "1")  # nothing to withdraw
    assert (code, err) == (0, "guidelines: nothing changed (each text given is already the "
                              "one in force)\n")
    assert len(stored(db)[1]) == 4
    with JudgmentStore.open(db) as store, pytest.raises(sqlite3.IntegrityError,
                                                       match="append-only"):
        store.conn.execute("UPDATE guidelines SET text = 'x'")


@pytest.mark.parametrize(("args", "stdin", "message"), [
    (["--topic", "9", "--text", "-"], "x", "no topic '9' in the store"),
    (["--topic", "1"], None, "--topic needs --text FILE (set its instructions) or --clear"),
    (["--text", "-", "--clear"], None, "give --text FILE or --clear, not both"),
    (["--text", "-"], "  \n\n", "- is empty: use --clear to withdraw a text"),
    (["--grade-definition", "7:x"], None, "the grade scale has no grade '7' (it has 0, 1, 2, 3"),
    (["--grade-definition", "no colon"], None, "write GRADE:TEXT"),
])
def test_bad_arguments_change_nothing(db: str, args: list[str], stdin: str | None,
                                      message: str) -> None:
    code, _, err = run(db, "guidelines", *args, stdin=stdin)
    assert code != 0 and message in err
    assert stored(db)[1] == []


def test_a_file_not_in_utf8_is_named(db: str, tmp_path: Path) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\xe9\n".encode("latin-1"))
    code, _, err = run(db, "guidelines", "--text", str(latin))
    assert (code, err) == (1, f"Error: {latin}:1: is not UTF-8 text (byte 0xE9); convert it "
                              "with iconv first\n")
