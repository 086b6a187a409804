"""pooltool.formats.columns.encode_labels: dictionary_encode, hashing stretch heads only."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from pooltool.formats.columns import encode_labels


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.sampled_from(["1", "2", "10", "é", ""]), max_size=60), st.integers(0, 3))
def test_encode_labels_is_dictionary_encode(values: list[str], cut: int) -> None:
    """The same indices and dictionary as Arrow's hashing of every row, in stretches or
    not, from one chunk or two."""
    column = pa.chunked_array([pa.array(values[:cut], pa.string()), pa.array(values[cut:], pa.string())])
    expected = pc.dictionary_encode(column.combine_chunks())
    assert encode_labels(column).equals(expected)


def test_encode_labels_by_hand() -> None:
    got = encode_labels(pa.chunked_array([["7", "7", "7", "7", "3", "3", "3", "3", "7"]]))
    assert got.indices.to_pylist() == [0, 0, 0, 0, 1, 1, 1, 1, 0]
    assert got.dictionary.to_pylist() == ["7", "3"]


def test_encode_labels_of_one_value_repeated() -> None:
    """A run's one tag: the same array as dictionary_encode, for equal strings, strings
    whose bytes and total length match copies of the first but that differ, a slice
    of a longer array, empty strings and two chunks."""
    cases = [["t"] * 5, ["ab", "ab"], ["ab", "a", "ba"], ["ab", "ba"], ["", ""], ["é"] * 3,
             ["run", "run", "runs"], ["a", "a", "b"]]
    for values in cases:
        column = pa.chunked_array([pa.array(values, pa.string())])
        assert encode_labels(column).equals(pc.dictionary_encode(column.combine_chunks())), values
    sliced = pa.array(["z", "q", "q", "q", "y"], pa.string()).slice(1, 3)
    assert encode_labels(pa.chunked_array([sliced])).equals(pc.dictionary_encode(sliced))
    two = pa.chunked_array([["tag", "tag"], ["tag"]])
    got = encode_labels(two)
    assert got.indices.to_pylist() == [0, 0, 0] and got.dictionary.to_pylist() == ["tag"]
