"""The adjudication app: ``pooltool adjudicate`` (build it with :func:`make_adjudicate_app`;
``python -m pooltool.tui.adjudicate`` runs one, as ``adjudicate --serve`` spawns per tab).

One screen (:class:`~pooltool.tui.screens.adjudicate.AdjudicateScreen`); a timer looks
for other writers' judgments (:mod:`pooltool.store.changes`) and reads the list again,
so disagreements appear while people judge.

Adjudications and their undos go through a :class:`~pooltool.store.journal.WriteQueue`,
as the judging app's grades do: a write the store cannot take at once (another writer
holds the lock, the disk is full, a PostgreSQL server went away) waits in the
adjudicator's journal next to the store, a notice says so, and a timer commits it when
it can. The app replays its adjudicator's journals left by an app that was killed, and
so does the next command that reads the store
(:func:`~pooltool.store.journal.replay_abandoned`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.app import App

from pooltool.errors import InvalidArgument, PooltoolError, StoreConnectionLost, StoreError
from pooltool.store import JudgmentStore
from pooltool.store.journal import BUSY_WAIT_MS, WriteQueue
from pooltool.store.journal_files import journal_path, journals
from pooltool.store.roles import check_may_judge
from pooltool.text import visible
from pooltool.tui.keys import check_grade_scale
from pooltool.tui.screens.adjudicate import AdjudicateScreen

WATCH_EVERY_S = 1.0
"""How often the app looks for other writers' judgments."""
RETRY_EVERY_S = 0.5
"""How often the app retries writes the store could not take at once."""
QUIT_WAIT_S = 5.0
"""How long the app, on exit, waits for the store to take writes still queued (they
stay in the journal otherwise, for the next pooltool command here)."""
UNREACHABLE_NOTICE = ("The store's server is unreachable: your adjudications wait in a "
                      "journal and are saved when it is back.")
BUSY_NOTICE = ("The store is busy (another writer): your adjudication is kept in a journal "
               "next to the store and saved in a moment, or by the next pooltool command "
               "if this app is stopped first.")
SAVED_NOTICE = "{saved} waiting write(s) saved."
FULL_NOTICE = ("Your adjudication is not saved yet: the disk is full. It is kept and saved "
               "as soon as there is space again.")


