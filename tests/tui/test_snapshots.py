"""Pictures of the judging UI's main screens (pytest-textual-snapshot).

Update with ``pytest tests/tui/test_snapshots.py --snapshot-update`` only after
looking at the new pictures (``tests/tui/__snapshots__/``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from judge_fixtures import build_store
from textual.pilot import Pilot

from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore
from pooltool.tui.app import make_app

SIZE = (110, 30)
SnapCompare = Callable[..., bool]


@pytest.fixture
def snapshot_store(tmp_path: Path) -> Path:
    """The fixture store with two timed judgments of topic 1 by alice (d1: 2, d2: 0)."""
    path = build_store(tmp_path / "snap.db")
    with JudgmentStore.open(path) as store:
        store.record_judgment("1", "d1", 2, "alice", ms_spent=12_000, origin="tui")
        store.record_judgment("1", "d2", 0, "alice", ms_spent=6_000, origin="tui")
        store.record_judgment("1", "d1", 1, "bob", ms_spent=9_000, origin="tui")
    return path


class TestJudgingScreen:
    def test_document_with_highlighted_terms(self, snap_compare: SnapCompare, snapshot_store: Path) -> None:
        """Topic 1 reopened by alice (on d3, her first unjudged) and moved back to
        d1: status line "Topic 1 · 1 / 5 · d1 · you 2 · left 3 of 5 · 400/h · 9.0 s/doc ·
        ETA <1 min"; the statement (query, description, narrative) on the left;
        the document on the right; the query words "boundary", "layer" and "flow"
        marked (orange-yellow background) in the statement, the document title
        and text, including "Boundary" and "layer" of "Boundary-layer", while
        "plate" is not marked; the grade bar lists the four grades with their
        keys, lit on "2 highly relevant"; the document's bottom edge says "■ end"
        (all of d1 is on screen); the footer lists the scroll keys Space PgUp ↑ ↓
        End, then ^f Find, u, n, s, j, ? and q.
        """
        app = make_app(snapshot_store, "alice", ["1"])
        assert snap_compare(app, press=["left", "left"], terminal_size=SIZE)

    def test_scan_terms_and_missing_text(self, snap_compare: SnapCompare, snapshot_store: Path) -> None:
        """On d5, which has no text in the store: the docno as the title and a
        bordered notice that the text is missing and the document can still be
        judged; "trailing edge" and "slab" under "Scan terms" on the left; the
        grade bar shows "unjudged".
        """
        with JudgmentStore.open(snapshot_store) as store:
            from pooltool.store.workspace import set_scan_terms

            set_scan_terms(store, "alice", "1", ["trailing edge", "slab"])
        app = make_app(snapshot_store, "alice", ["1"])
        assert snap_compare(app, press=["right", "right"], terminal_size=SIZE)

    def test_help_dialog(self, snap_compare: SnapCompare, snapshot_store: Path) -> None:
        """The help dialog over the judging screen: the four grade keys with
        their names, then Space/PgDn, PgUp, ↑ ↓, Home/End, Ctrl+F, u, n, s,
        arrows, j, h, / (the dialog scrolls for the rest) explained."""
        app = make_app(snapshot_store, "alice", ["1"])
        assert snap_compare(app, press=["question_mark"], terminal_size=SIZE)


class TestTopicPicker:
    def test_progress_per_topic(self, snap_compare: SnapCompare, snapshot_store: Path) -> None:
        """The picker for alice: topics in numeric order; topic 1 with 5 pooled,
        judged (all) 2, judged (me) 2, remaining 3 (judged by nobody), relevant 1
        (bob's later grade 1 of d1 is the latest) and a bar at 40 % under
        "Progress"; topic 2 with 3 pooled, nothing judged, an empty bar at 0 %; the
        cursor on topic 1, the topic alice used last; the title line "you judged 2
        of 8 pooled documents"."""
        app = make_app(snapshot_store, "alice")

        async def settle(pilot: Pilot[None]) -> None:
            await pilot.pause()

        assert snap_compare(app, run_before=settle, terminal_size=SIZE)


SMALL = (80, 24)
LONG_DOCNO = "FT934-1234567890-abcdefghijklmnopqrstuvwxyz-0001"


class TestAt80x24:
    """The smallest usual terminal: nothing the assessor needs is cut off."""

    def test_judging_screen(self, snap_compare: SnapCompare, snapshot_store: Path) -> None:
        """Topic 1 for alice at 80x24, opened on a document with a 48-character
        docno: the status line starts "Topic 1 · 1 / 6 ·" (the position always
        visible), then the docno cut to "FT934-1234567890-abcdef…", then "judged
        2/6", pace and ETA, wrapping onto a second line; the grade bar lists all
        four grades with keys 0-3 and "unjudged"; the document's bottom edge
        says "■ end"; the footer shows all of Space PgUp ↑ ↓ End Scroll, ^f Find,
        u Undo, n Note, s Skip, j Unjudged, ? Help and q Quit (Home is in the help).
        """
        with JudgmentStore.open(snapshot_store) as store:
            store.add_run_frame(pd.DataFrame([("runC", "1", LONG_DOCNO, 1, 9.0)],
                                             columns=["run_tag", "topic", "docno", "rank",
                                                      "score"]))
            pool_runs(store, depth=10)
        app = make_app(snapshot_store, "alice", ["1"])
        assert snap_compare(app, terminal_size=SMALL)

    def test_note_dialog(self, snap_compare: SnapCompare, snapshot_store: Path) -> None:
        """The note dialog at 80x24 on d3 (not graded): title "Note on d3", the
        input, and the whole hint "Enter: save, joins your grade · empty: remove
        · Esc: cancel" (wrapped, not cut)."""
        app = make_app(snapshot_store, "alice", ["1"])
        assert snap_compare(app, press=["n"], terminal_size=SMALL)

    def test_find_bar(self, snap_compare: SnapCompare, snapshot_store: Path) -> None:
        """Ctrl+F and "layer" at 80x24 on d1: a one-line find bar above the grade
        bar with "Find:", the query, "1 of 2" and the hint "Enter/↓ next · ↑
        previous · Esc done"; in the text, "layer" of "boundary layer" lit green
        (the current match) and "layer" of "Boundary-layer" cyan, over the
        query-term marks."""
        app = make_app(snapshot_store, "alice", ["1"])
        assert snap_compare(app, press=["left", "left", "ctrl+f", *"layer"], terminal_size=SMALL)

    def test_picker(self, snap_compare: SnapCompare, snapshot_store: Path) -> None:
        """The picker at 80x24: every column visible, Topic, Query (cut with "…"),
        Pooled, By all, By me, Left, Rel and Progress with its bar and percentage
        (topic 1: 5, 2, 2, 3, 1, 40 %; topic 2: 3, 0, 0, 3, 0, 0 %); the title
        line wraps and explains the short labels; the footer shows q Quit and
        r Refresh."""
        app = make_app(snapshot_store, "alice")

        async def settle(pilot: Pilot[None]) -> None:
            await pilot.pause()

        assert snap_compare(app, run_before=settle, terminal_size=SMALL)
