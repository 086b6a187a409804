"""fused_order sorts by docno only the documents that tie: the same order as sorting
every docno (its earlier form, kept here as the reference), ties and unusual ids included."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooltool.judging.choosers import RankedRun
from pooltool.judging.static_orders import (
    borda_order,
    fused_order,
    min_max,
    rbp_weights,
    round_robin_order,
    rrf_weights,
)


def _fused_by_sorting_every_docno(runs, weights) -> list[str]:  # type: ignore[no-untyped-def]
    docnos = np.array([d for run in runs for d in run.docnos], dtype=object)
    if not len(docnos):
        return []
    terms = np.array([w for run in runs for w in weights(run)], dtype=np.float64)
    codes, uniques = pd.factorize(docnos, sort=True)
    order = np.lexsort((terms, codes))
    starts = np.flatnonzero(np.r_[True, codes[order][1:] != codes[order][:-1]])
    totals = np.add.reduceat(terms[order], starts)
    ranked = np.lexsort((np.arange(len(uniques)), -totals))
    return [str(d) for d in uniques[ranked]]


NAMES = ["a", "b", "B", "a0", "ab", "é", "z", "10", "9", "d-1", "d_1", " x", "ä", "日本"]


def _runs(rng: np.random.Generator, count: int) -> list[RankedRun]:
    runs = []
    for i in range(count):
        n = int(rng.integers(0, len(NAMES) + 1))
        docnos = tuple(rng.choice(NAMES, size=n, replace=False).tolist())
        scores = tuple(rng.integers(0, 3, n).astype(float).tolist())  # min-max ties
        runs.append(RankedRun(f"r{i}", docnos, scores))
    return runs


def _equal_terms(run: RankedRun) -> list[float]:
    return [1.0] * len(run.docnos)  # every document of every run ties with its like


@pytest.mark.parametrize("seed", range(30))
def test_fusions_are_the_sort_of_every_docno(seed: int) -> None:
    rng = np.random.default_rng(seed)
    runs = _runs(rng, int(rng.integers(1, 6)))
    for weights in (rrf_weights(60), rrf_weights(0), rbp_weights(0.8), min_max, _equal_terms):
        assert fused_order(runs, weights) == _fused_by_sorting_every_docno(runs, weights)


def test_borda_and_edges() -> None:
    one = [RankedRun("r", ("x",), (1.0,))]
    assert fused_order(one, min_max) == ["x"]
    assert fused_order([RankedRun("r", (), ())], min_max) == []
    assert fused_order([], min_max) == []
    runs = [RankedRun("r1", ("c", "a", "b"), (3.0, 2.0, 1.0)),
            RankedRun("r2", ("b", "a", "c"), (3.0, 2.0, 1.0))]
    # borda: a, b and c all score 4 (3 + 1, 2 + 2, 1 + 3): the tie goes to docno order
    assert borda_order(runs) == ["a", "b", "c"]
    assert borda_order(runs) == _fused_by_sorting_every_docno(
        runs, lambda run: [3 - r + 1 - 0.5 for r in range(1, 4)])


@pytest.mark.parametrize("k", [0, 1, 60, 60.0, 0.5, 1e-9, 1000])
def test_rrf_weights_are_the_python_division(k: float) -> None:
    run = RankedRun("r", tuple(f"d{i}" for i in range(1500)), tuple([0.0] * 1500))
    want = [1 / (k + rank) for rank in range(1, 1501)]
    assert rrf_weights(k)(run).tolist() == want


@pytest.mark.parametrize("seed", range(10))
def test_min_max_and_borda_terms_are_the_python_arithmetic(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scale = 10.0 ** int(rng.integers(-3, 4))
    scores = tuple((rng.normal(size=int(rng.integers(0, 50))) * scale).tolist())
    if seed == 0:
        scores = (2.5, 2.5, 2.5)  # all equal: all 1
    run = RankedRun("r", tuple(f"d{i}" for i in range(len(scores))), scores)
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    want = [1.0 if high == low else (s - low) / (high - low) for s in scores]
    assert min_max(run).tolist() == want
    other = RankedRun("o", ("x", "y"), (1.0, 0.0))
    c = len(set(run.docnos) | {"x", "y"})
    points: dict[str, list[float]] = {}
    for r in (run, other):  # borda's terms as the Python loop made them
        share = (c - len(r.docnos) + 1) / 2
        for rank, d in enumerate(r.docnos, start=1):
            points.setdefault(d, []).append(c - rank + 1 - share)
    totals = {d: float(np.add.reduce(np.sort(np.array(t)))) for d, t in points.items()}
    assert borda_order([run, other]) == sorted(totals, key=lambda d: (-totals[d], d))


def _shuffled_tenths(run: RankedRun) -> list[float]:
    """Terms whose sums depend on the order of addition (0.1 + 0.2 + 0.3 is not
    0.3 + 0.2 + 0.1): the first sums of :func:`fused_order`'s limit are in line order."""
    tenths = [0.1, 0.2, 0.3, 0.7, 0.6]
    return [tenths[(int(run.tag[1:]) * 3 + rank) % 5] for rank in range(len(run.docnos))]


@pytest.mark.parametrize("seed", range(20))
def test_a_limit_gives_the_first_documents_of_the_whole_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    runs = _runs(rng, int(rng.integers(1, 8)))
    for weights in (rrf_weights(60), rbp_weights(0.8), min_max, _equal_terms, _shuffled_tenths):
        whole = fused_order(runs, weights)
        for limit in range(1, len(whole) + 2):
            assert fused_order(runs, weights, limit) == whole[:limit]
    whole = borda_order(runs)
    assert [borda_order(runs, limit) for limit in range(1, len(whole) + 2)] == [
        whole[:limit] for limit in range(1, len(whole) + 2)]
    whole = round_robin_order(runs)
    assert [round_robin_order(runs, limit) for limit in range(1, len(whole) + 2)] == [
        whole[:limit] for limit in range(1, len(whole) + 2)]


@pytest.mark.parametrize("seed", range(3))
def test_a_limit_on_runs_of_a_thousand(seed: int) -> None:
    # 15 runs of 1,000 of 4,000 documents, scores rounded so that runs tie inside
    rng = np.random.default_rng(seed)
    pool = np.array([f"doc{i:05d}" for i in range(4000)], dtype=object)
    runs = [RankedRun(f"r{i}", tuple(rng.choice(pool, 1000, replace=False).tolist()),
                      tuple(np.sort(rng.integers(0, 50, 1000))[::-1].astype(float).tolist()))
            for i in range(15)]
    for weights in (rrf_weights(60), rbp_weights(0.8), rbp_weights(0.99), min_max):
        whole = fused_order(runs, weights)
        for limit in (1, 20, 100, 3999, 4000):
            assert fused_order(runs, weights, limit) == whole[:limit]
    assert borda_order(runs, 20) == borda_order(runs)[:20]
    assert round_robin_order(runs, 50) == round_robin_order(runs)[:50]


@pytest.mark.parametrize("p", [0.8, 0.5, 0.95, 0.999, 1e-3])
def test_rbp_weights_are_the_python_power(p: float) -> None:
    for n in (0, 1, 7, 1000):
        run = RankedRun("r", tuple(f"d{i}" for i in range(n)), tuple([0.0] * n))
        assert rbp_weights(p)(run).tolist() == [(1 - p) * p ** (rank - 1)
                                                for rank in range(1, n + 1)]
