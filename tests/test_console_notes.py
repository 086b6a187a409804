"""Small notes of issue 24, 15: ``grades set`` names a grade it drops that judgments use,
and the ``judge --serve`` console logs errors only unless --verbose."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.store import JudgmentStore
from pooltool.tui.serve import CONSOLE_LOGGERS, console_log_level


def test_grades_set_names_a_dropped_grade_in_use(new_store: str) -> None:
    with JudgmentStore.open(new_store) as store:
        store.record_judgment("1", "d1", 3, "ann")
        store.record_judgment("1", "d2", 3, "ben")
        store.record_judgment("1", "d3", 2, "ann")
        store.record_judgment("1", "d3", 1, "ann")  # regraded: 2 is no longer in use
        store.record_judgment("1", "d4", -1, "ann")  # negative: no judgment
    result = CliRunner().invoke(cli, ["--db", new_store, "grades", "set", "0:x:no",
                                      "1:r:yes"])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "grade scale set: 2 grades\nwarning: the new scale drops grade(s) the judgments use: "
        "3 (2 judgment(s)); those judgments keep their grades, which the judging screen shows "
        "without a key or name (add the grade back to keep it)\n")
    kept = CliRunner().invoke(cli, ["--db", new_store, "grades", "set", "0:x:no", "1:r:yes",
                                    "3:p:perfect"])
    assert kept.stderr == "grade scale set: 3 grades\n"


@pytest.fixture
def levels() -> Iterator[None]:
    before = {name: logging.getLogger(name or None).level for name in CONSOLE_LOGGERS}
    yield
    for name, level in before.items():
        logging.getLogger(name or None).setLevel(level)


def test_the_serve_console_logs_errors_only_unless_verbose(levels: None) -> None:
    console_log_level(verbose=False)
    access = logging.getLogger("aiohttp.access")
    assert not access.isEnabledFor(logging.INFO)  # one line per request: not shown
    assert access.isEnabledFor(logging.ERROR)
    assert not logging.getLogger("textual-serve").isEnabledFor(logging.WARNING)
    console_log_level(verbose=True)
    assert access.isEnabledFor(logging.INFO)


def test_judge_help_names_verbose() -> None:
    text = " ".join(CliRunner().invoke(cli, ["judge", "--help"]).output.split())
    assert "--verbose With --serve: log every HTTP request on the console (default: errors " \
           "only)." in text
