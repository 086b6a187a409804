"""``pooltool judge --serve``: the judging app in a browser, through textual-serve.

Each browser tab runs its own ``python -m pooltool.tui`` process on the
store, exactly like a terminal session, so several assessors can judge at
once. The server binds to 127.0.0.1 unless told otherwise: it has no login.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from pooltool.errors import PooltoolError
from pooltool.store import DEFAULT_POOL


def app_command(db: str | Path, assessor: str, topics: Sequence[str] = (),
                order: str = "docno", seed: int = 0, pool: str = DEFAULT_POOL) -> str:
    """The shell command that runs one judging app (what each browser tab runs)."""
    args = [sys.executable, "-m", "pooltool.tui", "--db", str(Path(db).resolve()),
            "--assessor", assessor, "--order", order, "--seed", str(seed), "--pool", pool]
    for topic in topics:
        args += ["--topic", topic]
    return shlex.join(args)


MISSING = "--serve needs textual-serve: pip install 'pooltool[serve]'"


def require_textual_serve() -> None:
    """Check that textual-serve can be imported (before anything is printed or opened).

    :raises PooltoolError: it cannot.
    """
    try:
        import textual_serve.server  # noqa: F401
    except ImportError as exc:
        raise PooltoolError(MISSING) from exc


def serve(command: str, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``command`` (see :func:`app_command`) over HTTP until Ctrl+C.

    :raises PooltoolError: textual-serve is not installed.
    """
    require_textual_serve()
    from textual_serve.server import Server

    Server(command, host=host, port=port, title="pooltool judge").serve()
