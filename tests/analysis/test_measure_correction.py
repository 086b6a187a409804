"""Webber and Park's correction of any measure: by hand on a small pool, and from the
command line (JSON schema-valid; the corrections defined for P@k / Recall@k only refuse)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from pooltool.analysis.measure_correction import corrected_measure
from pooltool.cli import cli
from pooltool.errors import PooltoolError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run

ROOT = Path(__file__).resolve().parents[2]
# Depth 1: A alone pools a, B b, C c; s (relevant) is every run's second, judged from
# outside the pool. N, outside the pool, retrieves x (unjudged), then a.
RUNS = {tag: f"1 Q0 {tag.lower()} 1 9 {tag}\n1 Q0 s 2 8 {tag}\n" for tag in "ABC"}
NEW = "1 Q0 x 1 9 N\n1 Q0 a 2 8 N\n"
QRELS = "1 0 a 1\n1 0 b 1\n1 0 c 1\n1 0 s 1\n"


def test_average_precision_by_hand() -> None:
    result = corrected_measure(read_run("".join(RUNS.values())), read_qrels(QRELS),
                               read_run(NEW), depth=1, measure="map")
    rows = result.per_run.set_index("run_tag")
    # A left out: qrels less a (num_rel 3): A's AP (1/2) / 3 = 1/6. Fitted on B and C under
    # those qrels: B 2/3 (ranks 1, 2 of 3), without b (1/2) / 2 = 1/4: drop 5/12, C alike
    assert rows.loc["A", "score_plain"] == pytest.approx(1 / 6)
    assert rows.loc["A", "score_corrected"] == pytest.approx(1 / 6 + 5 / 12)
    assert rows.loc["A", "score_full"] == pytest.approx(1 / 2)
    # N: (1/2) / 4 = 1/8, shifted by the pooled runs' mean drop 1/2 - 1/6 = 1/3
    assert rows.loc["N", "score_corrected"] == pytest.approx(1 / 8 + 1 / 3)
    overall = result.overall()
    assert overall["measure"] == "map"
    assert overall["mae_plain"] == pytest.approx(1 / 3)
    assert overall["mae_corrected"] == pytest.approx(1 / 12)


def test_utility_and_small_pools_are_refused() -> None:
    runs, qrels = read_run("".join(RUNS.values())), read_qrels(QRELS)
    with pytest.raises(PooltoolError, match="not a fraction"):
        corrected_measure(runs, qrels, None, 1, "utility")
    with pytest.raises(PooltoolError, match="at least three pooled runs"):
        corrected_measure(runs[runs["run_tag"] != "C"], qrels, None, 1, "map")


@pytest.fixture
def db(tmp_path: Path) -> str:
    for tag, text in RUNS.items():
        (tmp_path / f"{tag}.run").write_text(text)
    (tmp_path / "N.run").write_text(NEW)
    (tmp_path / "qrels.txt").write_text(QRELS)
    db = str(tmp_path / "store.db")
    for args in (["init"], ["add-runs", *(str(tmp_path / f"{t}.run") for t in RUNS)],
                 ["pool", "--depth", "1"],
                 ["import-qrels", str(tmp_path / "qrels.txt"), "--version", "v1"]):
        assert CliRunner().invoke(cli, ["--db", db, *args]).exit_code == 0
    return db


def test_cli_webber_park_of_a_measure(db: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", db, "bias", "-m", "AP", "--correct", "webber-park",
                                      "--version", "v1", "--new", str(tmp_path / "N.run"),
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    schema = json.loads((ROOT / "schemas" / "bias-correction-v1.json").read_text())
    jsonschema.validate(document, schema)
    rows = {row["run_tag"]: row for row in document["per_run"]}
    assert rows["N"]["score_corrected"] == pytest.approx(1 / 8 + 1 / 3)
    assert document["options"]["measure"] == "AP"


@pytest.mark.parametrize("method", ["lipani", "webber-park-similar"])
def test_cli_corrections_for_p_and_recall_only_say_why(db: str, method: str) -> None:
    result = CliRunner().invoke(cli, ["--db", db, "bias", "-m", "map", "--correct", method])
    assert result.exit_code != 0
    line = result.output.strip().splitlines()[-1]
    assert line.startswith(f"Error: {method} (") and "only, not 'map'" in line
