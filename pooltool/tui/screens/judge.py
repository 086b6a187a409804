"""The judging screen: topic statement beside the document, one key per grade."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from pooltool.errors import StoreConnectionLost
from pooltool.judging.claiming import held_text
from pooltool.judging.session import JudgingSession
from pooltool.judging.take_back import take_back
from pooltool.store.guidelines import current_guidelines
from pooltool.store.provenance import utc_now
from pooltool.store.settings import GradeLevel
from pooltool.text import visible
from pooltool.tui.activity import DEFAULT_IDLE_S, ActivityClock
from pooltool.tui.messages import (
    CopySplit,
    GradeRecorded,
    JudgmentUndone,
    LeaveTopic,
    NoteChanged,
    StoreUnreachable,
)
from pooltool.tui.on_screen import OnScreen
from pooltool.tui.screens.confirm import ConfirmScreen
from pooltool.tui.screens.guidelines import GuidelinesScreen
from pooltool.tui.screens.help import HelpScreen
from pooltool.tui.screens.judge_bindings import COMMAND_BINDINGS, with_grades
from pooltool.tui.screens.prompt import PromptScreen
from pooltool.tui.widgets.document_view import MISSING_NOTICE, DocumentView, ReadMove
from pooltool.tui.widgets.find_bar import FindBar
from pooltool.tui.widgets.grade_bar import GradeBar
from pooltool.tui.widgets.highlight import format_scan_terms, parse_scan_terms, query_terms
from pooltool.tui.widgets.status_line import DOCNO_WIDTH, shorten, status_text
from pooltool.tui.widgets.topic_panel import TopicPanel

END_NOTICE = ("This store asks that each document be read to its end before it is graded: "
              "Space or PgDn pages down, End jumps to the end.")
UNREACHABLE_TEXT = ("The text cannot be read: the store's server is unreachable. It shows "
                    "once the server is back; until then this document cannot be graded.")
UNREAD_NOTICE = ("{docno} is not graded: its text could not be read (the store's server "
                 "is unreachable). It shows once the server is back.")
RESERVING_TEXT = ("Waiting for the store to reserve the next document for you: another "
                  "writer keeps the store busy, and the document may be on another "
                  "assessor's screen until then. It shows as soon as it is reserved; keys "
                  "grade nothing meanwhile.")
RESERVING_NOTICE = ("Not graded: no document is on screen yet (waiting for the store to "
                    "reserve the next one).")
TYPED_AHEAD_NOTICE = ("A grade key was pressed before {docno} was on screen (typed ahead "
                      "while the screen was busy): it grades nothing. Press it again.")
REGRADE_NOTICE = ("{docno} regraded: {before} → {grade} (your earlier grade stays in the log; "
                  "u undoes this one).")
NOTE_MARKER = "✎ Note"
NOTE_MESSAGES = {
    "recorded": "Note saved with your grade.",
    "draft": "Note saved: it joins your grade of this document.",
    "cleared": "Note removed.",
}


class JudgeScreen(Screen[None]):
    """Judge one topic: grade keys from the store's scale, then the commands
    (:data:`~pooltool.tui.screens.judge_bindings.COMMAND_BINDINGS`).

    :param session: the assessor's state on the topic.
    :param scale: the store's grade scale (one key binding per grade, shown in the footer).
    :param show_runs: show which runs retrieved the document, at which rank
        (hidden by default, as NIST does, so as not to bias assessors).
    :param require_end: refuse a grade until the end of the document has been
        on screen (store setting ``require_end``).
    """

    BINDINGS: ClassVar[list[BindingType]] = [*COMMAND_BINDINGS]
    AUTO_FOCUS = "#document"
    show_query: var[bool] = var(True)

    def __init__(self, session: JudgingSession, scale: list[GradeLevel],
                 show_runs: bool = False, require_end: bool = False,
                 idle_s: float = DEFAULT_IDLE_S, **kwargs: str) -> None:
        super().__init__(**kwargs)
        self.session, self.scale, self.show_runs = session, scale, show_runs
        self.require_end = require_end
        self.activity = ActivityClock(idle_s)
        self.match: int | None = None  # the current find match, an index of DocumentView.matches
        self.query_words = query_terms(session.topic_statement())
        self._bindings = with_grades(scale, self._bindings)
        self._starting = False  # a topic given by start() waits to be drawn
        self.unread: str | None = None  # the docno shown whose text the lost server kept
        self.on_screen = OnScreen()  # a grade key counts only for the document drawn then

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="status")
        with Horizontal(id="panes"):
            yield TopicPanel(id="topic")
            yield DocumentView(id="document")
        yield FindBar(id="find")
        yield Static(id="note")
        yield GradeBar(self.scale, id="grades")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show_document()

    def start(self, session: JudgingSession) -> None:
        """Judge another topic on this screen, as a new screen would: the find bar
        closed and empty, query terms marked. The app keeps one judging screen
        (building the screen anew was most of the time a topic took to open);
        the document is drawn when the screen is shown again."""
        self.session, self.match = session, None
        self.query_words = query_terms(session.topic_statement())
        self.set_reactive(JudgeScreen.show_query, True)
        find_bar = self.query_one(FindBar)
        find_bar.close()
        find_bar.clear()
        self._starting = True

    def on_screen_resume(self) -> None:
        """Draw the first document of a topic given by :meth:`start` (coming back
        from the help or a prompt leaves the document as it was)."""
        if self._starting:
            self._starting = False
            self.show_document()

    # -- drawing ------------------------------------------------------------

    def show_document(self) -> None:
        """Draw the document at the session's position, give it the keys and start its clock."""
        self.draw_document()
        self.query_one(DocumentView).focus()
        self.draw_topic()
        self.draw_state()
        self.activity.restart()
        if self.session.reserving:  # not on screen for grading until its claim holds
            self.on_screen.hidden()
        else:
            self.on_screen.showing(self, self.session.docno)

    def draw_topic(self) -> None:
        """Redraw the topic statement (highlighting or scan terms changed); while the
        store's server is unreachable the statement drawn stays."""
        try:
            statement = self.session.topic_statement()
        except StoreConnectionLost as exc:
            self.post_message(StoreUnreachable(exc))
            return
        self.query_one(TopicPanel).show(statement, self.query_words,
                                        self.session.scan_terms, self.show_query)

    def server_back(self) -> None:
        """The store's server is back: draw the document whose text it kept from the
        screen (:attr:`unread`), and what others judged meanwhile."""
        if self.unread is not None:
            self.show_document()
        self.others_changed()

    def draw_state(self) -> None:
        """Redraw the grade bar and the status line (while the store's server is
        unreachable, without the parts read from the store: budget, runs)."""
        session, bar = self.session, self.query_one(GradeBar)
        bar.grade = session.grade_of(session.docno)
        bar.skipped = session.docno in session.skipped
        bar.note_waiting = session.docno in session.notes
        self.draw_note()
        try:
            status = self.status_text()
        except StoreConnectionLost as exc:
            self.post_message(StoreUnreachable(exc))
            status = self.status_text(reading=False)
        self.query_one("#status", Static).update(status)

    def draw_note(self) -> None:
        """Show the note of the document on screen above the grade bar (hidden when it
        has none): ``✎ Note`` and its text, the assessor's draft or their latest note."""
        note = self.session.saved_note(self.session.docno)
        line = self.query_one("#note", Static)
        line.set_class(bool(note), "-shown")
        waiting = self.session.docno in self.session.notes
        line.update(Text.assemble((NOTE_MARKER, "bold"),
                                  (" (waits for a grade)" if waiting else "", "italic"),
                                  ": ", visible(note, lines=True)))

    def status_text(self, reading: bool = True) -> Text:
        """The status line (:func:`~pooltool.tui.widgets.status_line.status_text`)."""
        return status_text(self.session, self.show_runs, reading)

    def others_changed(self) -> None:
        """Another writer changed this topic (:mod:`pooltool.store.changes`): count what
        others have judged anew, and say so when it is the document on screen."""
        judged = self.session.others_judged()
        if self.session.docno in judged and not self.session.is_judged(self.session.docno):
            self.notify(f"{visible(self.session.docno)} was just judged by another assessor: "
                        "j goes to the next document nobody has judged.",
                        title="Judged meanwhile", severity="warning", markup=False)
        self.draw_state()

    def watch_show_query(self) -> None:
        if self.is_mounted:
            self.draw_document()
            self.draw_topic()

    def draw_document(self) -> None:
        """Draw the session's document with query and scan terms marked, and the
        matches of the find bar's query while the bar is open."""
        session, view = self.session, self.query_one(DocumentView)
        self.unread = None
        try:
            # another assessor may be judging it until its claim holds: its text waits too
            document = None if session.reserving else session.document()
        except StoreConnectionLost as exc:  # not the last text shown under this docno
            self.unread, document = session.docno, None
            self.post_message(StoreUnreachable(exc))
        missing = (RESERVING_TEXT if session.reserving else
                   UNREACHABLE_TEXT if self.unread else MISSING_NOTICE)
        view.show(session.docno, document, self.query_words, session.scan_terms,
                  self.show_query, missing)
        find_bar = self.query_one(FindBar)
        if find_bar.is_open:
            self.find(find_bar.query_text)

    def find(self, query: str) -> None:
        """Mark the matches of ``query``, go to the first, and count them in the find bar."""
        view = self.query_one(DocumentView)
        total = view.find(query)
        self.match = 0 if total else None
        if total:
            view.go_to_match(0)
        self.query_one(FindBar).count(self.match, total)

    # -- keys -----------------------------------------------------------------

    def action_grade(self, grade: int) -> None:
        """Record ``grade`` for the document on screen and move on (the time of
        the key press and the time on screen are taken first, so a write that
        waits for a busy store, or for the confirmation, keeps them). With
        ``require_end``, a document whose end has not been on screen is not graded:
        a notice says so. Once every document of the topic is judged, a grade key
        asks first (:class:`ConfirmScreen`): keys typed on after "Topic done" do
        not regrade the last document. A key pressed before the document was drawn
        (typed ahead while the screen was busy) grades nothing (:class:`OnScreen`), and
        so does a key pressed while the document waits for its claim
        (:attr:`~pooltool.judging.session_state.SessionState.reserving`)."""
        pressed_on = self.on_screen.pressed_on(self.session.docno)
        if self.session.reserving:
            self.notify(RESERVING_NOTICE, title="Not graded", severity="warning")
            return
        if not pressed_on:  # typed ahead
            self.notify(TYPED_AHEAD_NOTICE.format(docno=visible(self.session.docno)),
                        title="Not graded", severity="warning", markup=False)
            return
        if self.require_end and not self.query_one(DocumentView).reached_end:
            self.notify(END_NOTICE, title="Read to the end first", severity="warning")
            return
        if self.unread == self.session.docno:
            self.notify(UNREAD_NOTICE.format(docno=self.unread), title="Not graded",
                        severity="warning", markup=False)
            return
        judged_at = utc_now()
        ms_spent, ms_active = self.activity.measure()
        if not self.session.done:
            self.record_grade(grade, ms_spent, judged_at, ms_active)
            return
        docno, before = self.session.docno, self.session.grade_of(self.session.docno)
        question = (f"Every document of topic {visible(self.session.topic)} is judged. "
                    f"Grade {visible(docno)} {grade}" + ("" if before is None else
                                                         f" (now {before})") + "?")

        def answered(yes: bool | None) -> None:
            if yes and self.session.docno == docno:
                self.record_grade(grade, ms_spent, judged_at, ms_active)
        self.app.push_screen(ConfirmScreen(question), answered)

    def record_grade(self, grade: int, ms_spent: int, judged_at: str, ms_active: int) -> None:
        """Record ``grade`` of the document on screen (:meth:`action_grade` checked it);
        a regrade (another grade than the assessor's current one) says so on screen."""
        docno = self.session.docno
        before = self.session.grade_of(docno)
        if not self.session.grade(grade, ms_spent, judged_at, ms_active):
            self.notify(f"Already graded {grade}: nothing new recorded.", markup=False)
        else:
            self.post_message(GradeRecorded(self.session.topic, docno, grade))
            if self.take_back_refused(go_back=True):
                pass  # the app's notice says why (report_failed)
            else:
                if before is not None and before != grade:
                    self.notify(REGRADE_NOTICE.format(docno=visible(docno), before=before,
                                                      grade=grade), title="Regraded",
                                markup=False)
                if self.session.done and self.session.docno == docno:
                    self.notify(f"All {len(self.session.queue)} documents of topic "
                                f"{visible(self.session.topic)} are judged.", title="Topic done",
                                markup=False)
                elif self.session.docno == docno:
                    self.say_held()
        self.show_document()

    def confirm_claim(self) -> None:
        """Try again the claim of the document waiting for it
        (:meth:`~pooltool.judging.session.JudgingSession.confirm_claim`; the app's timer
        calls this), and draw what is then on screen."""
        if self.session.confirm_claim():
            self.show_document()

    def say_held(self) -> bool:
        """Say who has the documents left on screen, when nothing else is left to judge
        here (:func:`~pooltool.judging.claiming.held_text`); returns whether it did."""
        held = held_text(self.session.held_by_others())
        if held:
            self.notify(f"Nothing else to open now: {held}.", title="Being judged",
                        severity="warning", markup=False)
        return bool(held)

    def action_read(self, move: ReadMove) -> None:
        """Scroll the document (whichever pane has the focus)."""
        self.query_one(DocumentView).read(move)

    def action_undo(self) -> None:
        """Retract the latest judgment and go back to its document (an undo the store
        refuses leaves the judgment on screen, as it is in the store)."""
        session, failed = self.session, self.session.writes.failed
        before = (list(session.history), dict(session.marks), dict(session.notes), len(failed))
        docno = session.undo()
        if docno is None:
            self.notify("Nothing to undo on this topic.", severity="warning")
            return
        if any(write.kind == "retract" for write, _ in failed[before[3]:]):
            session.history[:], session.marks, session.notes = before[0], before[1], before[2]
        self.post_message(JudgmentUndone(self.session.topic, docno))
        self.show_document()

    def take_back_refused(self, go_back: bool = False) -> bool:
        """Grades of this session the store refused for good (the write queue's
        ``failed``, which the app then reports): their documents are unjudged again on
        screen (the count, the grade bar, a note drafted with the grade), and with
        ``go_back`` the session returns to the first of them. Returns whether any was."""
        docnos = [docno for write, _ in reversed(self.session.writes.failed)
                  if write.kind == "judgment"
                  and (docno := take_back(self.session, write)) is not None]
        if go_back and docnos:
            self.session.position = self.session.queue.index(docnos[-1])
        return bool(docnos)

    def action_move(self, step: int) -> None:
        """Go to a neighbouring document."""
        before = self.session.position
        self.session.move(step)
        if self.session.position != before:
            self.show_document()

    def action_next_unjudged(self) -> None:
        """Go to the next document not judged yet."""
        if not self.session.jump_unjudged() and not self.say_held():
            self.notify("Every document of this topic is judged.")
        self.show_document()

    def action_split_copy(self) -> None:
        """Split a copy of this document off (it is not a copy) and open it; a store
        that cannot take the split now (busy, away) keeps it in the journal, and the app
        says so."""
        docno = self.session.split_copy()
        if docno is not None:
            self.post_message(CopySplit(self.session.topic, docno))
        self.notify("This document stands for no copy here." if docno is None else
                    f"{visible(docno)} is split off: judge it on its own.", markup=False)
        self.show_document()

    def action_skip(self) -> None:
        """Leave this document for later."""
        self.session.skip()
        self.show_document()

    def action_toggle_highlight(self) -> None:
        """Turn query-term highlighting off or on."""
        self.show_query = not self.show_query

    def action_note(self) -> None:
        """Ask for a note on this document."""
        docno = self.session.docno
        graded = self.session.grade_of(docno) is not None
        hint = ("Enter: save with your grade · Esc: cancel" if graded else
                "Enter: save, joins your grade · empty: remove · Esc: cancel")
        prompt = PromptScreen(f"Note on {shorten(docno, DOCNO_WIDTH)}",
                              self.session.saved_note(docno), hint)
        self.app.push_screen(prompt, self._save_note)

    def _save_note(self, text: str | None) -> None:
        if text is None:
            return
        outcome = self.session.note(text)
        if outcome == "recorded" and self.take_back_refused():
            outcome = "unchanged"  # the app's notice says why the note is not saved
        if outcome != "unchanged":
            self.notify(NOTE_MESSAGES[outcome])
        self.post_message(NoteChanged(self.session.topic, self.session.docno))
        self.draw_state()

    def action_scan_terms(self) -> None:
        """Ask for the scan terms of this topic."""
        prompt = PromptScreen(f"Scan terms for topic {self.session.topic}",
                              format_scan_terms(self.session.scan_terms),
                              'Words separated by spaces, "a phrase" in quotes; Enter saves')
        self.app.push_screen(prompt, self._save_scan_terms)

    def _save_scan_terms(self, line: str | None) -> None:
        if line is not None:
            self.session.set_scan_terms(parse_scan_terms(line))
            self.watch_show_query()
            self.draw_state()

    def action_help(self) -> None:
        """Show every key."""
        self.app.push_screen(HelpScreen(self.scale))

    def action_guidelines(self) -> None:
        """Show the grade definitions, the collection's guidelines and this topic's
        instructions (read from the store now)."""
        self.app.push_screen(GuidelinesScreen(self.session.topic_statement(), self.scale,
                                              current_guidelines(self.session.store)))

    def action_find(self) -> None:
        """Open the find bar (its earlier query stays, selected)."""
        self.query_one(FindBar).open()

    @on(FindBar.Changed)
    def find_changed(self, message: FindBar.Changed) -> None:
        """The find query was edited: find again from the first match."""
        self.find(message.query)

    @on(FindBar.Step)
    def find_step(self, message: FindBar.Step) -> None:
        """Go to the next or previous match, wrapping round."""
        view = self.query_one(DocumentView)
        if self.match is None:
            return
        self.match = (self.match + message.direction) % len(view.matches)
        view.go_to_match(self.match)
        self.query_one(FindBar).count(self.match, len(view.matches))

    @on(FindBar.Left)
    def find_left(self) -> None:
        """Esc in the find bar: the document takes the keys (grades work), the marks stay."""
        self.query_one(DocumentView).focus()

    def action_leave(self) -> None:
        """Close the find bar and remove its marks if it is open, else go back to
        the topic picker (the position is remembered)."""
        find_bar = self.query_one(FindBar)
        if find_bar.is_open:
            find_bar.close()
            self.match = None
            self.query_one(DocumentView).find("")
            return
        self.session.save_position()
        self.post_message(LeaveTopic(self.session.topic))

    async def action_quit(self) -> None:
        """Remember the position and quit."""
        self.session.save_position()
        await self.app.action_quit()
