"""The judging app: ``pooltool judge`` (build it with :func:`make_app`).

The app owns the store connection (on the UI thread) and one
:class:`~pooltool.store.journal.WriteQueue`; screens read the store directly and
write through the queue. A timer looks for other assessors' judgments and
claims (:mod:`pooltool.store.changes`) and refreshes the screen shown. A timer
retries writes the store refused while another process held its lock; until
they are committed they are also kept in a journal file next to the store,
which the assessor's next app replays if this one is killed (see :mod:`pooltool.store.journal`).

When the PostgreSQL server of the store goes away (stopped, restarted, the network
dropped: :class:`~pooltool.errors.StoreConnectionLost`), the app does not end: a
notice says so (:data:`~pooltool.tui.write_notices.UNREACHABLE_NOTICE`, and the
header), writes wait in the journal, reads the screens make keep what they show (a
document whose text could not be read is not graded), and the retry timer connects again with backoff
(:class:`~pooltool.store.journal.WriteQueue`); once it is back the journal is
committed, the notice goes, and the screen is read again. Quitting meanwhile
leaves the writes in the journal, for the next pooltool command run here.

When the store's disk is full (:class:`~pooltool.errors.StoreFull`), the write is kept
(in memory, and in the journal as soon as its disk takes it), the screen says
:data:`~pooltool.tui.write_notices.FULL_NOTICE`, and the retry timer commits it once
space returns. Quitting with writes not saved yet asks first
(:class:`~pooltool.tui.screens.confirm.ConfirmScreen`).

On a shared topic a timer renews the claim on the document on screen (every
:data:`RENEW_EVERY_S`, :mod:`pooltool.judging.claiming`), and every way out of the
judging screen gives its claims up: Esc, ``q``, closing the app. A document whose
claim the busy store did not take waits, not shown for grading, and a timer tries
its claim again every :data:`CLAIM_RETRY_EVERY_S` until it holds.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.text import Text
from textual import events, on
from textual.actions import ActionParseResult
from textual.app import App
from textual.dom import DOMNode

from pooltool.errors import InvalidArgument, StoreConnectionLost, StoreError
from pooltool.judging.claiming import held_text
from pooltool.judging.session import JudgingSession
from pooltool.store import DEFAULT_POOL, JudgmentStore
from pooltool.store.journal import BUSY_WAIT_MS, WriteQueue
from pooltool.store.journal_files import journal_path, journals
from pooltool.store.roles import check_may_judge
from pooltool.text import visible
from pooltool.tui.activity import DEFAULT_IDLE_S
from pooltool.tui.ending import SignalExit, crash_report
from pooltool.tui.judgeable import checked_store, picker_topics
from pooltool.tui.messages import (
    CopySplit,
    GradeRecorded,
    JudgmentUndone,
    LeaveTopic,
    NoteChanged,
    StoreUnreachable,
    TopicChosen,
)
from pooltool.tui.screens.confirm import ConfirmScreen
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.too_small import TooSmallScreen, too_small
from pooltool.tui.screens.topic_picker import TopicPickerScreen
from pooltool.tui.write_notices import (
    BACK_NOTICE,
    BUSY_NOTICE,
    FULL_NOTICE,
    SAVED_NOTICE,
    UNREACHABLE_NOTICE,
    UNREACHABLE_NOTICE_S,
    quit_question,
    refused_text,
)

RETRY_EVERY_S = 0.5
RENEW_EVERY_S = 5.0
"""How often the app looks whether the claim on the document on screen is due for
renewal (:data:`~pooltool.judging.claiming.RENEW_SHARE` of its length)."""
CLAIM_RETRY_EVERY_S = 0.1
"""How often the app tries again the claim of a document waiting for it (each try
waits at most the connection's wait, :data:`~pooltool.store.journal.BUSY_WAIT_MS`;
between tries the screen takes keys and redraws)."""
WATCH_EVERY_S = 1.0
"""How often the app looks for other assessors' writes (:mod:`pooltool.store.changes`)."""
JUDGE_SCREEN = "judge"
SETTLE_S = 1.0
QUIT_WAIT_S = 30.0
RECOVER_WAIT_S = 5.0


