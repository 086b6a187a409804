"""The topic picker: every topic with its judging progress; Enter opens one.

Topics are listed in :func:`~pooltool.records.topic_key` order (2 before 10).
"Remaining" counts what is left in the assessor's queue, by the rule of
:mod:`pooltool.judging.queue` (on their assigned topics, what they have not
judged; elsewhere, what nobody has judged, imported qrels included), and the
bar shows how much of that queue is done; "Judged (all)" and "Judged (me)"
count the pooled documents judged by anyone and by the assessor. The cursor starts
on the topic the assessor used last (:func:`pooltool.store.workspace.last_topic`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import pandas as pd
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from pooltool.judging.queue import topic_progress
from pooltool.records import topic_key
from pooltool.store import JudgmentStore, workspace
from pooltool.tui.messages import TopicChosen
from pooltool.tui.widgets.progress import progress_bar

# short labels, so that every column fits 80 columns: "By all" and "By me" are
# judged by anyone / by the assessor, "Left" is remaining, "Rel" relevant found
COLUMNS = ("Topic", "Query", "Pooled", "By all", "By me", "Left", "Rel", "Progress")
TITLE_WIDTH = 20
BAR_WIDTH = 8


class TopicPickerScreen(Screen[None]):
    """Lists topics with pooled, judged by anyone / by the assessor, remaining,
    relevant found and a progress bar; Enter on a row sends :class:`TopicChosen`.

    :param topics: gives the topics to list; asked again on every refresh, so
        that a changed assignment shows without a restart.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", "Quit"), Binding("r", "reload", "Refresh")]

    def __init__(self, store: JudgmentStore, assessor: str, topics: Callable[[], list[str]],
                 pool: str, **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.store, self.assessor, self.pool = store, assessor, pool
        self.list_topics = topics
        self.topics = sorted(topics(), key=topic_key)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="picker-title")
        yield DataTable(id="topics", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#topics", DataTable).add_columns(*COLUMNS)
        self.action_reload(workspace.last_topic(self.store, self.assessor, self.topics))

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self, highlight: str | None = None) -> None:
        """Recompute every topic's progress from the store.

        :param highlight: put the cursor on this topic (default: where it was).
        """
        self.topics = sorted(self.list_topics(), key=topic_key)
        frame = topic_progress(self.store, self.assessor, self.topics, self.pool)
        frame = frame.set_index("topic").reindex(self.topics).dropna(subset=["pooled"])
        table = self.query_one("#topics", DataTable)
        if highlight is None and table.row_count:
            highlight = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        table.clear()
        for topic, row in frame.iterrows():
            table.add_row(*_cells(str(topic), row), key=str(topic))
        rows = [str(t) for t in frame.index]
        table.move_cursor(row=rows.index(highlight) if highlight in rows else 0)
        judged, pooled = int(frame["judged_me"].sum()), int(frame["pooled"].sum())
        self.query_one("#picker-title", Static).update(Text.assemble(
            ("Assessor ", "dim"), (self.assessor, "bold"),
            (f" · {len(frame)} topics · you judged {judged} of {pooled} pooled · By all/"
             "By me: judged by anyone/you · Left: still to judge · Enter opens", "dim")))

    @on(DataTable.RowSelected, "#topics")
    def choose(self, event: DataTable.RowSelected) -> None:
        """Open the selected topic."""
        self.post_message(TopicChosen(str(event.row_key.value)))


def _cells(topic: str, row: pd.Series) -> list[Text]:
    """One table row; topic and title are :class:`Text` so that the table shows
    them as written (a ``str`` cell would be read as markup)."""
    title = str(row["title"])
    if len(title) > TITLE_WIDTH:
        title = title[: TITLE_WIDTH - 1] + "…"
    numbers = row[["pooled", "judged_any", "judged_me", "remaining", "relevant"]]
    right = [Text(str(int(n)), justify="right") for n in numbers]
    return [Text(topic), Text(title), *right, progress_bar(float(row["done"]), BAR_WIDTH)]
