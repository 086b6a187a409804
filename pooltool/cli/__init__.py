"""The ``pooltool`` command line: a thin click layer over the core modules."""

from pooltool.cli import analysis, collection  # noqa: F401  registers the commands
from pooltool.cli.group import cli

__all__ = ["cli"]
