"""Positives-only qrels (BEIR, MS MARCO: relevant documents only) are said once on stderr
by every command that scores qrels, the Arrow fast path of recall included (issue 24, 4)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.records import positives_only

RUNS = {"a.run": "1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n",
        "b.run": "1 Q0 d2 1 3 b\n1 Q0 d4 2 2 b\n1 Q0 d1 3 1 b\n",
        "c.run": "1 Q0 d4 1 3 c\n1 Q0 d5 2 2 c\n1 Q0 d3 3 1 c\n"}
POSITIVES = "1 0 d1 1\n1 0 d4 2\n"
GRADED = "1 0 d1 1\n1 0 d4 2\n1 0 d2 0\n"


def note(name: str, level: int = 1, consequence: str = (
        "every document it does not list counts as unjudged: unjudged@k is 1 - P@k and "
        "recall_upper is no bound on recall")) -> str:
    return (f"note: qrels {name} has no grade below the relevance level {level}: it lists "
            f"relevant documents only (as BEIR and MS MARCO qrels do), so {consequence}\n")


@pytest.mark.parametrize(("grades", "level", "expected"), [
    ([1, 2], 1, True), ([0, 1], 1, False), ([1, -1], 1, True),  # -1: pooled, not judged
    ([1, 2], 2, False),   # grade 1 is judged not relevant at level 2
    ([2, 3], 2, True), ([0, 1], 0, False), ([], 1, False)])
def test_the_rule(grades: list[int], level: int, expected: bool) -> None:
    assert positives_only(np.array(grades, dtype=np.int64), level) is expected


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "pos.txt").write_text(POSITIVES)
    (tmp_path / "graded.txt").write_text(GRADED)
    return tmp_path


def run(work: Path, *args: str):  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(cli, ["--db", str(work / "store.db"), *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("runs", [["a.run"], ["a.run", "b.run", "c.run"]],
                         ids=["one file", "several files"])
def test_recall_on_files_says_it_once(work: Path, runs: list[str]) -> None:
    pos = str(work / "pos.txt")
    result = run(work, "recall", *(str(work / r) for r in runs), "--qrels", pos, "-k", "2")
    assert result.stderr.count("has no grade below") == 1
    assert note(pos) in result.stderr
    # at -l 2, d1's grade 1 is judged not relevant: nothing to say
    assert "no grade below" not in run(work, "recall", str(work / "a.run"), "--qrels", pos,
                                       "-k", "2", "-l", "2").stderr
    graded = run(work, "recall", str(work / "a.run"), "--qrels", str(work / "graded.txt"))
    assert "no grade below" not in graded.stderr


def test_every_scoring_command_says_it(work: Path) -> None:
    pos, graded = str(work / "pos.txt"), str(work / "graded.txt")
    files = [str(work / r) for r in RUNS]
    run(work, "init")
    run(work, "add-runs", *files)
    run(work, "pool", "--depth", "2")
    run(work, "import-qrels", pos, "--version", "v1")
    stored = run(work, "recall", "a", "b", "--version", "v1", "-k", "2")
    assert note("version:v1") in stored.stderr
    mixed = run(work, "recall", "a", files[1], "--version", "v1", "-k", "2")
    assert note("version:v1") in mixed.stderr
    assert note("version:v1") in run(work, "bias", "-k", "2", "--version", "v1").stderr
    assert note(pos) in run(work, "bias", "-k", "2", "--qrels", pos).stderr
    impact = run(work, "impact", "--from", graded, "--to", "v1", *files, "-k", "2")
    assert note("v1") in impact.stderr and impact.stderr.count("has no grade below") == 1
    same = run(work, "impact", "--from", pos, "--to", pos, *files, "-k", "2")
    assert same.stderr.count("has no grade below") == 1  # once per qrels
    simulate = run(work, "simulate", *files, "--qrels", pos, "--strategy", "depth",
                   "--budget", "2", "-k", "2")
    assert note(pos, consequence="simulate counts every document it does not list as not "
                                 "relevant") in simulate.stderr
