"""A throwaway PostgreSQL server for the tests and the load benchmark.

:func:`start` runs ``initdb`` into a temporary folder and starts ``postgres`` on a free
loopback port (its socket in that folder too), tuned for tests (no fsync); :meth:`Server.stop`
stops it and removes the folder; :meth:`Server.halt` and :meth:`Server.start_again` stop
and start it keeping its data (a server going away under a judging app). When
``POOLTOOL_TEST_POSTGRESQL`` holds a URL, that server is used instead (the URL's role
must be allowed to create databases).

The server dies with the process it serves, however that process dies (a test run
killed by a timeout, SIGKILL included): ``pg_ctl`` runs ``postgres`` in a session of
its own, so nothing of the kind reaches it, and a watchdog (:func:`watch`, in a
session of its own too) waits for the served process to end, then stops the server
(``pg_ctl stop -m immediate``) and removes the folder. It leaves on its own when the
folder is gone (:meth:`Server.stop`, or ``postgresql_server.py stop FOLDER``).

PostgreSQL refuses to run as root, so as root the server runs as the ``postgres``
user (Debian's packages make it), else as ``nobody``.
"""

from __future__ import annotations

import glob
import os
import pwd
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROLE = "pooltool"


class ServerUnavailable(RuntimeError):
    """No PostgreSQL server could be had (the message says why)."""


