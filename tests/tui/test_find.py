"""Find in the document (Ctrl+F): the count on screen, the marks in the text, stepping
between matches, Esc giving the keys back, and a match far down scrolled into view."""

from __future__ import annotations

from pathlib import Path

import pytest
from judge_fixtures import AppFactory, ending, log_rows, pane_words, pool_documents, screen_text
from rich.text import Text
from textual.app import App
from textual.widgets import Static

from pooltool.formats.documents import iter_documents
from pooltool.records import Document
from pooltool.tui.app import make_app
from pooltool.tui.reflow import reflow
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.topic_picker import TopicPickerScreen
from pooltool.tui.widgets.document_view import CURRENT_STYLE, FIND_STYLE, DocumentView
from pooltool.tui.widgets.find_bar import FindBar
from pooltool.tui.widgets.highlight import QUERY_STYLE

SIZE = (110, 30)


def marks(app: App[None], part: str) -> list[tuple[str, str]]:
    """The find marks in the document's ``title`` or ``body``: (text, style)."""
    static = app.screen.query_one(DocumentView).query_one(f"#doc-{part}", Static)
    text = static.content
    assert isinstance(text, Text)
    return [(text.plain[s.start:s.end], str(s.style)) for s in text.spans
            if str(s.style) in (FIND_STYLE, CURRENT_STYLE)]


async def test_find_counts_marks_and_steps(app_factory: AppFactory) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f", *"boundary layer")
        assert "1 of 2" in screen_text(pilot.app)
        assert marks(pilot.app, "body") == [("boundary layer", CURRENT_STYLE),
                                            ("Boundary-layer", FIND_STYLE)]
        await pilot.press("enter")
        assert "2 of 2" in screen_text(pilot.app)
        assert marks(pilot.app, "body") == [("boundary layer", FIND_STYLE),
                                            ("Boundary-layer", CURRENT_STYLE)]
        await pilot.press("down")
        assert "1 of 2" in screen_text(pilot.app)  # wraps round
        await pilot.press("up")
        assert "2 of 2" in screen_text(pilot.app)


async def test_find_covers_the_title_and_says_no_match(app_factory: AppFactory) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f", *"FLAT")
        assert "1 of 2" in screen_text(pilot.app)
        assert marks(pilot.app, "title") == [("flat", CURRENT_STYLE)]
        assert marks(pilot.app, "body") == [("flat", FIND_STYLE)]
        await pilot.press(*"ter")
        assert "no match" in screen_text(pilot.app)
        assert marks(pilot.app, "body") == []


async def test_esc_gives_the_keys_back_then_closes(app_factory: AppFactory,
                                                   store_path: str) -> None:
    """Esc in the find bar: grade keys work and the next document is searched too;
    Esc again closes the find; Esc a third time goes back to the topics."""
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f", *"heat", "escape", "1")
        assert isinstance(app.screen, JudgeScreen) and app.screen.session.docno == "d2"
        assert "1 of 2" in screen_text(app)  # "Heat conduction", "Heat transfer ..."
        assert marks(app, "title") == [("Heat", CURRENT_STYLE)]
        await pilot.press("escape")
        assert not app.screen.query_one(FindBar).is_open
        assert "Find:" not in screen_text(app) and marks(app, "title") == []
        await pilot.press("escape")
        assert isinstance(app.screen, TopicPickerScreen)
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [("d1", 1)]


@pytest.fixture
def cranfield_documents(shared_data: Path) -> list[Document]:
    """Cranfield's documents with text, shortest first."""
    documents = iter_documents(shared_data / "cranfield" / "cran.all.1400", "cranfield")
    return sorted((d for d in documents if d.text.strip()), key=lambda d: len(d.text))


@pytest.fixture
def long_document(cranfield_documents: list[Document], new_store: str) -> tuple[str, Document]:
    """A store whose topic 1 pools only Cranfield's longest document."""
    document = cranfield_documents[-1]
    return pool_documents(new_store, [document]), document


async def test_find_scrolls_a_match_far_below_into_view(
        long_document: tuple[str, Document]) -> None:
    path, document = long_document
    last = ending(document.text)
    query = " ".join(last.split()[:3])
    expected = reflow(document.text).lower().count(query.lower())
    async with make_app(path, "reader", ["1"]).run_test(size=(80, 24)) as pilot:
        assert last not in screen_text(pilot.app)
        await pilot.press("ctrl+f", *query)
        await pilot.pause()
        assert f"1 of {expected}" in screen_text(pilot.app)
        await pilot.press(*["enter"] * (expected - 1))  # to the last match
        assert f"{expected} of {expected}" in screen_text(pilot.app)
        assert last in pane_words(pilot.app)


async def test_an_open_find_searches_the_next_document_and_scrolls_to_it(
        cranfield_documents: list[Document], new_store: str) -> None:
    """Find open, Esc, a grade: the next (the longest) document opens on its match."""
    short, long = cranfield_documents[0], cranfield_documents[-1]
    last = ending(long.text)
    path = pool_documents(new_store, [short, long])
    async with make_app(path, "reader", ["1"], order="rank").run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+f", *last, "escape", "0")
        await pilot.pause()
        assert pilot.app.screen.session.docno == long.docno  # type: ignore[attr-defined]
        assert "1 of 1" in screen_text(pilot.app)
        assert last in pane_words(pilot.app)


async def test_the_next_topic_opens_as_on_a_new_screen(app_factory: AppFactory) -> None:
    """The app keeps one judging screen between topics: the next topic finds the find
    bar closed and empty and query terms marked, whatever the last topic left."""
    async with app_factory(topics=("1", "2")).run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        screen = pilot.app.screen
        assert isinstance(screen, JudgeScreen) and screen.session.topic == "1"
        await pilot.press("ctrl+f", *"flat", "escape", "h", "escape", "escape")
        assert isinstance(pilot.app.screen, TopicPickerScreen)
        await pilot.press("down", "enter", "right")  # topic 2: d1, then d2
        assert pilot.app.screen is screen  # type: ignore[comparison-overlap]  # (mypy narrowed it)
        assert screen.session.topic == "2"
        find_bar = screen.query_one(FindBar)
        assert not find_bar.is_open and find_bar.query_text == "" and screen.show_query
        assert screen.session.docno == "d2" and marks(pilot.app, "body") == []
        body = screen.query_one(DocumentView).query_one("#doc-body", Static).content
        assert isinstance(body, Text)
        assert [body.plain[s.start:s.end] for s in body.spans
                if str(s.style) == QUERY_STYLE] == ["Heat", "transfer", "slabs"]
