"""The topic picker: every topic with its judging progress; Enter opens one.

Topics are listed in :func:`~pooltool.records.topic_key` order (2 before 10).
"Left" counts what is left in the assessor's queue, by the rule of
:mod:`pooltool.judging.queue` (on their assigned topics, what they have not
judged; elsewhere, what nobody has judged, imported qrels included); "By all"
and "By me" count the pooled documents judged by anyone and by the assessor,
and the "Judged % all·me" column shows both as shares of the pooled documents
(the bar is the share judged by anyone). The query column is as wide as the
screen leaves it (at least :data:`TITLE_WIDTH`), and the whole statement of the
highlighted topic, reflowed, shows under the table. The cursor starts on the
topic the assessor used last (:func:`pooltool.store.workspace.last_topic`);
``g`` shows the guidelines of the highlighted topic, ``?`` every key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import pandas as pd
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from pooltool.errors import StoreConnectionLost, UnknownTopic
from pooltool.judging.queue import topic_progress
from pooltool.records import Topic, topic_key
from pooltool.store import JudgmentStore, workspace
from pooltool.store.guidelines import current_guidelines
from pooltool.text import visible
from pooltool.tui.messages import StoreUnreachable, TopicChosen
from pooltool.tui.screens.guidelines import GuidelinesScreen
from pooltool.tui.screens.help import HelpScreen
from pooltool.tui.widgets.progress import progress_bar
from pooltool.tui.widgets.topic_panel import statement_text

# short labels, so that every column fits 80 columns: "By all" and "By me" are
# judged by anyone / by the assessor, "Left" is remaining, "Rel" relevant found
COLUMNS = ("Topic", "Query", "Pooled", "By all", "By me", "Left", "Rel", "Judged % all·me")
TITLE_WIDTH = 20
"""The query column's width before the screen's is known."""
MIN_TITLE_WIDTH = 8
"""The narrowest the query column gets (the whole statement shows under the table)."""
BAR_WIDTH = 6


class TopicTable(DataTable[Text]):
    """The topics: Home and End move the cursor to the first and last topic (a
    DataTable's own scroll the table, sideways when it is wider than the screen,
    which took the topic ids out of view while Enter opened the row under the cursor)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_topic", "First topic", show=False),
        Binding("end", "last_topic", "Last topic", show=False)]

    def action_first_topic(self) -> None:
        """The cursor to the first topic, the table scrolled to its left edge."""
        self.move_cursor(row=0)
        self.scroll_x = 0

    def action_last_topic(self) -> None:
        """The cursor to the last topic, the table scrolled to its left edge."""
        self.move_cursor(row=max(self.row_count - 1, 0))
        self.scroll_x = 0


