"""The lipani re-rank sorts only the lines that can reach the top k: the same top k as
re-ranking every line (random runs, ranks beyond 1e4 whose tie-breaks exceed 1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooltool.analysis.lipani import _mixed_positions, _ranked, rerank_top_k


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