class JudgeApp(App[None]):
    """Topic picker and judging screen for one assessor.

    :param store: an open store (the app closes it when it exits).
    :param topics: the topics the picker lists; empty: those assigned to the
        assessor, else every pooled topic, looked up anew on each refresh.
    :param open_topic: open straight on this topic's judging screen.
    :param order: queue order (:data:`pooltool.judging.queue.ORDERS`); ``seed``
        seeds the random order.
    """

    CSS_PATH = "judge.tcss"
    TITLE = "pooltool judge"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, store: JudgmentStore, assessor: str, topics: list[str],
                 open_topic: str | None = None, order: str = "docno", seed: int = 0,
                 pool: str = DEFAULT_POOL) -> None:
        super().__init__()
        self.store, self.assessor, self.requested = store, assessor, topics
        self.open_topic, self.order, self.seed, self.pool = open_topic, order, seed, pool
        base = store.journal_base
        journal = None if base is None else journal_path(base, assessor)
        self.writes = WriteQueue(store, journal)
        self.recovered = 0 if base is None else self.writes.recover(journals(base, assessor))
        self.scale = store.grade_scale()
        self.show_runs = bool(store.setting("show_runs", False))
        self.require_end = bool(store.setting("require_end", False))
        self.idle_s = float(store.setting("idle_seconds", DEFAULT_IDLE_S))
        self.sub_title = f"assessor {visible(assessor)}"
        self.watcher = store.watch_changes()
        self.unreachable_shown = False  # the notice of a lost server is on screen
        self.quit_confirmed = False  # the assessor chose to quit with writes not saved
        self.judging: JudgingSession | None = None  # the session of the judging screen shown
        self.signals = SignalExit(lambda status: self.exit(return_code=status))
        self.crash_line: str | None = None  # what a crash left on the terminal

    def on_mount(self) -> None:
        self.signals.install()
        if self.recovered:
            saved = self.writes.drain(RECOVER_WAIT_S)
            self.notify(f"{self.recovered} write(s) left by a judging session that ended "
                        "while the store was busy " + (
                            "are now saved." if saved else "wait for the store: they are "
                            "saved as soon as it is free."),
                        severity="information" if saved else "warning", timeout=10)
        self.push_screen(TopicPickerScreen(self.store, self.assessor, self.listed_topics,
                                           self.pool))
        if self.open_topic is not None:
            self.open(self.open_topic)
        self.set_interval(RETRY_EVERY_S, self.retry_writes)
        self.set_interval(RENEW_EVERY_S, self.renew_claim)
        self.set_interval(CLAIM_RETRY_EVERY_S, self.confirm_claim)
        self.set_interval(WATCH_EVERY_S, self.show_changes)
        self.set_timer(SETTLE_S, self.settle)
        self.fit_terminal()

    def on_resize(self, event: events.Resize) -> None:
        self.fit_terminal(event.size.width, event.size.height)

    def fit_terminal(self, columns: int | None = None, rows: int | None = None) -> None:
        """On a terminal too small to judge in, cover the app with what it needs
        (:class:`~pooltool.tui.screens.too_small.TooSmallScreen`); once it is large
        enough, take the cover away.

        :param columns: the terminal's width (default: the app's now); ``rows`` its height.
        """
        columns = self.size.width if columns is None else columns
        rows = self.size.height if rows is None else rows
        covered = isinstance(self.screen, TooSmallScreen)
        if too_small(columns, rows):
            if covered:
                self.screen.show_size(columns, rows)  # type: ignore[attr-defined]
            else:
                self.push_screen(TooSmallScreen(columns, rows))
        elif covered:
            self.pop_screen()

    def listed_topics(self) -> list[str]:
        """The picker's topics now (see :func:`~pooltool.tui.judgeable.picker_topics`;
        assignments may have changed)."""
        return picker_topics(self.store, self.assessor, self.requested, self.pool)

    def open(self, topic: str) -> None:
        """Open the judging screen of ``topic`` (not while the store's server is
        unreachable: the notice says so)."""
        try:
            session = JudgingSession(self.writes, topic, self.assessor, self.order, self.seed,
                                     self.pool)
            if not session.queue:
                held = held_text(session.held_by_others())
                if held:
                    self.notify(f"Nothing to open in topic {visible(topic)} now: {held}.",
                                title="Being judged", severity="warning", markup=False)
                else:
                    self.notify(f"Nothing to judge in topic {visible(topic)}: every pooled "
                                "document is judged (the topic is not assigned to you).",
                                title="Topic done", markup=False)
                return
            self.push_screen(self._judge_screen(session))
            self.judging = session
        except StoreConnectionLost as exc:
            self.connection_lost(exc)
            return
        self.set_timer(SETTLE_S, self.settle)

    def settle(self) -> None:
        """Collect garbage, then keep the garbage collector's full passes off what is
        left (:func:`gc.freeze`): the app's modules, screens and the topic's session
        live on. Without it a full pass walked all of that every few dozen keys, and
        that key press took 70-100 ms longer. Called a moment after the app starts
        and after a topic opens, while the assessor reads."""
        gc.collect()
        gc.freeze()

    def _judge_screen(self, session: JudgingSession) -> JudgeScreen:
        """The judging screen on ``session``: built and installed on the first topic,
        then kept and given each next topic (:meth:`JudgeScreen.start`)."""
        if self.is_screen_installed(JUDGE_SCREEN):
            screen = self.get_screen(JUDGE_SCREEN, JudgeScreen)
            screen.start(session)
            return screen
        screen = JudgeScreen(session, self.scale, self.show_runs, self.require_end, self.idle_s)
        self.install_screen(screen, JUDGE_SCREEN)
        return screen

    async def on_event(self, event: events.Event) -> None:
        """Every input event counts as activity on the judging screen (active time,
        :mod:`pooltool.tui.activity`), then goes its usual way."""
        if isinstance(event, (events.Key, events.MouseDown, events.MouseMove,
                              events.MouseScrollDown, events.MouseScrollUp)) \
                and isinstance(self.screen, JudgeScreen):
            self.screen.activity.touch()
            if isinstance(event, events.Key):  # a key grades only the document drawn then
                self.screen.on_screen.key_time = event.time
        await super().on_event(event)

    @on(TopicChosen)
    def topic_chosen(self, message: TopicChosen) -> None:
        """The picker chose a topic."""
        self.open(message.topic)

    @on(LeaveTopic)
    def leave_topic(self) -> None:
        """Back from a judging screen to the picker (its claims are given up)."""
        if isinstance(self.screen, JudgeScreen):
            self.screen.session.release_claims()
        self.judging = None
        self.pop_screen()

    @on(CopySplit)
    @on(GradeRecorded)
    @on(JudgmentUndone)
    @on(NoteChanged)
    def judgment_changed(self) -> None:
        """Warn when a write could not be committed at once."""
        if self.writes.lost is not None:
            self.connection_lost(self.writes.lost)
        elif self.writes.full is not None:
            self.notify(FULL_NOTICE, title="Not saved yet", severity="error", markup=False)
        elif self.writes.pending:
            self.notify(BUSY_NOTICE, severity="warning")
        self.report_failed()

    async def run_action(self, action: str | ActionParseResult,
                         default_namespace: DOMNode | None = None,
                         namespaces: Mapping[str, DOMNode] | None = None) -> bool:
        """Textual's, but a key whose reads find the store's server gone shows the
        notice (:meth:`connection_lost`) rather than end the app; its writes are in
        the journal already."""
        try:
            return await super().run_action(action, default_namespace, namespaces)
        except StoreConnectionLost as exc:
            self.connection_lost(exc)
            if isinstance(self.screen, JudgeScreen):
                self.screen.draw_state()  # what the key changed before the read failed
            return True

    @on(StoreUnreachable)
    def store_unreachable(self, message: StoreUnreachable) -> None:
        """A screen's read found the store's server gone."""
        self.connection_lost(message.lost)

    def connection_lost(self, exc: StoreConnectionLost) -> None:
        """The store's server went away: writes wait in the journal, the retry timer
        connects again (with backoff), and the notice shows until it is back."""
        self.writes.connection_lost(exc)
        if self.unreachable_shown:
            return
        self.unreachable_shown = True
        self.sub_title = f"assessor {self.assessor} · store's server unreachable"
        self.notify(UNREACHABLE_NOTICE, title="Store unreachable", severity="warning",
                    timeout=UNREACHABLE_NOTICE_S)
        if self.is_running and isinstance(self.screen, JudgeScreen):
            self.screen.draw_state()

    def server_back(self, saved: int) -> None:
        """The store's server is reachable again and ``saved`` waiting writes are
        committed: the notice goes, changes are watched again, the screen re-read."""
        self.unreachable_shown = False
        self.sub_title = f"assessor {self.assessor}"
        self.clear_notifications()
        self.notify(BACK_NOTICE.format(saved=saved), title="Store reachable", timeout=5)
        self.watch_again()
        screen = self.screen if self.is_running else None
        try:
            if isinstance(screen, JudgeScreen):
                screen.server_back()
            elif isinstance(screen, TopicPickerScreen):
                screen.action_reload()
        except StoreConnectionLost as exc:  # gone again at once
            self.connection_lost(exc)

    def watch_again(self) -> None:
        """A new watcher of other assessors' writes (:mod:`pooltool.store.changes`):
        a PostgreSQL watcher's connection does not come back by itself."""
        self.watcher.close()
        try:
            self.watcher = self.store.watch_changes()
        except StoreError as exc:
            self.connection_lost(StoreConnectionLost(str(exc)))

    def report_failed(self) -> None:
        """Tell the assessor about writes the store rejected for good (then forget
        them), and about a journal that could not be written."""
        for write, error in self.writes.failed:
            self.notify(refused_text(write, error), severity="error", timeout=10, markup=False)
        self.writes.failed.clear()
        if self.writes.journal_error:
            self.notify(f"Could not write the journal {self.writes.journal_error}: waiting "
                        "writes are kept in memory only; do not close this app until the "
                        "store is free.", severity="error", timeout=10, markup=False)
            self.writes.journal_error = None

    def retry_writes(self) -> None:
        """Commit writes the store refused earlier, or connect again to its server
        that went away (a timer calls this; the queue keeps the backoff)."""
        if not (self.writes.pending or self.writes.offline or self.writes.busy):
            return
        waiting, full = self.writes.pending, self.writes.full
        if not waiting and not self.writes.offline:  # a claim found the lock held
            self.writes.flush()  # an empty queue: tries nothing, forgets the busy store
            return
        self.writes.flush()
        if self.is_running and isinstance(self.screen, JudgeScreen):
            self.screen.take_back_refused()
        if self.writes.lost is not None:
            self.connection_lost(self.writes.lost)
        elif self.unreachable_shown:
            self.server_back(waiting - self.writes.pending)
        elif full is not None and self.writes.full is None:
            self.notify(SAVED_NOTICE.format(saved=waiting - self.writes.pending),
                        title="Saved", timeout=5)
        # not while the app shuts down: its screens are being taken apart
        if self.is_running and isinstance(self.screen, JudgeScreen):
            self.screen.draw_state()
        self.report_failed()

    def show_changes(self) -> None:
        """Show other assessors' judgments and claims (a timer calls this): the topic
        picker's counts, the judging screen's progress. Under a help or prompt screen
        nothing is read; the changes wait for the next tick after it closes."""
        screen = self.screen if self.is_running else None
        if not isinstance(screen, (TopicPickerScreen, JudgeScreen)):
            return
        changes = self.watcher.poll()
        if changes.lost and not self.writes.offline:
            self.watch_again()  # the watcher's connection alone went away, or the server
        try:
            if isinstance(screen, TopicPickerScreen) and changes:
                screen.action_reload()
            elif isinstance(screen, JudgeScreen) and changes.touches(screen.session.topic):
                screen.others_changed()
        except StoreConnectionLost as exc:
            self.connection_lost(exc)

    async def action_quit(self) -> None:
        """Commit anything still queued (one try, not waiting: the screen stays live),
        then exit; while the store's server is unreachable, exit with the writes kept in
        the journal (``pooltool judge`` says so). Writes not saved otherwise (a busy
        store, a full disk, a journal that could not be written) are named, and the
        assessor is asked first (:func:`quit_question`); yes exits, keeping them in the
        journal where it could be written."""
        self.writes.flush()
        if not self.writes.pending or (self.writes.offline and self.writes.kept_on_disk):
            self.exit()
            return
        self.push_screen(ConfirmScreen(quit_question(self.writes)), self._quit_answer)

    def _quit_answer(self, leave: bool | None) -> None:
        if leave:
            self.quit_confirmed = True
            self.exit()

    def _handle_exception(self, error: Exception) -> None:
        """Textual's (the app exits with status 1), but the traceback goes to a log file
        and the terminal keeps one line saying where (:func:`~pooltool.tui.ending.crash_report`)."""
        self.crash_line = crash_report(error)
        super()._handle_exception(error)
        self._exit_renderables[:] = [Text(self.crash_line)]

    def on_unmount(self) -> None:
        self.signals.remove()
        # writes the assessor chose to leave unsaved are tried once, not waited for
        self.writes.drain(0 if self.quit_confirmed else QUIT_WAIT_S)
        if self.judging is not None:  # every way out gives the claims up
            self.judging.release_claims()
        self.watcher.close()
        self.store.close()
        gc.unfreeze()  # what on_mount froze may now be collected (another app may follow)

    def _judging_screens(self) -> list[JudgeScreen]:
        """The judging screen, when it is shown or waits under a help or prompt screen
        (the document it shows is still the assessor's)."""
        return [screen for screen in self.screen_stack if isinstance(screen, JudgeScreen)]

    def confirm_claim(self) -> None:
        """Try again the claim of the document the judging screen shown waits to show
        (:meth:`JudgeScreen.confirm_claim`; a timer calls this). Under a help or prompt
        screen nothing is tried: the next tick after it closes does."""
        screen = self.screen if self.is_running else None
        if not isinstance(screen, JudgeScreen) or not screen.session.reserving:
            return
        try:
            screen.confirm_claim()
        except StoreConnectionLost as exc:
            self.connection_lost(exc)

    def renew_claim(self) -> None:
        """Renew the claim on the document on screen while it stays there (a timer calls
        this, also under a help or prompt screen); says so when another assessor took
        it meanwhile (the claim lapsed while the store was busy)."""
        for screen in self._judging_screens():
            try:
                renewal = screen.session.renew_claim()
            except StoreConnectionLost as exc:
                self.connection_lost(exc)
                return
            if renewal == "lost":
                self.notify(f"{visible(screen.session.docno)} is on another assessor's "
                            "screen too (your claim lapsed while the store was busy): j goes "
                            "to the next document nobody has on screen.", title="Claimed",
                            severity="warning", markup=False)


def make_app(db: str | Path, assessor: str, topics: Sequence[str] = (), order: str = "docno",
             seed: int = 0, pool: str = DEFAULT_POOL) -> JudgeApp:
    """Open the store at ``db`` and build the judging app.

    The picker lists ``topics`` if given, else the topics assigned to the
    assessor, else every pooled topic; with exactly one ``topic`` the app
    opens on its judging screen.

    :raises StoreError: no store, no pool, no pooled topic, an empty assessor
        name, an unknown order, or a grade scale the screen cannot use
        (:func:`~pooltool.tui.keys.check_grade_scale`).
    :raises StoreWriteFailed: a PostgreSQL login that may not record judgments as
        ``assessor`` (:func:`~pooltool.store.roles.check_may_judge`).
    :raises UnknownTopic: a topic with no pooled documents.
    """
    if not assessor.strip():
        raise InvalidArgument("name the assessor with --assessor")
    store = checked_store(db, assessor, topics, order, pool)
    try:
        check_may_judge(store, assessor)
    except BaseException:
        store.close()
        raise
    store.set_busy_timeout(BUSY_WAIT_MS)
    opened = topics[0] if len(topics) == 1 else None
    return JudgeApp(store, assessor, list(topics), opened, order, seed, pool)
