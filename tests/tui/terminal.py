"""``pooltool judge`` in a real pseudo-terminal, for the tests of how it ends."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

WAIT_S = 60.0
"""How long a condition is waited for: far more than the app needs to start on a loaded
machine, so that load only makes a test slower, never fails it."""


class Terminal:
    """A process run on a new pty of ``columns`` x ``rows``; :attr:`output` collects
    every byte it writes.

    :param args: the command line.
    :param env: extra environment variables.
    """

    def __init__(self, args: list[str], env: dict[str, str], columns: int = 80,
                 rows: int = 24) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.master, self.output = master, b""
        self.process = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
            env={**os.environ, "TERM": "xterm-256color", **env}, close_fds=True)
        os.close(slave)

    def read(self, timeout: float = 0.05) -> bool:
        """Collect what the process wrote within ``timeout`` s; whether the pty is still open."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: every process holding the pty's other end has ended
            return False
        self.output += data
        return bool(data)

    def wait_for(self, condition: Callable[[], bool], timeout: float = WAIT_S) -> bool:
        """Read until ``condition`` holds, the process ends, or ``timeout`` s pass."""
        deadline = time.monotonic() + timeout
        while not condition() and time.monotonic() < deadline:
            if not self.read() and not condition():
                return condition()
        return condition()

    def type(self, text: str) -> None:
        """Type ``text`` on the terminal's keyboard."""
        os.write(self.master, text.encode())

    def finish(self, timeout: float = WAIT_S) -> int:
        """Read to the end of the output and return the exit status (a shell's: 128 +
        the signal's number for a process a signal killed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.read(0.2):
            pass
        status = self.process.wait(timeout=max(1.0, deadline - time.monotonic()))
        os.close(self.master)
        return 128 - status if status < 0 else status

    def close(self) -> None:
        """Kill the process if it still runs (a failed test), and close the pty."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        try:
            os.close(self.master)
        except OSError:
            pass


def judge_command(store: str | Path, *args: str) -> list[str]:
    """``pooltool --db STORE judge ARGS`` run by this Python."""
    return [sys.executable, "-m", "pooltool", "--db", str(store), "judge", *args]
