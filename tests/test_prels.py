"""Sampled judgments drawn outside pooltool: the reader of NIST's prels and
sample_eval.pl layouts, xinfAP, and ``recall --prels`` (docs/sampled-judgments.md)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.stats import gamma

from pooltool.analysis.inferred_ap import EPSILON, xinf_ap
from pooltool.analysis.prels_estimates import estimate_poisson, fay_feuer, strata_design
from pooltool.cli import cli
from pooltool.errors import FormatError
from pooltool.formats.prels import read_prels
from pooltool.formats.qrels import read_qrels_table
from pooltool.formats.run import read_run
from pooltool.measures.trec import evaluate_files

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "recall-v1.json")
                    .read_text())

# topic 1: a pool stratum judged whole, a deep stratum of 4 with 2 judged (c relevant)
STRATA = """1 0 a pool 1
1 0 b pool 0
1 0 c deep 1
1 0 d deep -1
1 0 e deep 0
1 0 f deep -1
"""
RUN = "".join(f"1 Q0 {d} {i} {6 - i} r\n" for i, d in enumerate("abcdef"))


def _run() -> pd.DataFrame:
    return pd.DataFrame({"run_tag": "r", "topic": "1", "docno": list("abcdef"),
                         "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})


def test_prels_layout_reads_each_documents_probability() -> None:
    frame = read_prels("# MQ 2009\n10 GX1 1 0 1\n10 GX2 0 1 0.25\n\n11 GX1 2 2 1e-1\n")
    assert list(frame.columns) == ["topic", "docno", "grade", "inclusion"]
    assert frame.to_dict("list") == {"topic": ["10", "10", "11"],
                                     "docno": ["GX1", "GX2", "GX1"], "grade": [1, 0, 2],
                                     "inclusion": [1.0, 0.25, 0.1]}


def test_strata_layout_gives_judged_over_listed_per_topic_and_stratum() -> None:
    frame = read_prels(STRATA + "2 0 a deep 0\n2 0 g deep -1\n2 0 h deep -1\n", "strata")
    assert list(frame.columns) == ["topic", "docno", "grade", "inclusion", "stratum"]
    # topic 1: pool 2 of 2, deep 2 of 4; topic 2: deep 1 of 3
    assert frame["inclusion"].tolist() == [1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 1 / 3, 1 / 3, 1 / 3]


@pytest.mark.parametrize(("text", "layout", "line", "reason"), [
    ("1 a 1 0\n", "prels", 1, "expected 5 columns (topic docno grade method inclusion), got 4"),
    ("1 a 1 0 0.5\n1 b 1.5 0 0.5\n", "prels", 2, "grade '1.5' is not an integer"),
    ("1 a 1 0 0\n", "prels", 1, "inclusion probability '0' is not a number in (0, 1]"),
    ("1 a 1 0 1.5\n", "prels", 1, "inclusion probability '1.5' is not a number in (0, 1]"),
    ("1 a 1 0 nan\n", "prels", 1, "inclusion probability 'nan' is not a number in (0, 1]"),
    ("1 a 1 0 half\n", "prels", 1, "inclusion probability 'half' is not a number in (0, 1]"),
    ("1 a 1 x 1\n", "prels", 1, "method 'x' is not an integer"),
    ("1 a 1 0 1\n1 b 0 0 1\n1 a 0 0 1\n", "prels", 3,
     "docno 'a' for topic '1' is given again (first on line 1)"),
    ("1 0 a s one\n", "strata", 1, "grade 'one' is not an integer"),
    ("1 0 a s 1\n1 0 b t -1\n1 0 c t -1\n", "strata", 2,
     "stratum 't' of topic '1' has no judged document (2 listed, every grade -1): its "
     "inclusion probability would be 0"),
    ("# nothing\n", "prels", 0, "holds no sampled judgments"),
])
def test_a_bad_line_is_named(tmp_path: Path, text: str, layout: str, line: int,
                             reason: str) -> None:
    path = tmp_path / "bad.prels"
    path.write_text(text)
    with pytest.raises(FormatError) as error:
        read_prels(path, layout)
    where = f"{path}:{line}" if line else str(path)
    assert str(error.value) == f"{where}: {reason}"


def test_xinfap_by_hand() -> None:
    # R_hat = 1 (pool: 1 of 2 judged relevant, all judged) + 1 * 4 / 2 (deep) = 3.
    # a (rank 1, pool, relevant): precision 1. c (rank 3, deep, relevant): 1/3 + (2/3) *
    # [pool: 2 of the 2 listed above, 1 relevant of 2 judged] (1 + e) / (2 + 3e).
    # xinfAP = (2 / 3) * SAP_deep / 1 + (1 / 3) * SAP_pool / 1.
    deep = 1 / 3 + (2 / 3) * (1 + EPSILON) / (2 + 3 * EPSILON)
    rows = xinf_ap(_run(), read_prels(STRATA, "strata"))
    assert rows.to_dict("list") == {"run_tag": ["r"], "topic": ["1"], "est_R": [3.0],
                                    "xinfAP": [pytest.approx(2 / 3 * deep + 1 / 3, abs=1e-15)]}


def test_one_stratum_xinfap_is_trec_evals_infap(shared_data: Path, tmp_path: Path) -> None:
    """A strata file of one stratum is the qrels trec_eval's infAP reads (grade -1: pooled,
    not judged); the values agree but for the smoothing, sample_eval.pl's ``s + 3e`` where
    m_infAP.c has ``s + 2e``: about e / s apart when s >= 1 documents above a relevant one
    are judged, far apart (1/3 against 1/2) when every pooled document above it is not."""
    lines = (shared_data / "trec_covid_r1" / "qrels-rnd1.txt").read_text().split("\n")
    fields = [line.split() for line in lines if line.strip()]
    for number, row in enumerate(fields):
        if number % 3 == 2:
            row[3] = "-1"  # a third of the pool not sampled
    qrels_file, strata_file = tmp_path / "qrels.txt", tmp_path / "strata.txt"
    qrels_file.write_text("".join(" ".join(row) + "\n" for row in fields))
    strata_file.write_text("".join(f"{t} {i} {d} pool {g}\n" for t, i, d, g in fields))
    run_file = shared_data / "trec_covid_r1" / "runs" / "BM25R2"
    result, _ = evaluate_files([run_file], read_qrels_table(qrels_file), ["infAP"])
    trec = dict(zip(result.runs[0].topics, result.runs[0].values[0]["infAP"], strict=True))
    run = read_run(run_file)
    ours = xinf_ap(run, read_prels(strata_file, "strata"))
    assert len(ours) == len(trec) == 30
    grades = {(t, d): int(g) for t, _, d, g in fields}
    close = far = 0
    for row in ours.itertuples():
        difference = abs(row.xinfAP - trec[row.topic])
        if _none_judged_above_a_relevant(run, row.topic, grades):
            far += 1
        else:
            close += 1
            assert 0 < difference < 1e-5
    assert close >= 20 and far >= 1


def _none_judged_above_a_relevant(run: pd.DataFrame, topic: str,
                                  grades: dict[tuple[str, str], int]) -> bool:
    """Whether some relevant document of the run (first 1000, trec_eval order) has
    pooled documents above it, none of them judged."""
    lines = run[run["topic"] == topic].sort_values(["score", "docno"], ascending=False)
    pooled = judged = 0
    for docno in lines["docno"].head(1000):
        grade = grades.get((topic, docno))
        if grade is not None and grade >= 1 and pooled and not judged:
            return True
        if grade is not None:
            pooled += 1
            judged += grade >= 0
    return False


def test_strata_design_takes_a_stratum_judged_whole_as_the_pool() -> None:
    design, qrels = strata_design(read_prels(STRATA, "strata"), "s.txt")
    assert design.pooled.to_dict("list") == {"topic": ["1", "1"], "docno": ["a", "b"]}
    assert [s.name for s in design.strata] == ["deep"]
    assert design.sizes.to_dict("list") == {"topic": ["1"], "stratum": ["deep"],
                                            "population": [4], "size": [2]}
    assert qrels["docno"].tolist() == ["a", "b", "c", "e"]


def test_fay_feuer_with_unit_weights_is_garwoods_exact_poisson_interval() -> None:
    # Garwood (1936) 95% limits for a Poisson count of 3: 0.6186 and 8.7673; of 0: 0, 3.6889
    count, low, high = fay_feuer(np.array([3.0, 0.0]), np.array([3.0, 0.0]), 1.0)
    assert count.tolist() == [3.0, 0.0]
    assert low == pytest.approx([0.6186, 0.0], abs=1e-4)
    assert high == pytest.approx([8.7673, 3.6889], abs=1e-4)


def test_poisson_estimates_by_hand() -> None:
    # a: relevant, pi 1; c: relevant, pi 0.5; e: not relevant, pi 0.5; g: relevant, pi 0.25
    # R_hat = 1 + (2 + 4): known 1, weighted Poisson y = 6, v = 4 + 16 = 20, wM = 4
    prels = read_prels("1 a 1 0 1\n1 c 1 1 0.5\n1 e 0 1 0.5\n1 g 1 1 0.25\n")
    estimates = estimate_poisson(_run(), prels, [3])
    row = estimates.per_topic.iloc[0]
    assert row["est_R"] == row["est_R_ht"] == 7.0
    assert row["est_R_low"] == 1 + max(2, gamma.ppf(0.025, 36 / 20, scale=20 / 6))
    assert row["est_R_high"] == pytest.approx(1 + gamma.ppf(0.975, 100 / 36, scale=36 / 10))
    # first 3 = a, b, c (b not in the file: Y's upper end counts it): Y = 1 + 2, X = 4
    assert row["est_recall"] == pytest.approx(3 / 7)
    assert 0 < row["est_recall_low"] < 3 / 7 < row["est_recall_high"] < 1
    assert estimates.topics["pooled_relevant"].tolist() == [1]
    assert estimates.topics["sampled"].tolist() == [3]


def test_recall_prels_cli(tmp_path: Path) -> None:
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 e 0\n")
    (tmp_path / "s.txt").write_text(STRATA)
    runner = CliRunner()
    if True:
        args = ["recall", str(tmp_path / "run.txt"), "--qrels", str(tmp_path / "qrels.txt"),
                "-k", "3", "--prels", str(tmp_path / "s.txt"), "--prels-layout", "strata"]
        result = runner.invoke(cli, [*args, "--format", "json", "-q"])
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        jsonschema.validate(document, SCHEMA)
        estimate = document["estimate"]
        assert (estimate["layout"], estimate["judged"], estimate["seed"]) == ("strata", 4, 0)
        assert estimate["summary"][0]["est_R_ht"] == 3.0
        assert estimate["per_topic"][0]["est_infAP"] == pytest.approx(0.7777771, abs=1e-6)
        (tmp_path / "bad.txt").write_text("1 0 a pool 1\n1 0 b pool\n")
        bad = runner.invoke(cli, [*args[:-3], str(tmp_path / "bad.txt"), "--prels-layout",
                                  "strata"])
        assert bad.exit_code != 0
        assert bad.stderr.strip() == (f"Error: {tmp_path / 'bad.txt'}:2: expected 5 columns "
                                      "(topic iteration docno stratum grade), got 4")
        both = runner.invoke(cli, [*args, "--estimate", "s1"])
        assert "give --estimate NAME or --prels FILE, not both" in both.stderr


def test_poisson_minus_c_scores_a_topic_the_run_lacks_as_0() -> None:
    prels = read_prels("1 a 1 0 1\n1 c 1 1 0.5\n2 x 1 0 1\n2 y 0 1 0.5\n")
    alone = estimate_poisson(_run(), prels, [3])
    complete = estimate_poisson(_run(), prels, [3], complete=True)
    assert alone.summary["num_q"].tolist() == [1] and complete.summary["num_q"].tolist() == [2]
    # topic 1: a and c in the first 3, R_hat 3 = Y_hat: recall 1; topic 2 scores 0
    assert alone.summary["est_recall"].tolist() == [1.0]
    assert complete.summary["est_recall"].tolist() == [0.5]
    assert complete.summary["est_R"].tolist() == [(3 + 1) / 2]
    assert complete.per_topic["topic"].tolist() == ["1"]  # rows only where it retrieved
