"""The ``pooltool`` command line: a thin click layer over the core modules."""

from pooltool.cli import analysis, collection  # noqa: F401  registers the commands
from pooltool.cli import judge  # noqa: F401
from pooltool.cli.group import cli

__all__ = ["cli"]
