"""lipani on integer codes (pooltool.analysis.lipani) against the pandas code it replaced,
kept here as the reference: the re-rank p ◦ s of every line, cut at k (random runs, ranks
beyond 1e4 whose tie-breaks exceed 1, a run that ranks deep what the pooled runs rank
high), P@k / AP@k by a join, and the adjustment they make, equal to the bit."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from pooltool.analysis.lipani import (
    CodedLines,
    Judgments,
    _means,
    _precision_pair,
    lipani_adjustment,
    rerank_top_k,
)
from pooltool.errors import PooltoolError


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


def _full_rerank(pooled: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    """Every pooled line on the run's topics re-ranked (a merge and a full sort)."""
    theirs = run[["topic", "docno", "trec_rank"]].rename(columns={"trec_rank": "r_s"})
    mixed = pooled.loc[pooled["topic"].isin(theirs["topic"].unique()),
                       ["run_tag", "topic", "docno", "trec_rank"]].merge(
        theirs, on=["topic", "docno"], how="left")
    r_p, r_s = mixed["trec_rank"].to_numpy(float), mixed["r_s"].to_numpy(float)
    step = r_s - r_p
    tie_break = np.select([step == 0, step > 0], [1e-4, (r_p + 1) / 1e4], r_p / 1e8)
    mixed["position"] = np.where(np.isnan(r_s), r_p + 1e-4, r_s + tie_break)
    ordered = mixed.sort_values(["run_tag", "topic", "position", "docno"],
                                ascending=[True, True, True, False], kind="stable")
    ordered["trec_rank"] = ordered.groupby(["run_tag", "topic"]).cumcount() + 1
    return ordered[["run_tag", "topic", "docno", "trec_rank"]].reset_index(drop=True)


def _precision_pair_by_join(lines: pd.DataFrame, qrels: pd.DataFrame, k: int,
                            level: int) -> pd.DataFrame:
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


def _adjustment_by_join(run: pd.DataFrame, pooled: pd.DataFrame, qrels: pd.DataFrame, k: int,
                        level: int) -> float:
    mine = _precision_pair_by_join(run.assign(run_tag=-1), qrels, k, level).iloc[0]
    unjudged = 1.0 - mine["P"] - mine["AP"]
    if unjudged == 0 or pooled.empty:
        return 0.0
    before = _precision_pair_by_join(pooled, qrels, k, level)
    full = _full_rerank(pooled, run)
    after = _precision_pair_by_join(full[full["trec_rank"] <= k], qrels, k,
                                    level).reindex(before.index)
    delta_p, delta_ap = after["P"] - before["P"], after["AP"] - before["AP"]
    lam = float(delta_p.mean()) * mine["AP"] - float(delta_ap.mean()) * mine["P"]
    if lam <= 0:
        return 0.0
    return float(unjudged * max(float((-delta_p - delta_ap).mean()), 0.0))


def _case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Pooled runs, a run (tag 9) and qrels: random; odd seeds rank the pooled runs past
    12,000; seeds 2 and 5 give a run that ranks the pooled runs' first documents last."""
    rng = np.random.default_rng(seed)
    pooled = _lines(rng, tags=4, topics=3, depth=int(rng.integers(5, 60)), docs=80)
    run = _lines(rng, tags=1, topics=3, depth=int(rng.integers(5, 60)), docs=80)
    if seed % 3 == 2:
        first = pooled[pooled["run_tag"] == 0].sort_values(["topic", "trec_rank"])
        run = first.assign(trec_rank=first.groupby("topic").cumcount(ascending=False) + 1)
    if seed % 2:
        pooled["trec_rank"] += 12_000  # tie-breaks (r_p + 1) / 1e4 above 1
    run = run.assign(run_tag=9)
    # judged: a pool of the pooled runs' first documents, as lipani assumes
    first = pooled.groupby(["run_tag", "topic"])["trec_rank"].rank() <= 6
    judged = pooled.loc[first, ["topic", "docno"]].drop_duplicates()
    qrels = judged.assign(grade=rng.choice([-1, 0, 0, 1, 2], len(judged)))
    return pooled, run, qrels[qrels["topic"] != 2]  # a run topic the qrels lack


def _decoded(coded: CodedLines, frame: pd.DataFrame, reranked: object) -> pd.DataFrame:
    docno = pd.Series(frame["docno"].to_numpy(), index=coded.pair[:len(frame)])
    docno = docno[~docno.index.duplicated()]
    topics = pd.Series(frame["topic"].to_numpy(), index=coded.topic[:len(frame)])
    topics = topics[~topics.index.duplicated()]
    return pd.DataFrame({
        "run_tag": [coded.tags[t] for t in reranked.tag],  # type: ignore[attr-defined]
        "topic": topics.loc[reranked.topic].to_numpy(),  # type: ignore[attr-defined]
        "docno": docno.loc[reranked.pair].to_numpy(),  # type: ignore[attr-defined]
        "trec_rank": reranked.rank})  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [1, 3, 10, 40])
