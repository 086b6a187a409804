"""How a ``pooltool`` process ends once its command has returned (the console script).

A process that loaded pyarrow ends without the interpreter's finalization: with
the output flushed, :func:`os._exit` ends it with the command's status.
CPython's finalization otherwise runs the C++ static destructors of libarrow,
and tearing down a thread pool whose worker is still joinable calls
``std::terminate`` ("terminate called without an active exception", status
134 after correct output): apache/arrow issue 34314 (open), and the same
crash in geoparquet-io (issue 1028, fixed there the same way: no native
teardown after the last byte). Every command that reads a run or qrels file
may have started Arrow's CPU threads (``recall`` scores in them, the readers
parse in them): ``import-qrels`` on a read-only store was seen to print its
one error line, then abort with status -6 under load. Nothing the command
wrote is lost: the stores are closed and the thread pools of
:mod:`concurrent.futures` joined by the commands themselves before they
return, logging is shut down and stdout and stderr are flushed here. A
process that never loaded pyarrow ends as usual.
"""

from __future__ import annotations

import logging
import os
import sys


def main() -> None:
    """The ``pooltool`` console script: the command line, then the end of the process.

    :raises SystemExit: with the command's status, unless the process loaded pyarrow
        (then :func:`os._exit` with that status; 120, as CPython gives, when stdout
        cannot be flushed, e.g. a closed pipe).
    """
    from pooltool.cli import cli

    try:
        cli.main(prog_name="pooltool")
        status: object = 0
    except SystemExit as exc:
        status = exc.code
    if "pyarrow" not in sys.modules:
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
