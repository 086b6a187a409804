"""The topic pane: the statement the assessor judges against, and their scan terms."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from pooltool.records import Topic
from pooltool.text import visible
from pooltool.tui.reflow import reflow
from pooltool.tui.widgets.highlight import SCAN_STYLE, highlight


def statement_text(topic: Topic, query: list[str], scan: list[str], show_query: bool,
                   scan_line: bool = True) -> Text:
    """The topic statement as text: title (query), description and narrative, each
    reflowed (:func:`~pooltool.tui.reflow.reflow`); then the scan terms unless not
    ``scan_line``."""
    text = Text(f"Topic {visible(topic.topic)}\n", style="bold")
    if not (topic.title or topic.description or topic.narrative):
        text.append("No statement for this topic in the store.\n", style="italic")
    for label, value in (("Query", topic.title), ("Description", topic.description),
                         ("Narrative", topic.narrative)):
        if value:
            text.append(f"\n{label}\n", style="bold underline")
            text.append_text(highlight(reflow(value), query, scan, show_query))
            text.append("\n")
    if not scan_line:
        text.rstrip()
        return text
    text.append("\nScan terms ", style="bold underline")
    text.append("(/ to edit)\n", style="dim")
    text.append(visible(", ".join(scan)) if scan else "none", style=SCAN_STYLE if scan else "dim")
    return text


class TopicPanel(VerticalScroll):
    """Shows the topic statement; the judging screen calls :meth:`show`."""

    def compose(self) -> ComposeResult:
        yield Static(id="topic-text")

    def show(self, topic: Topic, query: list[str], scan: list[str], show_query: bool) -> None:
        """Display the statement with query and scan terms marked."""
        self.query_one("#topic-text", Static).update(
            statement_text(topic, query, scan, show_query))
