"""The adjudication screen: open disagreements on the left; on the right the topic, each
assessor's grade, note and time, and the document with the topic's terms marked.

A grade key records the adjudicator's grade of the highlighted document as an
adjudication resolving the grades shown (:meth:`~pooltool.store.adjudications.
AdjudicationTable.record_adjudication`), through the app's write queue (a busy store
keeps it in the journal: the disagreement leaves the open list at once, and the
adjudicated column says it waits); ``u`` retracts the adjudicator's latest adjudication
of this session (an undo, as for judgments; one still waiting is named by its journal
token); ``r`` lists resolved disagreements too. The list is read again whenever the store changes
(:meth:`AdjudicateScreen.reload`, called by the app's watch timer).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from pooltool.errors import StoreConnectionLost
from pooltool.judging.adjudication import disagreements, pair_judgments
from pooltool.store.journal import WriteQueue
from pooltool.store.provenance import utc_now
from pooltool.store.settings import GradeLevel
from pooltool.store.ui_writes import PendingWrite
from pooltool.text import visible
from pooltool.tui.keys import key_name
from pooltool.tui.widgets.document_view import DocumentView
from pooltool.tui.widgets.highlight import query_terms
from pooltool.tui.widgets.topic_panel import TopicPanel

NOTHING_OPEN = "No open disagreement: every document people judged apart is adjudicated."


class AdjudicateScreen(Screen[None]):
    """List disagreements and record adjudications.

    :param writes: the app's write queue (its store is the one read here).
    :param adjudicator: who adjudicates (recorded with each adjudication).
    :param filters: keyword arguments of :func:`~pooltool.judging.adjudication.disagreements`
        (``topics``, ``pair``, ``min_distance``).
    :param scale: the store's grade scale (one key per grade).
    """

    BINDINGS = [
        Binding("u", "undo", "undo"),
        Binding("r", "toggle_resolved", "resolved on/off"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, writes: WriteQueue, adjudicator: str, filters: dict[str, Any],
                 scale: list[GradeLevel]) -> None:
        super().__init__()
        self.writes, self.store = writes, writes.store
        self.adjudicator, self.filters, self.scale = adjudicator, filters, scale
        self.include_resolved = False
        self.rows = pd.DataFrame()
        self.done: list[PendingWrite] = []  # this session's adjudications, for undo
        grades = BindingsMap([Binding(key_name(level.key), f"grade({level.grade})",
                                      f"{level.key} {level.name}", key_display=level.key)
                              for level in scale])
        for key, bindings in self._bindings.key_to_bindings.items():
            grades.key_to_bindings.setdefault(key, []).extend(bindings)
        self._bindings = grades

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="adjudicate-panes"):
            yield DataTable(id="disagreements", cursor_type="row")
            with Vertical(id="adjudicate-detail"):
                yield TopicPanel(id="adjudicate-topic")
                yield Static(id="assessor-grades")
                yield DocumentView(id="adjudicate-document")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#disagreements", DataTable)
        table.add_columns("topic", "docno", "grades", "apart", "adjudicated")
        self.reload()

    def reload(self, focus: str | None = None) -> None:
        """Read the disagreements again, the cursor kept on the same document (or put on
        ``focus``, ``topic\tdocno``, when it is listed)."""
        table = self.query_one("#disagreements", DataTable)
        current = focus or self.current_key()
        try:
            rows = disagreements(self.store, include_resolved=True, **self.filters)
        except StoreConnectionLost as exc:  # the list stays as it was read last
            self.app.connection_lost(exc)  # type: ignore[attr-defined]
            return
        waiting = self.waiting()
        pairs = list(zip(rows["topic"], rows["docno"], strict=True))
        shown = [self.include_resolved or (key not in waiting and not resolved)
                 for key, resolved in zip(pairs, rows["resolved"], strict=True)]
        self.rows = rows.loc[pd.Series(shown, index=rows.index, dtype=bool)].reset_index(
            drop=True)
        table.clear()
        for row in self.rows.itertuples(index=False):
            table.add_row(*_cells(row, waiting.get((row.topic, row.docno))),
                          key=f"{row.topic}\t{row.docno}")
        self.sub_title = (f"adjudicator {visible(self.adjudicator)} · {len(self.rows)} "
                          f"{'disagreements' if self.include_resolved else 'open'}")
        if self.rows.empty:
            self._show_nothing()
            return
        keys = [f"{t}\t{d}" for t, d in zip(self.rows["topic"], self.rows["docno"], strict=True)]
        table.move_cursor(row=keys.index(current) if current in keys else 0)
        self.show_current()

    def waiting(self) -> dict[tuple[str, str], int]:
        """This session's adjudications the store has not taken yet: (topic, docno) ->
        grade (the latest, when one pair was adjudicated twice)."""
        return {(w.args["topic"], w.args["docno"]): int(w.args["grade"]) for w in self.done
                if not w.done}

    def current_key(self) -> str | None:
        """``topic\\tdocno`` of the highlighted disagreement, if any."""
        table = self.query_one("#disagreements", DataTable)
        if self.rows.empty or table.row_count == 0:
            return None
        row = self.rows.iloc[min(table.cursor_row, len(self.rows) - 1)]
        return f"{row['topic']}\t{row['docno']}"

    def on_data_table_row_highlighted(self, _: DataTable.RowHighlighted) -> None:
        self.show_current()

    def show_current(self) -> None:
        """Show the highlighted disagreement's topic, grades and document."""
        key = self.current_key()
        if key is None:
            return
        topic_id, docno = key.split("\t")
        try:
            topic = self.store.topic(topic_id)
            grades = pair_judgments(self.store, topic_id, docno)
            document = self.store.document(docno)
        except StoreConnectionLost as exc:  # what is shown stays
            self.app.connection_lost(exc)  # type: ignore[attr-defined]
            return
        terms = query_terms(topic)
        self.query_one(TopicPanel).show(topic, terms, [], True)
        self.query_one("#assessor-grades", Static).update(_grades_text(grades, self.scale))
        self.query_one(DocumentView).show(docno, document, terms, [])

    def _show_nothing(self) -> None:
        self.query_one("#assessor-grades", Static).update(Text(NOTHING_OPEN, style="italic"))

    def action_grade(self, grade: int) -> None:
        """Adjudicate the highlighted disagreement with ``grade``."""
        key = self.current_key()
        if key is None:
            return
        row = self.rows.iloc[self.query_one("#disagreements", DataTable).cursor_row]
        write = self.writes.submit(
            "adjudication", topic=str(row["topic"]), docno=str(row["docno"]), grade=grade,
            adjudicator=self.adjudicator, resolves=[int(j) for j in row["judgment_ids"]],
            at=utc_now())
        self.done.append(write)
        if write.done:
            self.notify(f"{visible(row['docno'])}: adjudicated {grade}", timeout=3,
                        markup=False)
        self.app.notice_waiting()  # type: ignore[attr-defined]
        self.reload()

    def action_undo(self) -> None:
        """Retract this session's latest adjudication (the disagreement reopens)."""
        if not self.done:
            self.notify("nothing to undo in this session", severity="warning", timeout=3)
            return
        write = self.done.pop()
        undo = {"assessor": self.adjudicator, "origin": "adjudicate",
                "docno": write.args["docno"]}
        if not write.done:  # still queued: named by its journal token
            self.writes.submit("retract", after=write, target=write.token, **undo)
        elif write.result is not None:  # a write the store refused has nothing to undo
            self.writes.submit("retract", judgment_id=write.result, **undo)
        self.app.notice_waiting()  # type: ignore[attr-defined]
        self.reload(focus=f"{write.args['topic']}\t{write.args['docno']}")

    def action_toggle_resolved(self) -> None:
        self.include_resolved = not self.include_resolved
        self.reload()


