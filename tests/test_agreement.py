"""Cohen's kappa and agreement, against values computed by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from pooltool.judging.agreement import (
    AGREEMENT_COLUMNS,
    agreement_table,
    cohen_kappa,
    pair_agreement,
    store_agreement,
)
from pooltool.store import JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

# Binary: 7 of 10 agree; a says 1 six times, b five times:
# p_e = .6 * .5 + .4 * .5 = .5, kappa = (.7 - .5) / .5 = .4.
BIN_A = [1, 1, 0, 0, 1, 0, 1, 1, 0, 1]
BIN_B = [1, 0, 0, 0, 1, 1, 1, 1, 0, 0]
# Graded 0..3: margins a (1, 2, 2, 1), b (2, 1, 2, 1), n = 6; three pairs differ by 1.
# sum r_i c_j |i-j| = 42, so E-weighted = 7 and linear kappa = 1 - 3/7 = 4/7;
# sum r_i c_j (i-j)^2 = 78, so 13 and quadratic kappa = 1 - 3/13 = 10/13;
# unweighted: p_o = 3/6, p_e = 9/36, kappa = (.5 - .25) / .75 = 1/3.
GRADED_A = [0, 1, 2, 3, 2, 1]
GRADED_B = [0, 2, 2, 3, 1, 0]


@pytest.mark.parametrize(("a", "b", "weights", "expected"), [
    (BIN_A, BIN_B, None, 0.4),
    (GRADED_A, GRADED_B, None, 1 / 3),
    (GRADED_A, GRADED_B, "linear", 4 / 7),
    (GRADED_A, GRADED_B, "quadratic", 10 / 13),
    ([0, 1, 2], [0, 1, 2], "quadratic", 1.0),
    ([0, 1, 0, 1], [1, 0, 1, 0], None, -1.0),
])
def test_cohen_kappa_hand_values(a: list[int], b: list[int], weights: str | None,
                                  expected: float) -> None:
    assert cohen_kappa(a, b, weights) == pytest.approx(expected)


def test_kappa_is_symmetric() -> None:
    assert cohen_kappa(GRADED_B, GRADED_A, "linear") == pytest.approx(4 / 7)


@pytest.mark.parametrize(("a", "b"), [([], []), ([1, 1], [1, 1])])
def test_kappa_undefined_is_nan(a: list[int], b: list[int]) -> None:
    assert math.isnan(cohen_kappa(a, b))


def test_weights_use_grade_values_not_positions() -> None:
    # grades 0, 1, 3 (2 never given), one item each per assessor: E_ij = 1/3;
    # disagreements 0-1 and 1-0 weigh 2; by value sum |i-j| = 12, so 1 - 2/4 = .5;
    # by position (0, 1, 2) the sum is 8 and kappa 1 - 2/(8/3) = .25 (sklearn's default)
    assert cohen_kappa([0, 1, 3], [1, 0, 3], "linear") == pytest.approx(0.5)
    assert cohen_kappa([0, 1, 2], [1, 0, 2], "linear") == pytest.approx(0.25)


def test_kappa_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="same length"):
        cohen_kappa([1], [1, 0])
    with pytest.raises(ValueError, match="unknown kappa weights"):
        cohen_kappa([1], [1], "cubic")


def test_pair_agreement_binary_at_threshold() -> None:
    figures = pair_agreement(GRADED_A, GRADED_B, threshold=2)
    # binary at 2: a -> 001110, b -> 011100: 4 of 6 agree, p_e = .5, kappa = 1/3
    assert figures["docs"] == 6
    assert figures["agreement"] == pytest.approx(0.5)
    assert figures["binary_agreement"] == pytest.approx(4 / 6)
    assert figures["kappa"] == pytest.approx(1 / 3)
    assert figures["kappa_quadratic"] == pytest.approx(10 / 13)


def test_agreement_table_per_pair_and_topic() -> None:
    rows = [("1", f"d{i}", "alice", g) for i, g in enumerate(GRADED_A)]
    rows += [("1", f"d{i}", "bob", g) for i, g in enumerate(GRADED_B)]
    rows += [("2", "x", "alice", 1), ("2", "x", "bob", 1), ("2", "y", "carol", 0)]
    grades = pd.DataFrame(rows, columns=["topic", "docno", "assessor", "grade"])
    table = agreement_table(grades, threshold=1)
    assert list(table.columns) == AGREEMENT_COLUMNS
    assert list(zip(table["assessor_a"], table["assessor_b"], table["topic"],
                    table["docs"], strict=True)) == [
        ("alice", "bob", "1", 6), ("alice", "bob", "2", 1), ("alice", "bob", "all", 7)]
    assert table["kappa_linear"].iloc[0] == pytest.approx(4 / 7)


def test_store_agreement_uses_each_assessors_latest_live_grade(memory_store: JudgmentStore) -> None:
    store = memory_store
    store.record_judgment("1", "d1", 0, "alice")
    store.record_judgment("1", "d1", 2, "alice")  # regrade: this one counts
    store.record_judgment("1", "d1", 2, "bob")
    wrong = store.record_judgment("1", "d2", 1, "bob")
    store.retract(wrong, "bob")  # retracted: d2 is not shared
    store.record_judgment("1", "d2", 1, "alice")
    store.record_judgment("1", "d3", -1, "alice")  # negative: not a judgment
    store.record_judgment("1", "d3", 0, "bob")
    table = store_agreement(store)
    # one shared topic still gets its pair's ``all`` row (it was left out)
    assert table[["topic", "docs", "agreement"]].values.tolist() == [["1", 1, 1.0],
                                                                     ["all", 1, 1.0]]
