"""``pooltool explain``: what a reported column means, and where it is defined."""

from __future__ import annotations

import difflib

import click

from pooltool.cli.group import cli
from pooltool.glossary import GLOSSARY, lookup


@cli.command()
@click.argument("names", nargs=-1, metavar="[NAME]...")
def explain(names: tuple[str, ...]) -> None:
    """Define the columns NAME (as printed: recall, recall@10, unjudged_b, tau_ap, SRE ...),
    each with the source of its definition; without NAME, every column.

    \b
    Example:
      pooltool explain ceiling recall_upper
      pooltool explain
    """
    for name in names or sorted(GLOSSARY, key=str.lower):
        term = lookup(name)
        if term is None:
            close = difflib.get_close_matches(name, list(GLOSSARY), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise click.ClickException(f"no column {name!r} in the glossary{hint} "
                                       "('pooltool explain' lists them all)")
        click.echo(f"{name}\n  {term.definition}\n  Source: {term.source}")
