"""The one place where a run is ordered: trec_eval's order.

trec_eval sorts each topic's retrieved documents by score descending and
breaks ties by docno descending, comparing docnos with ``strcmp``
(``comp_sim_docno`` in ``form_res_rels.c``); the rank column of the file is
ignored. Python compares ``str`` by code point, which for UTF-8 text is the
same order as ``strcmp`` on the bytes. NIST pooled TREC-COVID in this order
(``../shared/data/SOURCES.md``).
"""

from __future__ import annotations

import pandas as pd


def order_run(frame: pd.DataFrame) -> pd.DataFrame:
    """Order a run as trec_eval does and number the positions.

    :param frame: rows with at least ``topic``, ``docno`` and ``score``
        columns; a ``run_tag`` column, if present, keeps runs apart.
    :returns: a new DataFrame sorted by run tag and topic (ascending, string
        order), then score descending, then docno descending, with an added
        ``trec_rank`` column: the 1-based position of the document within its
        run and topic in that order.
    """
    keys = [c for c in ("run_tag", "topic") if c in frame.columns]
    ordered = frame.sort_values(
        keys + ["score", "docno"],
        ascending=[True] * len(keys) + [False, False],
        kind="mergesort",
    ).reset_index(drop=True)
    ordered["trec_rank"] = ordered.groupby(keys, sort=False).cumcount().astype("int64") + 1
    return ordered


def top_k(frame: pd.DataFrame, depth: int) -> pd.DataFrame:
    """The first ``depth`` documents of every run and topic in trec_eval order.

    :param frame: a run DataFrame, ordered or not.
    :param depth: pool or cutoff depth k (>= 1).
    :returns: :func:`order_run`'s rows with ``trec_rank <= depth``.
    :raises ValueError: ``depth`` is below 1.
    """
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    ordered = frame if "trec_rank" in frame.columns else order_run(frame)
    return ordered[ordered["trec_rank"] <= depth].reset_index(drop=True)
