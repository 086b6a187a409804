"""Qrels lines given again: a line repeated word for word is kept once and counted; a
pair given again under another iteration (diversity qrels, a line per subtopic) or grade
is refused naming the line; nothing is kept at random (issue 24, 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.errors import FormatError
from pooltool.formats.qrels import folded_lines, read_qrels, read_qrels_table

REPEATED = "1 0 d1 1\n1 0 d2 0\n1 0 d1 1\n# a comment\n1 0 d1 1\n2 0 d1 2\n"
DIVERSITY = "1 1 d1 1\n1 2 d1 1\n1 1 d2 0\n1 3 d3 1\n"  # TREC Web: column 2 the subtopic


@pytest.fixture(params=["file", "text"])
def source(request: pytest.FixtureRequest, tmp_path: Path) -> object:
    def make(text: str) -> object:
        if request.param == "text":
            return text
        (tmp_path / "q.txt").write_text(text)
        return tmp_path / "q.txt"
    return make


def test_lines_repeated_word_for_word_are_kept_once_and_counted(source: object) -> None:
    qrels = read_qrels(source(REPEATED))  # type: ignore[operator]
    assert qrels.values.tolist() == [["1", "0", "d1", 1], ["1", "0", "d2", 0],
                                     ["2", "0", "d1", 2]]
    assert folded_lines(qrels) == 2


def test_a_file_without_repeats_folds_nothing(source: object) -> None:
    assert folded_lines(read_qrels(source("1 0 d1 1\n1 0 d2 0\n"))) == 0  # type: ignore[operator]


@pytest.mark.parametrize("reader", [read_qrels, read_qrels_table])
def test_diversity_qrels_are_refused_naming_the_line(reader: object, tmp_path: Path) -> None:
    (tmp_path / "div.txt").write_text(DIVERSITY)
    with pytest.raises(FormatError) as refused:
        reader(tmp_path / "div.txt")  # type: ignore[operator]
    assert str(refused.value) == (
        f"{tmp_path / 'div.txt'}:2: docno 'd1' for topic '1' is given again under column 2 "
        "'2' (line 1: '1'): qrels with a subtopic or judgment group in column 2 (diversity "
        "qrels, qrels_jg) are not read; give one line per (topic, docno)")


def test_another_grade_is_refused_naming_both_lines() -> None:
    with pytest.raises(FormatError, match=r"^<string>:3: docno 'd1' for topic '1' has grade 2 "
                                          r"here but grade 1 on line 1$"):
        read_qrels("1 0 d1 1\n1 0 d2 0\n1 0 d1 2\n")


def test_import_says_how_many_lines_were_folded_and_keeps_every_pair(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text(REPEATED)
    db = str(tmp_path / "s.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "init"]).exit_code == 0
    result = runner.invoke(cli, ["--db", db, "import-qrels", str(tmp_path / "q.txt"),
                                 "--version", "v"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == (
        f"{tmp_path / 'q.txt'}: 3 judgments read, 3 added, 0 unchanged, 0 retracted; version "
        "'v'; assessor 'qrels' is a person; 2 repeated lines (the same words as an earlier "
        "line) kept once")
    exported = runner.invoke(cli, ["--db", db, "export-qrels"]).stdout
    assert exported == "1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n"
    (tmp_path / "div.txt").write_text(DIVERSITY)
    refused = runner.invoke(cli, ["--db", db, "import-qrels", str(tmp_path / "div.txt"),
                                  "--version", "w"])
    assert refused.exit_code == 1 and refused.stderr.startswith(f"Error: {tmp_path / 'div.txt'}:2:")
    assert runner.invoke(cli, ["--db", db, "export-qrels"]).stdout == exported
