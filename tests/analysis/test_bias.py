"""Leave-one-run-out pool bias, checked against a plain-Python computation on TREC-COVID."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pooltool.analysis.bias import group_runs, leave_one_out, new_run_exposure
from pooltool.errors import PooltoolError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run

# Two runs pool at depth 2. A alone pools a1 (relevant; a2 is below the depth);
# B alone pools b1 (relevant); s is shared and relevant; o (relevant) was judged
# from outside this pool.
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


def test_small_pool_by_hand() -> None:
    result = leave_one_out(read_run(RUNS), read_qrels(QRELS), depth=2, k=3)
    runs = result.per_run.set_index("run_tag")
    # A: full num_rel 4, top 3 = a1 s b1 -> 3/4; without a1 (its unique relevant): 2/3
    assert runs.loc["A", "recall"] == pytest.approx(3 / 4)
    assert runs.loc["A", "recall_loo"] == pytest.approx(2 / 3)
    assert runs.loc["A", ["unique_pooled", "unique_relevant"]].tolist() == [1, 1]
    # B: top 3 = b1 s o -> 3/4; without b1: 2/3; P@3 1 -> 2/3
    assert runs.loc["B", "recall_loo"] == pytest.approx(2 / 3)
    assert runs.loc["B", "P_loo"] == pytest.approx(2 / 3)
    # A's a1 becomes unjudged: unjudged@3 0 -> 1/3
    assert runs.loc["A", ["unjudged", "unjudged_loo"]].tolist() == pytest.approx([0, 1 / 3])


def test_groups_leave_a_whole_team_out() -> None:
    runs = read_run(RUNS + "1 Q0 a1 1 5 A2\n1 Q0 z 2 4 A2\n")
    alone = leave_one_out(runs, read_qrels(QRELS), depth=2, k=3).per_run.set_index("run_tag")
    # with A2 in the pool, a1 is no longer unique to A
    assert alone.loc["A", "unique_relevant"] == 0
    teams = group_runs(["A", "A2", "B"], r"^(A)")
    assert teams == {"A": "A", "A2": "A", "B": "B"}
    grouped = leave_one_out(runs, read_qrels(QRELS), 2, 3, groups=teams).per_run.set_index(
        "run_tag")
    assert grouped.loc["A", "unique_relevant"] == 1
    assert grouped.loc["A", "recall_loo"] == pytest.approx(2 / 3)


def test_bad_requests() -> None:
    with pytest.raises(PooltoolError, match="at least two contributing runs"):
        leave_one_out(read_run("1 Q0 a 1 1 A\n"), read_qrels(QRELS), 2)
    with pytest.raises(PooltoolError, match="must be at least 1"):
        leave_one_out(read_run(RUNS), read_qrels(QRELS), 0)
    with pytest.raises(PooltoolError, match="not a valid regular expression"):
        group_runs(["A"], "(")
    with pytest.raises(PooltoolError, match="names runs that did not contribute: Z"):
        leave_one_out(read_run(RUNS), read_qrels(QRELS), 2, groups={"A": "t", "Z": "t"})
    with pytest.raises(PooltoolError, match=r"no relevant judgment \(grade >= 5\)"):
        leave_one_out(read_run(RUNS), read_qrels(QRELS), 2, level=5)


POOLED = ["BBGhelani2", "bm25_baseline", "ixa-ir-filter-query", "OHSU_RUN2", "run1",
          "sab20.1.meta.docs", "sheikh_bm25_all", "smith.rm3", "T5R1", "udel_fang_run2",
          "UIowaS_Run3", "uogTrDPH_QE"]
NOT_POOLED = ["BM25R2", "CSIROmedNIR", "run2"]


def plain_ranked(path: Path) -> dict[str, list[str]]:
    """Each topic's docnos in trec_eval order (score desc, docno desc), in plain Python."""
    by_topic: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        topic, _, docno, _, score, _ = line.split()
        by_topic.setdefault(topic, []).append((float(score), docno))
    return {t: [d for _, d in sorted(docs, reverse=True)] for t, docs in by_topic.items()}


def plain_qrels(path: Path) -> dict[tuple[str, str], int]:
    return {(t, d): int(g) for t, _, d, g in (line.split() for line in path.read_text().splitlines())}


def plain_recall(ranked: dict[str, list[str]], qrels: dict[tuple[str, str], int], k: int) -> float:
    values = []
    for topic in sorted({t for t, _ in qrels}):
        if topic not in ranked:
            continue
        relevant = {d for (t, d), g in qrels.items() if t == topic and g >= 1}
        hits = sum(d in relevant for d in ranked[topic][:k])
        values.append(hits / len(relevant) if relevant else 0.0)
    return sum(values) / len(values)


