"""The web server of ``pooltool judge --serve``: textual-serve, one assessor per tab.

textual-serve's :class:`~textual_serve.server.Server` runs one command for
every browser tab, and its page loads a font from Google. :class:`JudgeServer`
changes three things:

* ``GET /`` without ``?assessor=NAME`` answers a form asking the name; with a
  valid name, the terminal page, whose websocket is ``/ws/NAME``; with an
  invalid one, the form again, saying why (status 400).
* ``/ws/NAME`` checks the name again (:func:`~pooltool.tui.serve.assessor_name`)
  and spawns that tab's own command, built from the name. A websocket opened
  by a page of another site (its ``Origin`` is not this server) is refused.
* Every request (page, websocket, static file) whose ``Host`` header names
  another host than those the server was started for
  (:func:`~pooltool.tui.serve.served_names`) is refused with 421: a page of
  another site whose name was rebound to this machine's address (DNS
  rebinding) would otherwise be "this server" to the Origin check.
* Each tab's app process is ended completely when its tab closes, or when the server
  shuts down (its websocket is closed first): :func:`~pooltool.tui.tab_process.stop_tab`.
* The pages are pooltool's own templates (``pooltool/tui/web/``), autoescaped,
  and load only textual-serve's local files under ``/static``: its script, its
  style sheet and the Roboto Mono font it ships (no Google Fonts, no CDN).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import quote, urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from pooltool.errors import InvalidArgument
from pooltool.text import visible
from pooltool.tui.logins import SESSION, Logins, over_tls
from pooltool.tui.serve import (
    LOOPBACK,
    NAME_MAX,
    NAME_RULE,
    CommandFor,
    assessor_name,
    served_names,
)
from pooltool.tui.tab_process import stop_tab

TEMPLATES = Path(__file__).with_name("web")
TITLE = "pooltool judge"
log = logging.getLogger("textual-serve")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def host_name(host: str) -> str:
    """The name in a ``Host`` header, lower-case, without its port or IPv6 brackets."""
    try:
        return urlsplit(f"//{host}").hostname or ""
    except ValueError:  # an unclosed IPv6 bracket, a port that is not a number
        return ""


class JudgeServer(Server):
    """Serve one judging app per browser tab, each under the name its tab gave.

    :param command: builds a tab's shell command from its assessor name.
    :param host: address to bind (loopback by default: there is no login).
    :param port: TCP port.
    """

    def __init__(self, command: CommandFor, host: str = LOOPBACK, port: int = 8000,
                 logins: Logins | None = None, server_names: tuple[str, ...] = ()) -> None:
        super().__init__(TITLE, host=host, port=port, title=TITLE, templates_path=TEMPLATES)
        self.command_for = command
        # a TLS reverse proxy passes the browser's Host: the public name is served too
        self.names = served_names(host) | {name.lower() for name in server_names}
        self.logins = logins  # None: no accounts; each tab names itself (loopback)
        self.tabs: dict[asyncio.Task[object], web.WebSocketResponse] = {}
        """The tabs open now: each one's handler task, and its websocket."""
        self.stopping: set[asyncio.Future[None]] = set()
        """The tabs' app processes being ended (:meth:`stop_tab`)."""
        self.closing = False  # the server shuts down: no tab starts an app any more

    @web.middleware
    async def refuse_foreign_host(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Answer only requests whose ``Host`` names this server (421 otherwise)."""
        if host_name(request.host) not in self.names:
            raise web.HTTPMisdirectedRequest(
                text="this server does not answer to that host name (its Host header); "
                     "open it by the address it was started with\n")
        return await handler(request)

    async def _make_app(self) -> web.Application:
        middlewares = [self.refuse_foreign_host]
        if self.logins is not None:
            middlewares.append(self.logins.require_login)
        app = web.Application(middlewares=middlewares)
        app.on_shutdown.append(self.close_tabs)
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path),
                             autoescape=True)
        if self.logins is not None:
            app.add_routes(self.logins.routes())
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws/{assessor}", self.handle_websocket, name="websocket"),
            web.static("/static", self.statics_path, name="static"),
        ])
        return app

    async def close_tabs(self, _: web.Application | None = None) -> None:
        """Close every open tab's websocket and wait until its app process has ended (on
        shutdown: aiohttp would cancel the handlers, leaving their processes behind)."""
        self.closing = True
        tabs = dict(self.tabs)
        for websocket in tabs.values():
            if websocket.prepared:  # one still being prepared sees self.closing
                await websocket.close()
        if tabs:
            await asyncio.wait(tabs)
        if self.stopping:
            await asyncio.wait(set(self.stopping))

    async def stop_tab(self, service: AppService) -> None:
        """End a closed tab's app process (:func:`~pooltool.tui.tab_process.stop_tab`),
        shielded: aiohttp cancels the handler of a connection that went away, and the
        process must end all the same (:meth:`close_tabs` waits for it on shutdown)."""
        stopping = asyncio.ensure_future(stop_tab(service))
        self.stopping.add(stopping)
        stopping.add_done_callback(self.stopping.discard)
        await asyncio.shield(stopping)

    async def handle_index(self, request: web.Request) -> web.Response:
        """The name form, or the terminal page of the name in ``?assessor=`` (with logins:
        of the login's name, a different ``?assessor=`` refused)."""
        if self.logins is not None:
            return self._terminal_page(request, self._login_name(request, request.query.get(
                "assessor")))
        if "assessor" not in request.query:
            return self._name_form(request, "", None)
        try:
            name = assessor_name(request.query["assessor"])
        except InvalidArgument as error:
            return self._name_form(request, request.query["assessor"], str(error))
        return self._terminal_page(request, name)

    def _login_name(self, request: web.Request, asked: str | None) -> str:
        """The session's name (the login middleware has set the session).

        :raises web.HTTPForbidden: ``asked`` names someone else.
        """
        name = request[SESSION].name
        if asked is not None and asked != name:
            raise web.HTTPForbidden(text=f"you are logged in as {visible(name)}: you cannot "
                                         "work under another name\n")
        return name

    def _terminal_page(self, request: web.Request, name: str) -> web.Response:
        scheme = "wss" if over_tls(request) else "ws"
        context = {
            "title": TITLE, "assessor": name,
            "websocket_url": f"{scheme}://{request.host}/ws/{quote(name, safe='')}",
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "restart_url": f"/?assessor={quote(name, safe='')}" if self.logins is None else "/",
            "logins": self.logins is not None,
        }
        return aiohttp_jinja2.render_template("terminal.html", request, context)

    def _name_form(self, request: web.Request, typed: str, error: str | None) -> web.Response:
        context = {"title": TITLE, "typed": visible(typed[:NAME_MAX * 2]), "error": error,
                   "rule": NAME_RULE, "max": NAME_MAX}
        return aiohttp_jinja2.render_template("name.html", request, context,
                                              status=400 if error else 200)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """Run the tab's own judging app, under the name in the path, until the tab
        closes (what textual-serve's handler does with its one command)."""
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            # another site's page, opened in the assessor's browser, may not judge
            raise web.HTTPForbidden(text=f"pages from {origin} may not open a judging app")
        if self.logins is not None:
            name = self._login_name(request, request.match_info["assessor"])
        else:
            try:
                name = assessor_name(request.match_info["assessor"])
            except InvalidArgument as error:
                raise web.HTTPBadRequest(text=str(error)) from error
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        service: AppService | None = None
        tab = asyncio.current_task()
        assert tab is not None  # aiohttp runs each handler in a task
        self.tabs[tab] = websocket
        try:
            await websocket.prepare(request)
            if self.closing:  # the server began to shut down meanwhile
                await websocket.close()
                return websocket

            async def close() -> None:
                await websocket.close()

            service = AppService(self.command_for(name), write_bytes=websocket.send_bytes,
                                 write_str=websocket.send_str, close=close,
                                 download_manager=self.download_manager, debug=self.debug)
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # one tab's failure must not stop the server
            log.exception(error)
        finally:
            self.tabs.pop(tab, None)
            if service is not None:
                await self.stop_tab(service)
        return websocket
