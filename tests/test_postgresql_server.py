"""The tests' throwaway PostgreSQL server dies with the process it serves, however that
process dies: a test run killed by a timeout (SIGKILL) left its server running."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import postgresql_server
import pytest

HERE = Path(__file__).resolve().parent
IN_PROCESS = ("import sys, time, postgresql_server\n"
              "server = postgresql_server.start()\n"
              "print(server.admin_url, server.folder, flush=True)\n"
              "time.sleep(600)\n")
# as .ci/run does: the shell's $$ is the process the server serves
FROM_A_SHELL = (f'eval "$({sys.executable} postgresql_server.py start $$)"\n'
                'echo "$POOLTOOL_TEST_POSTGRESQL $POOLTOOL_TEST_POSTGRESQL_FOLDER"\n'
                "sleep 600\n")


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("starter", [
    [sys.executable, "-c", IN_PROCESS],
    ["bash", "-c", FROM_A_SHELL],
], ids=["a test process", "a shell that ran start $$"])
def test_the_server_stops_when_the_process_it_serves_is_killed(starter: list[str]) -> None:
    if postgresql_server.binaries() is None and os.environ.get("POOLTOOL_REQUIRE_POSTGRESQL") != "1":
        pytest.skip("PostgreSQL's server binaries are not installed")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("POOLTOOL_TEST_")}
    child = subprocess.Popen(starter, cwd=HERE, env=environment, stdout=subprocess.PIPE,
                             text=True, start_new_session=True)
    try:
        assert child.stdout is not None
        url, folder = child.stdout.readline().split()
        port = urlsplit(url).port
        assert port is not None and port_open(port) and Path(folder, "data").is_dir()
        os.killpg(child.pid, signal.SIGKILL)  # the child and its sleep, not the server
        child.wait()
        deadline = time.monotonic() + 60
        while (port_open(port) or Path(folder).exists()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not port_open(port), f"the server on port {port} outlived its process"
        assert not Path(folder).exists(), f"{folder} outlived its process"
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
