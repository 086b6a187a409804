"""``pooltool judge --serve``: one assessor per browser tab, loopback, nothing from outside.

The server runs as a whole process (``pooltool judge --serve``) on a free
loopback port; an HTTP client reads its pages and every file they load, and a
websocket client plays a browser tab, without a browser.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import aiohttp
import pytest
from judge_fixtures import build_store
from serving import free_port, served

from pooltool.errors import InvalidArgument
from pooltool.tui.serve import app_command, assessor_name, command_for, served_names
from pooltool.tui.web_server import JudgeServer

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


@pytest.mark.parametrize(("typed", "name"), [
    ("ann", "ann"), ("  Anne-Marie O'Neil ", "Anne-Marie O'Neil"), ("j.doe@nist", "j.doe@nist"),
    ("Zoë", "Zoë"), ("a" * 64, "a" * 64),
])
def test_assessor_name_accepts(typed: str, name: str) -> None:
    assert assessor_name(typed) == name


@pytest.mark.parametrize("typed", ["", "   ", "[b]ann", "ann[/]", "a/b", "<script>", "a\nb",
                                   "a\x00b", "_", "--", "a" * 65, 'say "hi"', "x;rm -rf"])
def test_assessor_name_refuses(typed: str) -> None:
    with pytest.raises(InvalidArgument, match="an assessor name is 1 to 64 letters"):
        assessor_name(typed)


def test_a_tab_command_carries_its_name_as_one_argument(tmp_path: Path) -> None:
    command = command_for(tmp_path / "s.db", ["7"], "rank", 3, "p")("Anne-Marie O'Neil")
    args = shlex.split(command)
    assert args[1:3] == ["-m", "pooltool.tui"]
    assert "--assessor=Anne-Marie O'Neil" in args and args[-2:] == ["--topic", "7"]
    assert app_command(tmp_path / "s.db", "ann") == shlex.join(
        [sys.executable, "-m", "pooltool.tui", "--db", str((tmp_path / "s.db").resolve()),
         "--assessor=ann", "--order", "docno", "--seed", "0", "--pool", "main"])


def test_loopback_is_the_default_bind() -> None:
    assert JudgeServer(lambda name: "true").host == "127.0.0.1"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``pooltool judge --serve`` on a free loopback port, on the judging fixture store
    (a SQLite file: serving is the same on either engine); yields its base URL. One
    server for the module's tests: they load pages and open apps, and judge nothing."""
    with served(build_store(tmp_path_factory.mktemp("serve") / "store.db")) as base:
        yield base


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def _loaded(text: str) -> list[str]:
    """Addresses a page or style sheet loads: src, href and url(...)."""
    found = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']|url\(\s*["']?([^"')]+)""", text)
    return [attribute or url for attribute, url in found]


def _external(text: str) -> list[str]:
    """http(s)/ws(s) addresses in ``text`` whose host is not this machine (CSS comments,
    which load nothing, left out)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    hosts = re.findall(r"""(?:https?|wss?)://([^/:"'\s)<>]+)""", text)
    return [host for host in hosts if host not in LOCAL_HOSTS]


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc/net/tcp")
def test_pages_load_nothing_from_outside_and_bind_loopback(server: str) -> None:
    port = int(server.rsplit(":", 1)[1])
    listening = [line.split()[1] for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
                 if line.split()[1].endswith(f":{port:04X}") and line.split()[3] == "0A"]
    assert listening == [f"0100007F:{port:04X}"]  # 127.0.0.1, and nothing else
    status, form = _get(server + "/")
    assert status == 200 and 'name="assessor"' in form and "Who is judging?" in form
    status, page = _get(server + "/?assessor=ann")
    assert status == 200
    assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws/ann"' in page
    seen, queue = {}, [server + "/", server + "/?assessor=ann"]
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        status, seen[url] = _get(url)
        assert status == 200, url
        queue += [urljoin(url, address) for address in _loaded(seen[url])
                  if not address.startswith(("data:", "#"))]
    assert {url.removeprefix(server) for url in seen} >= {
        "/static/js/textual.js", "/static/css/xterm.css",
        "/static/fonts/RobotoMono-VariableFont_wght.ttf"}
    for url, text in seen.items():
        assert _external(text) == [], url


def test_a_bad_name_is_asked_again_as_text(server: str) -> None:
    status, form = _get(server + "/?assessor=%5Bb%5D%3Cscript%3E")
    assert status == 400
    assert "an assessor name is 1 to 64 letters" in form
    assert 'value="[b]&lt;script&gt;"' in form and "<script>" not in form


def test_each_tab_judges_under_its_own_name(server: str) -> None:
    """Two tabs, two names: each tab's app shows its own assessor (the header line)."""
    ws = server.replace("http://", "ws://")

    async def header(name: str) -> str:
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(f"{ws}/ws/{name}?width=100&height=30") as tab:
                screen = ""
                deadline = time.monotonic() + 60
                while f"assessor {name}" not in screen and time.monotonic() < deadline:
                    message = await tab.receive(timeout=60)
                    if message.type == aiohttp.WSMsgType.BINARY:
                        screen += re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "",
                                         message.data.decode("utf-8", "replace"))
                    elif message.type != aiohttp.WSMsgType.TEXT:
                        break
                return screen

    async def both() -> list[str]:
        return list(await asyncio.gather(header("ann"), header("ben")))

    ann, ben = asyncio.run(both())
    assert "assessor ann" in ann and "assessor ben" not in ann
    assert "assessor ben" in ben and "assessor ann" not in ben


