"""Pasting (issue 24, item 9): text copied from a hard-wrapped document keeps every
line, its line breaks turned into spaces, in the find bar, the scan terms and the note."""

from __future__ import annotations

import pytest
from judge_fixtures import AppFactory, log_rows, screen_text
from textual import events
from textual.widgets import Input

from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.widgets.line_input import one_line

SIZE = (110, 30)


@pytest.mark.parametrize(("pasted", "line"), [
    ("boundary\nlayer", "boundary layer"),
    ("boundary  \r\n   layer\r\n", "boundary layer"),
    ("a\rb\n\n\nc", "a b c"),
    ("one line", "one line"),
    ("\n", ""),
    ("x\u2028y", "x y"),
])
def test_one_line_joins_lines_with_one_space(pasted: str, line: str) -> None:
    assert one_line(pasted) == line


async def paste(pilot: object, text: str) -> Input:
    """Paste ``text`` into the focused input, as a terminal's bracketed paste arrives."""
    focused = pilot.app.focused  # type: ignore[attr-defined]
    assert isinstance(focused, Input)
    focused.post_message(events.Paste(text))
    await pilot.pause()  # type: ignore[attr-defined]
    return focused


async def test_a_pasted_line_break_is_a_space_in_the_find_bar(app_factory: AppFactory) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        field = await paste(pilot, "The boundary\nlayer on a flat\r\nplate")
        assert field.value == "The boundary layer on a flat plate"
        assert "1 of 1" in screen_text(pilot.app)  # d1 holds it once, across no break


async def test_pasted_scan_terms_keep_every_line(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        field = await paste(pilot, "plate\nslipstream\n")
        assert field.value == "plate slipstream"
        await pilot.press("enter")
        assert isinstance(app.screen, JudgeScreen)
        assert [str(term) for term in app.screen.session.scan_terms] == ["plate", "slipstream"]


async def test_a_pasted_note_keeps_the_whole_text(app_factory: AppFactory,
                                                  store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "left", "n")  # d1 graded, back on it, the note prompt
        field = await paste(pilot, "Measures the layer\nthickness downstream;\n\nsee table 2.")
        assert field.value == "Measures the layer thickness downstream; see table 2."
        await pilot.press("enter")
    notes = log_rows(store_path).dropna(subset=["note"])["note"].tolist()
    assert notes[-1:] == ["Measures the layer thickness downstream; see table 2."]
