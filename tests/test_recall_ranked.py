"""evaluate_recall(ranked=True) trusts the lines' trec_rank: on runs numbered by order_run
(whole, or only each topic's first lines) it gives what ordering them again gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooltool.errors import DuplicateDocno
from pooltool.measures.recall import evaluate_recall
from pooltool.ranking import order_run


def _runs(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for tag in ("b", "a", "c"):
        for topic in ("10", "2", "x", "9é"):  # "x" is not in the qrels
            n = int(rng.integers(1, 40))
            docs = rng.choice(60, size=n, replace=False)
            rows.append(pd.DataFrame({
                "run_tag": tag, "topic": topic, "docno": [f"d{d}" for d in docs],
                "score": rng.integers(0, 4, n).astype(float),  # many ties: docno decides
            }))
    return pd.concat(rows, ignore_index=True).sample(frac=1.0, random_state=1)


def _qrels(rng: np.random.Generator) -> pd.DataFrame:
    pairs = [(t, f"d{d}") for t in ("10", "2", "9é", "7") for d in range(60)]
    chosen = rng.choice(len(pairs), size=120, replace=False)
    return pd.DataFrame({"topic": [pairs[i][0] for i in chosen],
                         "docno": [pairs[i][1] for i in chosen],
                         "grade": rng.integers(0, 3, 120)})


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("cut", [None, 1, 7])
def test_ranked_is_ordered_again(seed: int, complete: bool, cut: int | None) -> None:
    rng = np.random.default_rng(seed)
    runs, qrels = _runs(rng), _qrels(rng)
    ranked = order_run(runs)
    if cut is not None:  # only the first lines of each topic, as bias's top_ranks keeps
        ranked = ranked[ranked["trec_rank"] <= cut]
    ranked = ranked.sample(frac=1.0, random_state=seed)  # any row order
    for ks, max_docs in (([1, 5, 10], None), ([3], 4)):
        want = evaluate_recall(ranked.drop(columns="trec_rank"), qrels, ks=ks, level=1,
                               complete=complete, max_docs=max_docs)
        got = evaluate_recall(ranked, qrels, ks=ks, level=1, complete=complete,
                              max_docs=max_docs, ranked=True)
        pd.testing.assert_frame_equal(got.per_topic, want.per_topic, check_exact=True)
        pd.testing.assert_frame_equal(got.summary, want.summary, check_exact=True)
        assert got.run_tags == want.run_tags
        assert got.missing_topics == want.missing_topics
        assert got.ignored_topics == want.ignored_topics


def test_ranked_one_line_run() -> None:
    run = order_run(pd.DataFrame({"run_tag": ["r"], "topic": ["1"], "docno": ["d"],
                                  "score": [0.5]}))
    qrels = pd.DataFrame({"topic": ["1"], "docno": ["d"], "grade": [1]})
    got = evaluate_recall(run, qrels, ks=[1], ranked=True)
    assert got.summary["recall"].tolist() == [1.0]


def test_ranked_still_refuses_a_repeated_docno() -> None:
    run = pd.DataFrame({"run_tag": "r", "topic": "1", "docno": ["d", "d"], "score": [1.0, 0.5],
                        "trec_rank": [1, 2]})
    qrels = pd.DataFrame({"topic": ["1"], "docno": ["d"], "grade": [1]})
    with pytest.raises(DuplicateDocno):
        evaluate_recall(run, qrels, ks=[1], ranked=True)
