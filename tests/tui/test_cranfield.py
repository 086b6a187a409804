"""Real text: judge a whole Cranfield topic from the keyboard, quit midway, come back,
and export qrels that hold exactly the grades given."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pooltool.formats.documents import iter_documents
from pooltool.formats.qrels import read_qrels
from pooltool.formats.topics import read_topics
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore
from pooltool.tui.app import make_app
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.widgets.document_view import DocumentView

# Cleverdon's codes (1 = complete answer .. 4 = minimal interest, -1 = not relevant)
# as the grades our assessor gives; docs the qrels do not hold get 0.
GRADE_OF_CODE = {1: 3, 2: 2, 3: 1, 4: 1, -1: 0}
EXTRA_DOCS = ["1", "2", "3"]


@pytest.fixture
def cranfield_store(shared_data: Path, new_store: str) -> tuple[str, dict[str, int]]:
    """A store with Cranfield's 1400 documents and 225 queries, and a one-topic run
    made from topic 1's qrels (plus three other documents), pooled to depth 100.

    :returns: the store path and the grade the assessor will give each pooled docno.
    """
    folder = shared_data / "cranfield"
    qrels = read_qrels(folder / "derived" / "cranqrel.trec")
    topic1 = qrels[qrels["topic"] == "1"]
    grades = {d: GRADE_OF_CODE[int(g)] for d, g in zip(topic1["docno"], topic1["grade"],
                                                         strict=True)}
    grades.update(dict.fromkeys(EXTRA_DOCS, 0))
    run = pd.DataFrame([("fromqrels", "1", d, i + 1, 100.0 - i) for i, d in enumerate(grades)],
                       columns=["run_tag", "topic", "docno", "rank", "score"])
    path = new_store
    with JudgmentStore.open(path) as store:
        store.add_documents(iter_documents(folder / "cran.all.1400", "cranfield"), "cran")
        store.add_topics(read_topics(folder / "cran.qry", "cranfield"), "cran.qry")
        store.add_run_frame(run)
        pool_runs(store, depth=100)
    return path, grades


async def judge_some(path: str, grades: dict[str, int], count: int | None) -> int:
    """Open the app on topic 1, give the planned grade to ``count`` documents (all
    when ``None``) as an assessor would, one key each, then press q."""
    app = make_app(path, "cleverdon", ["1"])
    judged = 0
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        while not screen.session.done and (count is None or judged < count):
            docno = screen.session.docno
            body = str(screen.query_one(DocumentView).query_one("#doc-body").render())
            assert body.strip() and "No text" not in body
            await pilot.press(str(grades[docno]))
            judged += 1
        await pilot.press("q")
    return judged


@pytest.mark.slow  # a whole real topic, key by key: CI runs it
async def test_judge_a_whole_cranfield_topic(
        cranfield_store: tuple[str, dict[str, int]]) -> None:
    path, grades = cranfield_store
    first = await judge_some(path, grades, count=12)
    rest = await judge_some(path, grades, count=None)
    assert (first, rest) == (12, len(grades) - 12)
    with JudgmentStore.open(path) as store:
        qrels = store.qrels()
        statement = store.topic("1")
    assert dict(zip(qrels["docno"], qrels["grade"], strict=True)) == grades
    assert set(qrels["topic"]) == {"1"} and len(qrels) == len(grades) == 32
    assert statement.title.startswith("what similarity laws must be obeyed")
