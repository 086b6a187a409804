"""The lipani re-rank sorts only the lines that can reach the top k: the same top k as
re-ranking every line (random runs, ranks beyond 1e4 whose tie-breaks exceed 1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooltool.analysis.lipani import _mixed_positions, _precision_pair, _ranked, rerank_top_k


def _lines(rng: np.random.Generator, tags: int, topics: int, depth: int,
           docs: int) -> pd.DataFrame:
    rows = []
    for tag in range(tags):
        for topic in range(topics):
            chosen = rng.choice(docs, size=depth, replace=False)
            rank = np.arange(1, depth + 1) * (rng.integers(1, 3) if depth < 50 else 1)
            rows.append(pd.DataFrame({"run_tag": tag, "topic": topic, "docno": chosen,
                                      "trec_rank": rank}))
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 10, 40])
def test_top_k_is_the_full_rerank_cut_at_k(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    pooled = _lines(rng, tags=4, topics=3, depth=int(rng.integers(5, 60)), docs=80)
    run = _lines(rng, tags=1, topics=3, depth=int(rng.integers(5, 60)), docs=80)
    if seed % 2:
        pooled["trec_rank"] += 12_000  # tie-breaks (r_p + 1) / 1e4 above 1
    full = _ranked(*_mixed_positions(pooled, run))
    expected = full[full["trec_rank"] <= k].reset_index(drop=True)
    got = rerank_top_k(pooled, run, k).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected)


def _precision_pair_by_join(lines: pd.DataFrame, qrels: pd.DataFrame, k: int,
                            level: int) -> pd.DataFrame:
    """The pandas join that :func:`_precision_pair` replaced, kept as its reference."""
    topics = set(qrels["topic"].unique())
    scored = lines[lines["topic"].isin(topics)]
    top = scored.loc[scored["trec_rank"] <= k, ["run_tag", "topic", "docno"]].merge(
        qrels[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")
    grade = top["grade"].fillna(-1)
    relevant = grade >= level
    counts = top.assign(rel=relevant, anti=(grade >= 0) & ~relevant).groupby(
        ["run_tag", "topic"])[["rel", "anti"]].sum()
    every = scored[["run_tag", "topic"]].drop_duplicates().set_index(["run_tag", "topic"])
    counts = counts.reindex(every.index, fill_value=0) / k
    return counts.groupby(level="run_tag").mean().rename(columns={"rel": "P", "anti": "AP"})


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [1, 5, 10, 30])
def test_precision_pair_is_the_join(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    lines = _lines(rng, tags=int(rng.integers(1, 5)), topics=4, depth=int(rng.integers(1, 40)),
                   docs=60).sample(frac=1.0, random_state=seed)  # any line order
    judged = lines[["topic", "docno"]].drop_duplicates().sample(frac=0.6, random_state=seed)
    qrels = judged.assign(grade=rng.integers(-1, 3, len(judged)))
    qrels = qrels[qrels["topic"] != 3]  # a run topic the qrels lack
    if seed % 2:
        qrels = pd.concat([qrels, qrels.head(5)])  # a pair listed twice counts twice
    qrels = pd.concat([qrels, pd.DataFrame({"topic": [9], "docno": [7], "grade": [1]})])
    for level in (1, 2):
        got = _precision_pair(lines, qrels, k, level)
        pd.testing.assert_frame_equal(got, _precision_pair_by_join(lines, qrels, k, level),
                                      check_exact=True)


def test_precision_pair_of_no_scored_topic_is_empty() -> None:
    lines = pd.DataFrame({"run_tag": [0], "topic": [1], "docno": [2], "trec_rank": [1]})
    qrels = pd.DataFrame({"topic": [5], "docno": [2], "grade": [1]})
    assert _precision_pair(lines, qrels, 10, 1).empty
