"""The ``pooltool`` command line: a thin click layer over the core modules."""

from pooltool.cli import analysis, collection, judge, recall, settings  # noqa: F401  registers commands
from pooltool.cli.group import cli

__all__ = ["cli"]
