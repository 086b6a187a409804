"""The adjudication app: ``pooltool adjudicate`` (build it with :func:`make_adjudicate_app`;
``python -m pooltool.tui.adjudicate`` runs one, as ``adjudicate --serve`` spawns per tab).

One screen (:class:`~pooltool.tui.screens.adjudicate.AdjudicateScreen`); a timer looks
for other writers' judgments (:mod:`pooltool.store.changes`) and reads the list again,
so disagreements appear while people judge.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.app import App

from pooltool.errors import InvalidArgument, PooltoolError
from pooltool.store import JudgmentStore
from pooltool.text import visible
from pooltool.tui.keys import check_grade_scale
from pooltool.tui.screens.adjudicate import AdjudicateScreen

WATCH_EVERY_S = 1.0
"""How often the app looks for other writers' judgments."""


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
        self.watcher = store.watch_changes()
        self.sub_title = f"adjudicator {visible(adjudicator)}"

    def on_mount(self) -> None:
        self.push_screen(AdjudicateScreen(self.store, self.adjudicator, self.filters,
                                          self.store.grade_scale()))
        self.set_interval(WATCH_EVERY_S, self.show_changes)

    def show_changes(self) -> None:
        """Read the list again when another writer changed the store."""
        if self.watcher.poll() and isinstance(self.screen, AdjudicateScreen):
            self.screen.reload()

    def on_unmount(self) -> None:
        self.watcher.close()
        self.store.close()


def make_adjudicate_app(db: str | Path, adjudicator: str, topics: Sequence[str] = (),
                        pair: tuple[str, str] | None = None,
                        min_distance: int = 1) -> AdjudicateApp:
    """Open the store at ``db`` and build the adjudication app.

    :raises InvalidArgument: no adjudicator's name, or a grade scale the screen cannot use.
    :raises StoreError: no store at ``db``.
    """
    if not adjudicator.strip():
        raise InvalidArgument("name the adjudicator with --adjudicator")
    store = JudgmentStore.open(db)
    try:
        check_grade_scale(store.grade_scale())
    except BaseException:
        store.close()
        raise
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
