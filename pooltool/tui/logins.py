"""Logins in front of the served apps (``judge --serve``, ``adjudicate --serve``) when
the store has accounts (``pooltool users add``; :mod:`pooltool.store.accounts`).

* Every request but the login page and textual-serve's static files needs a session
  cookie (:data:`COOKIE`: random, HttpOnly, SameSite=Strict, Secure when the request
  came over TLS, directly or through a proxy saying ``X-Forwarded-Proto: https``);
  without one a page redirects to ``/login`` and a websocket is refused (401).
* The name a tab judges or adjudicates under is the login's, never the address's: a
  page or websocket asking for another name is refused (403).
* An account's role decides which app it may enter (:data:`~pooltool.store.accounts.MAY`).
* Failed logins are logged (logger ``pooltool.login``: the name and the client's
  address, never a password) and rate-limited: after :data:`FAILURES_ALLOWED` failures
  within :data:`WINDOW_S` seconds from one address, or for one name, further tries
  get 429 until the window has passed.
* ``POST /logout`` ends the session. A login posted from another site's page
  (``Origin``) is refused.

Sessions live in the server's memory: restarting the server logs everyone out.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp_jinja2
from aiohttp import web

from pooltool.text import visible

COOKIE = "pooltool_session"
SESSION_S = 12 * 3600
FAILURES_ALLOWED = 5
WINDOW_S = 300.0
OPEN_PATHS = ("/login", "/static/")
log = logging.getLogger("pooltool.login")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
CheckPassword = Callable[[str, str], "str | None"]
"""``(name, password) -> role`` of a matching account, ``None`` otherwise."""


@dataclass(frozen=True)
class Session:
    """A logged-in tab's account: its name, role and when the session ends (monotonic s)."""

    name: str
    role: str
    expires: float


SESSION = web.RequestKey("session", Session)
"""Where :meth:`Logins.require_login` puts the request's session."""


class Attempts:
    """Failed logins per key (a client address, a name) within the last :data:`WINDOW_S`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.failures: dict[str, deque[float]] = defaultdict(deque)

    def blocked(self, key: str) -> bool:
        """Whether ``key`` has used up its failures for now."""
        times = self.failures[key]
        while times and times[0] <= self.clock() - WINDOW_S:
            times.popleft()
        return len(times) >= FAILURES_ALLOWED

    def failed(self, key: str) -> None:
        self.failures[key].append(self.clock())


class Logins:
    """The login routes and the middleware that asks for a session.

    :param check: verifies a name and password (see :data:`CheckPassword`).
    :param roles: the roles that may enter this app.
    :param app: what the app does, for messages (``judge``, ``adjudicate``).
    """

    def __init__(self, check: CheckPassword, roles: frozenset[str], app: str) -> None:
        self.check, self.roles, self.app = check, roles, app
        self.sessions: dict[str, Session] = {}
        self.attempts = Attempts()

    def session(self, request: web.Request) -> Session | None:
        """The request's live session, if its cookie names one."""
        found = self.sessions.get(request.cookies.get(COOKIE, ""))
        if found is None or found.expires < time.monotonic():
            return None
        return found

    @web.middleware
    async def require_login(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Let in only requests with a session (but the login page and static files)."""
        if request.path.startswith(OPEN_PATHS):
            return await handler(request)
        session = self.session(request)
        if session is None:
            if request.path.startswith("/ws/"):
                raise web.HTTPUnauthorized(text="log in first (/login)\n")
            raise web.HTTPSeeOther("/login")
        request[SESSION] = session
        return await handler(request)

    def routes(self) -> list[web.RouteDef]:
        return [web.get("/login", self.login_form), web.post("/login", self.login),
                web.post("/logout", self.logout)]

    async def login_form(self, request: web.Request) -> web.Response:
        return self._form(request, None, 200)

    def _form(self, request: web.Request, error: str | None, status: int) -> web.Response:
        return aiohttp_jinja2.render_template(
            "login.html", request, {"title": f"pooltool {self.app}", "error": error},
            status=status)

    async def login(self, request: web.Request) -> web.Response:
        """Check the posted name and password; a session cookie and the app, or the form
        again saying why."""
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            raise web.HTTPForbidden(text=f"pages from {origin} may not log in here\n")
        form = await request.post()
        name, password = str(form.get("name", "")).strip(), str(form.get("password", ""))
        client = request.remote or "?"
        if self.attempts.blocked(f"ip {client}") or self.attempts.blocked(f"name {name}"):
            log.warning("login refused (too many failures) for %s from %s", visible(name), client)
            return self._form(request, "Too many failed logins: wait a few minutes.", 429)
        role = self.check(name, password) if name and password else None
        if role is None:
            self.attempts.failed(f"ip {client}")
            self.attempts.failed(f"name {name}")
            log.warning("failed login for %s from %s", visible(name), client)
            return self._form(request, "Wrong name or password.", 401)
        if role not in self.roles:
            return self._form(request, f"This account ({role}) may not {self.app}.", 403)
        return self._start(request, name, role)

    def _start(self, request: web.Request, name: str, role: str) -> web.Response:
        token = secrets.token_urlsafe(32)
        self.sessions[token] = Session(name, role, time.monotonic() + SESSION_S)
        response = web.Response(status=303, headers={"Location": "/"})
        response.set_cookie(COOKIE, token, max_age=SESSION_S, path="/", httponly=True,
                            samesite="Strict", secure=over_tls(request))
        return response

    async def logout(self, request: web.Request) -> web.Response:
        self.sessions.pop(request.cookies.get(COOKIE, ""), None)
        response = web.Response(status=303, headers={"Location": "/login"})
        response.del_cookie(COOKIE, path="/")
        return response


def over_tls(request: web.Request) -> bool:
    """Whether the browser reached the server over TLS: directly, or through a reverse
    proxy that says so (``X-Forwarded-Proto: https``; it only makes the cookie Secure)."""
    return request.secure or request.headers.get("X-Forwarded-Proto", "").lower() == "https"


def store_check(db: str) -> CheckPassword:
    """:data:`CheckPassword` reading the accounts of the store at ``db`` (opened for each
    login, so accounts added meanwhile count)."""
    from pooltool.store import JudgmentStore
    from pooltool.store.accounts import password_matches

    def check(name: str, password: str) -> str | None:
        with JudgmentStore.open(db) as store:
            account = store.account(name)
        if account is None:
            return None
        return account.role if password_matches(account.password_hash, password) else None
    return check