def test_top_k_is_the_full_rerank_cut_at_k(seed: int, k: int) -> None:
    pooled, run, qrels = _case(seed)
    coded = CodedLines.of(pooled, qrels, run)
    reranked = rerank_top_k(coded, np.arange(len(coded.tags)) < coded.pooled_tags,
                            coded.code(9, new=True), k)
    full = _full_rerank(pooled, run)
    expected = full[full["trec_rank"] <= k].reset_index(drop=True)
    got = _decoded(coded, pooled, reranked)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)


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
    coded = CodedLines.of(lines, qrels)
    for level in (1, 2):
        judgments = Judgments.of(coded, np.ones(len(qrels), dtype=bool), level)
        pair = _precision_pair(coded, np.ones(len(coded.tags), dtype=bool), judgments, k,
                               np.flatnonzero(coded.rank <= k))
        got = pd.DataFrame({"P": pair.P, "AP": pair.AP},
                           index=pd.Index([coded.tags[t] for t in pair.tag], name="run_tag"))
        pd.testing.assert_frame_equal(got, _precision_pair_by_join(lines, qrels, k, level),
                                      check_exact=True, check_index_type=False)


@pytest.mark.parametrize("seed", range(3))
def test_the_stores_tables_code_as_their_frame(seed: int) -> None:
    """CodedLines.of_tables (the store's Arrow tables, ids coded by Arrow) gives every array
    of CodedLines.of on the same lines as a frame: ids sorting as strings (non-ASCII
    docnos too), a run without lines, new runs and qrels topics no run has."""
    rng = np.random.default_rng(seed)
    lines = _lines(rng, tags=4, topics=3, depth=int(rng.integers(1, 30)), docs=50)
    lines = lines.assign(run_tag="r" + lines["run_tag"].astype(str),
                         topic="t" + lines["topic"].astype(str),
                         docno=lines["docno"].map(lambda d: f"d{d}" if d % 3 else f"dé{d}"))
    lines = lines[lines["run_tag"] != "r2"].reset_index(drop=True)  # r2 has no line
    new = lines[lines["run_tag"] == "r1"].assign(run_tag="new")
    judged = lines[["topic", "docno"]].drop_duplicates().sample(frac=0.5, random_state=seed)
    qrels = pd.concat([judged.assign(grade=rng.integers(-1, 3, len(judged))),
                       pd.DataFrame({"topic": ["t9"], "docno": ["é"], "grade": [1]})])
    tags = ["r3", "r0", "r2", "r1"]  # the tables in the store's order, not the tags'
    lines = pd.concat([lines[lines["run_tag"] == tag] for tag in tags], ignore_index=True)
    tables = [pa.table({"topic": pa.array(part["topic"].tolist()).dictionary_encode(),
                        "docno": pa.array(part["docno"].tolist(), pa.string()),
                        "trec_rank": pa.array(part["trec_rank"].to_numpy(dtype=np.int64))})
              for part in (lines[lines["run_tag"] == tag] for tag in tags)]
    for extra in (None, new):
        expected = CodedLines.of(lines, qrels, extra)
        got = CodedLines.of_tables(tables, tags, qrels, extra)
        for field in dataclasses.fields(CodedLines):
            want, have = getattr(expected, field.name), getattr(got, field.name)
            assert np.array_equal(have, want) if isinstance(want, np.ndarray) else have == want


@pytest.mark.parametrize("seed", range(6))
def test_means_are_pandas_grouped_means_to_the_bit(seed: int) -> None:
    """_means' frame-free path (labels ascending) sums as pandas' grouped mean does: long
    runs of fractions whose sum left to right, pairwise or compensated differ in the last
    bit; labels out of order take pandas' own path."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 120))
    for ascending in (True, False):
        tag = rng.integers(0, 12, int(rng.integers(1, 3000)))
        if ascending:
            tag.sort()
        rel, anti = rng.integers(0, k + 1, len(tag)), rng.integers(0, k + 1, len(tag))
        got = _means(tag, rel.astype(np.float64), anti.astype(np.float64), k)
        expected = pd.DataFrame({"P": rel / k, "AP": anti / k},
                                index=pd.Index(tag, name="run_tag")).groupby(level="run_tag").mean()
        assert got.tag.tolist() == expected.index.tolist()
        assert got.P.tolist() == expected["P"].tolist()
        assert got.AP.tolist() == expected["AP"].tolist()


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("k", [2, 10])
def test_the_adjustment_is_the_joins_to_the_bit(seed: int, k: int) -> None:
    pooled, run, qrels = _case(seed)
    coded = CodedLines.of(pooled, qrels, run)
    for level in (1, 2):
        for left_out in (None, 1):
            mask = np.ones(len(qrels), dtype=bool)
            if left_out is not None:  # a group left out: its runs and some qrels rows go
                mask[::3] = False
            tags = np.arange(len(coded.tags)) < coded.pooled_tags
            others = pooled
            if left_out is not None:
                tags[coded.code(left_out)] = False
                others = pooled[pooled["run_tag"] != left_out]
            got = lipani_adjustment(coded, coded.code(9, new=True), tags, mask, k, level)
            assert got == _adjustment_by_join(run, others, qrels[mask], k, level)


def test_a_docno_twice_in_the_run_is_refused() -> None:
    pooled = pd.DataFrame({"run_tag": "p", "topic": "1", "docno": ["a", "b"],
                           "trec_rank": [1, 2]})
    run = pd.DataFrame({"run_tag": "s", "topic": "1", "docno": ["a", "a"], "trec_rank": [1, 2]})
    qrels = pd.DataFrame({"topic": ["1"], "docno": ["b"], "grade": [0]})
    coded = CodedLines.of(pooled, qrels, run)
    with pytest.raises(PooltoolError, match="twice"):
        rerank_top_k(coded, np.array([True, False]), coded.code("s", new=True), 2)
