"""pooltool recall against pytrec_eval-terrier (trec_eval 9.x inside) on all 15 TREC-COVID runs.

pytrec_eval skips a qrels topic the run lacks, as pooltool does without -c;
with -c pooltool adds those topics as zeros, so its per-topic rows are
pytrec_eval's plus zero rows, and its means divide by all qrels topics.
pytrec_eval keeps scores as C float: values are compared to 1e-6.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.measures import evaluate_recall_files
from pooltool.measures.oracle import ir_measures_judged, pytrec_eval_scores

KS = (5, 10, 100, 1000)
RUNS = ["BBGhelani2", "BM25R2", "CSIROmedNIR", "OHSU_RUN2", "T5R1", "UIowaS_Run3",
        "bm25_baseline", "ixa-ir-filter-query", "run1", "run2", "sab20.1.meta.docs",
        "sheikh_bm25_all", "smith.rm3", "udel_fang_run2", "uogTrDPH_QE"]
COLUMNS = ["num_ret", "num_rel", "num_rel_ret", *[f"{m}@{k}" for m in ("recall", "P") for k in KS]]


@pytest.fixture(scope="module")
def covid(shared_data: Path) -> tuple[Path, pd.DataFrame]:
    folder = shared_data / "trec_covid_r1"
    return folder, read_qrels(folder / "qrels-rnd1.txt")


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("level", [1, 2])
def test_per_topic_and_means_match_pytrec_eval(covid, run: str, level: int) -> None:  # type: ignore[no-untyped-def]
    folder, qrels = covid
    path = folder / "runs" / run
    theirs = pytrec_eval_scores(read_run(path), qrels, KS, level).set_index("topic")
    for complete in (False, True):
        result = evaluate_recall_files([path], qrels, ks=KS, level=level, complete=complete)
        mine = result.per_topic.set_index("topic")
        scored = mine.loc[theirs.index, COLUMNS]
        np.testing.assert_allclose(scored.to_numpy(float), theirs[COLUMNS].to_numpy(float),
                                   atol=1e-6, rtol=0)
        extra = mine.drop(index=theirs.index)
        assert complete or extra.empty
        assert (extra[["num_ret", "num_rel_ret", "recall@10", "P@10", "unjudged@10"]] == 0).all().all()
        count = 30 if complete else len(theirs)
        for k in KS:
            row = result.summary.set_index("k").loc[k]
            assert row["num_q"] == count
            assert row["recall"] == pytest.approx(theirs[f"recall@{k}"].sum() / count, abs=1e-6)
            assert row["P"] == pytest.approx(theirs[f"P@{k}"].sum() / count, abs=1e-6)


def test_run_missing_topics_is_reported(covid) -> None:  # type: ignore[no-untyped-def]
    """A run cut to 25 of the 30 qrels topics: the five others are named, pytrec_eval skips them too."""
    folder, qrels = covid
    run = read_run(folder / "runs" / "T5R1")
    cut = run[~run["topic"].isin(["3", "14", "15", "26", "30"])]
    from pooltool.measures import evaluate_recall

    result = evaluate_recall(cut, qrels)
    assert result.missing_topics == {"T5R1": ["14", "15", "26", "3", "30"]}
    assert len(result.per_topic) == 25
    assert len(pytrec_eval_scores(cut, qrels, (10,))) == 25


@pytest.mark.parametrize("run", ["BBGhelani2", "OHSU_RUN2", "T5R1", "udel_fang_run2",
                                 "sheikh_bm25_all", "BM25R2"])
def test_judged_matches_ir_measures_on_tie_free_runs(covid, run: str) -> None:  # type: ignore[no-untyped-def]
    """These runs have no score ties, so ir_measures' docno-ascending tie order cannot matter."""
    folder, qrels = covid
    path = folder / "runs" / run
    theirs = ir_measures_judged(read_run(path), qrels, KS).set_index("topic")
    mine = evaluate_recall_files([path], qrels, ks=KS).per_topic.set_index("topic")
    columns = [f"judged@{k}" for k in KS]
    np.testing.assert_allclose(mine.loc[theirs.index, columns].to_numpy(float),
                               theirs[columns].to_numpy(float), atol=1e-12)


def test_file_path_equals_frame_path_on_every_shared_run(shared_data: Path) -> None:
    """The bytes fast path (TREC-COVID runs) and the general path give identical frames."""
    from pooltool.measures import evaluate_recall

    folder = shared_data / "trec_covid_r1"
    qrels = read_qrels(folder / "qrels-rnd1.txt")
    paths = sorted((folder / "runs").iterdir())
    by_file = evaluate_recall_files(paths, qrels, ks=KS, complete=True, workers=1)
    frames = pd.concat([read_run(p) for p in paths], ignore_index=True)
    by_frame = evaluate_recall(frames, qrels, ks=KS, complete=True)
    pd.testing.assert_frame_equal(by_file.per_topic, by_frame.per_topic)
    pd.testing.assert_frame_equal(by_file.summary, by_frame.summary)
