"""The document pane: title and full text, scrollable, with terms marked.

Title and text are reflowed (:func:`~pooltool.tui.reflow.reflow`): the lines of
a hard-wrapped paragraph are joined and the pane wraps them to its width.

The pane reads with the keyboard from the moment a document opens (the
judging screen focuses it and binds Space/PgDn, PgUp, Up/Down, Home/End to
:meth:`DocumentView.read`); its bottom border says where the reader is:
``more below`` with the share read, or ``end``. :attr:`DocumentView.reached_end`
records whether the end of the document on screen has been on screen.
:meth:`DocumentView.find` marks the matches of a find, :meth:`DocumentView.go_to_match`
lights one and scrolls to it.
"""

from __future__ import annotations

from typing import Any, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Region
from textual.widgets import Static

from pooltool.records import Document
from pooltool.text import visible
from pooltool.tui.reflow import reflow
from pooltool.tui.widgets.highlight import find_spans, highlight

MISSING_NOTICE = (
    "No text for this document in the store.\n\n"
    "Judge it by its docno if you can, or skip it (s) until its text is imported "
    "with 'pooltool add-docs'."
)
ReadMove = Literal["page_down", "page_up", "line_down", "line_up", "home", "end"]
FIND_STYLE = "black on cyan"
CURRENT_STYLE = "bold black on bright_green"
MORE_BELOW = "▼ more below"
AT_END = "■ end"


class DocumentView(VerticalScroll, inherit_bindings=False):
    """Shows one document; the judging screen sets what is shown through :meth:`show`.

    It binds no keys itself: the screen's reading keys call :meth:`read`, so
    they work, and show in the footer, wherever the focus is.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reached_end = False
        self._laid_out = False  # the document shown has been laid out (its height is known)
        self._pending_match: int | None = None  # a match to scroll to once laid out
        # the match scrolled to, and the text width it was placed at (a scrollbar that
        # appears later narrows the text: the match is placed again)
        self._placed: tuple[int, int] | None = None
        self._title, self._body = Text(), Text()  # as shown, without find marks
        self.matches: list[tuple[str, int, int]] = []  # found: part ("title"/"body"), start, end

    def compose(self) -> ComposeResult:
        yield Static(id="doc-title")
        yield Static(id="doc-body")

    def on_mount(self) -> None:
        self.watch(self, "scroll_y", self.update_position, init=False)
        self.screen.screen_layout_refresh_signal.subscribe(self, self._after_layout)

    def _after_layout(self, _: object) -> None:
        self.update_position()
        if self._pending_match is not None:
            self.go_to_match(self._pending_match)
        elif self._placed is not None and self._placed[1] != self._body_width():
            self.go_to_match(self._placed[0])

    def on_resize(self) -> None:
        self.update_position()

    def show(self, docno: str, document: Document | None, query: list[str], scan: list[str],
             show_query: bool = True, missing: str = MISSING_NOTICE) -> None:
        """Display a document (or the missing-text notice) and scroll to its top.

        :param query: query terms, marked when ``show_query``.
        :param scan: the assessor's scan terms, always marked.
        :param missing: what to say when there is no ``document``.
        """
        self.set_class(document is None, "-missing")
        if document is None:
            self._title = Text(visible(docno), style="bold")
            self._body = Text(missing, style="italic")
        else:
            heading = Text(f"{visible(docno)}  ", style="dim") + Text(reflow(document.title)
                                                              or "(no title)")
            self._title = highlight(heading, query, scan, show_query)
            self._body = highlight(reflow(document.text), query, scan, show_query)
        self.matches = []
        self._draw()
        self.reached_end, self._laid_out, self._pending_match = False, False, None
        self._placed = None
        self.border_subtitle = ""
        self.scroll_home(animate=False)
        self.call_after_refresh(self.update_position)

    def _layout_is_current(self) -> bool:
        """Whether title and text have the heights the document shown needs (the
        layout follows :meth:`show` a moment later; until then the scroll limits
        are the previous document's)."""
        if not self._laid_out:
            self._laid_out = all(
                static.content_size.width > 0  # a pane squeezed to nothing: not laid out yet
                and static.content_size.height == len(Content.from_rich_text(text).wrap(
                    static.content_size.width))
                for static, text in ((self.query_one("#doc-title", Static), self._title),
                                     (self.query_one("#doc-body", Static), self._body)))
        return self._laid_out

    def find(self, query: str) -> int:
        """Mark every match of ``query`` (:func:`~pooltool.tui.widgets.highlight.find_spans`)
        in the title and the text; a blank query removes the marks.

        :returns: the number of matches (:attr:`matches`, title first).
        """
        self.matches = [(part, start, end) for part, text in (("title", self._title),
                                                              ("body", self._body))
                        for start, end in find_spans(text.plain, query)]
        self._placed = None
        self._draw()
        return len(self.matches)

    def go_to_match(self, index: int) -> None:
        """Mark match ``index`` of :attr:`matches` as the current one and scroll it
        into view (once the document is laid out)."""
        part, start, _ = self.matches[index]
        self._draw(current=index)
        self._pending_match = None
        if not self._layout_is_current():
            self._pending_match = index
            return
        width = self._body_width()
        self._placed = (index, width)
        if part == "title":
            self.scroll_home(animate=False)
            return
        body = self.query_one("#doc-body", Static)
        row = len(Content(self._body.plain[:start]).wrap(width)) - 1
        self.scroll_to_region(Region(0, body.virtual_region.y + row, 1, 1), center=True,
                              animate=False)

    def _body_width(self) -> int:
        """The width the text is wrapped to now (at least 1)."""
        return max(self.query_one("#doc-body", Static).content_size.width, 1)

    def _draw(self, current: int | None = None) -> None:
        """Show title and text with the find marks (the ``current`` match lit)."""
        parts = {"title": self._title.copy(), "body": self._body.copy()}
        for index, (part, start, end) in enumerate(self.matches):
            parts[part].stylize(CURRENT_STYLE if index == current else FIND_STYLE, start, end)
        self.query_one("#doc-title", Static).update(parts["title"])
        self.query_one("#doc-body", Static).update(parts["body"])

    def read(self, move: ReadMove) -> None:
        """Scroll the text by a page, a line, or to its start or end (no animation)."""
        scroll = {"page_down": self.scroll_page_down, "page_up": self.scroll_page_up,
                  "line_down": self.scroll_down, "line_up": self.scroll_up,
                  "home": self.scroll_home, "end": self.scroll_end}[move]
        scroll(animate=False)

    def update_position(self) -> None:
        """Note whether the end is on screen and say where the reader is, in the
        bottom border: ``▼ more below · 40%`` or ``■ end``. Nothing is noted
        before the document shown is laid out (its height is not known yet)."""
        if not self._layout_is_current():
            return
        at_end = self.scroll_y >= self.max_scroll_y
        self.reached_end = self.reached_end or at_end
        if at_end:
            self.border_subtitle = AT_END
        else:
            shown = (self.scroll_y + self.scrollable_content_region.height) / self.virtual_size.height
            self.border_subtitle = f"{MORE_BELOW} · {shown:.0%}"
