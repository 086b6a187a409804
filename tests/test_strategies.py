"""Pooling strategies on small hand-made runs, against orders worked out by hand."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pandas as pd
import pytest

from pooltool.errors import PooltoolError
from pooltool.judging.strategies import (
    RankedRun,
    Strategy,
    judge_sequence,
    next_document,
    parse_strategy,
    topic_runs,
)

# One topic, three runs (tag order A, B, C), ranked best first:
#   A: d1 (3), d2 (2), d3 (1)     B: d2 (1), d4 (0.75), d1 (0.5)     C: d5 (5), d3 (4)
A = RankedRun("A", ("d1", "d2", "d3"), (3.0, 2.0, 1.0))
B = RankedRun("B", ("d2", "d4", "d1"), (1.0, 0.75, 0.5))
C = RankedRun("C", ("d5", "d3"), (5.0, 4.0))
RUNS = (A, B, C)


def order(text: str, runs: tuple[RankedRun, ...] = RUNS, relevant: frozenset[str] = frozenset(),
          budget: int = 100) -> list[str]:
    return judge_sequence(parse_strategy(text).chooser(runs, "1"), relevant, budget)


@pytest.mark.parametrize(("text", "expected"), [
    # union of the top 1 {d1, d2, d5} and of the top 2, in docno order; nothing beyond
    ("depth:k=1", ["d1", "d2", "d5"]),
    ("depth:k=2", ["d1", "d2", "d3", "d4", "d5"]),
    # rank 1: d1 d2 d5; rank 2: (d2) d4 d3; rank 3: nothing new
    ("roundrobin", ["d1", "d2", "d5", "d4", "d3"]),
    # d2 1/61+1/62 > d1 1/61+1/63 > d3 1/62+1/63 > d5 1/61 > d4 1/62
    ("rrf", ["d2", "d1", "d3", "d5", "d4"]),
    # k=0: d2 1/2+1 = 1.5 > d1 1+1/3 > d5 1 > d3 1/3+1/2 > d4 1/2
    ("rrf:k=0", ["d2", "d1", "d5", "d3", "d4"]),
    # c = 5; A gives 5,4,3 and 1.5 to d4, d5; B 5,4,3 and 1.5 to d3, d5; C 5,4 and 2 to
    # d1, d2, d4: d2 11 > d1 10 > d3 8.5 > d5 8 > d4 7.5
    ("borda", ["d2", "d1", "d3", "d5", "d4"]),
    # min-max: A 1, .5, 0; B 1, .5, 0; C 1, 0: d2 1.5 > d1 1 = d5 1 (docno order) > d4 .5 > d3 0
    ("combsum", ["d2", "d1", "d5", "d4", "d3"]),
    # p = 0.5: weights .5, .25, .125: d2 .75 > d1 .625 > d5 .5 > d3 .375 > d4 .25
    ("rbp:p=0.5", ["d2", "d1", "d5", "d3", "d4"]),
])
def test_static_orders(text: str, expected: list[str]) -> None:
    assert order(text) == expected


def test_a_budget_stops_a_static_order() -> None:
    assert order("rrf", budget=2) == ["d2", "d1"]


def test_move_to_front_by_hand() -> None:
    # A (priority 0) gives d1, not relevant: A -1. B (first run at 0) gives d2, relevant,
    # and keeps its turn: d4, relevant. B has nothing left (d1 judged). C (0) gives d5,
    # not relevant: C -1. A and C are at -1: C, chosen last, keeps its turn: d3.
    assert order("mtf", relevant=frozenset({"d2", "d4"})) == ["d1", "d2", "d4", "d5", "d3"]


def test_move_to_front_keeps_the_last_run_on_a_tie() -> None:
    # a1 and b1 are not relevant, so A and B both fall to -1; B, chosen last, goes on.
    runs = (RankedRun("A", ("a1", "a2"), (2, 1)), RankedRun("B", ("b1", "b2"), (2, 1)))
    assert order("mtf", runs) == ["a1", "b1", "b2", "a2"]


# A: a1..a5, B: b1..b3; relevant a1, a2 and b2.
ARMS = (RankedRun("A", ("a1", "a2", "a3", "a4", "a5"), (5, 4, 3, 2, 1)),
        RankedRun("B", ("b1", "b2", "b3"), (3, 2, 1)))
ARMS_RELEVANT = frozenset({"a1", "a2", "b2"})


def test_maxmean_by_hand() -> None:
    # means (rel + 1) / (n + 2): A 2/3, 3/4, then a3 no: 3/5 > B 1/2; a4 no: 3/6 = 1/2 ties
    # with B and A comes first in tag order; a5 no: 3/7. Then B's three.
    assert order("maxmean", ARMS, ARMS_RELEVANT) == ["a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3"]


def test_mmns_by_hand() -> None:
    # gamma 0.5: A after a1 (1, 0) 2/3; a2 (1.5, 0) 5/7; a3 (0.75, 1) 1.75/3.75 = .467 < B 1/2:
    # b1 no, B (0, 1) 1/3; A .467 again: a4 (.375, 1.5) 1.375/3.875 = .355 > 1/3: a5; then B.
    assert order("mmns:gamma=0.5", ARMS, ARMS_RELEVANT) == [
        "a1", "a2", "a3", "b1", "a4", "a5", "b2", "b3"]


def test_mmns_with_gamma_1_is_maxmean() -> None:
    assert order("mmns:gamma=1", ARMS, ARMS_RELEVANT) == order("maxmean", ARMS, ARMS_RELEVANT)


def test_thompson_first_draw_follows_its_definition() -> None:
    # the first choice: the largest of Beta(1, 1) draws for A and B, from PCG64 seeded
    # by (seed, crc32(topic))
    for seed in range(5):
        draws = np.random.default_rng([seed, zlib.crc32(b"1")]).beta([1.0, 1.0], [1.0, 1.0])
        expected = ARMS[int(np.argmax(draws))].docnos[0]
        assert order(f"thompson:seed={seed}", ARMS, ARMS_RELEVANT, budget=1) == [expected]


def test_thompson_is_reproducible_and_seeded() -> None:
    runs = tuple(RankedRun(tag, tuple(f"{tag}{i}" for i in range(30)), tuple(range(30, 0, -1)))
                 for tag in "ABCDEF")
    relevant = frozenset(f"C{i}" for i in range(30))
    first = order("thompson:seed=7", runs, relevant, budget=40)
    assert first == order("thompson:seed=7", runs, relevant, budget=40)
    assert first != order("thompson:seed=8", runs, relevant, budget=40)
    # the relevant run wins most draws once it has shown itself
    assert sum(docno.startswith("C") for docno in first) >= 25


@pytest.mark.parametrize("text", ["depth", "rrf", "mtf", "maxmean", "mmns", "thompson:seed=3",
                                  "hedge", "rundepth:k=1,first.C=1"])
def test_the_next_document_is_rebuilt_from_the_log(text: str) -> None:
    relevant = frozenset({"d2", "d4"})
    live = order(text, relevant=relevant)
    for done in range(len(live)):
        log = [(docno, docno in relevant) for docno in live[:done]]
        assert next_document(parse_strategy(text).chooser(RUNS, "1"), log) == live[done]
    assert next_document(parse_strategy(text).chooser(RUNS, "1"),
                         [(d, d in relevant) for d in live]) is None


def test_a_judgment_the_strategy_did_not_ask_for_only_makes_the_document_judged() -> None:
    # MTF names d1 (A); d4 is judged instead (not relevant): no priority changes, so
    # A still names its first unjudged document, d1.
    chooser = parse_strategy("mtf").chooser(RUNS, "1")
    assert next_document(chooser, [("d4", False)]) == "d1"
    # a document judged twice counts once
    chooser = parse_strategy("maxmean").chooser(RUNS, "1")
    assert next_document(chooser, [("d1", True), ("d1", False)]) == "d2"


def test_topic_runs_orders_as_trec_eval() -> None:
    frame = pd.DataFrame({"run_tag": ["R", "R", "R", "Q"], "topic": ["2", "2", "2", "2"],
                          "docno": ["x", "y", "z", "w"], "score": [1.0, 2.0, 1.0, 0.5]})
    runs = topic_runs(frame)["2"]
    assert [r.tag for r in runs] == ["Q", "R"]
    assert runs[1].docnos == ("y", "z", "x")  # ties by docno descending
    assert runs[1].scores == (2.0, 1.0, 1.0)



@pytest.mark.parametrize("seed", range(5))
def test_topic_runs_are_the_stable_sort_by_topic_tag_and_rank(seed: int) -> None:
    from pooltool.ranking import order_run

    # topics and tags whose string order is not their number's ("10" < "9"), non-ASCII
    # tags, score ties, lines in any order; the reference is the stable pandas sort
    rng = np.random.default_rng(seed)
    n = 400
    frame = pd.DataFrame({
        "run_tag": rng.choice(["r10", "r9", "é", "R", "r1"], n),
        "topic": rng.choice(["10", "9", "1", "100", "2"], n),
        "docno": [f"d{i}" for i in rng.permutation(n)],
        "score": rng.integers(0, 4, n).astype(float)})
    ranked = order_run(frame).sample(frac=1.0, random_state=seed)
    want = ranked.sort_values(["topic", "run_tag", "trec_rank"], kind="stable")
    got = topic_runs(ranked)
    assert list(got) == list(dict.fromkeys(want["topic"]))
    for topic, runs in got.items():
        lines = want[want["topic"] == topic]
        assert [run.tag for run in runs] == list(dict.fromkeys(lines["run_tag"]))
        for run in runs:
            mine = lines[lines["run_tag"] == run.tag]
            assert run.docnos == tuple(mine["docno"])
            assert run.scores == tuple(mine["score"])

@pytest.mark.parametrize("rank_high", [5, 2 ** 40, 2 ** 61])  # the one key; too wide: lexsort
def test_group_rank_order_is_the_lexsort(rank_high: int) -> None:
    from pooltool.judging.choosers import _group_rank_order

    rng = np.random.default_rng(rank_high % 97)
    group = rng.integers(0, 4, 300)
    rank = rng.integers(0, rank_high, 300)  # repeated pairs too: kept in line order
    want = np.lexsort((rank, group))
    assert _group_rank_order(group, rank).tolist() == want.tolist()
    assert _group_rank_order(group - 2, rank).tolist() == want.tolist()  # negative: lexsort
    assert _group_rank_order(group[:0], rank[:0]).tolist() == []


def test_parse_strategy_fills_defaults_and_labels() -> None:
    assert parse_strategy("depth") == Strategy("depth", {"k": 7.0})
    assert parse_strategy("depth", {"k": 10}).label == "depth:k=10"
    assert parse_strategy("rbp:p=0.95").label == "rbp:p=0.95"
    assert parse_strategy("thompson:seed=2").params == {"seed": 2.0, "a": 1.0, "b": 1.0}
    assert parse_strategy("mtf").label == "mtf"


@pytest.mark.parametrize(("text", "message"), [
    ("nope", "unknown strategy 'nope'"),
    ("mtf:k=3", "strategy mtf has no parameter 'k'"),
    ("rrf:q=3", "it takes k"),
    ("rbp:p=1", "p must be between 0 and 1 (exclusive), got 1"),
    ("depth:k=2.5", "k must be a whole number >= 1, got 2.5"),
    ("rrf:k=x", "k='x' is not a number"),
    ("mmns:gamma=nan", "is not a finite number"),
])
def test_parse_strategy_refuses_bad_input(text: str, message: str) -> None:
    with pytest.raises(PooltoolError, match=re.escape(message)):
        parse_strategy(text)


@pytest.mark.parametrize("text", ["rrf", "rbp:p=0.9", "borda"])
def test_mirrored_ranks_tie_exactly_and_go_in_docno_order(text: str) -> None:
    # x is 1st in A and 3rd in B, y the mirror image: equal terms, so an exact tie
    runs = (RankedRun("A", ("x", "m", "y"), (3, 2, 1)), RankedRun("B", ("y", "n", "x"), (3, 2, 1)),
            RankedRun("C", ("p", "q", "r"), (3, 2, 1)))
    assert order(text, runs)[:2] == ["x", "y"]
    mirrored = (RankedRun("A", ("y", "m", "x"), (3, 2, 1)), *runs[1:])
    assert order(text, mirrored)[:1] == ["y"]


def test_a_judgment_of_a_runs_next_document_counts_for_that_run() -> None:
    # another assessor judged d5, C's best unjudged document, relevant: C's mean is 2/3,
    # above A's and B's 1/2, so MaxMean draws C's next, d3 (not A's d1)
    chooser = parse_strategy("maxmean").chooser(RUNS, "1")
    assert next_document(chooser, [("d5", True)]) == "d3"


def test_a_document_set_aside_is_skipped_without_a_judgment() -> None:
    # MTF names d1 (A); with d1 set aside (on another assessor's screen) A offers d2
    chooser = parse_strategy("mtf").chooser(RUNS, "1")
    assert chooser.next() == "d1"
    chooser.set_aside("d1")
    assert chooser.next() == "d2"
    assert getattr(chooser, "priority") == [0, 0, 0]  # noqa: B009 (MoveToFront's state)


@pytest.mark.parametrize(("text", "expected"), [
    # depths A 1, B 2, C 1: {d1}, {d2, d4}, {d5}; C is a priority run: d5 first
    ("rundepth:k=1,k.B=2,first.C=1", ["d5", "d1", "d2", "d4"]),
    # A left out: B's d2 and C's d5
    ("rundepth:k=1,k.A=0", ["d2", "d5"]),
    # no per-run depth and no priority run: the depth pool
    ("rundepth:k=2", ["d1", "d2", "d3", "d4", "d5"]),
])
def test_run_depths_and_priority_runs(text: str, expected: list[str]) -> None:
    assert order(text) == expected


def test_rundepth_refuses_bad_run_parameters() -> None:
    with pytest.raises(PooltoolError, match=r"first.A must be 0 or 1, got 2"):
        parse_strategy("rundepth:first.A=2")
    with pytest.raises(PooltoolError, match=r"it takes k, k.TAG, first.TAG"):
        parse_strategy("rundepth:depth.A=2")
    assert parse_strategy("rundepth:k.A=3").label == "rundepth:k=7,k.A=3"


def test_hedge_by_hand() -> None:
    # AP prior (H_Z - H_(r-1)) / H_Z: A and B (Z = 3) 1, 5/11, 2/11; C (Z = 2) 1, 1/3.
    # weights 1: d1 1 + 2/11, d2 5/11 + 1 (largest), d3 2/11 + 1/3, d4 5/11, d5 1: d2.
    # d2 relevant, beta 0.5: losses A 6/11, B 0, C 1: w = .6852, 1, .5; d1 .6852 + 2/11
    # = .867 > d5 .5 > d4 .4545 > d3: d1. d1 not relevant: losses A 1, B 2/11, C 0:
    # w = .3426, .8816, .5; d5 .5 > d4 .4007 > d3 .229: d5. d5 not relevant: C .25;
    # d4 .4007 > d3 .1456: d4, then d3.
    relevant = frozenset({"d2", "d4"})
    assert order("hedge:beta=0.5", relevant=relevant) == ["d2", "d1", "d5", "d4", "d3"]


def test_hedge_weights_follow_the_definition() -> None:
    chooser = parse_strategy("hedge:beta=0.5").chooser(RUNS, "1")
    assert next_document(chooser, [("d2", True), ("d1", False)]) == "d5"
    assert getattr(chooser, "weights").tolist() == pytest.approx(  # noqa: B009
        [0.5 ** (6 / 11 + 1), 0.5 ** (2 / 11), 0.5])


def test_each_strategy_is_registered_once_with_an_order_or_a_chooser() -> None:
    """One registry: a name registered twice, or a kind with both (or neither) of a
    static order and a chooser builder, is refused."""
    from pooltool.judging.strategies import STRATEGIES, StrategyKind, register

    assert list(STRATEGIES) == ["depth", "rundepth", "roundrobin", "rrf", "borda", "combsum",
                                "rbp", "mtf", "maxmean", "mmns", "thompson", "hedge"]
    assert all((kind.order is None) != (kind.build is None) for kind in STRATEGIES.values())
    with pytest.raises(ValueError, match="registered twice"):
        register(StrategyKind("depth", order=lambda runs, p, limit: []))
    with pytest.raises(ValueError, match="exactly one"):
        register(StrategyKind("neither"))
    assert "neither" not in STRATEGIES


@pytest.mark.parametrize("seed", range(5))
def test_hedge_table_is_the_docno_sorted_table(seed: int) -> None:
    from pooltool.judging.choosers import ap_prior, hedge_table

    rng = np.random.default_rng(seed)
    names = ["b", "a", "B", "10", "9", "é", "a0", "z"]
    runs = tuple(RankedRun(f"r{i}", tuple(rng.choice(names, int(rng.integers(0, 6)),
                                                     replace=False).tolist()), ())
                 for i in range(int(rng.integers(1, 5))))
    docnos, column, values = hedge_table(runs)
    assert docnos == sorted({d for run in runs for d in run.docnos})
    assert column == {d: i for i, d in enumerate(docnos)}
    want = np.zeros((len(runs), len(docnos)))
    for row, run in enumerate(runs):
        for docno, value in zip(run.docnos, ap_prior(len(run.docnos)), strict=True):
            want[row, column[docno]] = value
    assert values.tolist() == want.tolist()


def test_a_ranked_runs_hash_is_its_fields_hash() -> None:
    twin = RankedRun("A", ("d1", "d2", "d3"), (3.0, 2.0, 1.0))
    assert twin == A and twin is not A
    assert hash(twin) == hash(A) == hash(("A", A.docnos, A.scores))
    assert hash(B) != hash(A)
