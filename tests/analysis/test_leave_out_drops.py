"""The validation's inner leave-one-out on codes (pooltool.analysis.leave_out_drops) against
leave_one_out itself, run on each group's reduced qrels: the same drops, in the same
order, to the bit (random runs; groups of several runs, k beyond the pool depth, graded
and negative grades, a topic with nothing relevant, a qrels topic no run has, -c)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooltool.analysis.bias import (
    arrow_qrels,
    kept_rows,
    leave_one_out,
    pair_owners,
    top_ranks,
    unique_pairs,
)
from pooltool.analysis.leave_out_drops import PooledCodes
from pooltool.measures.recall import evaluate_recall
from pooltool.ranking import order_run


def _case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    rows = []
    for run in range(6):
        for topic in range(4):
            docs = rng.choice(40, size=20, replace=False)
            rows += [(f"r{run}", f"t{topic}", f"d{doc}", float(rng.integers(0, 9)))
                     for doc in docs]
    runs = order_run(pd.DataFrame(rows, columns=["run_tag", "topic", "docno", "score"]))
    pairs = runs[["topic", "docno"]].drop_duplicates().sample(frac=0.7, random_state=seed)
    qrels = pairs.assign(grade=rng.choice([-1, 0, 0, 1, 2], len(pairs)))
    qrels.loc[qrels["topic"] == "t3", "grade"] = 0  # a topic with nothing relevant
    qrels = pd.concat([qrels, pd.DataFrame({"topic": ["t9"], "docno": ["d1"], "grade": [1]})])
    return runs, qrels.reset_index(drop=True)


GROUPS = {"r0": "a", "r1": "a", "r4": "b", "r5": "b"}


@pytest.mark.parametrize(("seed", "depth", "k", "groups", "level", "complete"), [
    (0, 5, 5, {}, 1, False), (1, 3, 8, GROUPS, 2, True), (2, 6, 2, GROUPS, 1, False)])
def test_the_drops_are_leave_one_outs_to_the_bit(seed: int, depth: int, k: int,
                                                 groups: dict[str, str], level: int,
                                                 complete: bool) -> None:
    runs, qrels = _case(seed)
    top = runs[runs["trec_rank"] <= max(k, depth)].reset_index(drop=True)
    group_of = {t: groups.get(t, t) for t in top["run_tag"].unique()}
    owners = pair_owners(qrels, unique_pairs(top_ranks(top, depth), depth, group_of, qrels))
    codes = PooledCodes.of(top, qrels, group_of, depth, k, level)
    for group in dict.fromkeys(group_of.values()):
        kept = kept_rows(owners, group)
        scored = evaluate_recall(top, arrow_qrels(qrels[kept]), ks=[k], level=level,
                                 complete=complete, ranked=True)
        others = top[top["run_tag"].map(group_of) != group]
        per_run = leave_one_out(
            others, qrels[kept], depth, k, level,
            {t: g for t, g in group_of.items() if g != group}, complete,
            checked=True, scored=scored).per_run.set_index("run_tag")
        for measure in ("P", "recall"):
            expected = per_run[measure] - per_run[f"{measure}_loo"]
            got = codes.drops(group, kept, scored.per_topic_columns, measure)
            assert got.index.tolist() == expected.index.tolist()
            assert got.tolist() == expected.tolist()


@pytest.mark.parametrize(("seed", "k", "level", "complete"), [(0, 5, 1, False),
                                                               (1, 8, 2, True)])
def test_reduced_scores_are_the_evaluations_to_the_bit(seed: int, k: int, level: int,
                                                       complete: bool) -> None:
    """PooledCodes.reduced (the full evaluation less the removed rows) equals
    evaluate_recall on the rows kept, per topic and in the means; None where it would
    not: a topic left without rows, a pair listed twice."""
    runs, qrels = _case(seed)
    top = runs[runs["trec_rank"] <= k].reset_index(drop=True)
    group_of = {t: t for t in top["run_tag"].unique()}
    codes = PooledCodes.of(top, qrels, group_of, 3, k, level)
    full = evaluate_recall(top, arrow_qrels(qrels), ks=[k], level=level, complete=complete,
                           ranked=True)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        kept = rng.random(len(qrels)) < 0.7
        kept[qrels["topic"].drop_duplicates().index] = True  # every topic keeps a row
        scored = evaluate_recall(top, arrow_qrels(qrels[kept]), ks=[k], level=level,
                                 complete=complete, ranked=True)
        got = codes.reduced(kept, full)
        assert got is not None
        for name, column in got.items():
            assert column.tolist() == scored.per_topic_columns[name].tolist(), name
        plain = codes.plain(got, ["r1", "r4"])
        means = scored.summary.set_index("run_tag")
        for tag in ("r1", "r4"):
            assert plain[tag] == {name: means.loc[tag, name] for name in plain[tag]}
    assert codes.reduced((qrels["topic"] != "t0").to_numpy(), full) is None
    twice = pd.concat([qrels, qrels.head(1)], ignore_index=True)
    assert PooledCodes.of(top, twice, group_of, 3, k, level).reduced(
        np.ones(len(twice), dtype=bool), full) is None
