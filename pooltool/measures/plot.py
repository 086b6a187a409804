"""Recall@k against k, per run, with the unjudged rate beside it (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

from pooltool.measures.recall import RecallResult


def plot_recall(result: RecallResult, path: str | Path) -> Path:
    """Draw mean Recall@k (solid, left axis) and mean unjudged@k (dashed, right axis) per run.

    k is on a log scale when the cutoffs span more than a factor of 10; both
    y axes run from 0 to 1. The image type follows the file suffix (``.png``,
    ``.svg``, ``.pdf``).

    :param result: what :func:`~pooltool.measures.recall.evaluate_recall` returned.
    :param path: the image file to write.
    :returns: the path written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    figure, recall_axis = plt.subplots(figsize=(8, 5), dpi=100)
    unjudged_axis = recall_axis.twinx()
    for i, tag in enumerate(result.run_tags):
        rows = result.summary[result.summary["run_tag"] == tag]
        color = f"C{i % 10}"
        recall_axis.plot(rows["k"], rows["recall"], "o-", color=color, label=tag)
        unjudged_axis.plot(rows["k"], rows["unjudged"], "x--", color=color, alpha=0.6)
    ks = result.options.ks
    if max(ks) > 10 * min(ks):
        recall_axis.set_xscale("log")
    recall_axis.set_xticks(list(ks), [str(k) for k in ks])
    recall_axis.set_xlabel("k (documents)")
    recall_axis.set_ylabel("mean Recall@k (solid)")
    unjudged_axis.set_ylabel("mean unjudged@k (dashed)")
    recall_axis.set_ylim(0, 1)
    unjudged_axis.set_ylim(0, 1)
    level = result.options.level
    mode = "-c" if result.options.complete else "topics in run"
    recall_axis.set_title(f"Recall@k and unjudged rate (relevant: grade >= {level}; {mode})")
    recall_axis.legend(loc="upper left", fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path
