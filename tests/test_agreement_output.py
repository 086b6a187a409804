"""What ``agreement`` says about itself: alpha at a named level of measurement (values by
hand, the krippendorff package as a second oracle), the pooled ``all`` row, and one line
when there is nothing to compare."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.judging.agreement import agreement_table, krippendorff_alpha, pair_agreement
from pooltool.store import JudgmentStore

# Two coders, four documents: (0, 0), (0, 1), (1, 1), (2, 2). Coincidences: o00 = 2,
# o01 = o10 = 1, o11 = 2, o22 = 2; n0 = 3, n1 = 3, n2 = 2, n = 8.
A = [0, 0, 1, 2]
B = [0, 1, 1, 2]
# nominal: D_o = 2/8, D_e = 2 (9 + 6 + 6) / 56 = 3/4: alpha = 1 - (1/4) / (3/4) = 2/3.
# interval (delta (c-k)^2): D_o = 2/8, D_e = 2 (9 * 1 + 6 * 4 + 6 * 1) / 56 = 78/56:
#   alpha = 1 - 14/78 = 32/39.
# ordinal (delta = (sum of n_g from c to k - (n_c + n_k) / 2)^2): d01 = 3^2 = 9,
#   d12 = 2.5^2, d02 = (8 - 2.5)^2; D_o = 2 * 9 / 8, D_e = 2 (9 d01 + 6 d02 + 6 d12) / 56
#   = 600/56: alpha = 1 - 2.25 * 56 / 600 = 0.79.
BY_HAND = {"nominal": 2 / 3, "interval": 32 / 39, "ordinal": 0.79}


@pytest.mark.parametrize("level", sorted(BY_HAND))
def test_alpha_at_each_level_by_hand(level: str) -> None:
    assert krippendorff_alpha(A, B, [0, 1, 2], level) == pytest.approx(BY_HAND[level], abs=1e-12)
    figures = pair_agreement(A, B, level=level)
    assert figures[f"alpha_{level}"] == pytest.approx(BY_HAND[level], abs=1e-12)


def test_the_table_names_its_level_and_the_all_row_pools_topics() -> None:
    rows = [("1", "d1", "ann", 0), ("1", "d1", "bob", 0), ("1", "d2", "ann", 0),
            ("1", "d2", "bob", 1), ("2", "d3", "ann", 1), ("2", "d3", "bob", 1),
            ("2", "d4", "ann", 2), ("2", "d4", "bob", 2)]
    grades = pd.DataFrame(rows, columns=["topic", "docno", "assessor", "grade"])
    table = agreement_table(grades, level="nominal").set_index("topic")
    assert list(table.columns)[-1] == "alpha_nominal"
    # 'all' is the four documents at once (the hand case above), not the mean of topics
    assert table.loc["all", "alpha_nominal"] == pytest.approx(2 / 3, abs=1e-12)
    assert table.loc["all", "docs"] == 4
    assert table.loc["all", "agreement"] == pytest.approx(3 / 4)


def _store(path: str, judgments: list[tuple[str, str, int, str]]) -> None:
    assert CliRunner().invoke(cli, ["--db", path, "init"]).exit_code == 0
    with JudgmentStore.open(path) as store:
        for topic, docno, grade, assessor in judgments:
            store.record_judgment(topic, docno, grade, assessor)


def test_one_assessor_is_one_line(store_address: str) -> None:
    _store(store_address, [("1", "d1", 1, "ann"), ("1", "d2", 0, "ann")])
    result = CliRunner().invoke(cli, ["--db", store_address, "agreement"])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == ("only one assessor (ann) has judged: agreement needs documents "
                             "judged by two (pooltool assign --overlap gives topics a second "
                             "assessor)\n")


def test_the_title_says_what_all_and_alpha_are(store_address: str) -> None:
    _store(store_address, [(t, d, g, who) for t, d, g in zip("1122", ["d1", "d2", "d3", "d4"],
                                                             A, strict=True)
                           for who in ("ann",)] +
           [(t, d, g, "bob") for t, d, g in zip("1122", ["d1", "d2", "d3", "d4"], B,
                                                strict=True)])
    result = CliRunner(env={"COLUMNS": "400"}).invoke(
        cli, ["--db", store_address, "agreement", "--alpha-level", "interval"])
    assert result.exit_code == 0, result.output
    assert ("agreement per assessor pair and topic ('all' pools the documents of every topic; "
            "alpha at the interval level)") in result.stdout
    assert "alpha_interval" in result.stdout
    csv = CliRunner().invoke(cli, ["--db", store_address, "agreement", "--alpha-level",
                                   "interval", "--format", "csv"])
    last = csv.stdout.strip().splitlines()[-1].split(",")
    assert last[4] == "all" and float(last[-1]) == pytest.approx(32 / 39, abs=1e-12)


def test_the_krippendorff_package_agrees() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    for level, value in BY_HAND.items():
        assert krippendorff.alpha(reliability_data=[A, B], level_of_measurement=level,
                                  value_domain=[0, 1, 2]) == pytest.approx(value, abs=1e-12)
