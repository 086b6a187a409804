"""simulate -m MEASURE: the bias of partial qrels on any measure, by hand and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from pooltool.analysis.simulation import simulate
from pooltool.cli import cli
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.judging.strategies import parse_strategy

ROOT = Path(__file__).resolve().parents[2]
RUNS = "1 Q0 a 1 9 X\n1 Q0 b 2 8 X\n1 Q0 b 1 9 Y\n1 Q0 c 2 8 Y\n"
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n"


def test_average_precision_under_a_depth_one_pool() -> None:
    result = simulate(read_run(RUNS), read_qrels(QRELS), [parse_strategy("depth:k=1")], [2],
                      measure="map")
    runs = result.per_run.set_index("run_tag")
    # full: X relevant at rank 1 of num_rel 2 -> 1/2; Y c at rank 2 -> (1/2)/2 = 1/4.
    # depth 1 judges a and b only: num_rel 1, X 1, Y 0 (c unjudged)
    assert runs.loc["X", ["score", "score_partial"]].tolist() == pytest.approx([1 / 2, 1])
    assert runs.loc["Y", ["score", "score_partial"]].tolist() == pytest.approx([1 / 4, 0])
    summary = result.summary.iloc[0]
    assert summary["MAE_score"] == pytest.approx((1 / 2 + 1 / 4) / 2)
    assert summary["Kendall_tau_score"] == pytest.approx(1.0)


def test_json_with_a_measure_validates(tmp_path: Path) -> None:
    (tmp_path / "runs").write_text(RUNS)
    (tmp_path / "qrels").write_text(QRELS)
    result = CliRunner().invoke(cli, ["simulate", str(tmp_path / "runs"), "--qrels",
                                      str(tmp_path / "qrels"), "--strategy", "depth:k=1",
                                      "--budget", "2", "-m", "nDCG@10", "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.validate(document, json.loads((ROOT / "schemas" / "simulate-v1.json").read_text()))
    assert document["options"]["measure"] == "nDCG@10"
    assert "MAE_score" in document["summary"][0]
