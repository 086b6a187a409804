"""``pooltool impact``: how a qrels change moves Recall@k, the topics and the ranking of runs.

Hand-made cases are worked out in the comments; the real-data tests check
``qrels diff`` and ``impact`` on TREC-covid round 1 against a computation
written here in plain Python over the files.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.analysis.impact import (
    MOVED_COLUMNS,
    OVERALL_COLUMNS,
    PER_RUN_COLUMNS,
    first_k_lines,
    qrels_impact,
)
from pooltool.cli import cli
from pooltool.errors import InvalidArgument, NothingToScore, PooltoolError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "schemas" / "impact-v1.json").read_text())

# Topic 1: b regraded 0 -> 1, f added as relevant: num_rel 2 -> 4.
# Topic 2: x regraded 1 -> 0, z added as relevant: num_rel 1 -> 1.
QRELS_A = "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 0\n2 0 x 1\n2 0 y 0\n"
QRELS_B = "1 0 a 1\n1 0 b 1\n1 0 c 2\n1 0 d 0\n1 0 f 1\n2 0 x 0\n2 0 y 0\n2 0 z 1\n"
# k = 2. r3 has no topic 2 (left out of its mean unless complete).
RUNS = """\
1 Q0 a 1 3 r1
1 Q0 b 2 2 r1
2 Q0 x 1 2 r1
2 Q0 y 2 1 r1
1 Q0 c 1 3 r2
1 Q0 d 2 2 r2
2 Q0 z 1 1 r2
2 Q0 q 2 0.5 r2
1 Q0 f 1 2 r3
1 Q0 b 2 1 r3
"""


Small = tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]
"""The small runs, qrels A and qrels B."""

@pytest.fixture
def small() -> Small:
    return read_run(RUNS), read_qrels(QRELS_A), read_qrels(QRELS_B)


def test_per_run_scores_ranks_and_changes(small: Small) -> None:
    result = qrels_impact(*small, k=2)
    # recall@2 per topic, A -> B:  r1 t1 1/2 -> 2/4, t2 1 -> 0;  r2 t1 1/2 -> 1/4, t2 0 -> 1;
    # r3 t1 0 -> 2/4 (f unjudged under A).  Means: r1 .75 -> .25, r2 .25 -> .625, r3 0 -> .5
    # unjudged@2: r2 t2 (z, q) 2/2 -> 1/2; r3 t1 (f) 1/2 -> 0.   P@2 = rel in top 2 / 2.
    expected = pd.DataFrame({
        "run_tag": ["r1", "r2", "r3"],
        "recall_a": [0.75, 0.25, 0.0], "recall_b": [0.25, 0.625, 0.5],
        "recall_change": [-0.5, 0.375, 0.5],
        # the same topics on both sides: the whole change is the judgments'
        "recall_change_judgments": [-0.5, 0.375, 0.5], "recall_change_topics": [0.0, 0.0, 0.0],
        "unjudged_a": [0.0, 0.5, 0.5], "unjudged_b": [0.0, 0.25, 0.0],
        "unjudged_change": [0.0, -0.25, -0.5],
        "P_a": [0.5, 0.25, 0.0], "P_b": [0.5, 0.5, 1.0],
        "rank_a": [1, 2, 3], "rank_b": [3, 1, 2], "rank_change": [2, -1, -1],
        "num_q_a": [2, 2, 1], "num_q_b": [2, 2, 1],
    })
    pd.testing.assert_frame_equal(result.per_run, expected)
    assert list(result.per_run.columns) == PER_RUN_COLUMNS


@pytest.mark.parametrize("complete", [False, True])
def test_ranked_runs_give_what_ordering_them_again_gives(small: Small, complete: bool) -> None:
    from pooltool.ranking import trec_ranks

    runs, a, b = small
    runs = runs.iloc[::-1].reset_index(drop=True)  # lines out of order
    ranked = runs.assign(trec_rank=trec_ranks(runs))
    want = qrels_impact(runs, a, b, k=2, complete=complete)
    got = qrels_impact(ranked, a, b, k=2, complete=complete, ranked=True)
    pd.testing.assert_frame_equal(got.per_run, want.per_run, check_exact=True)
    pd.testing.assert_frame_equal(got.topics_moved, want.topics_moved, check_exact=True)
    pd.testing.assert_frame_equal(got.topics_overall, want.topics_overall, check_exact=True)



@pytest.mark.parametrize(("k", "complete"), [(1, False), (2, True), (3, False)])
def test_first_k_lines_give_what_the_whole_runs_give(k: int, complete: bool) -> None:
    from pooltool.ranking import trec_ranks

    # r9's lines come first but all of them at rank > 1: cut to its first k lines, r9
    # must still be listed before r1 and r2 (input order), with the same topics
    lines = RUNS + "1 Q0 g 9 0.1 r9\n1 Q0 a 1 5 r9\n2 Q0 x 1 5 r9\n1 Q0 c 2 4 r9\n"
    runs = read_run(lines).iloc[[10, 0, 1, 4, 11, 2, 3, 5, 6, 7, 8, 12, 9, 13]]
    runs = runs.reset_index(drop=True)
    a, b = read_qrels(QRELS_A), read_qrels(QRELS_B)
    ranked = runs.assign(trec_rank=trec_ranks(runs))
    cut = first_k_lines(ranked, k)
    assert (cut["trec_rank"] <= k).all()
    assert list(cut["run_tag"].unique()) == ["r9", "r1", "r2", "r3"]
    assert len(cut) == int((ranked["trec_rank"] <= k).sum())
    want = qrels_impact(runs, a, b, k=k, complete=complete)
    got = qrels_impact(cut, a, b, k=k, complete=complete, ranked=True)
    pd.testing.assert_frame_equal(got.per_run, want.per_run, check_exact=True)
    pd.testing.assert_frame_equal(got.topics_moved, want.topics_moved, check_exact=True)
    pd.testing.assert_frame_equal(got.topics_overall, want.topics_overall, check_exact=True)
    for side in ("recall_a", "recall_b"):
        assert getattr(got, side).missing_topics == getattr(want, side).missing_topics
        assert list(getattr(got, side).missing_topics) == ["r9", "r1", "r2", "r3"]

def test_ranking_comparison(small: Small) -> None:
    result = qrels_impact(*small, k=2)
    # pairs (r1,r2) and (r1,r3) discordant, (r2,r3) concordant: (1 - 2) / 3
    assert result.kendall_tau == pytest.approx(-1 / 3)
    # B order r2, r3, r1: C(r3) = 1 of 1 above, C(r1) = 0 of 2: 2/2 * (1 + 0) - 1 = 0
    assert result.tau_ap == 0.0
    assert result.largest_rank_change == 2
    assert result.largest_rank_change_runs == ["r1"]
    assert result.ranking.sum_rank_change == 4


def test_topics_moved_sorted_by_size_without_unmoved(small: Small) -> None:
    result = qrels_impact(*small, k=2)
    rows = result.topics_moved.values.tolist()
    # r1 t1 stays at 1/2 (2/4) and is not listed; ties on |change| go by rank under A
    assert rows == [["r1", "2", 1.0, 0.0, -1.0], ["r2", "2", 0.0, 1.0, 1.0],
                    ["r3", "1", 0.0, 0.5, 0.5], ["r2", "1", 0.5, 0.25, -0.25]]
    assert list(result.topics_moved.columns) == MOVED_COLUMNS
    top1 = qrels_impact(*small, k=2, top=1).topics_moved
    assert list(zip(top1["run_tag"], top1["topic"], strict=True)) == [
        ("r1", "2"), ("r2", "2"), ("r3", "1")]


def test_topics_overall(small: Small) -> None:
    overall = qrels_impact(*small, k=2).topics_overall
    assert list(overall.columns) == OVERALL_COLUMNS
    # t2: r1 -1, r2 +1 -> mean change 0 but mean |change| 1; t1: 0, -1/4, +1/2
    assert overall["topic"].tolist() == ["2", "1"]
    t2, t1 = overall.to_dict(orient="records")
    assert t2 == {"topic": "2", "recall_a": 0.5, "recall_b": 0.5, "change": 0.0,
                  "abs_change": 1.0, "runs_moved": 2, "num_rel_a": 1, "num_rel_b": 1}
    assert t1["recall_a"] == pytest.approx(1 / 3) and t1["recall_b"] == pytest.approx(5 / 12)
    assert t1["change"] == pytest.approx(1 / 12) and t1["abs_change"] == pytest.approx(0.25)
    assert (t1["runs_moved"], t1["num_rel_a"], t1["num_rel_b"]) == (2, 2, 4)


def test_complete_scores_missing_topics_zero_on_both_sides(small: Small) -> None:
    result = qrels_impact(*small, k=2, complete=True)
    r3 = result.per_run.set_index("run_tag").loc["r3"]
    # r3 t2 counts as 0 under A and B: A (0 + 0) / 2, B (1/2 + 0) / 2
    assert (r3["recall_a"], r3["recall_b"], r3["num_q_a"], r3["num_q_b"]) == (0.0, 0.25, 2, 2)
    assert result.recall_a.missing_topics["r3"] == ["2"] == result.recall_b.missing_topics["r3"]
    assert ("r3", "2") not in set(zip(result.topics_moved["run_tag"],
                                      result.topics_moved["topic"], strict=True))
    # B: r1 and r3 tie at 0.25, the tag decides: r2, r1, r3
    assert result.per_run.set_index("run_tag")["rank_b"].to_dict() == {"r1": 2, "r2": 1, "r3": 3}
    # (r1,r2) discordant, (r2,r3) concordant, (r1,r3) tied in B: (1 - 1) / sqrt(3 * 2)
    assert result.kendall_tau == 0.0


def test_a_topic_only_in_b_counts_in_b_only() -> None:
    runs = read_run("1 Q0 a 1 2 r\n2 Q0 b 1 1 r\n")
    result = qrels_impact(runs, read_qrels("1 0 a 1\n"), read_qrels("1 0 a 1\n2 0 c 1\n"), k=1)
    row = result.per_run.iloc[0]
    # A scores topic 1 only (recall 1); B also topic 2, where c is not retrieved: (1 + 0) / 2
    assert (row["recall_a"], row["recall_b"], row["num_q_a"], row["num_q_b"]) == (1.0, 0.5, 1, 2)
    assert result.topics_moved.empty and result.topics_overall.empty
    assert result.recall_a.ignored_topics["r"] == ["2"]


def test_swapping_a_and_b_negates_every_change(small: Small) -> None:
    runs, qrels_a, qrels_b = small
    forward = qrels_impact(runs, qrels_a, qrels_b, k=2).per_run.set_index("run_tag")
    back = qrels_impact(runs, qrels_b, qrels_a, k=2).per_run.set_index("run_tag")
    for name in ("recall", "unjudged", "rank"):
        assert (forward[f"{name}_change"] == -back.loc[forward.index, f"{name}_change"]).all()


def test_same_qrels_change_nothing(small: Small) -> None:
    runs, qrels_a, _ = small
    result = qrels_impact(runs, qrels_a, qrels_a, k=2)
    assert (result.per_run["recall_change"] == 0).all() and result.topics_moved.empty
    assert result.tau_ap == 1.0 and result.largest_rank_change_runs == []


def test_one_run_has_no_correlation() -> None:
    result = qrels_impact(read_run("1 Q0 a 1 1 r\n"), read_qrels("1 0 a 1\n"),
                          read_qrels("1 0 a 0\n1 0 b 1\n"), k=1)
    assert result.per_run["recall_change"].tolist() == [-1.0]
    assert pd.isna(result.kendall_tau) and pd.isna(result.tau_ap)


@pytest.mark.parametrize(("options", "message"), [
    ({"k": 0}, "cutoff k must be an integer >= 1"),
    ({"level": -1}, "level"),
    ({"top": 0}, "top must be an integer >= 1"),
])
def test_bad_options_are_pooltool_errors(small, options, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgument, match=message) as caught:
        qrels_impact(*small, **options)
    assert isinstance(caught.value, PooltoolError) and isinstance(caught.value, ValueError)


def test_a_run_without_topics_in_b_names_the_side() -> None:
    runs = read_run("1 Q0 a 1 1 r\n")
    with pytest.raises(NothingToScore, match="^qrels B: run 'r' has no topic in the qrels"):
        qrels_impact(runs, read_qrels("1 0 a 1\n"), read_qrels("2 0 a 1\n"))


# --- CLI ----------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"a": tmp_path / "qa.txt", "b": tmp_path / "qb.txt", "runs": tmp_path / "runs.txt"}
    for key, text in (("a", QRELS_A), ("b", QRELS_B), ("runs", RUNS)):
        paths[key].write_text(text)
    return {key: str(path) for key, path in paths.items()}


def invoke(*args: str, db: Path | str = "none.db"):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["--db", str(db), *args])


def test_cli_json_validates_against_the_schema(files) -> None:  # type: ignore[no-untyped-def]
    result = invoke("impact", "--from", files["a"], "--to", files["b"], files["runs"],
                    "-k", "2", "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert document["ranking"] == {
        "measure": "recall@2", "kendall_tau": pytest.approx(-1 / 3), "tau_ap": 0.0,
        "largest_rank_change": 2, "largest_rank_change_runs": ["r1"], "sum_rank_change": 4}
    assert [r["recall_b"] for r in document["runs"]] == [0.25, 0.625, 0.5]
    assert document["missing_topics"]["a"] == {"r1": [], "r2": [], "r3": ["2"]}
    assert "r3: 1 topic(s) of qrels A and B not in the run" in result.stderr


def test_schema_rows_match_the_code() -> None:
    rows = SCHEMA["$defs"]
    assert rows["run_row"]["required"] == PER_RUN_COLUMNS
    assert rows["moved_row"]["required"] == MOVED_COLUMNS
    assert rows["overall_row"]["required"] == OVERALL_COLUMNS


def test_cli_json_with_one_run_has_null_correlations(files, tmp_path) -> None:  # type: ignore[no-untyped-def]
    run = tmp_path / "one.txt"
    run.write_text("1 Q0 a 1 1 solo\n")
    result = invoke("impact", "--from", files["a"], "--to", files["b"], str(run), "--format", "json")
    document = json.loads(result.stdout)
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert document["ranking"]["kendall_tau"] is None and document["ranking"]["tau_ap"] is None


def test_cli_table_and_csv(files) -> None:  # type: ignore[no-untyped-def]
    table = invoke("impact", "--from", files["a"], "--to", files["b"], files["runs"], "-k", "2")
    assert table.exit_code == 0, table.output
    assert ("ranking by Recall@2 on all judgments: Kendall's tau-b -0.3333, tau_ap 0.0000, "
            "largest rank change 2 (r1)") in table.stdout
    assert "topics whose recall@2 moved most (top 5 per run)" in table.stdout
    lines = invoke("impact", "--from", files["a"], "--to", files["b"], files["runs"], "-k", "2",
                   "--format", "csv").stdout.splitlines()
    assert lines[0] == ",".join(PER_RUN_COLUMNS)
    assert lines[1] == "r1,0.75,0.25,-0.5,-0.5,0.0,0.0,0.0,0.0,0.5,0.5,1,3,2,2,2"


def test_cli_errors(files, tmp_path) -> None:  # type: ignore[no-untyped-def]
    missing = invoke("impact", "--from", "official", "--to", files["b"], files["runs"],
                     db=tmp_path / "none.db")
    assert missing.exit_code == 1 and missing.stderr.splitlines()[-1].startswith(
        "Error: 'official' is neither a qrels file nor a stored version (no store at")
    twice = invoke("impact", "--from", files["a"], "--to", files["b"], files["runs"], files["runs"])
    assert twice.exit_code == 1
    assert "Error: run tag 'r1' is in both" in twice.stderr
    usage = invoke("impact", "--to", files["b"], files["runs"])
    assert usage.exit_code == 2 and "--from" in usage.stderr


def test_cli_plot_writes_a_png(files, tmp_path) -> None:  # type: ignore[no-untyped-def]
    image = tmp_path / "impact.png"
    result = invoke("impact", "--from", files["a"], "--to", files["b"], files["runs"], "-k", "2",
                    "--plot", str(image))
    assert result.exit_code == 0, result.output
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written: {image}" in result.stderr


def test_help_has_an_example() -> None:
    result = CliRunner().invoke(cli, ["impact", "--help"])
    assert result.exit_code == 0 and "Example" in result.output


# --- real data: TREC-covid round 1 -------------------------------------------------

REGRADE = {2: 0, 0: 2, 1: 0}
REAL_RUNS = ("run1", "T5R1", "BBGhelani2")


@pytest.fixture(scope="module")
def covid(shared_data: Path) -> Path:
    """TREC-covid round 1 in ``../shared/data`` (skipped where it is absent)."""
    return shared_data / "trec_covid_r1"


def qrels_lines(covid: Path) -> list[tuple[str, str, int]]:
    lines = (covid / "qrels-rnd1.txt").read_text().splitlines()
    return [(t, d, int(g)) for t, _, d, g in (line.split() for line in lines if line.strip())]


def regraded_sample(covid: Path) -> dict[tuple[str, str], tuple[int, int]]:
    """Every 50th qrels line, regraded 2->0, 0->2, 1->0: (topic, docno) -> (old, new)."""
    return {(t, d): (g, REGRADE[g]) for t, d, g in qrels_lines(covid)[::50]}


@pytest.fixture(scope="module")
def covid_store(covid: Path, module_store: str) -> str:
    """TREC-COVID round 1's qrels (version official) and a regrader's sample (version
    regraded), once on each engine."""
    from pooltool.store import JudgmentStore

    path = module_store
    with JudgmentStore.open(path) as store:
        store.import_qrels(covid / "qrels-rnd1.txt", "official")
        for (topic, docno), (_, new) in regraded_sample(covid).items():
            store.record_judgment(topic, docno, new, "regrader")
        store.tag_version("regraded")
    return path


def test_real_diff_finds_exactly_the_regraded_judgments(covid: Path, covid_store: str) -> None:
    sample = regraded_sample(covid)
    assert len(sample) == 174  # 8691 lines, every 50th
    result = invoke("qrels", "diff", "official", "regraded", "--format", "json", db=covid_store)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    totals = document["totals"]
    assert (totals["added"], totals["removed"], totals["regraded"]) == (0, 0, 174)
    found = {(c["topic"], c["docno"]): (c["grade_a"], c["grade_b"]) for c in document["changes"]}
    assert found == sample
    assert {c["change"] for c in document["changes"]} == {"regraded"}
    # num_rel at grade >= 1 from the file itself: 0->2 gains one, 1->0 and 2->0 lose one
    relevant = sum(g >= 1 for _, _, g in qrels_lines(covid))
    gained = sum(old == 0 for old, _ in sample.values())
    lost = len(sample) - gained
    assert (totals["num_rel_a"], totals["num_rel_b"]) == (relevant, relevant + gained - lost)
    assert (relevant, gained, lost) == (2352, 125, 49)


def independent_recall(run: Path, qrels: dict[tuple[str, str], int], k: int,
                       level: int = 1) -> dict[str, float]:
    """recall@k per topic in plain Python: qrels topics present in the run, trec_eval order."""
    relevant: dict[str, set[str]] = defaultdict(set)
    for (topic, docno), grade in qrels.items():
        if grade >= level:
            relevant[topic].add(docno)
    ranked: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in run.read_text().splitlines():
        topic, _, docno, _, score, _ = line.split()
        ranked[topic].append((float(score), docno))
    topics = {topic for topic, _ in qrels} & set(ranked)
    recall = {}
    for topic in topics:
        top = {docno for _, docno in sorted(ranked[topic], reverse=True)[:k]}
        recall[topic] = len(top & relevant[topic]) / len(relevant[topic]) if relevant[topic] else 0.0
    return recall


def trec_eval_all(covid: Path, run: str, k: int) -> float:
    """The ``recall_<k> all`` line of trec_eval 10.0's saved output for a run (official qrels)."""
    for line in (covid / "trec_eval_10" / f"{run}.txt").read_text().splitlines():
        fields = line.split()
        if fields[:2] == [f"recall_{k}", "all"]:
            return float(fields[2])
    raise LookupError(f"no recall_{k} all line for {run}")


