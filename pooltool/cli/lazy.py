"""Commands imported on first use, so that ``pooltool --help`` imports no pandas.

Each command module (:data:`COMMAND_MODULES`) registers its commands on the
group when it is imported, and imports what its commands need (pandas, the
store, the measures). :func:`command_index` finds the commands of every module
by reading its source (the ``@cli.command(...)`` and ``@cli.group(...)``
functions, without running it), so that the group can list them with their
short help and import a module only when one of its commands runs.
``tests/test_cli.py`` holds the index to the commands the modules register.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import click

#: The modules of :mod:`pooltool.cli` that register commands on the group.
COMMAND_MODULES = ("adjudicate", "analysis", "collection", "compare", "demo", "duplicates",
                   "evaluate", "explain", "exports", "impact", "judge", "pools", "qrels_io",
                   "recall", "runs", "sample", "settings", "simulate", "status", "store_admin")
_SUFFIXES = ("command", "cmd", "group", "grp")


@dataclass(frozen=True)
class CommandEntry:
    """A top-level command found in a module's source.

    :ivar module: the module of :mod:`pooltool.cli` that registers it.
    :ivar listing: a stand-in with the command's name, help, short help and
        hidden flag, enough for the group's command list.
    """

    module: str
    listing: click.Command


@cache
def command_index() -> dict[str, CommandEntry]:
    """Every top-level command name and where it is registered.

    :returns: command name -> :class:`CommandEntry`, in module order.
    """
    index: dict[str, CommandEntry] = {}
    for module in COMMAND_MODULES:
        index.update(_entries(module, _source(module)))
    return index


def command_entry(name: str) -> CommandEntry | None:
    """``command_index().get(name)``, parsing only the modules whose source could register
    the command: those that quote its name or define a function click would name so.
    Parsing all of them took 24 ms of ``pooltool eval``'s start-up.

    :returns: the command's entry, or None when no module registers it.
    """
    quoted = (f'"{name}"', f"'{name}'")
    defined = f"def {name.replace('-', '_')}"  # click's name: the function's, lowercased
    entry = None
    for module in COMMAND_MODULES:
        source = _source(module)
        if any(word in source for word in quoted) or defined in source.lower():
            entry = _entries(module, source).get(name, entry)  # the index's: the last module's
    return entry


def _source(module: str) -> str:
    return (Path(__file__).parent / f"{module}.py").read_text(encoding="utf-8")


def _entries(module: str, source: str) -> dict[str, CommandEntry]:
    """The top-level commands registered in one module's source, by name."""
    entries = {}
    for node in ast.parse(source).body:
        call = _registration(node)
        if isinstance(node, ast.FunctionDef) and call is not None:
            listing = _listing(node, call)
            entries[str(listing.name)] = CommandEntry(module, listing)
    return entries


def _registration(node: ast.stmt) -> ast.Call | None:
    """The ``cli.command(...)`` or ``cli.group(...)`` decorator of a function, if any."""
    for decorator in getattr(node, "decorator_list", []):
        if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                and isinstance(decorator.func.value, ast.Name) and decorator.func.value.id == "cli"
                and decorator.func.attr in ("command", "group")):
            return decorator
    return None


def _listing(node: ast.FunctionDef, call: ast.Call) -> click.Command:
    """A stand-in command built as click builds the real one from the same decorator."""
    options = {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords
               if keyword.arg in ("name", "help", "short_help", "hidden", "deprecated")}
    name = ast.literal_eval(call.args[0]) if call.args else options.pop("name", None)
    if options.get("help") is None:
        options["help"] = ast.get_docstring(node, clean=False)
    return click.Command(name or _default_name(node.name), **options)


def _default_name(function: str) -> str:
    """click's name for a command given none: ``add_runs_command`` -> ``add-runs``."""
    name = function.lower().replace("_", "-")
    left, dash, suffix = name.rpartition("-")
    return left if dash and suffix in _SUFFIXES else name


def every_command(group: click.Group) -> list[tuple[tuple[str, ...], click.Command]]:
    """Each command and subcommand of ``group``, as click's own help and completion
    list them (``list_commands``, then ``get_command``, which imports each module):
    ``cli.commands`` holds only the commands some earlier import registered.

    :returns: (the words after the program's name, the command), groups before their
        subcommands, each level in ``list_commands`` order.
    :raises LookupError: a listed command does not load.
    """
    found: list[tuple[tuple[str, ...], click.Command]] = []

    def walk(parent: click.Group, prefix: tuple[str, ...]) -> None:
        context = click.Context(parent)
        for name in parent.list_commands(context):
            command = parent.get_command(context, name)
            if command is None:
                raise LookupError(f"{' '.join(prefix + (name,))} is listed but does not load")
            found.append((prefix + (name,), command))
            if isinstance(command, click.Group):
                walk(command, prefix + (name,))

    walk(group, ())
    return found
