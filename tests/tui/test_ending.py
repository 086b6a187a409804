"""How the judging app ends (issue 24, item 7): a signal restores the terminal and
keeps every committed judgment; a crash leaves a traceback in a log file, one line
on screen and a non-zero status. ``pooltool judge`` runs in a real pty."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest
from judge_fixtures import build_store, log_rows
from terminal import Terminal, judge_command

from pooltool.tui.ending import crash_log_path, crash_report, signal_status

RESTORES = {  # what the app turns on: the sequence that turns it off
    b"\x1b[?1049h": b"\x1b[?1049l",  # the alternate screen
    b"\x1b[?2004h": b"\x1b[?2004l",  # bracketed paste
    b"\x1b[?1000h": b"\x1b[?1000l",  # mouse tracking: clicks,
    b"\x1b[?1003h": b"\x1b[?1003l",  # every move,
    b"\x1b[?1006h": b"\x1b[?1006l",  # SGR mouse reports
}


def restored(output: bytes) -> bool:
    """Everything the app turned on is turned off after the last time it was turned
    on (the alternate screen left, mouse tracking and bracketed paste off)."""
    return all(on in output and output.rfind(off) > output.rfind(on)
               for on, off in RESTORES.items())


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_restores_the_terminal_and_keeps_the_judgments(
        tmp_path: Path, signum: signal.Signals) -> None:
    store = build_store(tmp_path / "s.db")
    terminal = Terminal(judge_command(store, "--assessor", "alice", "--topic", "1"),
                        {"XDG_STATE_HOME": str(tmp_path / "state")})
    try:
        # the judging screen is up once the status line shows the first document
        assert terminal.wait_for(lambda: b"d1" in terminal.output and b"Topic" in terminal.output)
        terminal.type("2")  # d1 graded 2: committed when the key is pressed
        assert terminal.wait_for(lambda: len(log_rows(store)) == 1)
        terminal.process.send_signal(signum)
        status = terminal.finish()
    finally:
        terminal.close()
    assert status == 128 + signum
    assert restored(terminal.output), terminal.output[-400:]
    assert log_rows(store)[["topic", "docno", "grade", "assessor"]].values.tolist() == [
        ["1", "d1", 2, "alice"]]


def test_signal_status_is_a_shells() -> None:
    assert signal_status(signal.SIGTERM) == 143 and signal_status(signal.SIGHUP) == 129


def test_a_crash_report_writes_the_traceback_and_says_where(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    path = crash_log_path(0.0)
    assert path.parent == tmp_path / "pooltool" and path.name.startswith("judge-crash-")

    def fail() -> None:
        raise ValueError("doc\x1b[31m7")

    try:
        fail()
    except ValueError as error:
        line = crash_report(error, tmp_path / "crash.log")
    log = (tmp_path / "crash.log").read_text()
    assert log.startswith("Traceback (most recent call last):") and "in fail" in log
    assert log.rstrip().endswith("ValueError: doc\x1b[31m7")
    assert line == ("pooltool judge crashed (ValueError: doc\\x1b[31m7); traceback in "
                    f"{tmp_path / 'crash.log'}")
    assert "\n" not in line and "\x1b" not in line


CRASHING_JUDGE = """
import sys
from pooltool.tui.screens.judge import JudgeScreen
def action_grade(self, grade):
    raise RuntimeError("grade key broke")
JudgeScreen.action_grade = action_grade
from pooltool.cli import cli
cli(sys.argv[1:], prog_name="pooltool")
"""


def test_a_crash_exits_1_with_one_line_and_the_traceback_in_a_log(tmp_path: Path) -> None:
    store = build_store(tmp_path / "s.db")
    args = judge_command(store, "--assessor", "alice", "--topic", "1")
    terminal = Terminal([args[0], "-c", CRASHING_JUDGE, *args[3:]],
                        {"XDG_STATE_HOME": str(tmp_path / "state")}, columns=250)
    try:
        assert terminal.wait_for(lambda: b"d1" in terminal.output and b"Topic" in terminal.output)
        terminal.type("2")
        status = terminal.finish()
    finally:
        terminal.close()
    assert status == 1
    assert restored(terminal.output)
    after = terminal.output[terminal.output.rfind(b"\x1b[?1049l") + 8:]
    after = re.sub(rb"\x1b\[[0-9;?<>]*[A-Za-z]", b"", after).decode()  # mode switches
    [log] = (tmp_path / "state" / "pooltool").glob("judge-crash-*.log")
    assert after.strip() == ("pooltool judge crashed (RuntimeError: grade key broke); "
                             f"traceback in {log}")
    assert "Traceback (most recent call last):" in log.read_text()
    assert log.read_text().rstrip().endswith("RuntimeError: grade key broke")
    assert log_rows(store).empty
