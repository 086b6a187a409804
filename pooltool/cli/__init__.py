"""The ``pooltool`` command line: a thin click layer over the core modules.

Command modules are imported when one of their commands runs
(:mod:`pooltool.cli.lazy`), so that ``pooltool --help`` starts fast.
"""

from pooltool.cli.group import cli

__all__ = ["cli"]