@pytest.fixture
def real_runs(covid: Path, tmp_path: Path) -> dict[str, Path]:
    """Three TREC-covid runs, and T5R1 without topic 5 (tagged T5R1_no5): a missing topic."""
    runs = {name: covid / "runs" / name for name in REAL_RUNS}
    lines = (covid / "runs" / "T5R1").read_text().splitlines()
    runs["T5R1_no5"] = tmp_path / "T5R1_no5"
    runs["T5R1_no5"].write_text("".join(
        " ".join([*line.split()[:5], "T5R1_no5"]) + "\n" for line in lines if line.split()[0] != "5"))
    return runs


@pytest.mark.parametrize("k", [10, 100])
def test_real_impact_matches_an_independent_computation(covid: Path, covid_store: str,
                                                       real_runs: dict[str, Path], k: int) -> None:
    official = {(t, d): g for t, d, g in qrels_lines(covid)}
    regraded = {**official, **{pair: new for pair, (_, new) in regraded_sample(covid).items()}}
    result = invoke("impact", "--from", "official", "--to", "regraded",
                    *map(str, real_runs.values()), "-k", str(k), "--top", "3", "--format", "json",
                    db=covid_store)
    assert result.exit_code == 0, result.output
    assert "run T5R1_no5: 1 topic(s) of qrels A and B not in the run, left out of its mean: 5" \
        in result.stderr
    document = json.loads(result.stdout)
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    per_run = {row["run_tag"]: row for row in document["runs"]}
    assert set(per_run) == set(real_runs)
    expected: dict[str, dict[str, dict[str, float]]] = {}
    for name, path in real_runs.items():
        a, b = independent_recall(path, official, k), independent_recall(path, regraded, k)
        expected[name] = {"a": a, "b": b}
        topics = 29 if name == "T5R1_no5" else 30
        assert len(a) == len(b) == per_run[name]["num_q_a"] == per_run[name]["num_q_b"] == topics
        assert per_run[name]["recall_a"] == pytest.approx(sum(a.values()) / topics, abs=1e-12)
        assert per_run[name]["recall_b"] == pytest.approx(sum(b.values()) / topics, abs=1e-12)
    for name in REAL_RUNS:  # and trec_eval agrees under the official qrels
        assert round(per_run[name]["recall_a"], 4) == trec_eval_all(covid, name, k)
    for row in document["topics_moved"]:
        sides = expected[row["run_tag"]]
        assert row["recall_a"] == pytest.approx(sides["a"][row["topic"]], abs=1e-12)
        assert row["recall_b"] == pytest.approx(sides["b"][row["topic"]], abs=1e-12)
    for name, sides in expected.items():  # each run's largest move is the one listed first for it
        largest = max(abs(sides["b"][t] - sides["a"][t]) for t in sides["a"])
        listed = [r for r in document["topics_moved"] if r["run_tag"] == name]
        assert len(listed) == 3 and abs(listed[0]["change"]) == pytest.approx(largest, abs=1e-12)


def test_real_impact_table_and_plot(covid: Path, covid_store: str, tmp_path: Path) -> None:
    image = tmp_path / "covid.png"
    runs = [str(covid / "runs" / name) for name in REAL_RUNS]
    result = invoke("impact", "--from", "official", "--to", "regraded", *runs,
                    "--plot", str(image), db=covid_store)
    assert result.exit_code == 0, result.output
    assert ("ranking by Recall@100 on all judgments: Kendall's tau-b 1.0000, tau_ap 1.0000, "
            "largest rank change 0") in result.stdout
    assert image.stat().st_size > 10_000 and image.read_bytes()[:4] == b"\x89PNG"
