"""Replaying pooling strategies: hand-worked values, TREC-COVID against plain Python, and
``pooltool simulate`` (table, csv, JSON against its schema, plot, bad input)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.analysis.simulation import simulate
from pooltool.cli import cli
from pooltool.errors import PooltoolError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.judging.strategies import parse_strategy
from pooltool.measures.recall import evaluate_recall

# Topic 1: A d1 d2 d3, B d2 d4 d1, C d5 d3 (as in tests/test_strategies.py). Relevant: d2, d4
# and x9, which no run retrieved. Topic 2 has qrels but no run.
RUNS = """\
1 Q0 d1 1 3 A
1 Q0 d2 2 2 A
1 Q0 d3 3 1 A
1 Q0 d2 1 1 B
1 Q0 d4 2 0.75 B
1 Q0 d1 3 0.5 B
1 Q0 d5 1 5 C
1 Q0 d3 2 4 C
"""
QRELS = "1 0 d2 1\n1 0 d4 2\n1 0 d3 0\n1 0 x9 1\n2 0 y 1\n"
POOLED = ["BBGhelani2", "bm25_baseline", "ixa-ir-filter-query", "OHSU_RUN2", "run1",
          "sab20.1.meta.docs", "sheikh_bm25_all", "smith.rm3", "T5R1", "udel_fang_run2",
          "UIowaS_Run3", "uogTrDPH_QE"]


def small(strategies: list[str], budgets: list[int], k: int = 2):  # type: ignore[no-untyped-def]
    return simulate(read_run(RUNS), read_qrels(QRELS), [parse_strategy(s) for s in strategies],
                    budgets, k=k)


def test_relevant_found_by_hand() -> None:
    result = small(["depth:k=1", "mtf"], [1, 2, 5])
    assert result.topics == ["1"] and result.left_out == ["2"]
    found = result.summary.set_index(["strategy", "budget"])
    # depth 1 judges d1, d2, d5 and stops; MTF judges d1, d2, d4, d5, d3
    assert found["spent"].tolist() == [1, 2, 3, 1, 2, 5]
    assert found["found"].tolist() == [0, 1, 1, 0, 1, 2]
    assert found.loc[("mtf", 5), "found_share"] == pytest.approx(2 / 3)
    assert found["num_rel"].tolist() == [3] * 6


def test_bias_by_hand() -> None:
    # MTF, budget 2: partial qrels d1 (0), d2 (1). At k = 2, full: A 1/3, B 2/3, C 0 (P .5, 1,
    # 0); partial: A 1, B 1, C 0 (P .5, .5, 0). MAE recall (2/3 + 1/3) / 3, P .5 / 3.
    # Kendall's tau-b: A-B tied on the partial side: 2 / sqrt(3 x 2). tau_ap: partial
    # order {A, B} (tied), C against full B, A, C, over both orders of the tie: A, B, C gives
    # (0/1 + 2/2) x 2/2 - 1 = 0, B, A, C gives (1/1 + 2/2) x 2/2 - 1 = 1; the mean is 1/2.
    row = small(["mtf"], [2]).summary.iloc[0]
    assert row["MAE_recall"] == pytest.approx(1 / 3)
    assert row["MAE_P"] == pytest.approx(1 / 6)
    assert row["Kendall_tau"] == pytest.approx(2 / math.sqrt(6))
    assert row["tau_ap"] == pytest.approx(0.5)
    per_run = small(["mtf"], [2]).per_run.set_index("run_tag")
    assert per_run["recall_partial"].tolist() == pytest.approx([1.0, 1.0, 0.0])
    assert per_run["recall"].tolist() == pytest.approx([1 / 3, 2 / 3, 0.0])


def test_a_document_without_a_qrels_line_is_not_relevant_at_level_0() -> None:
    # -l 0: d2, d4, d3 and x9 are relevant. MTF judges d1 (no line), d2, d4, d1 gone, then
    # d5 (no line), d3: found 3 of 4. With 2 judgments the partial qrels hold d1 and d2, so
    # C (d5, d3 in its top 2) scores 0 and A (d1, d2) and B (d2, d4) score 1 of 1.
    result = simulate(read_run(RUNS), read_qrels(QRELS), [parse_strategy("mtf")], [2, 5], k=2,
                      level=0)
    assert result.summary["found"].tolist() == [1, 3]
    per_run = result.per_run[result.per_run["budget"] == 2].set_index("run_tag")
    assert per_run["recall_partial"].tolist() == pytest.approx([1.0, 1.0, 0.0])
    assert per_run["P_partial"].tolist() == pytest.approx([0.5, 0.5, 0.0])


def test_curve_counts_found_per_judgment() -> None:
    curve = small(["mtf"], [5]).curve
    assert curve["found"].tolist() == [0, 1, 2, 2, 2]
    assert curve["judgments"].tolist() == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(("strategies", "budgets", "message"), [
    ([], [1], "at least one strategy"),
    (["mtf"], [0], "budgets and k must be at least 1"),
    (["mtf", "mtf"], [1], "a strategy is given twice"),
])
def test_bad_options(strategies: list[str], budgets: list[int], message: str) -> None:
    with pytest.raises(PooltoolError, match=message):
        small(strategies, budgets)


def test_no_common_topic() -> None:
    with pytest.raises(PooltoolError, match="no topic is both in the runs and in the qrels"):
        simulate(read_run(RUNS), read_qrels("9 0 d1 1\n"), [parse_strategy("mtf")], [1])


def plain_depth_picks(folder: Path, depth: int, budget: int) -> dict[str, list[str]]:
    """Per topic, the first ``budget`` documents of the depth-k pool in docno order, in plain
    Python: runs ordered by score descending, docno descending."""
    ranked: dict[tuple[str, str], list[tuple[float, str]]] = {}
    for name in POOLED:
        for line in (folder / "runs" / name).read_text().splitlines():
            topic, _, docno, _, score, tag = line.split()[:6]
            ranked.setdefault((tag, topic), []).append((float(score), docno))
    pools: dict[str, set[str]] = {}
    for (_, topic), docs in ranked.items():
        docs.sort(reverse=True)
        pools.setdefault(topic, set()).update(docno for _, docno in docs[:depth])
    return {topic: sorted(pool)[:budget] for topic, pool in pools.items()}


def test_trec_covid_depth_found_equals_plain_python_and_adaptive_find_more(
        shared_data: Path) -> None:
    folder = shared_data / "trec_covid_r1"
    runs = pd.concat([read_run(folder / "runs" / name) for name in POOLED], ignore_index=True)
    qrels = read_qrels(folder / "qrels-rnd1.txt")
    grades = {(t, d): g for t, d, g in zip(qrels["topic"], qrels["docno"], qrels["grade"],
                                            strict=True)}
    strategies = [parse_strategy(s) for s in ("depth", "mtf", "mmns")]
    result = simulate(runs, qrels, strategies, [20, 50], k=100)
    per_topic = result.per_topic
    for budget in (20, 50):
        picks = plain_depth_picks(folder, 7, budget)
        depth = per_topic[(per_topic["strategy"] == "depth:k=7") & (per_topic["budget"] == budget)]
        assert dict(zip(depth["topic"], depth["found"], strict=True)) == {
            t: sum(grades.get((t, d), 0) >= 1 for d in docnos) for t, docnos in picks.items()}
    found = result.summary.set_index(["strategy", "budget"])["found"]
    assert result.topics == [str(t) for t in range(1, 31)]
    # the README's numbers: 30 topics, 20 judgments each
    assert [found[(s, 20)] for s in ("depth:k=7", "mtf", "mmns:gamma=0.9")] == [303, 410, 377]
    # the bias columns are evaluate_recall's values, under the full and the partial qrels
    partial = pd.DataFrame([(t, d, grades.get((t, d), -1)) for t, docnos in
                            plain_depth_picks(folder, 7, 20).items() for d in docnos],
                           columns=["topic", "docno", "grade"])
    rows = result.per_run[(result.per_run["strategy"] == "depth:k=7")
                          & (result.per_run["budget"] == 20)].set_index("run_tag")
    for column, side in (("recall", qrels), ("recall_partial", partial)):
        expected = evaluate_recall(runs, side, ks=[100]).summary.set_index("run_tag")
        assert rows[column].to_dict() == expected["recall"].to_dict()
        assert rows[column.replace("recall", "P")].to_dict() == expected["P"].to_dict()


# --- the command ---------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "abc.run").write_text(RUNS)
    (tmp_path / "qrels.txt").write_text(QRELS)
    return str(tmp_path / "abc.run"), str(tmp_path / "qrels.txt")


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["--db", "absent.db", "simulate", *args])


def test_json_validates_and_names_its_assumption(files: tuple[str, str]) -> None:
    run, qrels = files
    result = invoke(run, "--qrels", qrels, "--strategy", "depth", "--strategy", "mtf",
                    "--budget", "5,2", "--depth", "1", "-k", "2", "-q", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    jsonschema.validate(report, json.loads((ROOT / "schemas" / "simulate-v1.json").read_text()))
    assert "count as non-relevant" in report["note"]
    assert report["options"]["strategies"] == ["depth:k=1", "mtf"]
    assert [(r["strategy"], r["budget"], r["found"]) for r in report["summary"]] == [
        ("depth:k=1", 2, 1), ("depth:k=1", 5, 1), ("mtf", 2, 1), ("mtf", 5, 2)]
    assert [r["topic"] for r in report["per_topic"]] == ["1"] * 4
    assert "1 qrels topic(s) no run retrieved for were left out: 2" in result.stderr


def test_csv_per_topic_and_table(files: tuple[str, str]) -> None:
    run, qrels = files
    csv = invoke(run, "--qrels", qrels, "--strategy", "mtf", "--budget", "2", "-q",
                 "--format", "csv")
    assert csv.exit_code == 0, csv.output
    assert csv.stdout == ("strategy,budget,topic,spent,found,num_rel,found_share\n"
                          "mtf,2,1,2,1,3,0.3333333333333333\n")
    assert "count as non-relevant" in csv.stderr
    table = invoke(run, "--qrels", qrels, "--strategy", "rrf:k=0", "--budget", "1")
    assert table.exit_code == 0, table.output
    assert "rrf:k=0" in table.stdout and "note: documents without a qrels line" in table.stdout


def test_every_strategy_by_default_and_a_plot(files: tuple[str, str], tmp_path: Path) -> None:
    run, qrels = files
    plot = tmp_path / "found.png"
    result = invoke(run, "--qrels", qrels, "--budget", "3", "--format", "json",
                    "--plot", str(plot))
    assert result.exit_code == 0, result.output
    labels = json.loads(result.stdout)["options"]["strategies"]
    assert labels == ["depth:k=7", "rundepth:k=7", "roundrobin", "rrf:k=60", "borda", "combsum",
                      "rbp:p=0.8", "mtf", "maxmean", "mmns:gamma=0.9", "thompson:seed=0,a=1,b=1",
                      "hedge:beta=0.1"]
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_bad_input(files: tuple[str, str], tmp_path: Path) -> None:
    run, qrels = files
    unknown = invoke(run, "--qrels", qrels, "--strategy", "mft")
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith("Error: unknown strategy 'mft'")
    budget = invoke(run, "--qrels", qrels, "--budget", "10,x")
    assert budget.exit_code == 2 and "expected comma-separated integers" in budget.output
    (tmp_path / "bad.run").write_text("1 Q0 d1 1 3 A\n1 Q0 d2 2 [red]x[/red] A\n")
    bad = invoke(str(tmp_path / "bad.run"), "--qrels", qrels)
    assert bad.exit_code == 1
    assert bad.stderr.startswith(f"Error: {tmp_path / 'bad.run'}:2:")
    assert "[red]x[/red]" in bad.stderr


def test_the_order_runs_are_given_in_changes_nothing() -> None:
    """Every strategy, runs given in reverse order: the same summary to the last bit."""
    from pooltool.judging.strategies import STRATEGIES

    strategies = [parse_strategy(name) for name in STRATEGIES]
    runs = read_run(RUNS)
    forward = simulate(runs, read_qrels(QRELS), strategies, [1, 2, 5], k=2).summary
    backward = simulate(runs.iloc[::-1].reset_index(drop=True), read_qrels(QRELS), strategies,
                        [1, 2, 5], k=2).summary
    pd.testing.assert_frame_equal(forward, backward)


def test_partial_qrels_looked_up_are_the_merged_ones() -> None:
    from pooltool.analysis.simulation import _grades, _partial

    qrels = pd.DataFrame({"topic": ["1", "1", "2", "10"], "docno": ["a", "b", "a", "z"],
                          "grade": [2, 0, 1, -1]})
    chosen = {"1": ["b", "x", "a"], "10": ["z", "a"], "2": ["a"]}
    grades = _grades(qrels)
    assert grades == {("1", "a"): 2, ("1", "b"): 0, ("2", "a"): 1, ("10", "z"): -1}
    for budget in (1, 2, 3):
        merged = _partial(chosen, budget, qrels)
        looked_up = _partial(chosen, budget, qrels, grades)
        pd.testing.assert_frame_equal(looked_up, merged, check_exact=True)
    assert _partial(chosen, 2, qrels, grades)["grade"].tolist() == [0, -1, -1, -1, 1]
    # a pair listed twice: no lookup; the merge lists it twice
    twice = pd.concat([qrels, qrels.iloc[[0]]], ignore_index=True)
    assert _grades(twice) is None
    assert _partial(chosen, 3, twice)["docno"].tolist() == ["b", "x", "a", "a", "z", "a", "a"]


def test_scores_of_picks_are_the_scores_of_the_partial_qrels() -> None:
    """The partial qrels scored from the picks alone give what the partial frame gives, at
    every level (grade -1 for a pick without a qrels line counts at level -1)."""
    from pooltool.analysis.simulation import RunScorer, _grades, _partial

    qrels = read_qrels(QRELS)
    grades = _grades(qrels)
    assert grades is not None
    chosen = {"1": ["d2", "x9", "d3", "d4", "d1"], "2": ["y", "d2"]}
    for level in (-1, 0, 1, 2):
        scorer = RunScorer(read_run(RUNS), 2, level)
        for budget in (1, 2, 3, 5):
            recall, precision = scorer.scores_of_picks(chosen, budget, grades)
            frame_recall, frame_precision = scorer.scores(_partial(chosen, budget, qrels))
            assert recall.tolist() == frame_recall.tolist()
            assert precision.tolist() == frame_precision.tolist()
    assert recall.tolist() == [0.0, 1.0, 0.0]  # level 2, budget 5: d4 alone, in B's top 2
    assert precision.tolist() == [0.0, 0.5, 0.0]
