"""A version judged by machines only (issue 24, 5): the people-only default policies
give it no grade, so every command that reads it says which policy reaches the
machines' grades, and an empty export is an error, not an empty file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pooltool import demo
from pooltool.cli import cli

HINT = ("version 'umbrela' has no grade under policy 'latest': its judgments are all by "
        "machine assessor(s) umbrela, which the people-only policies leave out; use --policy "
        "assessor:umbrela, latest:all, or prefer:PERSON,umbrela to fill people's qrels")


def _pooltool(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def db(tmp_path: Path) -> str:
    (tmp_path / "umbrela.qrels").write_text("1 0 d1 1\n1 0 d2 0\n")
    path = str(tmp_path / "s.db")
    assert _pooltool("--db", path, "init").exit_code == 0
    imported = _pooltool("--db", path, "import-qrels", str(tmp_path / "umbrela.qrels"),
                         "--version", "umbrela", "--assessor", "umbrela", "--machine")
    assert imported.exit_code == 0, imported.output
    return path


@pytest.mark.parametrize("command", [
    ["export-qrels", "--version", "umbrela"],
    ["recall", str(demo.demo_files() / "runs" / "bm25.run"), "--version", "umbrela"],
])
def test_commands_on_a_machine_only_version_say_how_to_reach_it(db: str,
                                                                command: list[str]) -> None:
    result = _pooltool("--db", db, *command)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"Error: {HINT}\n")


def test_the_policy_the_hint_names_exports_the_machines_grades(db: str) -> None:
    result = _pooltool("--db", db, "export-qrels", "--version", "umbrela", "--policy",
                       "assessor:umbrela")
    assert (result.exit_code, result.stdout) == (0, "1 0 d1 1\n1 0 d2 0\n")


def test_an_empty_export_is_an_error_but_a_pool_of_unjudged_lines_is_not(tmp_path: Path) -> None:
    db = str(tmp_path / "demo")
    assert _pooltool("demo", db).exit_code == 0
    store = str(tmp_path / "demo" / "pooltool.db")
    empty = _pooltool("--db", store, "export-qrels", "--policy", "assessor:demo-partial")
    assert empty.exit_code == 1 and empty.stdout == ""
    fresh = str(tmp_path / "fresh.db")
    assert _pooltool("--db", fresh, "init").exit_code == 0
    none = _pooltool("--db", fresh, "export-qrels")
    assert (none.exit_code, none.stderr) == (1, (
        "Error: no judgments in the store under policy 'latest': nothing to measure against "
        "(judge, or import-qrels, first)\n"))
    run = tmp_path / "r1"
    run.write_text("1 Q0 d1 1 2.0 r1\n1 Q0 d2 2 1.0 r1\n")
    assert _pooltool("--db", fresh, "add-runs", str(run)).exit_code == 0
    assert _pooltool("--db", fresh, "pool", "--depth", "2").exit_code == 0
    pooled = _pooltool("--db", fresh, "export-qrels", "--unjudged-as", "-1")
    assert (pooled.exit_code, pooled.stdout) == (0, "1 0 d1 -1\n1 0 d2 -1\n")
