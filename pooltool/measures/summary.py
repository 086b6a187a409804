"""Per-run summaries of the per-topic recall rows.

The mean is the macro average over the scored topics, as trec_eval's ``all``
row (``te_calc_avg_meas_a_cut`` in ``meas_avg.c``): the per-topic values are
summed one after another in topic order, as doubles, and divided by the
number of topics, so that the printed value matches trec_eval's digit for
digit. Beside it the summary gives what a mean hides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

#: num_rel bins for the recall means by topic difficulty: (label, low, high), inclusive.
NUM_REL_BINS = (
    ("1", 1, 1),
    ("2_5", 2, 5),
    ("6_20", 6, 20),
    ("21_100", 21, 100),
    ("gt100", 101, np.iinfo(np.int64).max),
)

#: Summary columns, in order; ``recall_nrel_<bin>`` follow.
SUMMARY_COLUMNS = (
    "run_tag", "k", "num_q", "num_ret", "num_rel", "num_rel_ret", "rel_ret",
    "recall", "micro_recall", "median_recall", "min_recall", "zero_recall_share",
    "ceiling", "P", "unjudged", "judged", "recall_upper",
)


def summarize(per_topic: Mapping[str, np.ndarray], ks: Sequence[int],
              run_tags: Sequence[str]) -> dict[str, np.ndarray]:
    """One row per run and cutoff.

    :param per_topic: columns as :func:`pooltool.measures.per_topic.score_run`
        builds them (name -> values; a DataFrame works too), several runs
        allowed, each run's rows in topic order.
    :param ks: the cutoffs present in ``per_topic``.
    :param run_tags: the runs, in output order.
    :returns: columns (name -> values, one per run and k: ``run_tag`` str,
        ``k``, ``num_q`` and the sums int64, the rest float64): :data:`SUMMARY_COLUMNS` then
        ``recall_nrel_1, recall_nrel_2_5, recall_nrel_6_20, recall_nrel_21_100,
        recall_nrel_gt100``. Per run and k, over its ``num_q`` scored topics:
        ``num_ret``, ``num_rel``, ``num_rel_ret`` (no cutoff) and ``rel_ret``
        (``num_rel_ret@k``) are sums; ``recall``, ``ceiling``, ``P``,
        ``unjudged``, ``judged``, ``recall_upper`` are macro means (trec_eval's
        ``all``); ``micro_recall = sum(num_rel_ret@k) / sum(num_rel)``;
        ``median_recall`` and ``min_recall`` describe the recall@k
        distribution; ``zero_recall_share`` is the fraction of topics with
        recall@k = 0; ``recall_nrel_<bin>`` is the mean recall@k over the
        topics whose num_rel falls in the bin (NaN when none does). Topics
        with num_rel = 0 are in no bin. All fractions are 0..1.
    """
    names = ["num_ret", "num_rel", "num_rel_ret"] + [
        f"{name}@{k}" for k in ks for name in ("recall", "num_rel_ret", *_MEANS)]
    values = {name: np.asarray(per_topic[name]) for name in names}
    run_of_row = np.asarray(per_topic["run_tag"])
    rows = []
    for tag in run_tags:
        mine = run_of_row == tag
        topics = {name: column[mine] for name, column in values.items()}
        for k in ks:
            rows.append(_summary_row(tag, k, topics))
    columns = list(SUMMARY_COLUMNS) + [f"recall_nrel_{label}" for label, _, _ in NUM_REL_BINS]
    return {name: np.array([row[name] for row in rows], dtype=_dtype(name)) for name in columns}


_COUNTS = ("k", "num_q", "num_ret", "num_rel", "num_rel_ret", "rel_ret")


def _dtype(column: str) -> type:
    """A summary column's type: the tag is text, the counts integers, the rest fractions."""
    return object if column == "run_tag" else np.int64 if column in _COUNTS else np.float64


def trec_mean(values: np.ndarray, count: int) -> float:
    """Sum ``values`` left to right in double precision and divide by ``count``.

    This is trec_eval's accumulation (``te_acc_meas_a_cut`` then
    ``te_calc_avg_meas_a_cut``); pairwise or compensated sums can differ in
    the last bit and so, rarely, in the fourth printed decimal.

    :returns: the mean, 0.0 when ``count`` is 0.
    """
    if count == 0 or len(values) == 0:
        return 0.0
    return float(np.cumsum(np.asarray(values, dtype=np.float64))[-1] / count)


def median(values: np.ndarray) -> float:
    """``np.median`` of values without NaN, to the bit (the middle value, or the mean
    of the two middle values), without the ``numpy.ma`` import it costs.

    :param values: at least one value.
    """
    ordered = np.sort(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return float((ordered[middle - 1] + ordered[middle]) / 2)


_MEANS = ("ceiling", "P", "unjudged", "judged", "recall_upper")


def _summary_row(tag: str, k: int, topics: dict[str, np.ndarray]) -> dict[str, object]:
    """One run's summary at cutoff ``k``, from its per-topic columns."""
    num_q = len(topics["num_rel"])
    recall = topics[f"recall@{k}"]
    num_rel = topics["num_rel"]
    rel_ret = int(topics[f"num_rel_ret@{k}"].sum())
    row: dict[str, object] = {
        "run_tag": tag,
        "k": k,
        "num_q": num_q,
        "num_ret": int(topics["num_ret"].sum()),
        "num_rel": int(num_rel.sum()),
        "num_rel_ret": int(topics["num_rel_ret"].sum()),
        "rel_ret": rel_ret,
        "recall": trec_mean(recall, num_q),
        "micro_recall": rel_ret / num_rel.sum() if num_rel.sum() else float("nan"),
        "median_recall": median(recall) if num_q else float("nan"),
        "min_recall": float(recall.min()) if num_q else float("nan"),
        "zero_recall_share": float((recall == 0).mean()) if num_q else float("nan"),
    }
    for name in _MEANS:
        row[name] = trec_mean(topics[f"{name}@{k}"], num_q)
    for label, low, high in NUM_REL_BINS:
        in_bin = (num_rel >= low) & (num_rel <= high)
        row[f"recall_nrel_{label}"] = float(recall[in_bin].mean()) if in_bin.any() else float("nan")
    return row
