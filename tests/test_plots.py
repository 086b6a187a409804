"""Plots tell 15 runs apart: distinct colour/marker/line-style per run, the legend
outside the axes, labels that do not overlap, and the recall ceiling drawn."""

from __future__ import annotations

import itertools
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from pooltool.analysis.impact import qrels_impact
from pooltool.analysis.plots import impact_figure
from pooltool.measures import evaluate_recall
from pooltool.measures.plot import recall_figure, run_styles

RUNS = 15
TAGS = [f"run_{i:02d}_with_a_long_name" for i in range(RUNS)]


def runs_frame() -> pd.DataFrame:
    rows = [(tag, topic, f"d{(i + j) % 30}", j + 1, 100.0 - j)
            for i, tag in enumerate(TAGS) for topic in ("1", "2") for j in range(20)]
    return pd.DataFrame(rows, columns=["run_tag", "topic", "docno", "rank", "score"])


def qrels_frame(relevant: range) -> pd.DataFrame:
    rows = [(topic, "0", f"d{d}", 1) for topic in ("1", "2") for d in relevant]
    return pd.DataFrame(rows, columns=["topic", "iteration", "docno", "grade"])


def test_run_styles_are_distinct_beyond_ten() -> None:
    styles = run_styles(RUNS)
    assert len(set(styles)) == RUNS
    assert styles[3].color == styles[13].color and styles[3].marker != styles[13].marker


def test_recall_plot_tells_15_runs_apart_and_draws_the_ceiling() -> None:
    result = evaluate_recall(runs_frame(), qrels_frame(range(0, 30, 2)), ks=(1, 5, 10, 20))
    figure = recall_figure(result)
    try:
        recall_axis, unjudged_axis = figure.axes
        lines = {line.get_label(): line for line in recall_axis.get_lines()}
        looks = {(line.get_color(), line.get_marker(), str(line.get_linestyle()))
                 for tag, line in lines.items() if tag in TAGS}
        assert len(looks) == RUNS
        assert len(unjudged_axis.get_lines()) == RUNS
        ceiling = lines["ceiling min(k, R)/R"]  # R = 15 on both topics
        assert np.asarray(ceiling.get_ydata(), dtype=float).tolist() == pytest.approx(
            [1 / 15, 5 / 15, 10 / 15, 1.0])
        figure.canvas.draw()
        legend = figure.legends[0].get_window_extent()
        for axis in figure.axes:
            assert legend.x0 >= axis.get_window_extent().x1
        assert [t.get_text() for t in figure.legends[0].get_texts()][1:] == TAGS
    finally:
        plt.close(figure)


def test_impact_plot_labels_do_not_overlap() -> None:
    result = qrels_impact(runs_frame(), qrels_frame(range(0, 30, 2)),
                          qrels_frame(range(0, 30, 3)), k=10)
    figure = impact_figure(result)
    try:
        (axis,) = figure.axes
        points = [line for line in axis.get_lines() if line.get_label() in TAGS]
        assert len({(p.get_color(), p.get_marker()) for p in points}) == RUNS
        renderer = figure.canvas.get_renderer()
        boxes = {}
        for text in axis.texts:
            text.update_positions(renderer)
            boxes[text.get_text()] = Text.get_window_extent(text, renderer)
        assert sorted(boxes) == sorted(TAGS)
        overlapping = [(a, b) for a, b in itertools.combinations(boxes, 2)
                       if boxes[a].overlaps(boxes[b])]
        assert overlapping == []
        legend = axis.get_legend().get_window_extent()
        assert legend.x0 >= axis.get_window_extent().x1
    finally:
        plt.close(figure)


@pytest.mark.parametrize("command", ["recall", "impact"])
def test_run_tags_are_drawn_as_written_never_as_math(tmp_path: Path, command: str) -> None:
    """A tag like ``a$\\frac{$b`` crashed the plot (matplotlib read it as TeX)."""
    from click.testing import CliRunner

    from pooltool.cli import cli

    tags = ["a$\\frac{$b", "$x^2$"]
    run = tmp_path / "r.run"
    run.write_text("".join(f"1 Q0 d{i} 1 {2 - i}.0 {tag}\n" for i, tag in enumerate(tags)))
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d0 1\n1 0 d1 0\n")
    other = tmp_path / "q2.txt"
    other.write_text("1 0 d0 0\n1 0 d1 1\n")
    image = tmp_path / "p.png"
    args = (["recall", str(run), "--qrels", str(qrels), "-k", "1,2"] if command == "recall"
            else ["impact", "--from", str(qrels), "--to", str(other), str(run), "-k", "2"])
    result = CliRunner().invoke(cli, [*args, "--plot", str(image)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert image.read_bytes()[:4] == b"\x89PNG"
    if command == "recall":
        from pooltool.formats.qrels import read_qrels
        from pooltool.formats.run import read_run

        figure = recall_figure(evaluate_recall(read_run(run), read_qrels(qrels), ks=(1, 2)))
        figure.canvas.draw()
        legend = {t.get_text() for legend in figure.legends for t in legend.get_texts()}
        assert set(tags) <= legend
        plt.close(figure)
