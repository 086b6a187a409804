"""The Python API for notebooks: ``pooltool.evaluate`` and ``pooltool.open_store``.

Values are checked against ir_measures (pytrec_eval, trec_eval's C code) and, for the
unjudged rate and the hole of P@10, against a count made here from the files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ir_measures
import pandas as pd
import pytest

import pooltool
from pooltool.demo import build_demo
from pooltool.errors import FrameError, InvalidArgument, PooltoolError, StoreError

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "demo"
BM25 = DEMO / "runs" / "bm25.run"
QRELS = DEMO / "qrels.txt"


def trec_frame(path: Path, names: list[str]) -> pd.DataFrame:
    return pd.read_csv(path, sep=r"\s+", header=None, names=names, dtype=str)


@pytest.fixture(scope="module")
def run_lines() -> pd.DataFrame:
    frame = trec_frame(BM25, ["topic", "q0", "docno", "rank", "score", "run_tag"])
    return frame.assign(score=frame["score"].astype(float))


@pytest.fixture(scope="module")
def qrels_lines() -> pd.DataFrame:
    frame = trec_frame(QRELS, ["topic", "iteration", "docno", "grade"])
    return frame.assign(grade=frame["grade"].astype(int))


@pytest.fixture(scope="module")
def scores() -> pd.DataFrame:
    return pooltool.evaluate(BM25, QRELS, ["nDCG@10", "AP", "P@10"])


def test_the_values_are_trec_evals(scores: pd.DataFrame, run_lines: pd.DataFrame,
                                   qrels_lines: pd.DataFrame) -> None:
    qrels = qrels_lines.rename(columns={"topic": "query_id", "docno": "doc_id",
                                        "grade": "relevance"})
    run = run_lines.rename(columns={"topic": "query_id", "docno": "doc_id"})
    expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.P @ 10], qrels, run)}
    topics = scores[scores["topic"] != "all"]
    assert len(topics) == len(expected) == 30
    for row in topics.itertuples():
        assert row.value == pytest.approx(expected[(row.topic, row.measure)], abs=1e-12)
    means = scores[scores["topic"] == "all"].set_index("measure")["value"]
    assert means["AP"] == pytest.approx(
        sum(v for (_, m), v in expected.items() if m == "AP") / 10, abs=1e-12)
    assert list(scores.columns) == ["run", "topic", "measure", "value", "unjudged", "low",
                                    "high"]
    assert set(scores["run"]) == {"bm25"}


def test_unjudged_and_the_hole_of_p_at_10(scores: pd.DataFrame, run_lines: pd.DataFrame,
                                          qrels_lines: pd.DataFrame) -> None:
    """trec_eval's order (score descending, ties by docno descending), counted here."""
    grades = {(t, d): g for t, d, g in qrels_lines[["topic", "docno", "grade"]].itertuples(
        index=False)}
    p10 = scores[(scores["measure"] == "P@10") & (scores["topic"] != "all")].set_index("topic")
    for topic, lines in run_lines.groupby("topic"):
        top = sorted(lines.itertuples(), key=lambda r: r.docno, reverse=True)
        top = sorted(top, key=lambda r: -r.score)[:10]
        got = [grades.get((str(topic), r.docno), -1) for r in top]
        relevant, unjudged = sum(g >= 1 for g in got), sum(g < 0 for g in got)
        row = p10.loc[str(topic)]
        assert (row["value"], row["unjudged"]) == pytest.approx((relevant / 10, unjudged / 10))
        assert (row["low"], row["high"]) == pytest.approx((relevant / 10,
                                                           (relevant + unjudged) / 10))


