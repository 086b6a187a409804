"""A small store file with two pooled topics, for the judging UI tests."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd

from pooltool.pooling import pool_runs
from pooltool.records import Document, Topic
from pooltool.store import JudgmentStore

if TYPE_CHECKING:
    from textual.app import App
    from textual.pilot import Pilot

    from pooltool.tui.app import JudgeApp

StoreAddress = TypeVar("StoreAddress", str, Path)
"""Where a store is: a SQLite file's path, or a PostgreSQL URL."""

AppFactory = Callable[..., "JudgeApp"]
"""Builds a judging app on the fixture store: ``factory(assessor, topics, **make_app options)``."""

TOPICS = [
    Topic("1", "boundary layer flow", "How does the boundary layer behave near a plate?",
          "Relevant documents measure or model the layer; mere mentions are not relevant."),
    Topic("2", "heat transfer in slabs", "Which heat conduction problems in slabs are solved?",
          ""),
]
DOCUMENTS = [
    Document("d1", "Flow over a flat plate", "The boundary layer on a flat plate thickens "
             "downstream. Boundary-layer flow separates near the trailing edge."),
    Document("d2", "Heat conduction", "Heat transfer through composite slabs is solved "
             "exactly for constant properties."),
    Document("d3", "Wings", "Lift of a wing in a slipstream; no layer is measured."),
    Document("d4", "Overflow", "Overflows and flows are not whole-word matches of flow."),
    Document("d6", "Slabs", "Slab heating with radiation at the surface."),
]
# d5 is pooled but has no text in the store.
RUN = pd.DataFrame(
    [("runA", "1", d, i + 1, 10.0 - i) for i, d in enumerate(["d3", "d1", "d5", "d4"])]
    + [("runB", "1", d, i + 1, 5.0 - i) for i, d in enumerate(["d1", "d2"])]
    + [("runA", "2", d, i + 1, 3.0 - i) for i, d in enumerate(["d2", "d6", "d1"])],
    columns=["run_tag", "topic", "docno", "rank", "score"])


def build_store(path: StoreAddress) -> StoreAddress:
    """Write the fixture store to ``path`` (a SQLite file or a PostgreSQL URL) and return it."""
    with JudgmentStore.open(path, create=True) as store:
        store.add_topics(TOPICS, "<fixture>")
        store.add_documents(DOCUMENTS, "<fixture>")
        store.add_run_frame(RUN)
        pool_runs(store, depth=10)
    return path


def pool_documents(path: StoreAddress, documents: list[Document]) -> StoreAddress:
    """Write a store to ``path`` whose topic 1 ("flow") pools ``documents``, ranked in
    the order given (open the app with ``order="rank"`` to judge them so); return it."""
    run = pd.DataFrame([("one", "1", d.docno, i + 1, float(len(documents) - i))
                        for i, d in enumerate(documents)],
                       columns=["run_tag", "topic", "docno", "rank", "score"])
    with JudgmentStore.open(path, create=True) as store:
        store.add_documents(documents, "<fixture>")
        store.add_topics([Topic("1", "flow", "", "")], "<fixture>")
        store.add_run_frame(run)
        pool_runs(store, depth=len(documents))
    return path


def log_rows(path: StoreAddress) -> pd.DataFrame:
    """The judgment log of the store at ``path`` (read through a fresh connection)."""
    with JudgmentStore.open(path) as store:
        return store.judgment_log()


def journal_base_of(address: str | Path) -> Path:
    """Where judging apps keep the journals of the store at ``address`` (next to a
    SQLite file; under ``$XDG_STATE_HOME`` for PostgreSQL): give it to
    :func:`~pooltool.store.journal_files.journal_path` and ``journals``."""
    with JudgmentStore.open(address) as store:
        base = store.journal_base
    assert base is not None
    return base


@contextmanager
def write_lock_held(address: str | Path) -> Iterator[None]:
    """Another connection holds the store's write lock while the block runs (SQLite's
    ``BEGIN IMMEDIATE``, PostgreSQL's write lock): the store is busy for every writer."""
    with JudgmentStore.open(address) as blocker, blocker.writing():
        yield


class Clock:
    """A clock for the store's claims (``store.claim_clock = clock``) that moves only when
    told: tests of claims that last minutes advance it instead of sleeping."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, minutes: float) -> None:
        """Move the clock ``minutes`` minutes on."""
        self.now += timedelta(minutes=minutes)


WAIT_S = 30.0
"""How long :func:`wait_until` lets the app run for a condition: far more than any
timer of the app needs (a retry every 0.5 s, a watch tick every second), so that
a loaded machine only makes a test slower, never fails it."""


async def wait_until(pilot: Pilot[Any], condition: Callable[[], bool],
                     timeout: float = WAIT_S) -> bool:
    """Let the app run (pauses of 0.05 s) until ``condition`` holds or ``timeout``
    seconds have passed; whether it holds. Use it instead of a pause of a fixed length
    before an assertion on what a timer of the app does."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return condition()
        await pilot.pause(0.05)
    return True


def screen_text(app: App[None]) -> str:
    """What the terminal shows of the active screen, as plain lines."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


SCROLLBAR = str.maketrans("", "", "▁▂▃▄▅▆▇█▔▏")


def document_pane(app: App[None]) -> list[str]:
    """The screen lines right of the topic pane's edge (the document pane)."""
    return [line.split("▕", 1)[1] for line in screen_text(app).splitlines() if "▕" in line]


def pane_words(app: App[None]) -> str:
    """The words the document pane shows, in screen order, one space apart (so that a
    passage reads the same however the pane wrapped it; scrollbar marks removed)."""
    return " ".join(" ".join(document_pane(app)).translate(SCROLLBAR).split())


def ending(text: str, words: int = 6) -> str:
    """The last ``words`` words of ``text``, one space apart."""
    return " ".join(text.split()[-words:])
