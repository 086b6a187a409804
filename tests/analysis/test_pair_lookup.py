"""Run lines' (topic, docno) pairs looked up among a design's known pairs
(pooltool/analysis/pair_lookup.py): the compiled table (pooltool/native/runpass_pairs.c)
and the Arrow path give the rows a dictionary gives; the table declines what it does not
read (a docno not a plain ASCII str, a pair known twice) and the Arrow path answers."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pandas as pd
import pytest

from pooltool.analysis.pair_lookup import PairLookup


def _pairs(rng: np.random.Generator, count: int, topics: int) -> tuple[np.ndarray, list[str]]:
    """``count`` distinct pairs over ``topics`` topics, docnos of every length 0-20 (a
    word's edge: 8, 16), some docnos in several topics."""
    pairs: set[tuple[int, str]] = set()
    while len(pairs) < count:
        length = int(rng.integers(0, 21))
        pairs.add((int(rng.integers(topics)), "".join(rng.choice(list("ab7-"), length))))
    ordered = sorted(pairs)
    return np.array([t for t, _ in ordered], dtype=np.int64), [d for _, d in ordered]


def _expected(known_topic: np.ndarray, known: list[str], topic: np.ndarray,
              docnos: list[str]) -> np.ndarray:
    row = {(int(t), d): j for j, (t, d) in enumerate(zip(known_topic, known, strict=True))}
    return np.array([row.get((int(t), d), -1) for t, d in zip(topic, docnos, strict=True)])


@pytest.mark.parametrize("switched_off", [False, True])
@pytest.mark.parametrize("dtype", [object, "str"])
def test_rows_are_the_known_pairs_rows(monkeypatch: pytest.MonkeyPatch, switched_off: bool,
                                       dtype: object) -> None:
    # lines: every known pair, pairs of a known docno in another topic, unknown docnos
    if switched_off:
        monkeypatch.setenv("POOLTOOL_NATIVE", "0")
    rng = np.random.default_rng(7)
    known_topic, known = _pairs(rng, 300, 5)
    line_topic, lines = _pairs(rng, 400, 6)
    topic = np.concatenate([known_topic, line_topic % 5])
    docnos = known + lines
    lookup = PairLookup(known_topic, pd.Series(known, dtype=dtype), 5)
    rows = lookup.rows(topic, pd.Series(docnos, dtype=dtype))
    expected = _expected(known_topic, known, topic, docnos)
    assert np.array_equal(rows, expected)
    assert np.array_equal(rows[:300], np.arange(300)) and (expected[300:] == -1).sum() > 100
    assert np.array_equal(lookup.rows(topic[:0], pd.Series([], dtype=dtype)), np.zeros(0))


def test_what_the_table_does_not_read_the_arrow_path_answers(native: ModuleType) -> None:
    known_topic = np.array([0, 0, 1], dtype=np.int64)
    known = ["d1", "é2", "d1"]
    assert native.pair_table(known_topic, known, 2) is None  # not ASCII: declined
    lookup = PairLookup(known_topic, pd.Series(known, dtype=object), 2)
    topic = np.array([1, 0, 0, 1, 0], dtype=np.int64)
    lines = pd.Series(["d1", "é2", None, "é2", "d1"], dtype=object)
    assert lookup.rows(topic, lines).tolist() == [2, 1, -1, -1, 0]
    ascii_known = PairLookup(known_topic[::2], pd.Series(["d1", "d1"], dtype=object), 2)
    table = native.pair_table(np.array([0, 1], dtype=np.int64), ["d1", "d1"], 2)
    assert table is not None and native.find_pairs(table, topic, lines.tolist()) is None
    assert ascii_known.rows(topic, lines).tolist() == [1, -1, -1, -1, 0]


def test_the_table_declines_a_pair_known_twice_and_refuses_what_does_not_fit(
        native: ModuleType) -> None:
    assert native.pair_table(np.array([0, 1, 0], dtype=np.int64), ["a", "a", "a"], 2) is None
    table = native.pair_table(np.array([0, 1], dtype=np.int64), ["a", "a"], 2)
    found = native.find_pairs(table, np.array([1, 0, 1], dtype=np.int64), ["a", "a", "b"])
    assert np.frombuffer(found, dtype=np.int64).tolist() == [1, 0, -1]
    assert native.find_pairs(table, np.array([2], dtype=np.int64), ["a"]) is None  # topic 2 of 2
    with pytest.raises(ValueError, match="topic out of range"):
        native.pair_table(np.array([2], dtype=np.int64), ["a"], 2)
    with pytest.raises(ValueError, match="inconsistent"):
        native.find_pairs(table[:30], np.array([0], dtype=np.int64), ["a"])
    with pytest.raises(ValueError, match="inconsistent"):
        native.find_pairs(table, np.array([0, 0], dtype=np.int64), ["a"])
