"""Pictures of the analysis results (matplotlib, Agg backend, no display needed).

One public function per result type; each takes the result and an image path
(the image type follows the suffix: ``.png``, ``.svg``, ``.pdf``) and returns
the path written. Shared figure set-up and saving live in the private helpers
at the bottom of the module.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pooltool.measures.plot import pyplot

if TYPE_CHECKING:
    from pooltool.analysis.bias import BiasResult
    from pooltool.analysis.impact import ImpactResult
    from pooltool.analysis.simulation import SimulationResult


def plot_impact(result: ImpactResult, path: str | Path, label_a: str = "A",
                label_b: str = "B") -> Path:
    """Write :func:`impact_figure` to ``path``.

    :param result: what :func:`~pooltool.analysis.impact.qrels_impact` returned.
    :param path: the image file to write.
    :param label_a: the name of qrels A on the x axis (a file or version name).
    :param label_b: the name of qrels B on the y axis.
    :returns: the path written.
    """
    return _save(impact_figure(result, label_a, label_b), path, relayout=False)


def impact_figure(result: ImpactResult, label_a: str = "A", label_b: str = "B") -> Any:
    """Each run's mean Recall@k under qrels A (x) against under qrels B (y).

    Each run has its own colour and marker (:func:`~pooltool.measures.plot.run_styles`)
    and a label placed where it overlaps no other label; the dashed diagonal
    ``y = x`` marks "no change" (points above it gained recall under B). Both
    axes show the same range, fractions within 0..1; the legend is outside the
    axes.

    :returns: the matplotlib figure (not yet saved).
    """
    from pooltool.measures.plot import plot_label, run_styles

    plt = pyplot()
    runs = result.per_run
    figure, axis = plt.subplots(figsize=(9, 6.5), dpi=100)
    low, high = _square_range([*runs["recall_a"], *runs["recall_b"]])
    axis.plot([low, high], [low, high], "--", color="grey", linewidth=1, label="no change")
    for row, style in zip(runs.itertuples(index=False), run_styles(len(runs)), strict=True):
        axis.plot([row.recall_a], [row.recall_b], linestyle="none", marker=style.marker,
                  color=style.color, label=plot_label(row.run_tag), zorder=3)
    axis.set_xlim(low, high)
    axis.set_ylim(low, high)
    axis.set_aspect("equal")
    label_a, label_b = plot_label(label_a), plot_label(label_b)
    axis.set_xlabel(f"mean Recall@{result.k} under {label_a}")
    axis.set_ylabel(f"mean Recall@{result.k} under {label_b}")
    mode = "-c" if result.complete else "topics in run"
    axis.set_title(f"Recall@{result.k}: {label_a} vs {label_b} "
                   f"(relevant: grade >= {result.level}; {mode})", fontsize="medium")
    axis.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small", borderaxespad=0)
    figure.tight_layout()
    place_labels(axis, list(zip(runs["recall_a"], runs["recall_b"], strict=True)),
                 [plot_label(tag) for tag in runs["run_tag"]])
    return figure


#: Label offsets tried around a point (in points), nearest first: 8 directions per ring.
_RINGS = (5, 12, 20, 30, 42, 56, 72)
_DIRECTIONS = ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))
#: Half the side of the square a marker covers, in pixels (labels keep off it).
_MARKER_PX = 5


def place_labels(axis: Any, points: list[tuple[float, float]], labels: list[str]) -> list[Any]:
    """Annotate each point with its label where the label overlaps no point and no
    label placed before it and stays inside the axes, trying offsets ring by ring outwards; a
    label moved away from its point gets a thin line to it. Call once the layout
    is final (offsets are measured on screen).

    :param axis: the matplotlib axes holding the points.
    :param points: data coordinates, one per label.
    :param labels: the texts.
    :returns: the annotation artists, in input order.
    """
    from matplotlib.transforms import Bbox

    axis.figure.canvas.draw()  # applies the aspect ratio, so positions are final
    renderer = axis.figure.canvas.get_renderer()
    inside = axis.get_window_extent(renderer)
    placed: list[Any] = [Bbox.from_bounds(x - _MARKER_PX, y - _MARKER_PX, 2 * _MARKER_PX,
                                          2 * _MARKER_PX)
                         for x, y in axis.transData.transform(points)]
    texts = []
    for point, label in zip(points, labels, strict=True):
        text = _place_one(axis, point, label, lambda box: (
            inside.contains(box.x0, box.y0) and inside.contains(box.x1, box.y1)
            and not any(box.overlaps(other) for other in placed)))
        placed.append(_text_box(text, renderer))
        texts.append(text)
    return texts


def _place_one(axis: Any, point: tuple[float, float], label: str,
               free: Callable[[Any], bool]) -> Any:
    """The label at the first offset whose box is ``free``, else at the nearest offset."""
    renderer = axis.figure.canvas.get_renderer()
    offsets = [(dx * ring, dy * ring, ring > _RINGS[0]) for ring in _RINGS
               for dx, dy in _DIRECTIONS]
    for dx, dy, line in offsets:
        text = _annotate(axis, point, label, dx, dy, line)
        if free(_text_box(text, renderer)):
            return text
        text.remove()
    return _annotate(axis, point, label, *offsets[0])


def _text_box(annotation: Any, renderer: Any) -> Any:
    """The box of an annotation's text alone (its line to the point left out)."""
    from matplotlib.text import Text

    annotation.update_positions(renderer)
    return Text.get_window_extent(annotation, renderer)


