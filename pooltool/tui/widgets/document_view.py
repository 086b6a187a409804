"""The document pane: title and full text, scrollable, with terms marked."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from pooltool.records import Document
from pooltool.tui.widgets.highlight import highlight

MISSING_NOTICE = (
    "No text for this document in the store.\n\n"
    "Judge it by its docno if you can, or skip it (s) until its text is imported "
    "with 'pooltool add-docs'."
)


class DocumentView(VerticalScroll):
    """Shows one document; the judging screen sets what is shown through :meth:`show`."""

    def compose(self) -> ComposeResult:
        yield Static(id="doc-title")
        yield Static(id="doc-body")

    def show(self, docno: str, document: Document | None, query: list[str], scan: list[str],
             show_query: bool = True) -> None:
        """Display a document (or the missing-text notice) and scroll to its top.

        :param query: query terms, marked when ``show_query``.
        :param scan: the assessor's scan terms, always marked.
        """
        title = self.query_one("#doc-title", Static)
        body = self.query_one("#doc-body", Static)
        self.set_class(document is None, "-missing")
        if document is None:
            title.update(Text(f"{docno}", style="bold"))
            body.update(Text(MISSING_NOTICE, style="italic"))
        else:
            heading = Text(f"{docno}  ", style="dim") + Text(document.title or "(no title)")
            title.update(highlight(heading, query, scan, show_query))
            body.update(highlight(document.text, query, scan, show_query))
        self.scroll_home(animate=False)
