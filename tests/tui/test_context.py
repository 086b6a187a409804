"""Context on screen, with Cranfield text: a judged document's note when revisited, the
guidelines screen (g), the whole statement of the highlighted topic in the picker, and
hard-wrapped text reflowed into paragraphs; at 80x24 and 200x50."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from judge_fixtures import AppFactory, log_rows, screen_text
from textual.widgets import DataTable

from pooltool.cli import cli
from pooltool.formats.documents import iter_documents
from pooltool.formats.topics import read_topics
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore
from pooltool.tui.app import make_app
from pooltool.tui.screens.guidelines import GuidelinesScreen
from pooltool.tui.screens.help import HELP_TITLE, HelpScreen
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.topic_picker import TopicPickerScreen

SIZES = [(80, 24), pytest.param((200, 50), marks=pytest.mark.slow)]  # 80x24 in the README's run
POOLED = {"1": ["1", "12", "184"], "2": ["12", "13"]}
# Cranfield query 1 (the qrels' topic 1), as the store holds it
QUERY_1 = ("what similarity laws must be obeyed when constructing aeroelastic models of "
           "heated high speed aircraft .")
QUERY_2 = ("what are the structural and aeroelastic problems associated with flight of high "
           "speed aircraft .")
GUIDE = ("Judge each abstract against the whole query,\nnot its title alone. A document\n"
         "that only mentions\nthe subject is not relevant.\n\nWhen unsure, grade lower.\n")


@pytest.fixture
def cran_store(shared_data: Path, new_store: str) -> str:
    """Cranfield's 225 queries and the documents of :data:`POOLED`, pooled per topic."""
    folder = shared_data / "cranfield"
    wanted = {d for docs in POOLED.values() for d in docs}
    path = new_store
    with JudgmentStore.open(path) as store:
        store.add_documents([d for d in iter_documents(folder / "cran.all.1400", "cranfield")
                             if d.docno in wanted], "cran")
        store.add_topics(read_topics(folder / "cran.qry", "cranfield"), "cran.qry")
        store.add_run_frame(pd.DataFrame(
            [("one", t, d, i + 1, 10.0 - i) for t, docs in POOLED.items()
             for i, d in enumerate(docs)], columns=["run_tag", "topic", "docno", "rank", "score"]))
        pool_runs(store, depth=10)
    return path


def pooltool(db: str, *args: str) -> None:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("size", SIZES)
async def test_a_judged_document_shows_its_note_when_revisited(cran_store: str,
                                                               size: tuple[int, int]) -> None:
    note = "only [b]wind tunnel[/] data"
    app = make_app(cran_store, "ann", ["1"])
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen) and screen.session.docno == "1"
        assert "✎ Note" not in screen_text(app)
        await pilot.press("n", *note, "enter")
        assert f"✎ Note (waits for a grade): {note}" in screen_text(app)
        await pilot.press("2")  # the note joins the grade; on to document 12
        assert screen.session.docno == "12" and "✎ Note" not in screen_text(app)
        await pilot.press("left")
        assert f"✎ Note: {note}" in screen_text(app)
    log = log_rows(cran_store)
    assert list(zip(log["docno"], log["grade"], log["note"], strict=True)) == [("1", 2, note)]
    app = make_app(cran_store, "ann", ["1"])  # a new session reads the note from the store
    async with app.run_test(size=size) as pilot:
        assert app.screen.session.docno == "12"  # type: ignore[attr-defined]
        await pilot.press("left")
        assert f"✎ Note: {note}" in screen_text(app)


@pytest.mark.parametrize("size", SIZES)
async def test_guidelines_screen_shows_definitions_guidelines_and_instructions(
        cran_store: str, tmp_path: Path, size: tuple[int, int]) -> None:
    guide = tmp_path / "guide.txt"
    guide.write_text(GUIDE, encoding="utf-8")
    instructions = tmp_path / "topic1.txt"
    instructions.write_text("Models of heated\naircraft only.\n", encoding="utf-8")
    pooltool(cran_store, "guidelines", "--text", str(guide), "--grade-definition",
             "0:nothing on the query", "--grade-definition", "3:answers [the] query in full")
    pooltool(cran_store, "guidelines", "--topic", "1", "--text", str(instructions))
    app = make_app(cran_store, "ann")
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter", "question_mark")  # topic 1
        assert isinstance(app.screen, HelpScreen)
        assert str(app.screen.query_one("#help-title").render()) == HELP_TITLE
        await pilot.press("escape", "g")
        assert isinstance(app.screen, GuidelinesScreen)
        text = app.screen.query_one("#guidelines-text").render()
        shown = str(text)
        assert "not relevant (grade 0): nothing on the query" in shown
        assert "perfectly relevant (grade 3): answers [the] query in full" in shown
        assert "related (grade 1): no definition" in shown
        assert ("Judge each abstract against the whole query, not its title alone. A document "
                "that only mentions the subject is not relevant.\n\nWhen unsure, grade "
                "lower.") in shown
        assert "Topic 1: instructions\nModels of heated aircraft only." in shown
        await pilot.press("g")
        assert isinstance(app.screen, JudgeScreen)
        await pilot.press("escape")  # the picker: g shows the highlighted topic's guidelines
        assert isinstance(app.screen, TopicPickerScreen)
        await pilot.press("down", "g")
        assert isinstance(app.screen, GuidelinesScreen)
        shown = str(app.screen.query_one("#guidelines-text").render())
        assert "Topic 2: narrative (no instructions set)\nnone" in shown  # Cranfield has none


async def test_the_narrative_stands_in_for_instructions(app_factory: AppFactory) -> None:
    async with app_factory().run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        shown = str(pilot.app.screen.query_one("#guidelines-text").render())
        assert ("Topic 1: narrative (no instructions set)\nRelevant documents measure or model "
                "the layer; mere mentions are not relevant.") in shown
        assert "Collection guidelines\nnone set (pooltool guidelines --text FILE)" in shown


@pytest.mark.parametrize("size", SIZES)
async def test_picker_shows_the_whole_statement_of_the_highlighted_topic(
        cran_store: str, size: tuple[int, int]) -> None:
    app = make_app(cran_store, "ann")
    async with app.run_test(size=size) as pilot:
        assert isinstance(app.screen, TopicPickerScreen)
        statement = app.screen.query_one("#statement-text")
        assert f"Query\n{QUERY_1}" in str(statement.render())
        await pilot.press("down")
        assert f"Query\n{QUERY_2}" in str(statement.render())
        cells = [str(c) for c in app.screen.query_one("#topics", DataTable).get_row("2")]
        if size[0] == 80:  # the query column is cut at 80 columns, not at 200: to what
            width = app.screen.title_width  # leaves the table as wide as the screen
            assert cells[1] == QUERY_2[: width - 1] + "…"
            assert app.screen.query_one("#topics", DataTable).virtual_size.width <= 80
        else:
            assert cells[1] == QUERY_2
        assert "Judged % all·me" in screen_text(app)


async def test_hard_wrapped_cranfield_text_is_reflowed(cran_store: str) -> None:
    """Cranfield document 1 breaks its lines at about 70 characters ("...slipstream was" /
    "made in order..."); at 200 columns a paragraph fills the pane's width."""
    async with make_app(cran_store, "ann", ["1"]).run_test(size=(200, 50)) as pilot:
        lines = screen_text(pilot.app).splitlines()
        assert any("an experimental study of a wing in a propeller slipstream was made in order "
                   "to determine" in line for line in lines)
        # the title, two source lines, is one line
        assert any("experimental investigation of the aerodynamics of a wing in a slipstream ."
                   in line for line in lines)
