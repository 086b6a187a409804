"""Every command of ``pooltool``, for the tests that check each one (help, options).

The group imports its command modules on first use (:mod:`pooltool.cli.lazy`), so
``cli.commands`` holds only the commands some earlier import happened to register:
none when a test file runs alone. :func:`every_command` asks the group as click's
own help and completion do (:func:`pooltool.cli.lazy.every_command`), and refuses a
list shorter than the one the lazy index declares.
"""

from __future__ import annotations

import click

from pooltool.cli import cli, lazy


def every_command() -> list[tuple[tuple[str, ...], click.Command]]:
    """Each command and subcommand as (its words after ``pooltool``, the command).

    :raises AssertionError: the top-level names are not exactly those the lazy index
        finds in the command modules' source.
    """
    found = lazy.every_command(cli)
    top_level = sorted(path[0] for path, _ in found if len(path) == 1)
    declared = sorted(lazy.command_index())
    assert len(declared) >= 20, f"the lazy index finds only {declared}"
    assert top_level == declared, "the group lists other commands than its modules register"
    return found
