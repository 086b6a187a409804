"""The ``pooltool`` command line: a thin click layer over the core modules."""

from pooltool.cli import collection  # noqa: F401,E402  registers the commands
from pooltool.cli.group import cli

__all__ = ["cli"]
