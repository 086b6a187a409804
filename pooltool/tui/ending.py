"""How the judging app ends, other than by ``q``: a signal, or a crash.

A signal that ends a process (SIGTERM from ``kill``, SIGHUP from a closed SSH
window or tmux ``kill-pane``, SIGINT, SIGQUIT) would stop Python at once and
leave the terminal as the app set it: raw, on the alternate screen, with mouse
tracking and bracketed paste on. :class:`SignalExit` turns each of them into a
normal exit of the app instead, so that Textual's driver writes its restore
sequences and the writes still queued are committed (the app's ``on_unmount``);
the exit status is then ``128 + signal number``, as a shell reports a process a
signal ended (143 for SIGTERM, 129 for SIGHUP). SIGKILL cannot be caught.

A crash (an exception no handler caught) ends the app with status 1 (Textual's);
:func:`crash_report` writes its traceback to a log file (:func:`crash_log_path`)
and leaves one line for the terminal, instead of Textual's screenful.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from pooltool.text import visible

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT)
"""The signals that end the app cleanly (every one that ends a process and can be caught)."""


def signal_status(signum: int) -> int:
    """The exit status of a process ended by signal ``signum``: ``128 + signum``."""
    return 128 + int(signum)


class SignalExit:
    """Signal handlers that make an app exit as if the assessor quit.

    :param exit_app: called once, with the exit status, on the first signal; it
        must make the app exit (``App.exit``), from the event loop's thread.
    """

    def __init__(self, exit_app: Callable[[int], None]) -> None:
        self.exit_app = exit_app
        self.received: int | None = None  # the first signal caught
        self.installed: list[int] = []

    def install(self) -> None:
        """Handle :data:`ENDING_SIGNALS` in the running event loop (nothing where the
        loop cannot: another thread than the main one, or a platform without them)."""
        loop = asyncio.get_running_loop()
        for signum in ENDING_SIGNALS:
            try:
                loop.add_signal_handler(signum, self.caught, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            self.installed.append(signum)

    def remove(self) -> None:
        """Give the signals back to their default handling."""
        loop = asyncio.get_running_loop()
        for signum in self.installed:
            loop.remove_signal_handler(signum)
        self.installed.clear()

    def caught(self, signum: int) -> None:
        """A signal arrived: exit the app with ``128 + signum`` (a second one while it
        exits changes nothing)."""
        if self.received is None:
            self.received = signum
            self.exit_app(signal_status(signum))


def crash_log_path(now: float | None = None) -> Path:
    """Where a crash's traceback is written: ``$XDG_STATE_HOME/pooltool/`` (default
    ``~/.local/state/pooltool/``), ``judge-crash-YYYYmmdd-HHMMSS-PID.log``."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return Path(state) / "pooltool" / f"judge-crash-{stamp}-{os.getpid()}.log"


def crash_report(error: BaseException, path: Path | None = None) -> str:
    """Write ``error``'s traceback to ``path`` (default :func:`crash_log_path`) and
    return the one line the terminal shows: what failed, and where the traceback is
    (or, when the log cannot be written, why, and the traceback goes unwritten)."""
    path = crash_log_path() if path is None else path
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    summary = visible(" ".join(f"{type(error).__name__}: {error}".split())[:200])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        return (f"pooltool judge crashed ({summary}); the traceback could not be written "
                f"to {path}: {exc.strerror or exc}")
    return f"pooltool judge crashed ({summary}); traceback in {path}"
