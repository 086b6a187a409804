"""Option names and help texts: consistent names, every option described."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from cli_commands import every_command
from click.testing import CliRunner

from pooltool.cli import cli

COMMANDS = [(" ".join(path), command) for path, command in every_command()]


def test_every_command_and_subcommand_is_checked() -> None:
    """The lazy group's ``cli.commands`` held 6 of 27 commands in a full run, none when
    this file ran alone: the list comes from ``list_commands`` instead."""
    names = [name for name, _ in COMMANDS]
    assert {"add-runs", "judge", "recall", "store copy", "qrels diff"} <= set(names)
    assert len(names) == len(set(names)) >= 30


@pytest.mark.parametrize("name,command", COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_option_is_described(name: str, command: click.Command) -> None:
    undescribed = [p.name for p in command.params
                   if isinstance(p, click.Option) and not p.help]
    assert undescribed == [], name


def test_help_shows_no_int64_range() -> None:
    result = CliRunner().invoke(cli, ["export-qrels", "--help"])
    assert "9223372036854775807" not in result.output
    assert "Also write pooled but unjudged documents with this grade" in result.output


def test_pool_takes_depth_not_k(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    (tmp_path / "a.run").write_text("1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n")
    for args in (["init"], ["add-runs", str(tmp_path / "a.run")]):
        assert CliRunner().invoke(cli, ["--db", db, *args]).exit_code == 0
    refused = CliRunner().invoke(cli, ["--db", db, "pool", "-k", "1"])
    assert refused.exit_code == 2 and "No such option '-k'" in refused.output
    pooled = CliRunner().invoke(cli, ["--db", db, "pool", "-d", "1", "--format", "csv"])
    assert pooled.exit_code == 0 and pooled.stdout == "run_tag,pooled,unique,new\nA,1,1,1\n"


@pytest.mark.parametrize("command", ["recall", "bias", "impact"])
def test_complete_has_its_long_form(command: str) -> None:
    loaded = cli.get_command(click.Context(cli), command)  # commands load lazily
    assert loaded is not None
    options = {o for p in loaded.params for o in getattr(p, "opts", [])}
    assert {"-c", "--complete"} <= options


def test_usage_errors_exit_2() -> None:
    result = CliRunner().invoke(cli, ["recall", "--no-such-option"])
    assert result.exit_code == 2
