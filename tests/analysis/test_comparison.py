"""pooltool compare: paired tests between runs against scipy and an enumeration, the hole
verdict on constructed cases, and the command (JSON schema-valid, bad input)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from pooltool.analysis.comparison import compare_runs
from pooltool.cli import cli
from pooltool.errors import InvalidArgument

ROOT = Path(__file__).resolve().parents[2]


def frame(runs: dict[str, list[float]], holes: dict[str, tuple[list[float], list[float]]]
          | None = None) -> pd.DataFrame:
    """run_tag, topic, value, low, high rows; without holes every low and high is NaN."""
    rows = []
    for tag, values in runs.items():
        low, high = holes[tag] if holes else ([np.nan] * len(values), [np.nan] * len(values))
        rows += [{"run_tag": tag, "topic": str(i + 1), "value": v, "low": lo, "high": hi}
                 for i, (v, lo, hi) in enumerate(zip(values, low, high, strict=True))]
    return pd.DataFrame(rows)


A = [0.61, 0.42, 0.55, 0.70, 0.38, 0.66, 0.49, 0.58]
B = [0.50, 0.40, 0.41, 0.62, 0.39, 0.51, 0.44, 0.47]


def test_t_p_value_is_scipys() -> None:
    result = compare_runs(frame({"B": B, "A": A}), "P@10", "t", "none")
    pair = result.pairs.iloc[0]
    assert (pair["run_a"], pair["run_b"]) == ("A", "B")  # the better first
    assert pair["p_value"] == pytest.approx(stats.ttest_rel(A, B).pvalue, rel=1e-12)
    assert pair["difference"] == pytest.approx(np.mean(A) - np.mean(B))
    assert pair["hole"] == "no hole" and np.isnan(pair["p_worst"])
    assert result.seed is None and result.samples is None


def test_randomization_is_exact_by_enumeration() -> None:
    d = np.array(A) - np.array(B)
    observed = abs(d.sum())
    flips = [abs(float(np.dot(signs, d))) for signs in itertools.product((1, -1), repeat=len(d))]
    expected = sum(f >= observed - 1e-12 for f in flips) / 2 ** len(d)
    result = compare_runs(frame({"A": A, "B": B}), "P@10", "randomization", "none")
    assert result.pairs.iloc[0]["p_value"] == pytest.approx(expected, rel=1e-12)
    assert result.seed is None  # nothing drawn: all 2^8 sign vectors counted


def test_bootstrap_is_seeded() -> None:
    values = frame({"A": A, "B": B})
    first = compare_runs(values, "P@10", "bootstrap", "none", samples=2000, seed=3)
    again = compare_runs(values, "P@10", "bootstrap", "none", samples=2000, seed=3)
    assert first.pairs.iloc[0]["p_value"] == again.pairs.iloc[0]["p_value"]
    assert (first.seed, first.samples) == (3, 2000)


def test_holm_over_three_pairs() -> None:
    c = [0.30, 0.25, 0.28, 0.45, 0.20, 0.33, 0.30, 0.22]
    result = compare_runs(frame({"A": A, "B": B, "C": c}), "P@10", "t", "holm")
    raw = {("A", "B"): stats.ttest_rel(A, B).pvalue, ("A", "C"): stats.ttest_rel(A, c).pvalue,
           ("B", "C"): stats.ttest_rel(B, c).pvalue}
    ordered = sorted(raw.values())  # Holm 1979: 3 p, 2 p, 1 p, made monotone
    steps = [min(1.0, 3 * ordered[0]), min(1.0, 2 * ordered[1]), min(1.0, ordered[2])]
    steps = list(np.maximum.accumulate(steps))
    adjusted = dict(zip(sorted(raw, key=raw.__getitem__), steps, strict=True))
    for row in result.pairs.itertuples():
        assert row.p_value == pytest.approx(adjusted[(row.run_a, row.run_b)], rel=1e-12)


def test_tukey_of_two_runs_is_the_paired_t_test() -> None:
    # two runs, topics as blocks: q = sqrt(2) |t| (Tukey 1953), so the same p-value
    result = compare_runs(frame({"A": A, "B": B}), "P@10", "t", "tukey")
    assert result.pairs.iloc[0]["p_value"] == pytest.approx(stats.ttest_rel(A, B).pvalue,
                                                            rel=1e-6)
    with pytest.raises(InvalidArgument, match="Tukey's HSD is a test of its own"):
        compare_runs(frame({"A": A, "B": B}), "P@10", "bootstrap", "tukey")


def test_a_hole_that_reverses_the_difference() -> None:
    # A is better as judged, and its value cannot move (no unjudged documents); B's
    # unjudged documents could lift every topic by 0.3: at A's lows and B's highs B is
    # better on every topic, significantly
    holes = {"A": (A, A), "B": (B, [b + 0.3 for b in B])}
    pair = compare_runs(frame({"A": A, "B": B}, holes), "P@10", "t", "none").pairs.iloc[0]
    assert pair["verdict"] == "a" and pair["hole"] == "could reverse"
    assert pair["difference_worst"] == pytest.approx(np.mean(A) - np.mean(B) - 0.3)
    assert pair["p_worst"] == pytest.approx(
        stats.ttest_rel(A, [b + 0.3 for b in B]).pvalue, rel=1e-12)
    assert "judging the unjudged documents could change that" in pair["sentence"]


def test_a_hole_too_small_to_reverse_it() -> None:
    # B could gain at most 0.01 per topic: A stays significantly better at both ends
    holes = {"A": ([a - 0.005 for a in A], A), "B": (B, [b + 0.01 for b in B])}
    pair = compare_runs(frame({"A": A, "B": B}, holes), "P@10", "t", "none").pairs.iloc[0]
    expected = stats.ttest_rel([a - 0.005 for a in A], [b + 0.01 for b in B]).pvalue
    assert pair["p_worst"] == pytest.approx(expected, rel=1e-12) and expected < 0.05
    assert pair["verdict"] == "a" and pair["hole"] == "holds"
    assert "the same at both ends of the holes" in pair["sentence"]


def test_runs_on_different_topics_are_refused() -> None:
    values = frame({"A": A, "B": B})
    with pytest.raises(InvalidArgument, match="not scored on the same topics"):
        compare_runs(values.iloc[1:], "P@10")


QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n3 0 e 1\n"
RUN_X = "1 Q0 a 1 9 X\n1 Q0 b 2 8 X\n2 Q0 c 1 9 X\n2 Q0 d 2 8 X\n3 Q0 e 1 9 X\n"
RUN_Y = "1 Q0 b 1 9 Y\n1 Q0 u 2 8 Y\n2 Q0 v 1 9 Y\n2 Q0 c 2 8 Y\n3 Q0 w 1 9 Y\n4 Q0 a 1 1 Y\n"


def test_command_json_validates(tmp_path: Path) -> None:
    for name, text in (("qrels", QRELS), ("x.run", RUN_X), ("y.run", RUN_Y)):
        (tmp_path / name).write_text(text)
    result = CliRunner().invoke(cli, ["compare", str(tmp_path / "x.run"), str(tmp_path / "y.run"),
                                      "--qrels", str(tmp_path / "qrels"), "-m", "P@2",
                                      "--test", "randomization", "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.validate(document, json.loads((ROOT / "schemas" / "compare-v1.json").read_text()))
    # P@2 per topic: X 1/2, 1, 1/2 (topic 3 has one document: 1/2); Y 0, 1/2, 0;
    # Y's u, v, w are unjudged: at X's lows and Y's highs Y gets 1/2, 1, 1/2
    pair = document["pairs"][0]
    assert (pair["run_a"], pair["run_b"]) == ("X", "Y")
    assert pair["difference"] == pytest.approx(0.5)
    assert pair["difference_worst"] == pytest.approx(0.0)
    # three topics, every difference 1/2: of the 8 sign flips only all + and all - reach 3/2
    assert pair["p_value"] == pytest.approx(2 / 8)
    assert [r["run_tag"] for r in document["runs"]] == ["X", "Y"]


def test_command_refuses_a_measure_with_several_values(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "x.run").write_text(RUN_X)
    result = CliRunner().invoke(cli, ["compare", str(tmp_path / "x.run"), str(tmp_path / "x.run"),
                                      "--qrels", str(tmp_path / "qrels"), "-m", "P.5,10"])
    assert result.exit_code != 0
    assert result.output.strip().splitlines()[-1].startswith("Error: measure 'P.5,10' gives 2")