def _annotate(axis: Any, point: tuple[float, float], label: str, dx: float, dy: float,
              line: bool) -> Any:
    return axis.annotate(
        label, point, xytext=(dx, dy), textcoords="offset points", fontsize="small",
        ha="left" if dx > 0 else "right" if dx < 0 else "center",
        va="bottom" if dy > 0 else "top" if dy < 0 else "center",
        arrowprops={"arrowstyle": "-", "color": "grey", "linewidth": 0.6} if line else None)


def plot_bias(result: BiasResult, path: str | Path) -> Path:
    """Bars of each contributing run's mean Recall@k with all qrels and without its own
    unique documents (leave-one-out), best run first; the gap is its drop.

    :param result: what :func:`~pooltool.analysis.bias.leave_one_out` returned.
    :param path: the image file to write.
    :returns: the path written.
    """
    from pooltool.measures.plot import plot_label

    plt = pyplot()
    runs = result.per_run
    positions = range(len(runs))
    figure, axis = plt.subplots(figsize=(max(6.5, 0.55 * len(runs) + 2), 5), dpi=100)
    axis.bar([p - 0.2 for p in positions], runs["recall"], width=0.4, label="all qrels")
    axis.bar([p + 0.2 for p in positions], runs["recall_loo"], width=0.4,
             label="without its unique documents")
    axis.set_xticks(list(positions), [plot_label(tag) for tag in runs["run_tag"]], rotation=45,
                    ha="right", fontsize="small")
    axis.set_ylabel(f"mean Recall@{result.k}")
    overall = result.overall()
    axis.set_title(f"Leave-one-out at pool depth {result.depth}: MAE {overall['mae']:.4f}, "
                   f"SRE {overall['sre']}, tau_ap {overall['tau_ap']:.3f}", fontsize="medium")
    axis.legend(fontsize="small")
    return _save(figure, path)


def plot_simulation(result: SimulationResult, path: str | Path) -> Path:
    """Relevant documents found (all topics) against judgments per topic, one line per
    strategy, with the qrels' relevant total as a dashed ceiling.

    :param result: what :func:`~pooltool.analysis.simulation.simulate` returned.
    :param path: the image file to write.
    :returns: the path written.
    """
    from pooltool.measures.plot import plot_label, run_styles

    plt = pyplot()
    curve = result.curve
    labels = list(dict.fromkeys(curve["strategy"]))
    figure, axis = plt.subplots(figsize=(9, 5.5), dpi=100)
    for label, style in zip(labels, run_styles(len(labels)), strict=True):
        line = curve[curve["strategy"] == label]
        axis.plot(line["judgments"], line["found"], color=style.color,
                  linestyle=style.linestyle, label=plot_label(label))
    relevant = int(result.summary["num_rel"].iloc[0])
    axis.axhline(relevant, color="grey", linestyle="--", linewidth=1,
                 label=f"relevant in the qrels ({relevant})")
    axis.set_xlabel("judgments per topic")
    axis.set_ylabel(f"relevant found ({len(result.topics)} topics)")
    axis.set_title("Relevant found against judgments spent (unjudged counts as non-relevant)",
                   fontsize="medium")
    axis.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small", borderaxespad=0)
    return _save(figure, path)


def _square_range(values: list[float], margin: float = 0.05) -> tuple[float, float]:
    """An axis range holding every value with a margin, clipped to 0..1."""
    low, high = min(values), max(values)
    pad = max(margin, (high - low) * 0.1)
    return max(0.0, low - pad), min(1.0, high + pad)


def _save(figure: Any, path: str | Path, relayout: bool = True) -> Path:
    """Lay out (unless ``relayout`` is false: labels were placed on the final
    layout), write and close ``figure``; returns the path written."""
    path = Path(path)
    if relayout:
        figure.tight_layout()
    figure.savefig(path, bbox_inches="tight")
    pyplot().close(figure)
    return path
