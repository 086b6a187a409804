"""The ``pooltool`` command line: a thin click layer over the core modules."""

from pooltool.cli import (  # noqa: F401  registers commands
    analysis,
    collection,
    explain,
    judge,
    recall,
    sample,
    settings,
)
from pooltool.cli.group import cli

__all__ = ["cli"]
