"""``pooltool eval``'s ``low`` / ``high`` columns: each measure's hole, checked by
enumerating the grades of the unjudged documents and scoring each assignment with
pytrec_eval, and on the shared TREC-COVID round 1 runs."""

from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli

# one topic: judged d1 (2), d2 (0), d3 (1), d7 (1, not retrieved); d4, d5 unjudged
QRELS = {"d1": 2, "d2": 0, "d3": 1, "d7": 1}
RUN = ["d1", "d4", "d2", "d5", "d3"]  # ranks 1..5, scores falling
UNJUDGED = ["d4", "d5"]
MAX_GRADE = 2
COVID = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec_covid_r1"


def _eval(*args: str) -> list[dict[str, object]]:
    out = CliRunner().invoke(cli, ["eval", *args, "--format", "json"])
    assert out.exit_code == 0, out.output
    rows: list[dict[str, object]] = json.loads(out.stdout)["rows"]
    return rows


def _enumerated(measure: str, key: str, graded: list[str]) -> tuple[float, float]:
    """min and max of pytrec_eval's ``measure`` (value ``key``) over every grade 0..2 of
    the ``graded`` unjudged documents (the others stay unjudged)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {"1": {doc: float(len(RUN) - i) for i, doc in enumerate(RUN)}}
    scores = []
    for grades in itertools.product(range(MAX_GRADE + 1), repeat=len(graded)):
        qrels = {"1": {**QRELS, **dict(zip(graded, grades, strict=True))}}
        got = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
        scores.append(got["1"][key])
    return min(scores), max(scores)


def test_holes_match_enumeration(tmp_path: Path) -> None:
    """P@2 and nDCG@3 grade only the unjudged documents of their first k (d4);
    AP and RR every unjudged retrieved one (d4, d5). By hand: P@2 in [1/2, 1];
    AP high 0.71 (d4, d5 relevant: (1 + 1 + 3/4 + 4/5) / 5)."""
    (tmp_path / "q.txt").write_text("".join(f"1 0 {d} {g}\n" for d, g in QRELS.items()))
    (tmp_path / "r.txt").write_text("".join(f"1 Q0 {d} {i + 1} {len(RUN) - i} t\n"
                                            for i, d in enumerate(RUN)))
    rows = _eval(str(tmp_path / "r.txt"), "--qrels", str(tmp_path / "q.txt"), "-q",
                 "-m", "P@2", "-m", "nDCG@3", "-m", "AP", "-m", "RR")
    got = {row["measure"]: (row["low"], row["high"]) for row in rows if row["topic"] == "1"}
    expected = {"P@2": _enumerated("P.2", "P_2", ["d4"]),
                "nDCG@3": _enumerated("ndcg_cut.3", "ndcg_cut_3", ["d4"]),
                "AP": _enumerated("map", "map", UNJUDGED),
                "RR": _enumerated("recip_rank", "recip_rank", UNJUDGED)}
    assert set(got) == set(expected)
    for measure, (low, high) in expected.items():
        assert got[measure] == pytest.approx((low, high), abs=1e-12), measure
    assert got["P@2"] == (0.5, 1.0)
    assert got["AP"][1] == pytest.approx(0.71)
    assert got["RR"] == (1.0, 1.0)  # d1 (relevant) is first whatever the grades
    # one topic: the all row carries the same ends
    assert {row["measure"]: (row["low"], row["high"]) for row in rows
            if row["topic"] == "all"} == got


def test_missing_topic_and_judged_only(tmp_path: Path) -> None:
    """-c: topic 2 (not in the run) gets [value, value] = [0, 0], and the all row's ends
    are the means over both topics; -J drops d4 and d5, so nothing is left to judge."""
    (tmp_path / "q.txt").write_text("".join(f"1 0 {d} {g}\n" for d, g in QRELS.items())
                                    + "2 0 e1 1\n")
    (tmp_path / "r.txt").write_text("".join(f"1 Q0 {d} {i + 1} {len(RUN) - i} t\n"
                                            for i, d in enumerate(RUN)))
    base = [str(tmp_path / "r.txt"), "--qrels", str(tmp_path / "q.txt"), "-q", "-m", "P.2"]
    rows = {row["topic"]: row for row in _eval(*base, "-c")}
    assert (rows["1"]["low"], rows["1"]["high"]) == (0.5, 1.0)
    assert (rows["2"]["value"], rows["2"]["low"], rows["2"]["high"]) == (0.0, 0.0, 0.0)
    assert (rows["all"]["low"], rows["all"]["high"]) == (0.25, 0.5)
    judged = {row["topic"]: row for row in _eval(*base, "-J")}
    # -J ranking: d1, d2, d3: P@2 = 1/2 and nothing unjudged
    assert (judged["1"]["value"], judged["1"]["low"], judged["1"]["high"]) == (0.5, 0.5, 0.5)
    # -l 0: P's hole is not defined (grade 0 relevant), nDCG's does not depend on the level
    level0 = {row["measure"]: row for row in _eval(*base[:-2], "-m", "P.2", "-m", "nDCG@3",
                                                   "-l", "0") if row["topic"] == "1"}
    assert (level0["P_2"]["low"], level0["P_2"]["high"]) == (None, None)
    assert (level0["nDCG@3"]["low"], level0["nDCG@3"]["high"]) == pytest.approx(
        _enumerated("ndcg_cut.3", "ndcg_cut_3", ["d4"]))


@pytest.mark.skipif(not (COVID / "qrels-rnd1.txt").exists(),
                    reason="shared TREC-COVID round 1 data (../shared/data/trec_covid_r1) absent")
def test_value_within_hole_on_trec_covid() -> None:
    """Every per-topic and all row of every shared run: low <= value <= high (bpref is
    left out: it skips unjudged documents, so its value may lie outside its hole)."""
    runs = sorted(str(p) for p in (COVID / "runs").iterdir())
    out = CliRunner().invoke(cli, ["eval", *runs, "--qrels", str(COVID / "qrels-rnd1.txt"),
                                   "-q", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "map",
                                   "-m", "recip_rank", "--format", "csv"])
    assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) > 4 * len(runs)
    widths = 0.0
    for row in rows:
        low, value, high = float(row["low"]), float(row["value"]), float(row["high"])
        assert low - 1e-12 <= value <= high + 1e-12, row
        widths += high - low
    assert widths > 0  # the runs retrieve unjudged documents
