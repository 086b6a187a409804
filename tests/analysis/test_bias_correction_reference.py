"""pooltool's bias corrections against Lipani's PoolBiasEstimators, the reference code of
Lipani, Lupu and Hanbury (SIGIR 2015), github.com/aldolipani/PoolBiasEstimators at commit
ce84a2d.

Two oracles, on TREC-COVID round 1 (P@10 and Recall@10, pool depth 7):

* THEIRS: their Scala code itself, run on the JVM (Debian's scala 2.11.12, the version
  their build.sbt names) by tests/oracle/pbe_driver/run.sh, which compiles the files
  the estimators use and prints every score with 10 decimals. The numbers below are
  that output; run.sh reproduces them.
* tests/oracle/poolbiasestimators.py: their formulas transcribed to plain Python from
  their source, line by line (32-bit scores and 4-decimal rounding included), with
  nothing from pooltool. It reproduces THEIRS to 1e-9 here, and on a hand-made case.

Their tool keeps only the judgments of the pool it rebuilds from the runs given
(``DepthNPool``: each run's top 7), and their pool analyser (``PoolAnalyzer``, mode)
keeps 11 of the 12 stored pooled runs: ixa-ir-filter-query has an unjudged document
in a top 7 (NIST pooled 56 runs; its order differs there), so it does not count as
pooled. pooltool is given the same: those 11 runs and qrels-rnd1 cut to their depth-7
pool (1483 judgments). With all of qrels-rnd1, as README shows, the scores differ
because judgments from the 44 runs not stored here stay in.

Where compared (all 11 runs left out in turn, and the 3 runs outside the pool):
``webber-park`` P@10 and Recall@10 equal their ``WebberOnRuns`` to 1e-9, and the plain
and full-qrels scores their ``Pool`` and ``True``; ``lipani`` P@10 is within 5e-5 of
their ``Lipani``: their code rounds each P@10 and anti-precision to 4 decimals before
subtracting (``TRECEval.computeMetric``), pooltool does not; with that rounding off,
the transcription equals pooltool to 1e-12. ``webber-park-similar`` has no counterpart
there. MAE and Kendall's tau-b computed from THEIRS equal pooltool's.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import pytest
from oracle import poolbiasestimators as pbe

from pooltool.analysis.bias_correction import corrected_scores
from pooltool.analysis.stability import kendall_tau_b
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.ranking import order_run

POOLED = ["BBGhelani2", "OHSU_RUN2", "T5R1", "UIowaS_Run3", "bm25_baseline", "run1",
          "sab20.1.meta.docs", "sheikh_bm25_all", "smith.rm3", "udel_fang_run2", "uogTrDPH_QE"]
NEW = ["BM25R2", "CSIROmedNIR", "run2"]

# THEIRS: run.sh output ("l1ro": the run left out, the estimator on the other 10).
TRUE_P = {"BBGhelani2": 0.6666666667, "OHSU_RUN2": 0.5766666667, "T5R1": 0.5333333333,
          "UIowaS_Run3": 0.5466666667, "bm25_baseline": 0.4300000000, "run1": 0.6533333333,
          "sab20.1.meta.docs": 0.6500000000, "sheikh_bm25_all": 0.3633333333,
          "smith.rm3": 0.5233333333, "udel_fang_run2": 0.3933333333,
          "uogTrDPH_QE": 0.5533333333}
POOL_P = {"BBGhelani2": 0.3966666667, "OHSU_RUN2": 0.4566666667, "T5R1": 0.3400000000,
          "UIowaS_Run3": 0.4633333333, "bm25_baseline": 0.2900000000, "run1": 0.4500000000,
          "sab20.1.meta.docs": 0.5433333333, "sheikh_bm25_all": 0.1866666667,
          "smith.rm3": 0.3733333333, "udel_fang_run2": 0.2733333333,
          "uogTrDPH_QE": 0.4233333333,
          "BM25R2": 0.2466666667, "CSIROmedNIR": 0.4666666667, "run2": 0.4700000000}
WEBBER_P = {"BBGhelani2": 0.5473333333, "OHSU_RUN2": 0.6206666667, "T5R1": 0.4956666667,
            "UIowaS_Run3": 0.6333333333, "bm25_baseline": 0.4543333333, "run1": 0.6100000000,
            "sab20.1.meta.docs": 0.7120000000, "sheikh_bm25_all": 0.3436666667,
            "smith.rm3": 0.5343333333, "udel_fang_run2": 0.4353333333,
            "uogTrDPH_QE": 0.5873333333,
            "BM25R2": 0.4006060606, "CSIROmedNIR": 0.6206060606, "run2": 0.6239393939}
# sheikh_bm25_all: lambda <= 0, no correction (their LipaniV2, without the test, gives .3282)
LIPANI_P = {"BBGhelani2": 0.5266564000, "OHSU_RUN2": 0.5154574000, "T5R1": 0.4275684000,
            "UIowaS_Run3": 0.5241299780, "bm25_baseline": 0.3848644230, "run1": 0.5309110660,
            "sab20.1.meta.docs": 0.5890611000, "sheikh_bm25_all": 0.1867000000,
            "smith.rm3": 0.4985496000, "udel_fang_run2": 0.3972960000,
            "uogTrDPH_QE": 0.4928920000,
            "BM25R2": 0.4647545455, "CSIROmedNIR": 0.5461643736, "run2": 0.5209069600}
TRUE_RECALL = {"BBGhelani2": 0.2744766848, "OHSU_RUN2": 0.2276419239, "T5R1": 0.2111426346,
               "UIowaS_Run3": 0.2110900843, "bm25_baseline": 0.1669519911,
               "run1": 0.2595899108, "sab20.1.meta.docs": 0.2590822825,
               "sheikh_bm25_all": 0.1331345923, "smith.rm3": 0.2214714472,
               "udel_fang_run2": 0.1523944465, "uogTrDPH_QE": 0.2171919151}
WEBBER_RECALL = {"BBGhelani2": 0.2382430369, "OHSU_RUN2": 0.2434785881, "T5R1": 0.2080857658,
                 "UIowaS_Run3": 0.2429258108, "bm25_baseline": 0.1754496934,
                 "run1": 0.2482075651, "sab20.1.meta.docs": 0.2826260466,
                 "sheikh_bm25_all": 0.1293326470, "smith.rm3": 0.2302432890,
                 "udel_fang_run2": 0.1647375164, "uogTrDPH_QE": 0.2311146408,
                 "BM25R2": 0.1498173578, "CSIROmedNIR": 0.2319145925, "run2": 0.2435796663}


def _left_out(scores: dict[str, float]) -> dict[str, float]:
    return {tag: scores[tag] for tag in POOLED}


def _new(scores: dict[str, float]) -> dict[str, float]:
    return {tag: scores[tag] for tag in NEW}


@pytest.fixture(scope="module")
def frames(shared_data: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """pooltool's input: the 11 runs ordered, the 3 new ones, qrels cut to the pool."""
    folder = shared_data / "trec_covid_r1"
    runs = pd.concat([read_run(folder / "runs" / tag) for tag in POOLED + NEW],
                     ignore_index=True)
    pooled = order_run(runs[runs["run_tag"].isin(POOLED)])
    pool = pooled.loc[pooled["trec_rank"] <= 7, ["topic", "docno"]].drop_duplicates()
    qrels = read_qrels(folder / "qrels-rnd1.txt").merge(pool, on=["topic", "docno"])
    assert len(qrels) == 1483
    return pooled, runs[runs["run_tag"].isin(NEW)], qrels


