"""Text from the user's data is shown as written, never read as markup: every field
holds ``[/]``, ``[b]``, ``[link=x]`` or an unclosed ``[bold`` and must appear on
screen character for character (a markup reader would crash, or eat the brackets)."""

from __future__ import annotations

import pandas as pd
import pytest
from judge_fixtures import screen_text, wait_until

from pooltool.pooling import pool_runs
from pooltool.records import Document, Topic
from pooltool.store import GradeLevel, JudgmentStore, workspace
from pooltool.store.guidelines import GuidelineText, add_guidelines
from pooltool.text import visible
from pooltool.tui.app import make_app
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.topic_picker import TopicPickerScreen

SIZE = (200, 50)
# the first two run in the README's command, the rest with the slow tests (same paths)
MARKUP = ["[/]", "[b]", pytest.param("[link=x]", marks=pytest.mark.slow),
          pytest.param("[bold", marks=pytest.mark.slow)]


def fields(m: str) -> dict[str, str]:
    """Every kind of user text, each holding the markup-like string ``m``."""
    return {"topic": f"t{m}", "title": f"search [1] for {m} brackets",
            "description": f"describe {m} it", "narrative": f"narrate {m} it",
            "docno": f"d{m}", "doc_title": f"heading {m} here", "text": f"body {m} text",
            "run": f"run{m}", "assessor": f"al {m} ice", "grade0": f"no {m} way",
            "grade1": f"yes {m} sir", "scan": f"scan{m}", "note": f"note {m} end",
            "definition": f"define {m} yes", "guidelines": f"guide {m} all",
            "instructions": f"instruct {m} topic"}


def literal_store(path: str, f: dict[str, str]) -> str:
    """One topic, one pooled document, run names shown, a two-grade scale, the
    assessor's scan term: every string from ``f``."""
    with JudgmentStore.open(path) as store:
        store.add_topics([Topic(f["topic"], f["title"], f["description"], f["narrative"])], "<t>")
        store.add_documents([Document(f["docno"], f["doc_title"], f["text"])], "<t>")
        store.add_run_frame(pd.DataFrame([(f["run"], f["topic"], f["docno"], 1, 1.0)],
                                         columns=["run_tag", "topic", "docno", "rank", "score"]))
        pool_runs(store, depth=10)
        store.set_setting("show_runs", True)
        store.set_grade_scale([GradeLevel(0, "0", f["grade0"]), GradeLevel(1, "1", f["grade1"])])
        workspace.set_scan_terms(store, f["assessor"], f["topic"], [f["scan"]])
        add_guidelines(store, [GuidelineText("grade", "1", f["definition"], "<t>"),
                               GuidelineText("collection", "", f["guidelines"], "<t>"),
                               GuidelineText("topic", f["topic"], f["instructions"], "<t>")])
    return path


@pytest.mark.parametrize("markup", MARKUP)
async def test_every_field_shows_as_written(new_store: str, markup: str) -> None:
    f = fields(markup)
    path = literal_store(new_store, f)
    app = make_app(path, f["assessor"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TopicPickerScreen)
        picker = screen_text(app)
        for key in ("topic", "assessor"):
            assert f[key] in picker, key
        assert f["title"] in picker  # the query column is wide at 200 columns
        for key in ("description", "narrative"):  # the highlighted topic's statement
            assert f[key] in picker, key
        await pilot.press("g")
        shown = screen_text(app)
        for key in ("grade0", "grade1", "definition", "guidelines", "instructions"):
            assert f[key] in shown, key
        await pilot.press("escape")
        await pilot.press("enter")
        assert isinstance(app.screen, JudgeScreen)
        judging = screen_text(app)
        for key in ("title", "description", "narrative", "docno", "doc_title", "text", "run",
                    "assessor", "grade0", "grade1", "scan"):
            assert f[key] in judging, key
        await pilot.press("question_mark")
        help_text = screen_text(app)
        assert f["grade0"] in help_text and f["grade1"] in help_text
        await pilot.press("escape", "n")
        assert f"Note on {f['docno']}" in screen_text(app)
        await pilot.press(*f["note"], "enter", "1")  # the note joins the grade
        # the notice is a toast, mounted after the key's messages: a pause for idle once
        # ended before it showed (a full run at load 16 saw the screen between frames)
        done = f"All 1 documents of topic {f['topic']} are judged."
        assert await wait_until(pilot, lambda: done in screen_text(app))
        assert f"✎ Note: {f['note']}" in screen_text(app)
        await pilot.press("g")
        assert f["instructions"] in screen_text(app)
        await pilot.press("escape")
        await pilot.press("n")
        assert f["note"] in screen_text(app)
        await pilot.press("escape", "slash")
        assert f"Scan terms for topic {f['topic']}" in screen_text(app)
        assert f["scan"] in screen_text(app)
    with JudgmentStore.open(path) as store:
        log = store.judgment_log()
    assert list(zip(log["docno"], log["grade"], log["note"], strict=True)) == [
        (f["docno"], 1, f["note"])]


@pytest.mark.parametrize("markup", MARKUP)
async def test_notices_and_find_show_file_names_and_queries_as_written(
        new_store: str, markup: str) -> None:
    """A journal that could not be written names its file; a find query is typed text."""
    f = fields(markup)
    path = literal_store(new_store, f)
    app = make_app(path, f["assessor"], [f["topic"]])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("ctrl+f", *markup)
        assert "1 of 3" in screen_text(app)  # docno and title in the heading, and the text
        app.writes.journal_error = f"/tmp/{markup}/x.journal: disk full"
        app.report_failed()
        await pilot.pause()
        assert f"Could not write the journal /tmp/{markup}/x.journal" in screen_text(app)


ESCAPES = ["\x1b]2;PWNED\x1b\\", "\x9b", pytest.param("\x1b[2J", marks=pytest.mark.slow),
           pytest.param("\u202e", marks=pytest.mark.slow)]


@pytest.mark.parametrize("control", ESCAPES)
async def test_control_characters_show_visibly(new_store: str, control: str) -> None:
    """ESC (title, clear screen), a bidi override, C1 CSI in every field: the screen
    shows their escapes (``\\x1b``) and holds none of them raw."""
    f = fields(control)
    path = literal_store(new_store, f)
    shown = visible(control)
    app = make_app(path, f["assessor"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        picker = screen_text(app)
        assert f"t{shown}" in picker and control not in picker
        await pilot.press("enter")
        assert isinstance(app.screen, JudgeScreen)
        judging = screen_text(app)
        for key in ("title", "doc_title", "text", "docno", "run", "grade0", "scan"):
            assert visible(f[key]) in judging, key
        assert control not in judging and "\x1b" not in judging
        await pilot.press("g")
        guide = screen_text(app)
        assert visible(f["guidelines"]) in guide and "\x1b" not in guide
