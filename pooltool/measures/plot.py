"""Recall@k against k, per run, with the unjudged rate in a panel below (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd

from pooltool.measures.recall import RecallResult
from pooltool.text import visible

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Markers and line styles combined with the 10 default colours: runs 0-9 get the
#: first marker and style, runs 10-19 the second, and so on, so no two runs of up
#: to 10 x len(MARKERS) look alike.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (3, 1, 1, 1, 1, 1)),
               (0, (1, 3)), (0, (8, 2)))


class RunStyle(NamedTuple):
    """How one run is drawn: a colour, a marker and a line style."""

    color: str
    marker: str
    linestyle: str | tuple[int, tuple[int, ...]]


def plot_label(text: str) -> str:
    """Data (a run tag, a qrels name) as a plot's label: control characters shown visibly
    (:func:`pooltool.text.visible`); ``$`` stays as written (mathtext is off:
    ``text.parse_math``)."""
    return visible(str(text))


def run_styles(count: int) -> list[RunStyle]:
    """``count`` distinct styles: the 10 default colours (``C0``-``C9``), then the same
    colours with the next marker and line style (:data:`MARKERS`, :data:`LINE_STYLES`).

    :param count: the number of runs.
    :returns: one style per run; distinct for up to 80 runs, then repeating.
    """
    cycle = len(MARKERS)
    return [RunStyle(f"C{i % 10}", MARKERS[i // 10 % cycle], LINE_STYLES[i // 10 % cycle])
            for i in range(count)]


def ceiling_curve(result: RecallResult) -> pd.Series:
    """Mean over the scored topics of min(k, R) / R (R = num_rel; 0 when R = 0), per k:
    the best mean Recall@k any run could reach on them.

    :returns: the ceiling, indexed by k.
    """
    topics = result.per_topic.drop_duplicates("topic")["num_rel"].to_numpy()
    values = {}
    for k in result.options.ks:
        ceilings = [min(k, r) / r if r else 0.0 for r in topics]
        values[k] = sum(ceilings) / len(ceilings) if ceilings else 0.0
    return pd.Series(values, name="ceiling")


def recall_figure(result: RecallResult) -> Figure:
    """The figure :func:`plot_recall` writes: mean Recall@k per run (top panel, with the
    ceiling min(k, R)/R as a dotted black line) and mean unjudged@k per run (bottom
    panel), k on a log scale when the cutoffs span more than a factor of 10, both y
    axes 0..1, the legend outside the panels on the right.

    :param result: what :func:`~pooltool.measures.recall.evaluate_recall` returned.
    :returns: a matplotlib figure (close it with ``matplotlib.pyplot.close``).
    """
    plt = pyplot()
    ks = list(result.options.ks)
    figure, (recall_axis, unjudged_axis) = plt.subplots(
        2, 1, sharex=True, figsize=(9, 7), dpi=100, height_ratios=(3, 2), layout="constrained")
    ceiling = ceiling_curve(result)
    recall_axis.plot(ks, ceiling.to_numpy(), ":", color="black", linewidth=1.5,
                     label="ceiling min(k, R)/R")
    for tag, style in zip(result.run_tags, run_styles(len(result.run_tags)), strict=True):
        rows = result.summary[result.summary["run_tag"] == tag]
        for axis, column in ((recall_axis, "recall"), (unjudged_axis, "unjudged")):
            axis.plot(rows["k"], rows[column], color=style.color, marker=style.marker,
                      linestyle=style.linestyle,
                      label=plot_label(tag) if column == "recall" else None)
    if max(ks) > 10 * min(ks):
        unjudged_axis.set_xscale("log")
    unjudged_axis.set_xticks(ks, [str(k) for k in ks])
    unjudged_axis.set_xlabel("k (documents)")
    recall_axis.set_ylabel("mean Recall@k")
    unjudged_axis.set_ylabel("mean unjudged@k")
    for axis in (recall_axis, unjudged_axis):
        axis.set_ylim(0, 1)
        axis.grid(alpha=0.3)
    mode = "-c" if result.options.complete else "topics in run"
    recall_axis.set_title(f"Recall@k and unjudged rate (relevant: grade >= "
                          f"{result.options.level}; {mode})")
    figure.legend(loc="outside right upper", fontsize="small")
    return figure


def plot_recall(result: RecallResult, path: str | Path) -> Path:
    """Write :func:`recall_figure` to ``path``; the image type follows the suffix
    (``.png``, ``.svg``, ``.pdf``).

    :param result: what :func:`~pooltool.measures.recall.evaluate_recall` returned.
    :param path: the image file to write.
    :returns: the path written.
    """
    figure = recall_figure(result)
    path = Path(path)
    figure.savefig(path, bbox_inches="tight")
    pyplot().close(figure)
    return path


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, safe without a display),
    with math text off: run tags and topic ids are data, drawn as written (a tag
    ``$x^2$`` or ``a$\\frac{$b`` is text, never TeX). Every plot of pooltool draws
    through it (:mod:`pooltool.analysis.plots` too)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["text.parse_math"] = False
    import matplotlib.pyplot as plt

    return plt