@pytest.fixture(scope="module")
def transcribed(shared_data: Path) -> tuple[dict[str, pbe.Run], dict[str, pbe.Run], pbe.Qrels]:
    folder = shared_data / "trec_covid_r1"
    return ({tag: pbe.read_run(folder / "runs" / tag) for tag in POOLED},
            {tag: pbe.read_run(folder / "runs" / tag) for tag in NEW},
            pbe.read_qrels(folder / "qrels-rnd1.txt"))


def _pooltool(frames: tuple[pd.DataFrame, ...], method: str, measure: str) -> pd.DataFrame:
    pooled, new, qrels = frames
    return corrected_scores(pooled, qrels, new, depth=7, k=10, method=method,
                            measure=measure).per_run.set_index("run_tag")


@pytest.mark.parametrize(("measure", "true", "webber"), [
    ("P", TRUE_P, WEBBER_P),
    pytest.param("recall", TRUE_RECALL, WEBBER_RECALL, marks=pytest.mark.slow)])
def test_webber_park_equals_their_webber_on_runs(frames: tuple[pd.DataFrame, ...], measure: str,
                                                 true: dict[str, float],
                                                 webber: dict[str, float]) -> None:
    rows = _pooltool(frames, "webber-park", measure)
    assert rows[f"{measure}_corrected"].to_dict() == pytest.approx(webber, abs=1e-9)
    left_out = rows.loc[POOLED]
    assert left_out[f"{measure}_full"].to_dict() == pytest.approx(true, abs=1e-9)
    if measure == "P":
        assert rows["P_plain"].to_dict() == pytest.approx(POOL_P, abs=1e-9)
    mae = sum(abs(webber[t] - true[t]) for t in POOLED) / len(POOLED)
    tau = kendall_tau_b([true[t] for t in POOLED], [webber[t] for t in POOLED])
    pooled, _, qrels = frames
    overall = corrected_scores(pooled, qrels, None, depth=7, k=10, method="webber-park",
                               measure=measure).overall()
    assert (overall["mae_corrected"], overall["tau_corrected"]) == pytest.approx((mae, tau))