@dataclass
class Server:
    """A PostgreSQL server the tests may create databases on."""

    admin_url: str  # a URL of the server's ``postgres`` database, as a superuser
    folder: Path | None = None  # the data folder of a server started here
    bin_dir: Path | None = None
    run_as: list[str] = field(default_factory=list)
    options: str = ""  # the postgres options it was started with (port, socket, tuning)
    watchdog: subprocess.Popen[bytes] | None = None  # stops the server if we die first

    def url(self, database: str) -> str:
        """The URL of ``database`` on this server, as the admin role."""
        return self.admin_url.rsplit("/", 1)[0] + f"/{database}"

    def create_database(self, template: str | None = None) -> str:
        """A new, empty database (a copy of ``template`` if given); returns its URL."""
        import psycopg

        name = f"pooltool_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            clause = f" TEMPLATE {template}" if template else ""
            conn.execute(f"CREATE DATABASE {name}{clause}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a database made by :meth:`create_database` (its connections closed)."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def halt(self) -> None:
        """Stop a server started by :func:`start` as an administrator does (``pg_ctl
        stop -m fast``: its sessions are ended, "terminating connection due to
        administrator command"), keeping its data for :meth:`start_again`."""
        self._pg_ctl("-m", "fast", "-w", "stop")

    def start_again(self) -> None:
        """Start a server stopped by :meth:`halt` on the same port, with its data."""
        self._pg_ctl("-l", "log", "-w", "-o", self.options, "start")

    def _pg_ctl(self, *args: str) -> None:
        """Run ``pg_ctl`` on this server's data folder (in its folder, as its user)."""
        if self.folder is None or self.bin_dir is None:
            raise ServerUnavailable("only a server started by start() can be stopped and "
                                    "started again")
        done = subprocess.run([*self.run_as, str(self.bin_dir / "pg_ctl"), "-D",
                               str(self.folder / "data"), *args], cwd=self.folder,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ServerUnavailable(f"pg_ctl {' '.join(args)} failed: {done.stderr.strip()}")

    def stop(self) -> None:
        """Stop a server started by :func:`start` and remove its folder."""
        if self.folder is None or self.bin_dir is None:
            return
        _stop(self.folder, self.bin_dir, self.run_as)
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait()


def binaries() -> Path | None:
    """The folder of ``initdb``, ``pg_ctl`` and ``postgres`` (PATH first, then Debian's
    ``/usr/lib/postgresql/*/bin``), or ``None`` when they are not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(Path(p).parts[-3]))
    return Path(versions[-1]).parent if versions else None


def _stop(folder: Path, bin_dir: Path, run_as: list[str]) -> None:
    subprocess.run([*run_as, str(bin_dir / "pg_ctl"), "-D", str(folder / "data"), "-m",
                    "immediate", "stop"], capture_output=True, check=False)
    shutil.rmtree(folder, ignore_errors=True)


def start(served: int | None = None, own: bool = False) -> Server:
    """A server for the tests: ``POOLTOOL_TEST_POSTGRESQL``'s (unless ``own``), else a
    new one, that stops when process ``served`` (default: this one) ends.

    :raises ServerUnavailable: no binaries, or the server did not start (the message
        holds its log).
    """
    given = os.environ.get("POOLTOOL_TEST_POSTGRESQL")
    if given and not own:
        return Server(admin_url=given)
    bin_dir = binaries()
    if bin_dir is None:
        raise ServerUnavailable("PostgreSQL's server binaries (initdb, pg_ctl) are not "
                                "installed (Debian: apt-get install postgresql)")
    run_as, owner = _unprivileged_user()
    folder = Path(tempfile.mkdtemp(prefix="pooltool-pg-"))
    os.chown(folder, owner, -1)
    watchdog = subprocess.Popen(  # before initdb: a death from here on leaves nothing
        [sys.executable, __file__, "watch", str(served or os.getpid()), str(folder)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    port = _free_port()
    data = folder / "data"
    options = (f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
               "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
    steps = [
        [str(bin_dir / "initdb"), "-D", str(data), "-U", ROLE, "--auth=trust", "-E", "UTF8",
         "--locale=C", "--no-sync"],
        [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w", "-o",
         options, "start"],
    ]
    for step in steps:
        done = subprocess.run([*run_as, *step], capture_output=True, text=True, check=False,
                              cwd=folder)
        if done.returncode != 0:
            log = (folder / "log").read_text() if (folder / "log").exists() else ""
            _stop(folder, bin_dir, run_as)
            watchdog.kill()
            watchdog.wait()
            raise ServerUnavailable(f"{Path(step[0]).name} failed: {done.stderr.strip()} "
                                    f"{log.strip()}")
    return Server(admin_url=f"postgresql://{ROLE}@127.0.0.1:{port}/postgres", folder=folder,
                  bin_dir=bin_dir, run_as=run_as, options=options,
                  watchdog=watchdog)


def watch(served: int, folder: Path) -> None:
    """The watchdog: once process ``served`` has ended, stop the server of ``folder`` and
    remove the folder; return at once when the folder is gone (stopped already).

    The end of ``served`` is seen through a pidfd (no race with a new process that
    reuses the pid); where there is none, by asking every 0.2 s whether it exists.
    """
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):  # a terminal's or a job's: not ours
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    try:
        handle: int | None = os.pidfd_open(served)
    except ProcessLookupError:
        handle = None
        ended = True
    except (AttributeError, OSError):
        handle, ended = None, False
    else:
        ended = False
    while not ended:
        if not folder.exists():
            return
        ended = _has_ended(served, handle)
    bin_dir = binaries()
    if bin_dir is not None:
        _stop(folder, bin_dir, _unprivileged_user()[0])


def _has_ended(pid: int, handle: int | None) -> bool:
    """Whether process ``pid`` (its pidfd ``handle``, if any) has ended, waiting a second
    at most for it to end."""
    if handle is not None:
        return bool(select.select([handle], [], [], 1.0)[0])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    time.sleep(0.2)
    return False


def _unprivileged_user() -> tuple[list[str], int]:
    """The command prefix that runs the server as a user who is not root, and that
    user's uid (none needed when this process is not root)."""
    if os.geteuid() != 0:
        return [], os.geteuid()
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                "--clear-groups"], user.pw_uid
    raise ServerUnavailable("running as root and no 'postgres' or 'nobody' user to run "
                            "the server as")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main(argv: list[str]) -> int:
    """``python tests/postgresql_server.py start PID``: start a server that stops when
    process PID (the calling shell's ``$$``) ends, and print the shell lines that point
    the tests at it (``POOLTOOL_TEST_POSTGRESQL``, and ``POOLTOOL_TEST_POSTGRESQL_FOLDER``
    for ``stop``); exit status 3 when the server binaries are not installed.
    ``... stop FOLDER``: stop that server, remove FOLDER. (``... watch PID FOLDER`` is
    the watchdog :func:`start` runs.)"""
    if argv[:1] == ["start"] and len(argv) == 2 and argv[1].isdigit():
        try:
            server = start(served=int(argv[1]))
        except ServerUnavailable as exc:
            print(f"echo 'PostgreSQL: {exc}' >&2")
            return 3 if binaries() is None else 1
        print(f"export POOLTOOL_TEST_POSTGRESQL={server.admin_url}")
        print(f"export POOLTOOL_TEST_POSTGRESQL_FOLDER={server.folder}")
        return 0
    if argv[:1] == ["stop"] and len(argv) == 2:
        Server(admin_url="", folder=Path(argv[1]), bin_dir=binaries(),
               run_as=_unprivileged_user()[0]).stop()
        return 0
    if argv[:1] == ["watch"] and len(argv) == 3 and argv[1].isdigit():
        watch(int(argv[1]), Path(argv[2]))
        return 0
    print("usage: postgresql_server.py start PID | stop FOLDER", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
