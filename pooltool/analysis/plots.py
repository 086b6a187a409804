"""Pictures of the analysis results (matplotlib, Agg backend, no display needed).

One public function per result type; each takes the result and an image path
(the image type follows the suffix: ``.png``, ``.svg``, ``.pdf``) and returns
the path written. Shared figure set-up and saving live in the private helpers
at the bottom of the module.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pooltool.analysis.bias import BiasResult
    from pooltool.analysis.impact import ImpactResult


def plot_impact(result: ImpactResult, path: str | Path, label_a: str = "A",
                label_b: str = "B") -> Path:
    """Scatter each run's mean Recall@k under qrels A (x) against under qrels B (y).

    Each point is labelled with its run tag; the dashed diagonal ``y = x``
    marks "no change" (points above it gained recall under B). Both axes
    show the same range, fractions within 0..1.

    :param result: what :func:`~pooltool.analysis.impact.qrels_impact` returned.
    :param path: the image file to write.
    :param label_a: the name of qrels A on the x axis (a file or version name).
    :param label_b: the name of qrels B on the y axis.
    :returns: the path written.
    """
    plt = _pyplot()
    runs = result.per_run
    figure, axis = plt.subplots(figsize=(6.5, 6.5), dpi=100)
    low, high = _square_range([*runs["recall_a"], *runs["recall_b"]])
    axis.plot([low, high], [low, high], "--", color="grey", linewidth=1, label="no change")
    axis.scatter(runs["recall_a"], runs["recall_b"], color="C0", zorder=3)
    for row in runs.itertuples(index=False):
        axis.annotate(str(row.run_tag), (row.recall_a, row.recall_b), xytext=(4, 4),
                      textcoords="offset points", fontsize="small")
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    axis.set_aspect("equal")
    axis.set_xlabel(f"mean Recall@{result.k} under {label_a}")
    axis.set_ylabel(f"mean Recall@{result.k} under {label_b}")
    mode = "-c" if result.complete else "topics in run"
    axis.set_title(f"Recall@{result.k}: {label_a} vs {label_b} "
                   f"(relevant: grade >= {result.level}; {mode})", fontsize="medium")
    axis.legend(loc="upper left", fontsize="small")
    return _save(figure, path)


def plot_bias(result: BiasResult, path: str | Path) -> Path:
    """Bars of each contributing run's mean Recall@k with all qrels and without its own
    unique documents (leave-one-out), best run first; the gap is its drop.

    :param result: what :func:`~pooltool.analysis.bias.leave_one_out` returned.
    :param path: the image file to write.
    :returns: the path written.
    """
    plt = _pyplot()
    runs = result.per_run
    positions = range(len(runs))
    figure, axis = plt.subplots(figsize=(max(6.5, 0.55 * len(runs) + 2), 5), dpi=100)
    axis.bar([p - 0.2 for p in positions], runs["recall"], width=0.4, label="all qrels")
    axis.bar([p + 0.2 for p in positions], runs["recall_loo"], width=0.4,
             label="without its unique documents")
    axis.set_xticks(list(positions), runs["run_tag"], rotation=45, ha="right",
                    fontsize="small")
    axis.set_ylabel(f"mean Recall@{result.k}")
    overall = result.overall()
    axis.set_title(f"Leave-one-out at pool depth {result.depth}: MAE {overall['mae']:.4f}, "
                   f"SRE {overall['sre']}, tau_ap {overall['tau_ap']:.3f}", fontsize="medium")
    axis.legend(fontsize="small")
    return _save(figure, path)


def _square_range(values: list[float], margin: float = 0.05) -> tuple[float, float]:
    """An axis range holding every value with a margin, clipped to 0..1."""
    low, high = min(values), max(values)
    pad = max(margin, (high - low) * 0.1)
    return max(0.0, low - pad), min(1.0, high + pad)


def _pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, safe without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure: Any, path: str | Path) -> Path:
    """Lay out, write and close ``figure``; returns the path written."""
    import matplotlib.pyplot as plt

    path = Path(path)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path