def test_the_fields_column_names_give_the_same_scores(scores: pd.DataFrame,
                                                      run_lines: pd.DataFrame,
                                                      qrels_lines: pd.DataFrame) -> None:
    pyterrier_run = run_lines.rename(columns={"topic": "qid"})[["qid", "docno", "score", "rank"]]
    pyterrier_qrels = qrels_lines.rename(columns={"topic": "qid", "grade": "label"}).assign(
        label=lambda f: f["label"].astype(float))  # PyTerrier's labels may be floats
    irm_run = run_lines.rename(columns={"topic": "query_id", "docno": "doc_id"}).assign(
        query_id=lambda f: f["query_id"].astype(int))  # integer topic ids become text
    irm_qrels = qrels_lines.rename(columns={"topic": "query_id", "docno": "doc_id",
                                            "grade": "relevance"})
    measures = ["nDCG@10", "AP", "P@10"]
    for run, qrels in ((pyterrier_run, pyterrier_qrels), (irm_run, irm_qrels),
                       (run_lines, QRELS)):
        got = pooltool.evaluate({"bm25": run}, qrels, measures)
        pd.testing.assert_frame_equal(got, scores)
    unnamed = pooltool.evaluate(pyterrier_run, pyterrier_qrels, "P@10", per_topic=False)
    assert unnamed[["run", "topic"]].values.tolist() == [["run", "all"]]


def test_several_runs_and_trec_eval_flags() -> None:
    runs = sorted((DEMO / "runs").glob("*.run"))
    both = pooltool.evaluate(runs, QRELS, ["P@5"], per_topic=False, complete=True, level=2)
    assert both["run"].tolist() == ["bm25", "qld", "tfidf", "titlematch"]
    alone = pooltool.evaluate(runs[0], QRELS, ["P@5"], per_topic=False, complete=True, level=2)
    assert both["value"].iloc[0] == alone["value"].iloc[0]
    assert alone["value"].iloc[0] != pooltool.evaluate(runs[0], QRELS, ["P@5"],
                                                       per_topic=False)["value"].iloc[0]


def test_errors_are_pooltools(run_lines: pd.DataFrame) -> None:
    with pytest.raises(FrameError, match="lacks column"):
        pooltool.evaluate(run_lines.drop(columns="score"), QRELS, ["AP"])
    with pytest.raises(FrameError, match="'topic' twice"):
        pooltool.evaluate(run_lines.assign(qid=run_lines["topic"]), QRELS, ["AP"])
    with pytest.raises(FrameError, match="must hold strings"):
        pooltool.evaluate(run_lines.assign(topic=run_lines["score"]), QRELS, ["AP"])
    with pytest.raises(InvalidArgument, match="no such file"):
        pooltool.evaluate(BM25, "no-such-qrels.txt", ["AP"])
    with pytest.raises(PooltoolError):
        pooltool.evaluate(BM25, QRELS, ["no_such_measure"])


def test_a_store_from_python(tmp_path: Path, qrels_lines: pd.DataFrame) -> None:
    build_demo(tmp_path)
    with pooltool.open_store(tmp_path / "pooltool.db") as store:
        pools = store.pools()
        log = store.judgment_log()
        versions = store.versions()
        qrels = store.qrels("demo-partial")
        pooled = store.pool_docs("main")
    assert pools[["name", "strategy"]].values.tolist() == [["main", "depth"]]
    assert len(log) == len(qrels_lines) == len(qrels) and versions["name"].tolist() == [
        "demo-partial"]
    runs = pd.concat([trec_frame(path, ["topic", "q0", "docno", "rank", "score", "tag"])
                      for path in (DEMO / "runs").glob("*.run")])
    runs["score"] = runs["score"].astype(float)
    ordered = runs.sort_values(["tag", "topic", "score", "docno"],
                               ascending=[True, True, False, False])
    depth_10 = set(ordered.groupby(["tag", "topic"]).head(10)[["topic", "docno"]].itertuples(
        index=False, name=None))
    assert set(pooled[["topic", "docno"]].itertuples(index=False, name=None)) == depth_10
    assert int(pools["docs"].iloc[0]) == len(depth_10)
    with pytest.raises(StoreError):
        pooltool.open_store(tmp_path / "none.db")


def test_importing_pooltool_imports_no_pandas() -> None:
    """The CLI imports the package first; its API names load on first use."""
    code = "import sys, pooltool; print('pandas' in sys.modules, callable(pooltool.evaluate))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "True"]
