"""Leave-one-out pool bias of any measure: by hand, against pytrec_eval on the reduced qrels
(TREC-COVID round 1), and from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from click.testing import CliRunner

from pooltool.analysis.bias import top_ranks
from pooltool.analysis.measure_bias import leave_one_out_measure, new_run_scores
from pooltool.cli import cli
from pooltool.errors import InvalidArgument
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run

ROOT = Path(__file__).resolve().parents[2]

# Two runs pool at depth 2 (as in test_bias.py): A alone pools a1, B alone pools b1
# (b1 is A's third), s is shared; o (relevant) was judged from outside the pool.
RUNS = """\
1 Q0 a1 1 9 A
1 Q0 s 2 8 A
1 Q0 b1 3 7 A
1 Q0 a2 4 6 A
1 Q0 b1 1 9 B
1 Q0 s 2 8 B
1 Q0 o 3 7 B
"""
QRELS = "1 0 a1 1\n1 0 a2 0\n1 0 b1 2\n1 0 s 1\n1 0 o 1\n"


def test_average_precision_by_hand() -> None:
    result = leave_one_out_measure(read_run(RUNS), read_qrels(QRELS), depth=2, measure="map")
    runs = result.per_run.set_index("run_tag")
    # A: relevant at ranks 1, 2, 3 of num_rel 4 -> 3/4. Without a1: num_rel 3 (b1 s o),
    # relevant at ranks 2 and 3 -> (1/2 + 2/3) / 3 = 7/18. B the same, without b1.
    assert runs.loc["A", "score"] == pytest.approx(3 / 4)
    assert runs.loc["A", "score_loo"] == pytest.approx(7 / 18)
    assert runs.loc["B", "score_loo"] == pytest.approx(7 / 18)
    assert runs.loc["A", "drop"] == pytest.approx(3 / 4 - 7 / 18)
    assert runs.loc["A", ["unique_pooled", "unique_relevant"]].tolist() == [1, 1]
    # map looks at every rank: A's 4 documents are all judged, then a1 is not: 0 -> 1/4
    assert runs.loc["A", ["unjudged", "unjudged_loo"]].tolist() == pytest.approx([0, 1 / 4])
    assert result.overall()["mae"] == pytest.approx(3 / 4 - 7 / 18)


def test_a_group_is_left_out_together() -> None:
    runs = read_run(RUNS + "1 Q0 a1 1 5 A2\n1 Q0 z 2 4 A2\n")
    alone = leave_one_out_measure(runs, read_qrels(QRELS), 2, "map").per_run.set_index("run_tag")
    # A2 pools a1 too: nothing is A's alone that is relevant, its AP stays 3/4
    assert alone.loc["A", ["score_loo", "unique_relevant"]].tolist() == pytest.approx([3 / 4, 0])
    grouped = leave_one_out_measure(runs, read_qrels(QRELS), 2, "map",
                                    groups={"A": "team", "A2": "team"}).per_run.set_index("run_tag")
    # the team alone pooled a1 and z (unjudged): A without a1 -> 7/18, as above
    assert grouped.loc["A", ["score_loo", "unique_pooled"]].tolist() == pytest.approx([7 / 18, 2])
    assert grouped.loc["A2", "group"] == "team"


def test_ir_measures_spelling_is_the_same_measure() -> None:
    trec = leave_one_out_measure(read_run(RUNS), read_qrels(QRELS), 2, "ndcg_cut.10")
    theirs = leave_one_out_measure(read_run(RUNS), read_qrels(QRELS), 2, "nDCG@10")
    assert theirs.measure == "nDCG@10" and trec.name == theirs.name == "ndcg_cut_10"
    pd.testing.assert_frame_equal(trec.per_run.drop(columns="measure"),
                                  theirs.per_run.drop(columns="measure"))


@pytest.mark.parametrize("spec, problem", [("P.5,10", "gives 2 values"),
                                           ("num_ret", "not a mean over topics"),
                                           ("ERR@10", "no trec_eval definition")])
def test_measures_without_one_mean_are_refused(spec: str, problem: str) -> None:
    with pytest.raises(InvalidArgument, match=problem):
        leave_one_out_measure(read_run(RUNS), read_qrels(QRELS), 2, spec)


def test_new_run_gets_its_hole_and_a_verdict() -> None:
    result = leave_one_out_measure(read_run(RUNS), read_qrels(QRELS), 2, "P.2")
    new = new_run_scores(read_run("1 Q0 x 1 9 N\n1 Q0 s 2 8 N\n"), read_qrels(QRELS), result)
    row = new.iloc[0]
    # N's top 2: x unjudged, s relevant -> P@2 1/2, at most 2/2 if x is relevant
    assert (row["score"], row["low"], row["high"]) == pytest.approx((0.5, 0.5, 1.0))
    # once left out, A (a1) and B (b1) each see 1/2 of their top 2 unjudged; so does N
    assert row["unjudged"] == pytest.approx(0.5)
    assert row["verdict"] == "reusable"


POOLED = ["BBGhelani2", "OHSU_RUN2", "T5R1", "bm25_baseline", "run1", "smith.rm3",
          "UIowaS_Run3", "sab20.1.meta.docs", "udel_fang_run2", "uogTrDPH_QE",
          "ixa-ir-filter-query", "sheikh_bm25_all"]


def reduced_qrels_scores(folder: Path, names: list[str], depth: int,
                         measure: str) -> dict[str, float]:
    """Each run's mean ``measure`` by pytrec_eval on the qrels less the pairs only that run
    pooled at ``depth``; the pool built here in plain Python (score desc, docno desc)."""
    lines = {name: [line.split() for line in (folder / "runs" / name).read_text().splitlines()]
             for name in names}
    qrels: dict[str, dict[str, int]] = {}
    for topic, _, docno, grade in (line.split() for line in
                                   (folder / "qrels-rnd1.txt").read_text().splitlines()):
        qrels.setdefault(topic, {})[docno] = int(grade)
    pooled_by: dict[tuple[str, str], set[str]] = {}
    for name, rows in lines.items():
        by_topic: dict[str, list[tuple[float, str]]] = {}
        for topic, _, docno, _, score, _ in rows:
            by_topic.setdefault(topic, []).append((float(score), docno))
        for topic, docs in by_topic.items():
            for _, docno in sorted(docs, reverse=True)[:depth]:
                pooled_by.setdefault((topic, docno), set()).add(name)
    scores = {}
    for name, rows in lines.items():
        own = {pair for pair, owners in pooled_by.items() if owners == {name}}
        reduced = {t: {d: g for d, g in docs.items() if (t, d) not in own}
                   for t, docs in qrels.items()}
        run: dict[str, dict[str, float]] = {}
        for topic, _, docno, _, score, _ in rows:
            run.setdefault(topic, {})[docno] = float(score)
        per_topic = pytrec_eval.RelevanceEvaluator(reduced, {measure}).evaluate(run)
        values = [v[measure] for t, v in per_topic.items() if t in qrels]
        scores[name] = sum(values) / len(values)
    return scores


def check_against_pytrec_eval(shared_data: Path, names: list[str], measure: str,
                              theirs: str) -> None:
    folder = shared_data / "trec_covid_r1"
    runs = pd.concat([read_run(folder / "runs" / name) for name in names], ignore_index=True)
    result = leave_one_out_measure(runs, read_qrels(folder / "qrels-rnd1.txt"), 7, measure)
    expected = reduced_qrels_scores(folder, names, 7, theirs)
    mine = result.per_run.set_index("run_tag")["score_loo"]
    for name in names:  # pytrec_eval keeps C floats
        assert mine[name] == pytest.approx(expected[name], abs=1e-6), name


@pytest.mark.parametrize("measure, theirs", [("map", "map"), ("ndcg_cut.10", "ndcg_cut_10")])
def test_leave_one_out_equals_pytrec_eval_on_the_reduced_qrels(shared_data: Path, measure: str,
                                                               theirs: str) -> None:
    check_against_pytrec_eval(shared_data, ["BBGhelani2", "bm25_baseline", "T5R1"], measure,
                              theirs)


@pytest.mark.slow
@pytest.mark.parametrize("measure, theirs", [("map", "map"), ("ndcg_cut.10", "ndcg_cut_10"),
                                             ("bpref", "bpref")])
def test_leave_one_out_of_all_pooled_runs_equals_pytrec_eval(shared_data: Path, measure: str,
                                                             theirs: str) -> None:
    check_against_pytrec_eval(shared_data, POOLED, measure, theirs)


@pytest.fixture
def db(tmp_path: Path) -> str:
    """Runs A and B pooled to depth 2, qrels version v1, new run N outside the pool."""
    runs = read_run(RUNS)
    for tag, part in runs.groupby("run_tag"):
        text = "".join(f"1 Q0 {d} {r} {s} {tag}\n" for d, r, s in
                       zip(part["docno"], part["rank"], part["score"], strict=True))
        (tmp_path / f"{tag}.run").write_text(text)
    (tmp_path / "N.run").write_text("1 Q0 x 1 9 N\n1 Q0 s 2 8 N\n")
    (tmp_path / "qrels.txt").write_text(QRELS)
    db = str(tmp_path / "store.db")
    for args in (["init"], ["add-runs", str(tmp_path / "A.run"), str(tmp_path / "B.run")],
                 ["pool", "--depth", "2"],
                 ["import-qrels", str(tmp_path / "qrels.txt"), "--version", "v1"]):
        assert CliRunner().invoke(cli, ["--db", db, *args]).exit_code == 0
    return db


def test_cli_json_of_a_measure_validates(db: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", db, "bias", "-m", "map", "--version", "v1",
                                      "--new", str(tmp_path / "N.run"), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    jsonschema.validate(report, json.loads((ROOT / "schemas" / "bias-v1.json").read_text()))
    per_run = {row["run_tag"]: row for row in report["per_run"]}
    assert per_run["A"]["score_loo"] == pytest.approx(7 / 18)
    assert report["overall"]["measure"] == "map"
    # N: s relevant at rank 2 of num_rel 4 -> 1/8; x relevant too: (1 + 1) / 5 = 2/5
    new = report["new_runs"][0]
    assert (new["score"], new["low"], new["high"]) == pytest.approx((1 / 8, 1 / 8, 2 / 5))


def test_cli_table_and_refusals(db: str) -> None:
    table = CliRunner().invoke(cli, ["--db", db, "bias", "-m", "nDCG@10"])
    assert table.exit_code == 0, table.output
    assert "nDCG@10" in table.stdout and "score_loo" in table.stdout
    several = CliRunner().invoke(cli, ["--db", db, "bias", "-m", "P.5,10"])
    assert several.exit_code != 0
    assert several.output.strip().splitlines()[-1].startswith("Error: measure 'P.5,10' gives 2")
    lipani = CliRunner().invoke(cli, ["--db", db, "bias", "-m", "map", "--correct", "lipani"])
    assert lipani.exit_code != 0 and "lipani" in lipani.output


@pytest.mark.parametrize("seed", range(3))
def test_a_larger_pools_rows_are_the_pool(seed: int) -> None:
    """webber-park -m passes each inner leave-one-out its runs' rows of the whole pool:
    the same result as taking the pool of those runs again (score ties, docno decides)."""
    rng = np.random.default_rng(seed)
    runs = pd.concat([pd.DataFrame({"run_tag": tag, "topic": topic,
                                    "docno": [f"d{d}" for d in rng.choice(30, 12, replace=False)],
                                    "score": rng.integers(0, 3, 12).astype(float)})
                      for tag in ("r2", "r1", "r3", "r4") for topic in ("1", "2")],
                     ignore_index=True)
    qrels = pd.DataFrame({"topic": ["1", "2"] * 15, "docno": [f"d{d}" for d in range(30)],
                          "grade": rng.integers(0, 3, 30)})
    pool = top_ranks(runs, 3)
    others = runs[runs["run_tag"] != "r1"]
    given = pool[pool["run_tag"] != "r1"].reset_index(drop=True)
    want = leave_one_out_measure(others, qrels, 3, "map")
    got = leave_one_out_measure(others, qrels, 3, "map", pool=given)
    pd.testing.assert_frame_equal(got.per_run, want.per_run, check_exact=True)
    pd.testing.assert_frame_equal(got.per_topic, want.per_topic, check_exact=True)
    assert want.per_run["drop"].abs().sum() > 0  # something was left out
