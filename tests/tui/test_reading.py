"""Reading with the keyboard: the document has the keys from the moment it opens,
its bottom edge says "more below" or "end", and a store may require the end to
be reached before a grade is taken."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from judge_fixtures import AppFactory, ending, log_rows, pane_words, pool_documents, screen_text
from textual.pilot import Pilot

from pooltool.formats.documents import iter_documents
from pooltool.formats.topics import read_topics
from pooltool.pooling import pool_runs
from pooltool.records import Document
from pooltool.store import JudgmentStore
from pooltool.tui.app import make_app
from pooltool.tui.widgets.document_view import AT_END, MORE_BELOW

SMALL = (80, 24)


@pytest.fixture
def longest(shared_data: Path, new_store: str) -> tuple[str, Document]:
    """A store with Cranfield's documents and queries, topic 1 pooling only the
    longest document. :returns: the store path and that document."""
    folder = shared_data / "cranfield"
    documents = list(iter_documents(folder / "cran.all.1400", "cranfield"))
    document = max(documents, key=lambda d: len(d.text))
    path = new_store
    with JudgmentStore.open(path) as store:
        store.add_documents(documents, "cran")
        store.add_topics(read_topics(folder / "cran.qry", "cranfield"), "cran.qry")
        store.add_run_frame(pd.DataFrame([("one", "1", document.docno, 1, 1.0)],
                                         columns=["run_tag", "topic", "docno", "rank", "score"]))
        pool_runs(store, depth=10)
    return path, document


def last_line(document: Document) -> str:
    """The document's last words (the pane shows the text reflowed, wrapped to its width)."""
    return ending(document.text)


async def page_to_end(pilot: Pilot[None], key: str) -> int:
    """Press ``key`` until the document pane says "end"; :returns: the presses."""
    presses = 0
    while AT_END not in screen_text(pilot.app):
        assert presses < 300, "the end never came"
        await pilot.press(key)
        presses += 1
    return presses


@pytest.mark.sqlite_only  # scrolling the screen: the store's part is read once, as below
# down scrolls a line per press: about 100 rendered frames to the end of this document,
# the slowest UI test of the README's run (8 s wall loaded). space and pagedown page the
# same document to the same end by default, and every variant scrolls by a line at the
# end ("up"); the down variant is left to the slow tier (CI runs it).
@pytest.mark.parametrize("key", ["space", "pagedown", pytest.param("down", marks=pytest.mark.slow)])
async def test_longest_cranfield_document_scrolls_to_its_last_line(
        longest: tuple[str, Document], key: str) -> None:
    path, document = longest
    async with make_app(path, "reader", ["1"]).run_test(size=SMALL) as pilot:
        await pilot.pause()
        first = screen_text(pilot.app)
        assert MORE_BELOW in first and last_line(document) not in pane_words(pilot.app)
        presses = await page_to_end(pilot, key)
        assert presses > 1
        assert last_line(document) in pane_words(pilot.app)
        await pilot.press("home")
        assert last_line(document) not in pane_words(pilot.app)
        await pilot.press("end")
        assert last_line(document) in pane_words(pilot.app)
        await pilot.press("pageup", "up")
        assert MORE_BELOW in screen_text(pilot.app)


async def test_keys_scroll_the_document_after_tab(longest: tuple[str, Document]) -> None:
    """Space pages the document wherever the focus is; a new document takes the keys back."""
    path, document = longest
    async with make_app(path, "reader", ["1"]).run_test(size=SMALL) as pilot:
        await pilot.press("tab")
        assert await page_to_end(pilot, "space") > 1
        assert last_line(document) in pane_words(pilot.app)


async def test_require_end_refuses_a_grade_until_the_end_was_shown(
        longest: tuple[str, Document]) -> None:
    path, document = longest
    with JudgmentStore.open(path) as store:
        store.set_setting("require_end", True)
    async with make_app(path, "reader", ["1"]).run_test(size=SMALL, notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()
        assert "Read to the end first" in screen_text(pilot.app)
        assert log_rows(path).empty
        await pilot.press("end", "home", "2")  # the end was on screen once: enough
    rows = log_rows(path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [(document.docno, 2)]


async def test_require_end_takes_a_short_document_at_once(app_factory: AppFactory,
                                                           store_path: str) -> None:
    with JudgmentStore.open(store_path) as store:
        store.set_setting("require_end", True)
    async with app_factory().run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert AT_END in screen_text(pilot.app)
        await pilot.press("1")
        await pilot.pause()
        await pilot.press("0")
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [("d1", 1), ("d2", 0)]


async def test_require_end_holds_for_a_long_document_after_a_short_one(
        shared_data: Path, new_store: str) -> None:
    """The end of the short document was on screen; that says nothing of the next one."""
    documents = iter_documents(shared_data / "cranfield" / "cran.all.1400", "cranfield")
    by_length = sorted((d for d in documents if d.text.strip()), key=lambda d: len(d.text))
    path = pool_documents(new_store, [by_length[0], by_length[-1]])
    with JudgmentStore.open(path) as store:
        store.set_setting("require_end", True)
    async with make_app(path, "reader", ["1"], order="rank").run_test(size=SMALL) as pilot:
        await pilot.pause()
        await pilot.press("1", "2")  # the long one at once: refused
        await pilot.pause()
        assert MORE_BELOW in screen_text(pilot.app)
        await pilot.press("end", "2")
    rows = log_rows(path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [
        (by_length[0].docno, 1), (by_length[-1].docno, 2)]
