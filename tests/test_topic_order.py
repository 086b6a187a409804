"""Topics in numeric order (2 before 10) in every output for people and scripts;
trec_eval's strcmp order (10 before 2) only in ``--format trec``."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.records import topic_order

RUN = "".join(f"{t} Q0 d{t} 1 1.0 r\n" for t in ("10", "2", "1"))
QRELS_A = "".join(f"{t} 0 d{t} 1\n" for t in ("10", "2", "1", "9"))
QRELS_B = "".join(f"{t} 0 d{t} 0\n" for t in ("10", "2", "1", "9"))


def invoke(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    (tmp_path / "r.run").write_text(RUN)
    (tmp_path / "a.qrels").write_text(QRELS_A)
    (tmp_path / "b.qrels").write_text(QRELS_B)
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_topic_order_puts_numbers_in_numeric_order_within_groups() -> None:
    assert topic_order(["10", "2", "b", "1"]) == [3, 1, 0, 2]
    assert topic_order(["10", "2", "3", "1"], ["y", "y", "x", "x"]) == [1, 0, 3, 2]


def test_recall_per_topic_csv_numeric_trec_strcmp(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = invoke(tmp_path, "recall", "r.run", "--qrels", "a.qrels", "-k", "5",
                            "-q", "--format", "csv")
    assert code == 0
    assert list(pd.read_csv(io.StringIO(out), dtype=str)["topic"]) == ["1", "2", "10"]
    assert "topic(s) not in the run" in err and err.rstrip().endswith(": 9")
    code, out, _ = invoke(tmp_path, "recall", "r.run", "--qrels", "a.qrels", "-k", "5",
                          "-q", "--format", "trec")
    topics = [line.split()[1] for line in out.splitlines() if line.split()[1] != "all"]
    assert list(dict.fromkeys(topics)) == ["1", "10", "2"]


def test_qrels_diff_numeric_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = invoke(tmp_path, "qrels", "diff", "a.qrels", "b.qrels", "--format", "csv")
    assert code == 0
    assert list(pd.read_csv(io.StringIO(out), dtype=str)["topic"]) == ["1", "2", "9", "10", "all"]
    code, out, _ = invoke(tmp_path, "qrels", "diff", "a.qrels", "b.qrels", "--changes",
                          "--format", "csv")
    assert list(pd.read_csv(io.StringIO(out), dtype=str)["topic"]) == ["1", "2", "9", "10"]
