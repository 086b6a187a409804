"""impact -m MEASURE: how a qrels change moves any measure, by hand and from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from pooltool.analysis.measure_impact import measure_impact
from pooltool.cli import cli
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run

ROOT = Path(__file__).resolve().parents[2]
RUNS = "1 Q0 a 1 9 X\n1 Q0 b 2 8 X\n1 Q0 b 1 9 Y\n1 Q0 c 2 8 Y\n2 Q0 d 1 9 X\n2 Q0 d 1 9 Y\n"
QRELS_A = "1 0 a 1\n1 0 b 1\n1 0 c 0\n2 0 d 1\n"
QRELS_B = "1 0 a 0\n1 0 b 1\n1 0 c 1\n2 0 d 1\n3 0 e 1\n"


def test_average_precision_moves_by_hand() -> None:
    result = measure_impact(read_run(RUNS), read_qrels(QRELS_A), read_qrels(QRELS_B), "map")
    runs = result.per_run.set_index("run_tag")
    # topic 1 under A: X a b relevant -> 1; Y b (1/1), c not -> 1/2. Topic 2: both 1.
    # Under B: X b at rank 2 of 2 relevant -> (1/2)/2 = 1/4; Y b c -> 1. Topic 3 (B only,
    # no run has it) is left out without -c.
    assert runs.loc["X", "score_a"] == pytest.approx((1 + 1) / 2)
    assert runs.loc["X", "score_b"] == pytest.approx((1 / 4 + 1) / 2)
    assert runs.loc["Y", ["score_a", "score_b"]].tolist() == pytest.approx([3 / 4, 1])
    assert runs.loc["X", "score_change"] == pytest.approx(-3 / 8)
    assert runs.loc["X", ["rank_a", "rank_b", "rank_change"]].tolist() == [1, 2, 1]
    assert result.topics_only_b == ["3"]
    moved = result.topics_moved
    assert moved[["run_tag", "topic"]].values.tolist() == [["X", "1"], ["Y", "1"]]
    assert moved["change"].tolist() == pytest.approx([-3 / 4, 1 / 2])
    assert result.ranking.kendall_tau == pytest.approx(-1.0)


def test_cli_json_validates(tmp_path: Path) -> None:
    for name, text in (("runs", RUNS), ("a", QRELS_A), ("b", QRELS_B)):
        (tmp_path / name).write_text(text)
    result = CliRunner().invoke(cli, ["impact", "--from", str(tmp_path / "a"), "--to",
                                      str(tmp_path / "b"), str(tmp_path / "runs"), "-m", "AP",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.validate(document, json.loads((ROOT / "schemas" / "impact-v1.json").read_text()))
    assert document["ranking"]["measure"] == "AP"
    assert document["ranking"]["largest_rank_change_runs"] == ["X", "Y"]
    table = CliRunner().invoke(cli, ["impact", "--from", str(tmp_path / "a"), "--to",
                                     str(tmp_path / "b"), str(tmp_path / "runs"), "-m", "AP"])
    assert table.exit_code == 0 and "ranking by AP on all judgments" in table.stdout
