"""per_topic._counts: one bincount over (topic, band, kind) gives the per-mask counts."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from pooltool.measures.per_topic import _counts
from pooltool.measures.qrels_index import NONPOOL, index_qrels


def _by_masks(topic: np.ndarray, rank: np.ndarray, grade: np.ndarray, level: int, topics: int,
              ks: list[int]) -> dict[str, list[int]]:
    """The counts as trec_eval states them, one mask each (``m_recall.c``, ``m_P.c``,
    ``m_unjudged.c``): relevant ``grade >= level``, unjudged ``grade < 0``, judged
    ``grade != NONPOOL`` (a qrels line, negative grades included)."""
    def count(mask: np.ndarray) -> list[int]:
        return np.bincount(topic[mask], minlength=topics).tolist()

    relevant, unjudged, line = grade >= level, grade < 0, grade != NONPOOL
    counts = {"num_ret": count(np.ones(len(topic), dtype=bool)), "num_rel_ret": count(relevant)}
    for k in ks:
        top = rank <= k
        counts[f"R{k}"] = count(relevant & top)
        counts[f"U{k}"] = count(unjudged & top)
        counts[f"J{k}"] = count(line & top)
    return counts


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 12),
                          st.sampled_from([NONPOOL, -2, -1, 0, 1, 2, 3])), max_size=60),
       st.lists(st.integers(1, 13), min_size=1, max_size=4), st.integers(0, 3))
def test_counts_are_the_masks_counts(lines: list[tuple[int, int, int]], ks: list[int],
                                     level: int) -> None:
    """Ranks on and around each cutoff, cutoffs unsorted or repeated, lines without a
    qrels line, negative grades, level 0, topics without lines, no lines at all."""
    qrels = index_qrels(pa.table({"topic": [str(t) for t in range(4)], "docno": ["d"] * 4,
                                  "grade": [1] * 4}), level)
    topic = np.array([t for t, _, _ in lines], dtype=np.int64)
    rank = np.array([r for _, r, _ in lines], dtype=np.int64)
    grade = np.array([g for _, _, g in lines], dtype=np.int64)
    got = _counts(topic, rank, grade, qrels, ks)
    expected = _by_masks(topic, rank, grade, level, 4, sorted(set(ks)))
    assert {name: values.tolist() for name, values in got.items()} == expected
    assert all(values.dtype == np.int64 for values in got.values())
