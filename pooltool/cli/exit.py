"""How a ``pooltool`` process ends once its command has returned (the console script).

A command that ran pyarrow's native thread pools (``recall`` reads and scores
runs in Arrow's CPU threads) asks, through :func:`skip_native_teardown`, that
the process end without the interpreter's finalization: with the output
flushed, :func:`os._exit` ends it with the command's status. CPython's
finalization otherwise runs the C++ static destructors of libarrow, and
tearing down a thread pool whose worker is still joinable calls
``std::terminate`` ("terminate called without an active exception", status
134 after correct output): apache/arrow issue 34314 (open), and the same
crash in geoparquet-io (issue 1028, fixed there the same way: no native
teardown after the last byte). Nothing the command wrote is lost: the
stores are closed and the thread pools of :mod:`concurrent.futures` joined
by the commands themselves before they return, logging is shut down and
stdout and stderr are flushed here. Commands that did not ask end as usual.
"""

from __future__ import annotations

import logging
import os
import sys

_skip = False


def skip_native_teardown() -> None:
    """Ask that this process end without native teardown once the command returns
    (see the module docstring); only the console script honours it, so that tests
    running commands in-process (click's CliRunner) are unaffected."""
    global _skip
    _skip = True


def main() -> None:
    """The ``pooltool`` console script: the command line, then the end of the process.

    :raises SystemExit: with the command's status, unless a command asked for
        :func:`skip_native_teardown` (then :func:`os._exit` with that status; 120,
        as CPython gives, when stdout cannot be flushed, e.g. a closed pipe).
    """
    from pooltool.cli import cli

    try:
        cli.main(prog_name="pooltool")
        status: object = 0
    except SystemExit as exc:
        status = exc.code
    if not _skip:
        sys.exit(status)  # what SystemExit carried
    code = status if isinstance(status, int) else 0 if status is None else 1
    if not isinstance(status, int | None):
        print(status, file=sys.stderr)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120
    os._exit(code)
