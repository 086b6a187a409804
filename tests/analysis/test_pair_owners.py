"""qrels_without_owner on pair_owners: each group's reduced qrels are the qrels rows, in
order, but those of the pairs only that group pooled (counted here from the pool)."""

from __future__ import annotations

import pandas as pd

from pooltool.analysis.bias import pair_owners, qrels_without_owner, top_ranks, unique_pairs


def test_reduced_qrels_drop_only_the_groups_own_pairs() -> None:
    runs = pd.DataFrame({
        "run_tag": ["a", "a", "a", "b", "b", "c", "c", "c"],
        "topic": ["1", "1", "2", "1", "1", "1", "2", "2"],
        "docno": ["x", "y", "z", "x", "w", "v", "z", "u"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 5.0, 2.0, 1.0],
    })
    # x pooled by a and b; y only a; w only b; v only c (unjudged); z by a and c; u only c
    qrels = pd.DataFrame({"topic": ["2", "1", "1", "1", "2", "1"],
                          "docno": ["u", "y", "x", "w", "z", "q"],
                          "grade": [1, 1, 1, 0, 1, 1]}, index=[10, 11, 12, 13, 14, 15])
    pool = top_ranks(runs, 2)
    group_of = {"a": "g1", "b": "b", "c": "c"}
    owners = pair_owners(qrels, unique_pairs(pool, 2, group_of, qrels))
    assert [o if isinstance(o, str) else None for o in owners] == ["c", "g1", None, "b", None,
                                                                    None]
    assert qrels_without_owner(qrels, owners, "g1").index.tolist() == [10, 12, 13, 14, 15]
    assert qrels_without_owner(qrels, owners, "b").index.tolist() == [10, 11, 12, 14, 15]
    assert qrels_without_owner(qrels, owners, "c").index.tolist() == [11, 12, 13, 14, 15]
    pd.testing.assert_frame_equal(qrels_without_owner(qrels, owners, "c"), qrels.iloc[1:])