@pytest.mark.slow  # lipani re-ranks 11 whole runs per left-out run
def test_lipani_is_theirs_but_for_their_rounding(frames: tuple[pd.DataFrame, ...]) -> None:
    rows = _pooltool(frames, "lipani", "P")
    assert rows["P_corrected"].to_dict() == pytest.approx(LIPANI_P, abs=5e-5)
    tau = kendall_tau_b([TRUE_P[t] for t in POOLED], [LIPANI_P[t] for t in POOLED])
    mine = rows.loc[POOLED, "P_corrected"]
    assert kendall_tau_b([TRUE_P[t] for t in POOLED], mine.tolist()) == pytest.approx(tau)


# the transcription is plain Python over whole runs (minutes): with the slow tests
@pytest.mark.slow
def test_the_transcription_reproduces_their_output(
        transcribed: tuple[dict[str, pbe.Run], dict[str, pbe.Run], pbe.Qrels]) -> None:
    pooled, new, qrels = transcribed
    for name, theirs in (("P", WEBBER_P), ("recall", WEBBER_RECALL)):
        estimate = functools.partial(pbe.webber_on_runs, name, 10)
        mine = pbe.leave_one_run_out(estimate, pooled, qrels=qrels, depth=7)
        mine |= {tag: estimate(run, pooled, qrels, 7) for tag, run in new.items()}
        assert mine == pytest.approx(theirs, abs=1e-9)
    lipani = pbe.leave_one_run_out(functools.partial(pbe.lipani, 10), pooled, qrels=qrels,
                                   depth=7)
    lipani |= {tag: pbe.lipani(10, run, pooled, qrels, 7) for tag, run in new.items()}
    assert lipani == pytest.approx(LIPANI_P, abs=1e-9)


@pytest.mark.slow
def test_without_their_rounding_the_transcription_is_pooltool(
        frames: tuple[pd.DataFrame, ...],
        transcribed: tuple[dict[str, pbe.Run], dict[str, pbe.Run], pbe.Qrels]) -> None:
    pooled, new, qrels = transcribed
    unrounded = {tag: pbe.lipani(10, run, pooled, qrels, 7, rounded=False)
                 for tag, run in new.items()}
    assert _new(_pooltool(frames, "lipani", "P")["P_corrected"].to_dict()) == pytest.approx(
        unrounded, abs=1e-12)
    assert unrounded != pytest.approx(_new(LIPANI_P), abs=1e-9)   # the rounding shows


# Hand-made: depth-2 pool of A, B, C (judged a1, s relevant; b1, b2, c1 not), k = 2.
# N = u, s, b1 (u unjudged): P@2 .5, AP@2 0, unjudged share .5. Re-ranked by N,
# A = a1, s, u becomes u, a1, s (u moves to N's rank 1): dP -.5, dAP 0;
# B = b1, b2, u becomes u, b2, b1: dP 0, dAP -.5; C = c1, s stays. Means: dP = dAP = -1/6,
# dk = 1/3; lambda = -1/6 * 0 + 1/6 * .5 > 0, so N's P@2 = .5 + .5 * 1/3 = 2/3.
HAND_RUNS = {"A": ["a1", "s", "u"], "B": ["b1", "b2", "u"], "C": ["c1", "s"]}
HAND_QRELS = {"a1": 1, "s": 1, "b1": 0, "b2": 0, "c1": 0}
HAND_NEW = ["u", "s", "b1"]


def test_lipani_by_hand_in_pooltool_and_in_the_transcription() -> None:
    def frame(tag: str, docs: list[str]) -> pd.DataFrame:
        return pd.DataFrame({"run_tag": tag, "topic": "1", "docno": docs,
                             "score": [10.0 - i for i in range(len(docs))]})

    pooled = order_run(pd.concat([frame(t, d) for t, d in HAND_RUNS.items()]))
    qrels = pd.DataFrame({"topic": "1", "docno": list(HAND_QRELS),
                          "grade": list(HAND_QRELS.values())})
    rows = corrected_scores(pooled, qrels, frame("N", HAND_NEW), depth=2, k=2,
                            method="lipani").per_run.set_index("run_tag")
    assert rows.loc["N", "P_corrected"] == pytest.approx(2 / 3)

    def run(docs: list[str]) -> pbe.Run:
        return {"1": [(d, i) for i, d in enumerate(docs, start=1)]}

    transcribed = pbe.lipani(2, run(HAND_NEW), {t: run(d) for t, d in HAND_RUNS.items()},
                             {"1": HAND_QRELS}, depth=2)
    assert transcribed == pytest.approx(2 / 3, abs=1e-4)   # .6667: their 4-decimal rounding
