"""Logins in front of the served apps, refused every way a real HTTP and websocket client
(aiohttp) can try: wrong password, no cookie, another user's cookie, a forged assessor
name, another site's Origin, brute force; and the cookie's flags."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from judge_fixtures import build_store

from pooltool.store import JudgmentStore
from pooltool.store.accounts import MAY
from pooltool.tui import tab_process
from pooltool.tui.logins import COOKIE, FAILURES_ALLOWED, Logins, store_check
from pooltool.tui.web_server import JudgeServer

PASSWORDS = {"alice": "alice's long secret", "bob": "bob's long secret",
             "carol": "carol's long secret"}


@dataclass
class Served:
    """A judging server with logins, and the names its tabs' commands were built for."""

    base: str
    commands: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def accounts_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = build_store(tmp_path_factory.mktemp("logins") / "s.db")
    with JudgmentStore.open(db) as store:
        store.add_account("alice", "assessor", PASSWORDS["alice"])
        store.add_account("bob", "assessor", PASSWORDS["bob"])
        store.add_account("carol", "adjudicator", PASSWORDS["carol"])
    return db


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[asyncio.subprocess.Process]:
    """The tabs' app processes the server starts (textual-serve starts them with
    ``asyncio.create_subprocess_shell``)."""
    processes: list[asyncio.subprocess.Process] = []
    start = asyncio.create_subprocess_shell

    async def recorded(*args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        process = await start(*args, **kwargs)
        processes.append(process)
        return process

    monkeypatch.setattr(asyncio, "create_subprocess_shell", recorded)
    return processes


def assert_ended(processes: list[asyncio.subprocess.Process]) -> None:
    """Every process the server started has ended and its transport is closed, before
    the test's event loop closes (an open one warns when collected later, its loop gone:
    "Exception ignored in BaseSubprocessTransport.__del__")."""
    assert all(p.returncode is not None for p in processes)
    assert all(p._transport.is_closing() for p in processes)  # type: ignore[attr-defined]


@pytest.fixture
async def served(accounts_store: Path,
                 spawned: list[asyncio.subprocess.Process]) -> AsyncIterator[Served]:
    commands: list[str] = []

    def command(name: str) -> str:
        commands.append(name)
        return "true"  # a tab's app that ends at once

    judge = JudgeServer(command, logins=Logins(store_check(str(accounts_store)), MAY["judge"],
                                               "judge"))
    server = TestServer(await judge._make_app(), host="127.0.0.1")
    await server.start_server()
    try:
        yield Served(str(server.make_url("")), commands)
    finally:
        await server.close()  # closes the tabs still open, and ends their processes
    assert len(spawned) == len(commands)
    assert_ended(spawned)


async def _login(base: str, name: str, password: str,
                 headers: dict[str, str] | None = None) -> aiohttp.ClientResponse:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        async with client.post(f"{base}/login", data={"name": name, "password": password},
                               allow_redirects=False, headers=headers or {}) as response:
            await response.read()
            return response


async def _token(base: str, name: str) -> str:
    response = await _login(base, name, PASSWORDS[name])
    assert response.status == 303 and response.headers["Location"] == "/"
    return response.cookies[COOKIE].value


async def _get(base: str, path: str, token: str | None = None) -> aiohttp.ClientResponse:
    headers = {"Cookie": f"{COOKIE}={token}"} if token else {}
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        async with client.get(base + path, headers=headers, allow_redirects=False) as response:
            await response.read()
            return response


async def _ws_status(base: str, path: str, token: str | None, origin: str | None = None) -> int:
    headers = {"Cookie": f"{COOKIE}={token}"} if token else {}
    if origin is not None:
        headers["Origin"] = origin
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        try:
            async with client.ws_connect(base.replace("http", "ws") + path, headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status


async def test_a_wrong_password_is_refused_without_a_cookie(served: Served) -> None:
    response = await _login(served.base, "alice", "bob's long secret")
    assert response.status == 401 and COOKIE not in response.cookies
    assert (await _login(served.base, "nobody", "whatever it is")).status == 401


async def test_without_a_cookie_pages_send_to_login_and_websockets_are_refused(
        served: Served) -> None:
    page = await _get(served.base, "/?assessor=alice")
    assert (page.status, page.headers["Location"]) == (303, "/login")
    assert (await _get(served.base, "/login")).status == 200
    assert await _ws_status(served.base, "/ws/alice", None) == 401
    assert await _ws_status(served.base, "/ws/alice", "made-up-token") == 401
    assert served.commands == []


async def test_the_name_is_the_logins_never_the_address(served: Served) -> None:
    alice = await _token(served.base, "alice")
    page = await _get(served.base, "/", alice)
    assert page.status == 200
    assert (await _get(served.base, "/?assessor=alice", alice)).status == 200
    assert (await _get(served.base, "/?assessor=bob", alice)).status == 403  # forged
    assert await _ws_status(served.base, "/ws/bob", alice) == 403  # alice's cookie, bob's tab
    bob = await _token(served.base, "bob")
    assert await _ws_status(served.base, "/ws/alice", bob) == 403  # bob's cookie, alice's tab
    assert served.commands == []
    assert await _ws_status(served.base, "/ws/alice", alice) == 101
    assert served.commands == ["alice"]


async def test_another_sites_page_may_not_open_a_tab_or_log_in(served: Served) -> None:
    alice = await _token(served.base, "alice")
    assert await _ws_status(served.base, "/ws/alice", alice, "https://evil.example") == 403
    refused = await _login(served.base, "alice", PASSWORDS["alice"],
                           {"Origin": "https://evil.example"})
    assert refused.status == 403 and COOKIE not in refused.cookies
    assert served.commands == []


async def test_the_cookie_is_httponly_samesite_strict_and_secure_over_tls(served: Served) -> None:
    plain = await _login(served.base, "alice", PASSWORDS["alice"])
    flags = SimpleCookie(plain.headers["Set-Cookie"])[COOKIE]
    assert flags["httponly"] and flags["samesite"] == "Strict" and flags["path"] == "/"
    assert not flags["secure"]  # plain http: a Secure cookie would never come back
    proxied = await _login(served.base, "alice", PASSWORDS["alice"],
                           {"X-Forwarded-Proto": "https"})
    assert SimpleCookie(proxied.headers["Set-Cookie"])[COOKIE]["secure"]


async def test_a_tab_app_that_does_not_quit_is_killed_when_its_tab_closes(
        accounts_store: Path, spawned: list[asyncio.subprocess.Process],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tab's app that ignores the request to quit (here ``sleep``, which never reads it)
    is killed once its tab has closed and TAB_STOP_S has passed, and its process is
    reaped before the server's close returns."""
    monkeypatch.setattr(tab_process, "TAB_STOP_S", 0.2)
    judge = JudgeServer(lambda name: "exec sleep 60",
                        logins=Logins(store_check(str(accounts_store)), MAY["judge"], "judge"))
    server = TestServer(await judge._make_app(), host="127.0.0.1")
    await server.start_server()
    try:
        base = str(server.make_url(""))
        assert await _ws_status(base, "/ws/alice", await _token(base, "alice")) == 101
    finally:
        await server.close()
    assert len(spawned) == 1 and spawned[0].returncode == -signal.SIGKILL
    assert_ended(spawned)


async def test_an_account_enters_only_the_apps_of_its_role(served: Served) -> None:
    response = await _login(served.base, "carol", PASSWORDS["carol"])  # an adjudicator
    assert response.status == 403 and COOKIE not in response.cookies


async def test_logout_ends_the_session(served: Served) -> None:
    alice = await _token(served.base, "alice")
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
        async with client.post(f"{served.base}/logout", allow_redirects=False,
                               headers={"Cookie": f"{COOKIE}={alice}"}) as response:
            assert response.status == 303
    assert (await _get(served.base, "/", alice)).status == 303
    assert await _ws_status(served.base, "/ws/alice", alice) == 401


async def test_failed_logins_are_rate_limited_and_logged_without_the_password(
        served: Served, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pooltool.login")
    for _ in range(FAILURES_ALLOWED):
        assert (await _login(served.base, "bob", "guess number one")).status == 401
    # the right password, too late: the window is used up, for this name and address
    assert (await _login(served.base, "bob", PASSWORDS["bob"])).status == 429
    assert (await _login(served.base, "alice", PASSWORDS["alice"])).status == 429
    lines = [record.getMessage() for record in caplog.records]
    assert lines.count("failed login for bob from 127.0.0.1") == FAILURES_ALLOWED
    assert "login refused (too many failures) for bob from 127.0.0.1" in lines
    assert not any("guess" in line or "secret" in line for line in lines)


def test_users_add_takes_the_password_from_stdin_and_stores_only_a_hash(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from pooltool.cli import cli

    db = str(build_store(tmp_path / "u.db"))
    added = CliRunner().invoke(cli, ["--db", db, "users", "add", "dan", "--role", "adjudicator",
                                     "--password-stdin"], input="dan's long secret\n")
    assert added.exit_code == 0, added.output
    with JudgmentStore.open(db) as store:
        account = store.account("dan")
        rows = store.query("SELECT * FROM accounts")
    assert account is not None and account.role == "adjudicator"
    assert account.password_hash.startswith("$argon2id$")
    assert "dan's long secret" not in rows.to_string()
    assert store_check(db)("dan", "dan's long secret") == "adjudicator"
    assert store_check(db)("dan", "dan's long secreT") is None
    short = CliRunner().invoke(cli, ["--db", db, "users", "add", "eve", "--password-stdin"],
                               input="short\n")
    assert (short.exit_code, short.output) == (1, "Error: a password has at least 8 characters\n")
    listed = CliRunner().invoke(cli, ["--db", db, "users", "list", "--format", "csv"])
    assert listed.output == "name,role\ndan,adjudicator\n"


async def test_behind_a_tls_proxy_the_public_name_and_wss_are_served(
        accounts_store: Path) -> None:
    """A reverse proxy passes the browser's Host and X-Forwarded-Proto: https; the page's
    websocket is then wss:// on the public name (given with --server-name)."""
    judge = JudgeServer(lambda name: "true", server_names=("judging.example.org",),
                        logins=Logins(store_check(str(accounts_store)), MAY["judge"], "judge"))
    server = TestServer(await judge._make_app(), host="127.0.0.1")
    await server.start_server()
    proxy = {"Host": "judging.example.org", "X-Forwarded-Proto": "https"}
    try:
        base = str(server.make_url(""))
        login = await _login(base, "alice", PASSWORDS["alice"], proxy)
        assert SimpleCookie(login.headers["Set-Cookie"])[COOKIE]["secure"]
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
            headers = {**proxy, "Cookie": f"{COOKIE}={login.cookies[COOKIE].value}"}
            async with client.get(base + "/", headers=headers) as page:
                assert page.status == 200
                assert 'data-session-websocket-url="wss://judging.example.org/ws/alice"' in (
                    await page.text())
            async with client.get(base + "/login", headers={"Host": "other.example"}) as other:
                assert other.status == 421
    finally:
        await server.close()
