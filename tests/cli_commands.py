"""Every command of ``pooltool``, for the tests that check each one (help, options).

The group imports its command modules on first use (:mod:`pooltool.cli.lazy`), so
``cli.commands`` holds only the commands some earlier import happened to register:
none when a test file runs alone. :func:`every_command` asks the group as click's
own help and completion do (``list_commands``, then ``get_command``), which imports
each module, and refuses a list shorter than the one the lazy index declares.
"""

from __future__ import annotations

import click

from pooltool.cli import cli
from pooltool.cli.lazy import command_index


def every_command() -> list[tuple[tuple[str, ...], click.Command]]:
    """Each command and subcommand as (its words after ``pooltool``, the command).

    :raises AssertionError: a listed command cannot be loaded, or the top-level names
        are not exactly those the lazy index finds in the command modules' source.
    """
    found: list[tuple[tuple[str, ...], click.Command]] = []

    def walk(group: click.Group, prefix: tuple[str, ...]) -> None:
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            assert command is not None, f"pooltool {' '.join(prefix + (name,))} does not load"
            found.append((prefix + (name,), command))
            if isinstance(command, click.Group):
                walk(command, prefix + (name,))

    walk(cli, ())
    top_level = sorted(path[0] for path, _ in found if len(path) == 1)
    declared = sorted(command_index())
    assert len(declared) >= 20, f"the lazy index finds only {declared}"
    assert top_level == declared, "the group lists other commands than its modules register"
    return found
