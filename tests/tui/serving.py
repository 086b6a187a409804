"""``pooltool judge --serve`` as a real process on a free loopback port, for the tests
that talk to it as a browser does (tests/tui/test_serve.py, test_browser.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

UP_WAIT_S = 60.0
"""How long the server may take to answer its first page (a loaded machine included)."""


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def served(store: str | Path, *options: str) -> Iterator[str]:
    """Run ``pooltool --db STORE judge --serve --port PORT OPTIONS...`` until the block
    ends (terminated, killed after 30 s); yields its base URL once it answers ``/``.

    :raises AssertionError: the server exited first (its stderr is in the message) or
        did not answer within :data:`UP_WAIT_S`.
    """
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "pooltool", "--db", str(store), "judge",
                                "--serve", "--port", str(port), *options],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base, process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()


def _wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + UP_WAIT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            assert process.stderr is not None
            raise AssertionError(f"the server exited: {process.stderr.read()!r}")
        try:
            urllib.request.urlopen(base + "/", timeout=5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"the server did not answer within {UP_WAIT_S:.0f} s")
