"""Property tests: pooltool recall against pytrec_eval-terrier on random qrels and runs.

Random data has tied scores, negative grades, runs shorter than k, run topics
without qrels, qrels topics missing from the run, and topic ids such as "9"
and "09". (pytrec_eval refuses -l 0, so levels 1-3.) Scores are multiples of 1/4 below 8, exact in C float, so
pytrec_eval's float scores tie exactly where pooltool's doubles do.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from reader_paths import reader_path  # noqa: F401  (autouse: every test on both reader paths)

from pooltool.errors import NothingToScore
from pooltool.measures import evaluate_recall
from pooltool.measures.oracle import pytrec_eval_scores

TOPICS = ["9", "09", "1", "10", "a"]
DOCS = [f"d{i}" for i in range(12)]


@st.composite
def collections(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    qrels_rows, run_rows = [], []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        for i, doc in enumerate(docs):
            # the first grade is >= 0: trec_eval sizes an array by the topic's largest
            # grade + 1 (form_res_rels.c), and pytrec_eval crashes when that is below 0
            qrels_rows.append((topic, "0", doc, draw(st.integers(0 if i == 0 else -2, 3))))
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=4, unique=True)):
        for doc in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True)):
            run_rows.append(("r", topic, doc, 0, draw(st.integers(0, 31)) / 4))
    qrels = pd.DataFrame(qrels_rows, columns=["topic", "iteration", "docno", "grade"])
    run = pd.DataFrame(run_rows, columns=["run_tag", "topic", "docno", "rank", "score"])
    return run.astype({"topic": object, "docno": object, "run_tag": object}), qrels


KS = st.lists(st.integers(1, 12), min_size=1, max_size=3, unique=True).map(sorted)
COMPARED = ["num_ret", "num_rel", "num_rel_ret"]


@settings(max_examples=examples(200), deadline=None)
@given(collections(), KS, st.integers(1, 3), st.booleans())
def test_agrees_with_pytrec_eval(data, ks: list[int], level: int, complete: bool) -> None:  # type: ignore[no-untyped-def]
    run, qrels = data
    theirs = pytrec_eval_scores(run, qrels, ks, level).set_index("topic")
    try:
        result = evaluate_recall(run, qrels, ks=ks, level=level, complete=complete)
    except NothingToScore:
        assert theirs.empty and not complete
        return
    mine = result.per_topic.set_index("topic")
    columns = COMPARED + [f"{m}@{k}" for m in ("recall", "P") for k in ks]
    np.testing.assert_allclose(mine.loc[theirs.index, columns].to_numpy(float),
                               theirs[columns].to_numpy(float), atol=1e-6, rtol=0)
    missing = sorted(set(qrels["topic"]) - set(run["topic"]))
    assert result.missing_topics == {"r": missing}
    assert sorted(mine.index) == sorted(list(theirs.index) + (missing if complete else []))
    assert result.ignored_topics == {"r": sorted(set(run["topic"]) - set(qrels["topic"]))}
    check_invariants(result.per_topic, ks)


def check_invariants(frame: pd.DataFrame, ks: list[int]) -> None:
    previous = np.zeros(len(frame))
    for k in ks:
        recall, ceiling = frame[f"recall@{k}"].to_numpy(), frame[f"ceiling@{k}"].to_numpy()
        assert ((recall >= 0) & (recall <= ceiling) & (ceiling <= 1)).all()
        assert (recall >= previous).all()
        previous = recall
        for name in ("unjudged", "judged", "P"):
            values = frame[f"{name}@{k}"].to_numpy()
            assert ((values >= 0) & (values <= 1)).all()
        upper = frame[f"recall_upper@{k}"].to_numpy()
        assert ((upper >= recall) & (upper <= 1)).all()
        assert (frame[f"num_rel_ret@{k}"] <= frame["num_rel_ret"]).all()


@settings(max_examples=examples(80), deadline=None)
@given(collections(), KS, st.integers(0, 3))
def test_summary_is_consistent(data, ks: list[int], level: int) -> None:  # type: ignore[no-untyped-def]
    run, qrels = data
    result = evaluate_recall(run, qrels, ks=ks, level=level, complete=True)
    frame = result.per_topic
    for k in ks:
        row = result.summary.set_index("k").loc[k]
        assert row["num_q"] == qrels["topic"].nunique()
        assert row["recall"] == pytest.approx(frame[f"recall@{k}"].mean())
        assert row["min_recall"] <= row["median_recall"] <= 1
        assert 0 <= row["zero_recall_share"] <= 1
        if frame["num_rel"].sum():
            assert row["micro_recall"] == pytest.approx(frame[f"num_rel_ret@{k}"].sum()
                                                        / frame["num_rel"].sum())