def test_a_bad_name_or_another_site_opens_no_app(server: str) -> None:
    async def connect(path: str, origin: str | None = None) -> int:
        headers = {} if origin is None else {"Origin": origin}
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(server.replace("http://", "ws://") + path,
                                              headers=headers):
                    return 101
            except aiohttp.WSServerHandshakeError as error:
                return error.status

    assert asyncio.run(connect("/ws/%5Bb%5D")) == 400
    assert asyncio.run(connect("/ws/ann", "https://evil.example")) == 403
    assert asyncio.run(connect("/ws/ann", server)) == 101  # a browser on this server's page


def test_loopback_serves_loopback_names_only() -> None:
    assert served_names("127.0.0.1") == {"127.0.0.1", "localhost", "::1"}
    assert served_names("judge.lab.example") == {"judge.lab.example"}
    assert {"127.0.0.1", "localhost", "::1"} <= served_names("0.0.0.0")
    assert "evil.example" not in served_names("0.0.0.0")


def _status(url: str, host: str) -> int:
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


async def _ws_status(server: str, host: str, origin: str) -> int:
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(server.replace("http://", "ws://") + "/ws/ann",
                                          headers={"Host": host, "Origin": origin}):
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status


def test_a_foreign_host_name_is_refused_dns_rebinding(server: str) -> None:
    """A page of evil.example whose name was made to point at 127.0.0.1 sends
    ``Host: evil.example:PORT`` and ``Origin: http://evil.example:PORT``: refused (421),
    page, static file and websocket; the loopback names are served."""
    port = server.rsplit(":", 1)[1]
    evil = f"evil.example:{port}"
    for path in ("/", "/?assessor=ann", "/static/js/textual.js"):
        assert _status(server + path, evil) == 421, path
    assert asyncio.run(_ws_status(server, evil, f"http://{evil}")) == 421
    for name in ("127.0.0.1", "localhost", "LOCALHOST", "[::1]"):
        assert _status(server + "/", f"{name}:{port}") == 200, name
    assert asyncio.run(_ws_status(server, f"localhost:{port}", f"http://localhost:{port}")) == 101


@pytest.mark.skipif(sys.platform != "linux", reason="binds 127.0.0.2 (all of 127/8 is Linux's)")
def test_the_host_given_is_the_name_served(store_path: str) -> None:
    """``--host 127.0.0.2``: that name is served, another one (a loopback name
    included) is refused."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "pooltool", "--db", str(store_path),
                                "judge", "--serve", "--host", "127.0.0.2", "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.2:{port}"
    try:
        deadline = time.monotonic() + 60
        while _up(base, f"127.0.0.2:{port}") is None and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
            time.sleep(0.2)
        assert _status(base + "/", f"127.0.0.2:{port}") == 200
        assert _status(base + "/?assessor=ann", f"127.0.0.2:{port}") == 200
        assert _status(base + "/", f"localhost:{port}") == 421
        assert _status(base + "/", f"evil.example:{port}") == 421
    finally:
        process.terminate()
        process.wait(timeout=30)
        assert process.stderr is not None
        process.stderr.close()


def _up(base: str, host: str) -> int | None:
    try:
        return _status(base + "/", host)
    except OSError:
        return None


def test_a_typed_name_with_control_characters_is_shown_visibly(server: str) -> None:
    status, form = _get(server + "/?assessor=al%1B%5D2%3BPWNED%07ice")
    assert status == 400
    assert 'value="al\\x1b]2;PWNED\\x07ice"' in form
    assert "\x1b" not in form and "\x07" not in form
