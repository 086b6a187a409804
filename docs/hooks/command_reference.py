"""MkDocs hook: the command reference page (docs/commands.md) from the click commands.

The page holds the line ``<!-- commands -->``; at build time it is replaced by every
command's help, rendered from the commands themselves (:func:`command_reference`),
so the page cannot drift from ``pooltool ... --help``. tests/test_docs.py holds each
section to what ``--help`` prints.
"""

from __future__ import annotations

from typing import Any

import click

from pooltool.cli import cli
from pooltool.cli.lazy import every_command

PLACEHOLDER = "<!-- commands -->"
#: The terminal width the help is rendered for: the group's max_content_width (100)
#: caps click's width at 98 columns, what a terminal that wide or wider shows.
WIDTH = 98


def help_text(path: tuple[str, ...]) -> str:
    """What ``pooltool PATH... --help`` prints in a terminal of :data:`WIDTH` columns.

    :param path: the words after ``pooltool``, () for the group itself.
    :raises LookupError: a word names no command.
    """
    context = cli.make_context("pooltool", [], resilient_parsing=True, terminal_width=WIDTH)
    command: click.Command = cli
    for word in path:
        assert isinstance(command, click.Group)
        found = command.get_command(context, word)
        if found is None:
            raise LookupError(f"pooltool {' '.join(path)}: no such command")
        command = found
        context = command.make_context(word, [], parent=context, resilient_parsing=True)
    return command.get_help(context) + "\n"


def command_reference() -> str:
    """Markdown: a section per command (``## pooltool PATH``), its help verbatim."""
    sections = []
    for path in [(), *(path for path, _ in every_command(cli))]:
        title = " ".join(("pooltool", *path))
        sections.append(f"## {title}\n\n```text\n{help_text(path)}```\n")
    return "\n".join(sections)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs' hook: fill the reference page's placeholder; leave other pages alone."""
    if page.file.src_uri != "commands.md":
        return markdown
    return markdown.replace(PLACEHOLDER, command_reference())
