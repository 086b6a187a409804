"""Every command documents itself: a help text with an example."""

from __future__ import annotations

import pytest
from cli_commands import every_command
from click.testing import CliRunner

from pooltool.cli import cli

PATHS = [path for path, _ in every_command()]


def test_every_command_and_subcommand_is_checked() -> None:
    """The list is the group's full one, whatever was imported before (the lazy group's
    ``cli.commands`` held 6 of 27 commands in a full run, none in this file alone)."""
    assert {("judge",), ("recall",), ("store", "copy"), ("qrels", "diff")} <= set(PATHS)
    assert len(PATHS) == len(set(PATHS)) >= 30


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output, f"pooltool {' '.join(path)} --help shows no example"
