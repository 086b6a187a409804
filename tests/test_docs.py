"""Every command documents itself: a help text with an example."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from pooltool.cli import cli


def all_commands() -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []

    def walk(group: click.Group, prefix: tuple[str, ...]) -> None:
        for name, command in group.commands.items():
            found.append(prefix + (name,))
            if isinstance(command, click.Group):
                walk(command, prefix + (name,))

    walk(cli, ())
    return found


@pytest.mark.parametrize("path", all_commands(), ids=" ".join)
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output, f"pooltool {' '.join(path)} --help shows no example"