def _cells(row: Any, waiting: int | None) -> list[Text]:
    """A disagreement's cells as plain text (docnos and names are data, never markup);
    ``waiting``: the grade of this session's adjudication not in the store yet."""
    grades = ", ".join(f"{a} {g}" for a, g in zip(row.assessors, row.grades, strict=True))
    adjudicated = (f"{waiting} (waiting)" if waiting is not None else
                   "" if pd.isna(row.adjudicated) else str(int(row.adjudicated)))
    return [Text(visible(str(row.topic))), Text(visible(str(row.docno))), Text(visible(grades)),
            Text(str(row.distance)), Text(adjudicated)]


def _grades_text(rows: pd.DataFrame, scale: list[GradeLevel]) -> Text:
    """Each assessor's grade (with its name on the scale), time and note."""
    names = {level.grade: level.name for level in scale}
    text = Text("Assessors\n", style="bold underline")
    for row in rows.itertuples(index=False):
        text.append(f"{visible(str(row.assessor))}: ", style="bold")
        text.append(f"{row.grade} {names.get(int(row.grade), '')}".rstrip())
        text.append(f"  {str(row.judged_at)[:19].replace('T', ' ')}", style="dim")
        if row.note:
            text.append(f"\n  note: {visible(str(row.note))}", style="italic")
        text.append("\n")
    return text