class AdjudicateApp(App[None]):
    """The adjudication screen for one adjudicator (the app closes ``store`` on exit).

    :param filters: keyword arguments of :func:`~pooltool.judging.adjudication.disagreements`.
    """

    CSS_PATH = "judge.tcss"
    TITLE = "pooltool adjudicate"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, store: JudgmentStore, adjudicator: str, filters: dict[str, Any]) -> None:
        super().__init__()
        self.store, self.adjudicator, self.filters = store, adjudicator, filters
        base = store.journal_base
        self.writes = WriteQueue(store, None if base is None else journal_path(base, adjudicator))
        self.recovered = 0 if base is None else self.writes.recover(journals(base, adjudicator))
        self.watcher = store.watch_changes()
        self.sub_title = f"adjudicator {visible(adjudicator)}"

    def on_mount(self) -> None:
        self.push_screen(AdjudicateScreen(self.writes, self.adjudicator, self.filters,
                                          self.store.grade_scale()))
        self.set_interval(WATCH_EVERY_S, self.show_changes)
        self.set_interval(RETRY_EVERY_S, self.retry_writes)
        if self.recovered:
            self.notify(f"{self.recovered} write(s) left by an app that ended before the store "
                        "took them " + ("are now saved." if not self.writes.pending else
                                        "wait for the store."), timeout=10)

    def show_changes(self) -> None:
        """Read the list again when another writer changed the store."""
        changes = self.watcher.poll()
        if changes.lost and not self.writes.offline:
            self.watch_again()  # the watcher's connection alone went away, or the server
        elif changes and isinstance(self.screen, AdjudicateScreen):
            self.screen.reload()

    def watch_again(self) -> None:
        """A new watcher of other writers' judgments (a PostgreSQL watcher's connection
        does not come back by itself)."""
        self.watcher.close()
        try:
            self.watcher = self.store.watch_changes()
        except StoreError as exc:
            self.connection_lost(StoreConnectionLost(str(exc)))

    def retry_writes(self) -> None:
        """Commit writes the store could not take earlier, or connect again to its server
        that went away (a timer calls this; the queue keeps the backoff), then read the
        list again."""
        if not (self.writes.pending or self.writes.offline or self.writes.busy):
            return
        waiting, offline = self.writes.pending, self.writes.offline
        self.writes.flush()
        if self.writes.offline:
            if not offline:
                self.notice_waiting()
            return
        saved = waiting - self.writes.pending
        if offline:  # the server is back
            self.sub_title = f"adjudicator {visible(self.adjudicator)}"
            self.clear_notifications()
            self.watch_again()
        if saved:
            self.notify(SAVED_NOTICE.format(saved=saved), timeout=5)
        if (saved or offline) and isinstance(self.screen, AdjudicateScreen):
            self.screen.reload()
        self.report_failed()

    def notice_waiting(self) -> None:
        """Say why writes wait, if they do (the screen calls this after each write)."""
        if self.writes.lost is not None:
            self.sub_title = f"adjudicator {visible(self.adjudicator)} · store's server unreachable"
            self.notify(UNREACHABLE_NOTICE, title="Store unreachable", severity="warning")
        elif self.writes.full is not None:
            self.notify(FULL_NOTICE, title="Not saved yet", severity="error", markup=False)
        elif self.writes.pending:
            self.notify(BUSY_NOTICE, severity="warning", markup=False)
        self.report_failed()

    def report_failed(self) -> None:
        """Tell the adjudicator about writes the store refused for good (then forget them)."""
        for write, error in self.writes.failed:
            self.notify(f"Your {write.kind} of {visible(str(write.args.get('docno', '')))} was "
                        f"not saved: {error}", severity="error", timeout=10, markup=False)
        self.writes.failed.clear()

    def connection_lost(self, exc: StoreConnectionLost) -> None:
        """A read found the store's server gone: writes wait in the journal and the
        retry timer connects again."""
        if not self.writes.offline:
            self.writes.connection_lost(exc)
            self.notice_waiting()

    def on_unmount(self) -> None:
        self.writes.drain(QUIT_WAIT_S)  # what the store does not take stays in the journal
        self.watcher.close()
        self.store.close()


def make_adjudicate_app(db: str | Path, adjudicator: str, topics: Sequence[str] = (),
                        pair: tuple[str, str] | None = None,
                        min_distance: int = 1) -> AdjudicateApp:
    """Open the store at ``db`` and build the adjudication app.

    :raises InvalidArgument: no adjudicator's name, or a grade scale the screen cannot use.
    :raises StoreError: no store at ``db``.
    :raises StoreWriteFailed: a PostgreSQL login that may not record judgments as
        ``adjudicator`` (:func:`~pooltool.store.roles.check_may_judge`).
    """
    if not adjudicator.strip():
        raise InvalidArgument("name the adjudicator with --adjudicator")
    store = JudgmentStore.open(db)
    try:
        check_grade_scale(store.grade_scale())
        check_may_judge(store, adjudicator)
    except BaseException:
        store.close()
        raise
    store.set_busy_timeout(BUSY_WAIT_MS)  # a busy store: the write waits in the journal
    filters = {"topics": list(topics) or None, "pair": pair, "min_distance": min_distance}
    return AdjudicateApp(store, adjudicator, filters)


def main(argv: list[str] | None = None) -> int:
    """``python -m pooltool.tui.adjudicate``: parse, build, run; the exit status."""
    parser = argparse.ArgumentParser(prog="python -m pooltool.tui.adjudicate")
    parser.add_argument("--db", required=True)
    parser.add_argument("--adjudicator", required=True)
    parser.add_argument("--topic", action="append", default=[])
    parser.add_argument("--pair", nargs=2, metavar=("A", "B"))
    parser.add_argument("--min-distance", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        app = make_adjudicate_app(args.db, args.adjudicator, args.topic,
                                  tuple(args.pair) if args.pair else None, args.min_distance)
    except PooltoolError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    app.run()
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
