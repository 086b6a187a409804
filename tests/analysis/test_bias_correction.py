"""Bias-corrected scores (Webber and Park 2009; Lipani, Lupu and Hanbury 2015): formulas
on hand-made pools, and leave-one-run-out validation on TREC-COVID round 1. The comparison
with Lipani's reference code (PoolBiasEstimators) is in test_bias_correction_reference.py."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.analysis.bias import leave_one_out
from pooltool.analysis.bias_correction import METHODS, corrected_scores, estimate_pool
from pooltool.cli import cli
from pooltool.cli.analysis import CORRECTIONS
from pooltool.errors import PooltoolError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.ranking import order_run


def _runs(ranked: dict[str, list[str]]) -> pd.DataFrame:
    rows = [(tag, "1", docno, rank, 10.0 - rank) for tag, docs in ranked.items()
            for rank, docno in enumerate(docs, start=1)]
    return pd.DataFrame(rows, columns=["run_tag", "topic", "docno", "rank", "score"])


# Depth-2 pool of A, B, C; s is shared by A and C. Leave-one-out: A loses a1 (relevant,
# P@2 1 -> .5), B loses b1, b2 (not relevant, 0 -> 0), C loses c1 (relevant, 1 -> .5):
# mean drop 1/3.
POOLED = {"A": ["a1", "s"], "B": ["b1", "b2"], "C": ["c1", "s"]}
QRELS = pd.DataFrame({"topic": "1", "docno": ["a1", "b1", "b2", "c1", "s"],
                      "grade": [1, 0, 0, 1, 1]})
NEW = _runs({"N": ["n1", "s"]})  # P@2 .5, unjudged@2 .5


def test_the_pool_estimate_by_hand() -> None:
    estimate = estimate_pool(order_run(_runs(POOLED)), QRELS, depth=2, k=2, level=1,
                             measure="P")
    assert estimate.drop.to_dict() == {"A": 0.5, "B": 0.0, "C": 0.5}


@pytest.mark.parametrize(("method", "similar", "expected"), [
    ("webber-park", 3, 0.5 + 1 / 3),
    ("webber-park-similar", 1, 1.0),   # A and C share s with N; the tie goes to A (drop .5)
    ("webber-park-similar", 3, 0.5 + 1 / 3),
    ("lipani", 3, 0.5),   # N re-ranks no pooled run's top 2: no change, lambda 0
])
def test_a_new_runs_correction_by_hand(method: str, similar: int, expected: float) -> None:
    result = corrected_scores(order_run(_runs(POOLED)), QRELS, NEW, depth=2, k=2,
                              method=method, similar=similar)
    new = result.per_run.set_index("run_tag").loc["N"]
    assert (new["scored_as"], new["P_plain"], new["unjudged"]) == ("new", 0.5, 0.5)
    assert new["P_corrected"] == pytest.approx(expected)


def test_a_left_out_run_is_fitted_on_the_others_alone() -> None:
    # A left out: a1 leaves the qrels (P@2 .5). Among B and C, s is C's alone, so C's
    # drop is 1 and B's 0: A's corrected P@2 is .5 + .5 = 1, its full-qrels P@2.
    result = corrected_scores(order_run(_runs(POOLED)), QRELS, None, depth=2, k=2,
                              method="webber-park")
    row = result.per_run.set_index("run_tag").loc["A"]
    assert (row["scored_as"], row["P_plain"], row["P_corrected"], row["P_full"]) == (
        "left out", 0.5, 1.0, 1.0)


def test_methods_refuse_the_measures_they_do_not_define() -> None:
    with pytest.raises(PooltoolError, match=r"lipani \(Lipani, Lupu and Hanbury 2015\) is "
                                            r"defined for P@k only, not recall@k; for "
                                            r"recall@k use webber-park or webber-park-similar"):
        corrected_scores(order_run(_runs(POOLED)), QRELS, None, 2, 2, "lipani", "recall")
    with pytest.raises(PooltoolError, match="unknown correction 'wp'"):
        corrected_scores(order_run(_runs(POOLED)), QRELS, None, 2, 2, "wp")
    with pytest.raises(PooltoolError, match="at least three pooled runs"):
        corrected_scores(order_run(_runs({"A": ["a1"], "B": ["b1"]})), QRELS, None, 1, 1,
                         "webber-park")


def test_the_command_offers_every_method() -> None:
    assert CORRECTIONS == tuple(METHODS)


POOLED_COVID = ["BBGhelani2", "OHSU_RUN2", "T5R1", "UIowaS_Run3", "bm25_baseline",
                "ixa-ir-filter-query", "run1", "sab20.1.meta.docs", "sheikh_bm25_all",
                "smith.rm3", "udel_fang_run2", "uogTrDPH_QE"]


@pytest.fixture(scope="module")
def covid(shared_data: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    folder = shared_data / "trec_covid_r1"
    runs = pd.concat([read_run(p) for p in sorted((folder / "runs").iterdir())],
                     ignore_index=True)
    pooled = order_run(runs[runs["run_tag"].isin(POOLED_COVID)])
    return pooled, runs[~runs["run_tag"].isin(POOLED_COVID)], read_qrels(folder /
                                                                        "qrels-rnd1.txt")


@pytest.mark.parametrize(("method", "measure", "figures"), [
    ("webber-park", "P", (0.1469, 0.0406, 0.8182, 0.7879)),
    # the other methods' reproductions on TREC-COVID run with the slow tests (CI);
    # test_bias_correction_reference checks lipani against its reference in any run
    pytest.param("webber-park-similar", "P", (0.1469, 0.0357, 0.8182, 0.7879),
                 marks=pytest.mark.slow),
    pytest.param("lipani", "P", (0.1469, 0.0870, 0.8182, 0.8788), marks=pytest.mark.slow),
    pytest.param("webber-park", "recall", (0.0176, 0.0049, 0.8485, 0.8182),
                 marks=pytest.mark.slow),
    pytest.param("webber-park-similar", "recall", (0.0176, 0.0044, 0.8485, 0.8182),
                 marks=pytest.mark.slow),
])
def test_trec_covid_leave_one_run_out_at_10(covid: tuple[pd.DataFrame, ...], method: str,
                                            measure: str, figures: tuple[float, ...]) -> None:
    pooled, new, qrels = covid
    result = corrected_scores(pooled, qrels, new, depth=7, k=10, method=method,
                              measure=measure)
    overall = result.overall()
    assert (overall["mae_plain"], overall["mae_corrected"], overall["tau_plain"],
            overall["tau_corrected"]) == pytest.approx(figures, abs=5e-5)
    left_out = result.per_run[result.per_run["scored_as"] == "left out"].set_index("run_tag")
    bias = leave_one_out(pooled, qrels, depth=7, k=10).per_run.set_index("run_tag")
    assert left_out[f"{measure}_plain"].to_dict() == pytest.approx(
        bias[f"{measure}_loo"].to_dict())   # the plain score is the leave-out score
    assert left_out[f"{measure}_full"].to_dict() == pytest.approx(bias[measure].to_dict())


def test_trec_covid_new_runs_shift_by_the_mean_drop(covid: tuple[pd.DataFrame, ...]) -> None:
    pooled, new, qrels = covid
    result = corrected_scores(pooled, qrels, new, depth=7, k=10, method="webber-park")
    rows = result.per_run[result.per_run["scored_as"] == "new"].set_index("run_tag")
    mean_drop = leave_one_out(pooled, qrels, depth=7, k=10).per_run["P_drop"].mean()
    assert sorted(rows.index) == ["BM25R2", "CSIROmedNIR", "run2"]
    assert (rows["P_corrected"] - rows["P_plain"]).tolist() == pytest.approx([mean_drop] * 3)
    assert rows.loc["run2", ["P_plain", "unjudged"]].tolist() == pytest.approx(
        [0.6267, 0.1967], abs=5e-5)


def test_the_cli_refuses_recall_for_lipani(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "init"]).exit_code == 0
    result = runner.invoke(cli, ["--db", db, "bias", "--correct", "lipani", "--measure",
                                 "recall"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: lipani (Lipani, Lupu and Hanbury 2015) is "
                                    "defined for P@k only")


@pytest.mark.slow
def test_trec_covid_leave_one_group_out(covid: tuple[pd.DataFrame, ...]) -> None:
    """BBGhelani2 and OHSU_RUN2 made one group: both lose what either alone pooled,
    and neither is fitted on the other."""
    pooled, _, qrels = covid
    groups = {"BBGhelani2": "x", "OHSU_RUN2": "x"}
    result = corrected_scores(pooled, qrels, None, depth=7, k=10,
                              method="webber-park-similar", groups=groups)
    bias = leave_one_out(pooled, qrels, depth=7, k=10, groups=groups).per_run
    plain = result.per_run.set_index("run_tag")["P_plain"]
    assert plain.to_dict() == pytest.approx(bias.set_index("run_tag")["P_loo"].to_dict())
    overall = result.overall()
    assert (overall["mae_plain"], overall["mae_corrected"]) == pytest.approx(
        (0.1483, 0.0331), abs=5e-5)


# Depth-1 pool of A, B, C, each alone pooling its relevant top document: every leave-out
# P@1 drops from 1 to 0. N's top document s is relevant (judged outside the pool).
ALONE = {"A": ["a"], "B": ["b"], "C": ["c"]}
ALONE_QRELS = pd.DataFrame({"topic": "1", "docno": ["a", "b", "c", "s"], "grade": 1})


def test_a_correction_above_1_is_clipped_and_named() -> None:
    result = corrected_scores(order_run(_runs(ALONE)), ALONE_QRELS, _runs({"N": ["s"]}),
                              depth=1, k=1, method="webber-park")
    rows = result.per_run.set_index("run_tag")
    # N: P@1 1 plus the mean drop 1 = 2, clipped to 1. A left out: 0 plus B's and C's
    # drop (1 each, under the qrels without a) = 1, within the bound.
    assert (rows.loc["N", "P_plain"], rows.loc["N", "P_corrected"]) == (1.0, 1.0)
    assert rows["clipped"].to_dict() == {"A": False, "B": False, "C": False, "N": True}
    assert result.clipped == {("N", "new"): 2.0}
    assert rows.loc[["A", "B", "C"], "P_corrected"].tolist() == [1.0, 1.0, 1.0]


def test_the_clip_is_said_on_stderr(tmp_path: Path, store_address: str) -> None:
    for tag, docs in {**ALONE, "N": ["s"]}.items():
        (tmp_path / f"{tag}.run").write_text(f"1 Q0 {docs[0]} 1 1 {tag}\n")
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n1 0 b 1\n1 0 c 1\n1 0 s 1\n")
    steps = [["init"], ["add-runs", *(str(tmp_path / f"{t}.run") for t in "ABC")],
             ["pool", "--depth", "1"], ["import-qrels", str(tmp_path / "qrels.txt"), "--version", "v1"]]
    for args in steps:
        assert CliRunner().invoke(cli, ["--db", store_address, *args]).exit_code == 0
    result = CliRunner().invoke(cli, ["--db", store_address, "bias", "-k", "1", "--version",
                                      "v1", "--correct", "webber-park", "--new",
                                      str(tmp_path / "N.run"), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert ("note: run N (new): corrected P@1 2.0000 clipped to 1 (P@k lies in 0..1; MAE and "
            "tau use the clipped value)\n") in result.stderr