class TopicPickerScreen(Screen[None]):
    """Lists topics with pooled, judged by anyone / by the assessor, remaining,
    relevant found and a progress bar; Enter on a row sends :class:`TopicChosen`.

    :param topics: gives the topics to list; asked again on every refresh, so
        that a changed assignment shows without a restart.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", "Quit"), Binding("r", "reload", "Refresh"),
        Binding("g", "guidelines", "Guidelines"), Binding("question_mark", "help", "Help")]

    def __init__(self, store: JudgmentStore, assessor: str, topics: Callable[[], list[str]],
                 pool: str, **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.store, self.assessor, self.pool = store, assessor, pool
        self.list_topics = topics
        self.topics = sorted(topics(), key=topic_key)
        self.title_width = TITLE_WIDTH
        self.progress: pd.DataFrame | None = None  # the last rows read from the store
        self._stale = False  # set when another screen covers the list

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="picker-title")
        yield TopicTable(id="topics", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="statement", can_focus=False):
            yield Static(id="statement-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#topics", DataTable).add_columns(*COLUMNS)
        try:
            last = workspace.last_topic(self.store, self.assessor, self.topics)
        except StoreConnectionLost as exc:
            self.post_message(StoreUnreachable(exc))
            last = None
        self.action_reload(last)

    def on_screen_suspend(self) -> None:
        self._stale = True

    def on_screen_resume(self) -> None:
        """Read the progress again when the list shows anew (back from a topic or a
        dialog); not on its first showing, which :meth:`on_mount` has just read."""
        if self._stale or self.progress is None:
            self._stale = False
            self.action_reload()

    def on_resize(self) -> None:
        """Widen or narrow the query column to the screen (the rows last read are
        shown again: a resize asks nothing of the store)."""
        if self.progress is None:
            return
        width = self.fitted_title_width()
        if width != self.title_width:
            self.title_width = width
            self._show(self.progress, None)

    def fitted_title_width(self) -> int:
        """The query column's width that makes the table as wide as the screen: what
        the other columns take now (their text and padding), and the scrollbar, left
        out; at least :data:`MIN_TITLE_WIDTH`."""
        table = self.query_one("#topics", DataTable)
        others = sum(column.get_render_width(table) for column in table.columns.values()
                     if str(column.label) != "Query")
        scrollbar = table.styles.scrollbar_size_vertical if table.row_count else 0
        return max(MIN_TITLE_WIDTH, self.size.width - others - scrollbar - 2 * table.cell_padding)

    def action_reload(self, highlight: str | None = None) -> None:
        """Recompute every topic's progress from the store (while its server is
        unreachable the list stays as it was).

        :param highlight: put the cursor on this topic (default: where it was).
        """
        try:
            self._reload(highlight)
        except StoreConnectionLost as exc:
            self.post_message(StoreUnreachable(exc))

    def _reload(self, highlight: str | None) -> None:
        self.topics = sorted(self.list_topics(), key=topic_key)
        frame = topic_progress(self.store, self.assessor, self.topics, self.pool)
        self.progress = frame.set_index("topic").reindex(self.topics).dropna(subset=["pooled"])
        self._show(self.progress, highlight)
        width = self.fitted_title_width() if self.size.width else self.title_width
        if width != self.title_width:
            # the other columns' widths are known once filled: fit the query column
            self.title_width = width
            self._show(self.progress, highlight)

    def _show(self, frame: pd.DataFrame, highlight: str | None) -> None:
        """Fill the table with ``frame`` (:func:`topic_progress`'s rows, indexed by topic)
        and the title line with its totals; the cursor on ``highlight`` (default: where
        it was)."""
        table = self.query_one("#topics", DataTable)
        highlight = highlight or self.highlighted_topic()
        table.clear()
        for topic, row in frame.iterrows():
            table.add_row(*_cells(str(topic), row, self.title_width), key=str(topic))
        rows = [str(t) for t in frame.index]
        table.move_cursor(row=rows.index(highlight) if highlight in rows else 0)
        judged, pooled = int(frame["judged_me"].sum()), int(frame["pooled"].sum())
        self.query_one("#picker-title", Static).update(Text.assemble(
            ("Assessor ", "dim"), (visible(self.assessor), "bold"),
            (f" · {len(frame)} topic{'' if len(frame) == 1 else 's'} · you judged {judged} of "
             f"{pooled} pooled · By all/By me: judged by anyone/you · Left: still to judge · "
             "Enter opens · g: guidelines", "dim")))
        self.show_statement()

    def highlighted_topic(self) -> str | None:
        """The topic under the cursor (``None`` when the list is empty)."""
        table = self.query_one("#topics", DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    @on(DataTable.RowHighlighted, "#topics")
    def show_statement(self) -> None:
        """Show the whole statement of the highlighted topic under the table."""
        topic = self.highlighted_topic()
        text = Text() if topic is None else statement_text(self.statement(topic), [], [],
                                                           show_query=False, scan_line=False)
        self.query_one("#statement-text", Static).update(text)

    def statement(self, topic: str) -> Topic:
        """A topic's statement, or an empty one when the store has none (or its
        server is unreachable)."""
        try:
            return self.store.topic(topic)
        except UnknownTopic:
            return Topic(topic, "")
        except StoreConnectionLost as exc:
            self.post_message(StoreUnreachable(exc))
            return Topic(topic, "")

    def action_guidelines(self) -> None:
        """Show the guidelines of the highlighted topic."""
        topic = self.highlighted_topic()
        if topic is not None:
            self.app.push_screen(GuidelinesScreen(self.statement(topic),
                                                  self.store.grade_scale(),
                                                  current_guidelines(self.store)))

    def action_help(self) -> None:
        """Show every key (the judging screen's, then the topic list's)."""
        self.app.push_screen(HelpScreen(self.store.grade_scale()))

    @on(DataTable.RowSelected, "#topics")
    def choose(self, event: DataTable.RowSelected) -> None:
        """Open the selected topic."""
        self.post_message(TopicChosen(str(event.row_key.value)))


def _cells(topic: str, row: pd.Series, title_width: int) -> list[Text]:
    """One table row; topic and title are :class:`Text` so that the table shows
    them as written (a ``str`` cell would be read as markup). The title is
    reflowed to one line and cut to ``title_width`` characters."""
    title = visible(" ".join(str(row["title"]).split()))
    if len(title) > title_width:
        title = title[: title_width - 1] + "…"
    numbers = row[["pooled", "judged_any", "judged_me", "remaining", "relevant"]]
    right = [Text(str(int(n)), justify="right") for n in numbers]
    pooled = int(row["pooled"])
    mine = int(row["judged_me"]) / pooled if pooled else 0.0
    share = progress_bar(int(row["judged_any"]) / pooled if pooled else 0.0, BAR_WIDTH)
    return [Text(visible(topic)), Text(title), *right, share + Text(f"·{int(mine * 100):3d}%")]