@pytest.fixture(scope="module")
def covid(shared_data: Path) -> tuple[Path, dict[str, dict[str, list[str]]],
                                       dict[tuple[str, str], int]]:
    data = shared_data / "trec_covid_r1"
    ranked = {name: plain_ranked(data / "runs" / name) for name in POOLED + NOT_POOLED}
    return data, ranked, plain_qrels(data / "qrels-rnd1.txt")


@pytest.mark.parametrize("k", [10, 100])
def test_trec_covid_leave_one_out_matches_plain_python(covid, k: int) -> None:  # type: ignore[no-untyped-def]
    data, ranked, qrels = covid
    runs = pd.concat([read_run(data / "runs" / name) for name in POOLED], ignore_index=True)
    result = leave_one_out(runs, read_qrels(data / "qrels-rnd1.txt"), depth=7, k=k)
    per_run = result.per_run.set_index("run_tag")
    pooled_by: dict[tuple[str, str], set[str]] = {}
    for name in POOLED:
        for topic, docs in ranked[name].items():
            for docno in docs[:7]:
                pooled_by.setdefault((topic, docno), set()).add(name)
    for name in POOLED:
        own = {pair for pair, names in pooled_by.items() if names == {name}}
        without = {pair: g for pair, g in qrels.items() if pair not in own}
        assert per_run.loc[name, "recall"] == pytest.approx(plain_recall(ranked[name], qrels, k))
        assert per_run.loc[name, "recall_loo"] == pytest.approx(
            plain_recall(ranked[name], without, k))
        assert per_run.loc[name, "unique_pooled"] == len(own)
        assert per_run.loc[name, "unique_relevant"] == sum(qrels.get(p, 0) >= 1 for p in own)
    overall = result.overall()
    drops = [per_run.loc[n, "recall"] - per_run.loc[n, "recall_loo"] for n in POOLED]
    assert overall["mae"] == pytest.approx(sum(abs(d) for d in drops) / len(drops))
    assert overall["sre"] == int(per_run["rank_change"].abs().sum())


def test_trec_covid_new_runs_unjudged_matches_plain_python(covid) -> None:  # type: ignore[no-untyped-def]
    data, ranked, qrels = covid
    runs = pd.concat([read_run(data / "runs" / name) for name in POOLED], ignore_index=True)
    qrels_frame = read_qrels(data / "qrels-rnd1.txt")
    result = leave_one_out(runs, qrels_frame, depth=7, k=10)
    new = pd.concat([read_run(data / "runs" / name) for name in NOT_POOLED], ignore_index=True)
    report = new_run_exposure(new, qrels_frame, result).per_run.set_index("run_tag")
    topics = sorted({t for t, _ in qrels})
    for name in NOT_POOLED:
        unjudged = [sum((t, d) not in qrels for d in ranked[name].get(t, [])[:10]) / 10
                    for t in topics if t in ranked[name]]
        assert report.loc[name, "unjudged@10"] == pytest.approx(sum(unjudged) / len(unjudged))
    # BM25R2 was never pooled and 94 of its top-7 pairs are unjudged (SOURCES.md)
    assert report.loc["BM25R2", "verdict"] == "use with care"
    assert report.loc["run2", "verdict"] == "reusable"
    assert report.loc["run2", "sentence"].startswith("The qrels look reusable for run2: 19.7%")


@pytest.mark.parametrize("names", [("A", "B", "C"), ("z", "y", "x")])
def test_ranks_sre_and_tau_ap_depend_on_no_run_tag(names: tuple[str, str, str]) -> None:
    """A and C pool a, B alone pools b (both relevant), depth 1, k = 1: every full recall is
    1/2; B's leave-out recall is 0, A's and C's stay 1/2. Renamed so that the tag order
    reverses, and given in reverse order, every rank and figure stays."""
    a, b, c = names
    runs = read_run(f"1 Q0 a 1 1 {c}\n1 Q0 b 1 1 {b}\n1 Q0 a 1 1 {a}\n")
    result = leave_one_out(runs, read_qrels("1 0 a 1\n1 0 b 1\n"), depth=1, k=1)
    per_run = result.per_run.set_index("run_tag")
    # competition ranks: all tie at 1; rank_loo: 1 + the others with full recall above
    # their own leave-out recall: A and C none, B two
    assert per_run["rank"].to_dict() == {a: 1, b: 1, c: 1}
    assert per_run["rank_loo"].to_dict() == {a: 1, b: 3, c: 1}
    assert result.overall()["sre"] == 2
    # tau_ap: the leave-out ranking ties A and C above B; the full ranking ties all, broken
    # by the leave-out one. B: both above it concordant, 2/2; the top tie's second place
    # is concordant half the time: 1/2. 2/2 x (1 + 1/2) - 1 = 1/2. tau-b: a side constant
    assert result.ranking.tau_ap == pytest.approx(0.5)
    assert pd.isna(result.ranking.kendall_tau)
