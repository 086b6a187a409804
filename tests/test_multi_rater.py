"""Fleiss' kappa and Krippendorff's alpha over many assessors, against statsmodels and
Krippendorff's own worked example."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pooltool.judging.multi_rater import NO_PAIRS, NO_VARIATION, fleiss_kappa, multi_rater_table

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: four
# observers, twelve units, missing values; nominal alpha 0.743, interval 0.849.
KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def _grades(data: dict[str, list[int | None]], topic: str = "1") -> pd.DataFrame:
    return pd.DataFrame([(topic, f"u{i}", name, grade) for name, values in data.items()
                         for i, grade in enumerate(values) if grade is not None],
                        columns=["topic", "docno", "assessor", "grade"])


@pytest.mark.parametrize(("level", "alpha"), [("nominal", 0.743), ("interval", 0.849)])
def test_alpha_is_krippendorffs_worked_example(level: str, alpha: float) -> None:
    table = multi_rater_table(_grades(KRIPPENDORFF_2011), level).set_index("topic")
    assert table.loc["1", f"alpha_{level}"] == pytest.approx(alpha, abs=5e-4)
    # unit 12 has one value (left out): 11 units, 40 of the 41 values
    assert (table.loc["1", "docs"], table.loc["1", "judgments"]) == (11, 40)


def test_fleiss_kappa_is_statsmodels_on_complete_data() -> None:
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_kappa

    rng = np.random.default_rng(7)
    ratings = np.clip(rng.integers(0, 4, size=(30, 1)) + rng.integers(-1, 2, size=(30, 5)), 0, 3)
    counts, _ = aggregate_raters(ratings)
    assert fleiss_kappa(counts) == pytest.approx(statsmodels_kappa(counts, method="fleiss"))
    data: dict[str, list[int | None]] = {f"r{r}": [int(g) for g in ratings[:, r]] for r in range(5)}
    table = multi_rater_table(_grades(data), "nominal").set_index("topic")
    assert table.loc["1", "fleiss_kappa"] == pytest.approx(statsmodels_kappa(counts))


def test_fleiss_kappa_with_missing_judgments_by_hand() -> None:
    # unit 1: grades 1,1,1 (P=1); unit 2: 0,1 (P=0); unit 3: 0,0 (P=1); unit 4: one judgment
    counts = np.array([[0, 3], [1, 1], [2, 0], [1, 0]])
    p_bar = (1 + 0 + 1) / 3
    p_e = (3 / 7) ** 2 + (4 / 7) ** 2
    assert fleiss_kappa(counts) == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_undefined_values_say_why_and_all_pools_topics() -> None:
    grades = pd.concat([_grades({"a": [1, 1], "b": [1, 1]}, "1"),
                        _grades({"a": [0, None], "b": [None, 2]}, "2"),
                        _grades({"a": [0, 2], "b": [0, 2], "c": [1, 2]}, "10")])
    table = multi_rater_table(grades).set_index("topic")
    assert list(table.index) == ["1", "2", "10", "all"]
    assert table.loc["1", "undefined"] == NO_VARIATION and math.isnan(table.loc["1", "fleiss_kappa"])
    assert table.loc["2", "undefined"] == NO_PAIRS and table.loc["2", "docs"] == 0
    assert table.loc["all", "docs"] == 4 and table.loc["all", "assessors"] == 3
    counts = np.array([[0, 2, 0], [0, 2, 0], [2, 1, 0], [0, 0, 3]])  # grades 0,1,2
    assert table.loc["all", "fleiss_kappa"] == pytest.approx(fleiss_kappa(counts))


def test_the_agreement_command_shows_many_assessors(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from pooltool.cli import cli
    from pooltool.store import JudgmentStore

    db = str(tmp_path / "s.db")
    with JudgmentStore.open(db, create=True) as store:
        for name, values in KRIPPENDORFF_2011.items():
            for i, grade in enumerate(values):
                if grade is not None:
                    store.record_judgment("1", f"u{i}", grade, name)
    result = CliRunner().invoke(cli, ["--db", db, "agreement", "--many", "--alpha-level",
                                      "nominal", "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["topic"] for r in rows] == ["1", "all"]
    assert float(rows[0]["alpha_nominal"]) == pytest.approx(0.743, abs=5e-4)
