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
