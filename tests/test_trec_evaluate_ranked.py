"""measures.trec.evaluate(ranked=True) trusts the lines' trec_rank: on runs numbered by
order_run (whole, or only each topic's first lines) it prints, per topic and summarised,
exactly what ordering them again prints, under -c, -M and -J, holes included; and so
does topic_scores(ranked=True), the analyses' way in."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from pooltool.errors import DuplicateDocno
from pooltool.measures.topic_scores import ranked_lines, topic_scores
from pooltool.measures.trec import EvalResult, Options, evaluate, format_trec
from pooltool.ranking import order_run

# one-valued measures of several families (cutoffs, rank-based, gain-based, judged-only)
MEASURES = ["map", "P.5", "ndcg_cut.10", "recip_rank", "Rprec", "bpref", "ndcg",
            "recall.10", "infAP", "success.1"]


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


def _same(got: EvalResult, want: EvalResult) -> None:
    assert format_trec(got, per_topic=True) == format_trec(want, per_topic=True)
    for g, w in zip(got.runs, want.runs, strict=True):
        assert (g.run_tag, g.topics, g.missing, g.ignored) == (w.run_tag, w.topics, w.missing,
                                                               w.ignored)
        pairs: list[tuple[dict[str, Any], dict[str, Any]]] = [*zip(g.values, w.values, strict=True),
                                          *zip(g.unjudged, w.unjudged, strict=True)]
        for gv, wv in pairs:
            for name in wv:
                np.testing.assert_array_equal(gv[name], wv[name])
        for gh, wh in zip(g.holes, w.holes, strict=True):
            for name in wh:
                np.testing.assert_array_equal(gh[name], wh[name])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("cut", [None, 1, 7])
def test_ranked_is_ordered_again(seed: int, complete: bool, cut: int | None) -> None:
    rng = np.random.default_rng(seed)
    runs, qrels = _runs(rng), _qrels(rng)
    ranked = order_run(runs)
    if cut is not None:  # only the first lines of each topic
        ranked = ranked[ranked["trec_rank"] <= cut]
    ranked = ranked.sample(frac=1.0, random_state=seed)  # any row order
    for options in (Options(complete=complete), Options(complete=complete, max_docs=4, level=2),
                    Options(complete=complete, judged_only=True)):
        want = evaluate(ranked.drop(columns="trec_rank"), qrels, MEASURES, options)
        got = evaluate(ranked, qrels, MEASURES, options, ranked=True)
        _same(got, want)


def test_ranked_one_line_run() -> None:
    run = order_run(pd.DataFrame({"run_tag": ["r"], "topic": ["1"], "docno": ["d"],
                                  "score": [0.5]}))
    qrels = pd.DataFrame({"topic": ["1", "1"], "docno": ["d", "e"], "grade": [1, 1]})
    got = evaluate(run, qrels, ["map", "P.5"], ranked=True)
    assert list(got.runs[0].values[0]["map"]) == [0.5]
    assert list(got.runs[0].values[1]["P_5"]) == [0.2]


def test_ranked_still_refuses_a_repeated_docno() -> None:
    run = pd.DataFrame({"run_tag": "r", "topic": "1", "docno": ["d", "d"], "score": [1.0, 0.5],
                        "trec_rank": [1, 2]})
    qrels = pd.DataFrame({"topic": ["1"], "docno": ["d"], "grade": [1]})
    with pytest.raises(DuplicateDocno):
        evaluate(run, qrels, ["map"], ranked=True)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("complete", [False, True])
def test_topic_scores_ranked_lines(seed: int, complete: bool) -> None:
    """The analyses' path: ranked_lines numbers the lines in their own row order, and
    topic_scores(ranked=True) gives the frames of the unranked call, bit for bit."""
    rng = np.random.default_rng(seed)
    runs, qrels = _runs(rng), _qrels(rng)
    lines = ranked_lines(runs)
    assert lines.index.equals(runs.index)
    want_rank = order_run(runs).set_index(["run_tag", "topic", "docno"])["trec_rank"]
    got_rank = lines.set_index(["run_tag", "topic", "docno"])["trec_rank"]
    pd.testing.assert_series_equal(got_rank.sort_index(), want_rank.sort_index(),
                                   check_dtype=False)
    pd.testing.assert_frame_equal(ranked_lines(lines), lines)  # a given rank is kept
    for spec in ("nDCG@10", "map", "P@5"):
        want = topic_scores(runs, qrels, spec, 1, complete, holes=True)
        got = topic_scores(lines, qrels, spec, 1, complete, holes=True, ranked=True)
        pd.testing.assert_frame_equal(got.per_topic, want.per_topic, check_exact=True)
        pd.testing.assert_frame_equal(got.summary, want.summary, check_exact=True)
        assert got.missing == want.missing
    assert want.summary["value"].gt(0).all()  # the runs hit relevant documents
