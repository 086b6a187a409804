"""The end of a served tab's app process (``judge --serve``, ``adjudicate --serve``).

textual-serve's :meth:`~textual_serve.app_service.AppService.stop` asks the tab's app to
quit and reads its output to the end, but never waits for the process nor closes its
stdin: the process's asyncio transport then stays open (a pipe, and a zombie until
garbage collection, in a server that runs for days), and when it is collected after its
event loop closed it says so ("Exception ignored in BaseSubprocessTransport.__del__:
Event loop is closed"). :func:`stop_tab` ends a tab's process completely.
"""

from __future__ import annotations

import asyncio
import contextlib

from textual_serve.app_service import AppService

TAB_STOP_S = 5.0
"""How long a tab's app is given to quit once its tab closed; then it is killed."""


async def stop_tab(service: AppService) -> None:
    """Stop a tab's app (textual-serve's stop: the app is asked to quit), wait for its
    process, killing it when it does not end within :data:`TAB_STOP_S` seconds, and
    close its stdin, so that its transport is closed before this returns."""
    wait_s = TAB_STOP_S
    process = service._process  # textual-serve keeps it to itself, and never reaps it
    try:
        await asyncio.wait_for(service.stop(), wait_s)
    except TimeoutError:  # it did not quit when asked: killed below
        pass
    except asyncio.CancelledError:  # the task reading its output was cancelled, or this one
        if _cancelled():
            raise
    if process is None:
        return
    try:
        await asyncio.wait_for(process.wait(), wait_s)
    except TimeoutError:  # it did not quit when asked
        if process.returncode is None:
            process.kill()
        await process.wait()
    if process.stdin is not None:
        process.stdin.close()
        with contextlib.suppress(ConnectionError):  # the app had closed its end already
            await process.stdin.wait_closed()


def _cancelled() -> bool:
    """Whether the running task itself is being cancelled."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
