"""pooltool.formats.fingerprint and the exact path arrow_run takes when fingerprints collide."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from pooltool.errors import FormatError
from pooltool.formats.fingerprint import KeyTable, fingerprints, keyed, repeats
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.measures import arrow_run, evaluate_recall, evaluate_recall_files

TEXTS = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq",
         "x" * 100, "é", "a\u20ac"]


def test_equal_strings_equal_prints_whatever_the_neighbours() -> None:
    """A string's fingerprint depends on its bytes only: not on the array's other strings
    (their lengths set how many words are read), nor on slicing or chunking."""
    alone = [int(fingerprints(pa.array([text]))[0]) for text in TEXTS]
    together = fingerprints(pa.array(TEXTS)).tolist()
    assert together == alone
    assert len(set(together)) == len(TEXTS)
    assert fingerprints(pa.array(TEXTS).slice(3, 4)).tolist() == alone[3:7]
    chunked = pa.chunked_array([TEXTS[:4], TEXTS[4:]])
    assert fingerprints(chunked).tolist() == alone
    # NUL-free strings that differ only past byte 8 or in length
    assert fingerprints(pa.array(["abcdefgh1", "abcdefgh2", "abcdefgh"])).tolist() == [
        int(fingerprints(pa.array([t]))[0]) for t in ("abcdefgh1", "abcdefgh2", "abcdefgh")]


def test_keyed_separates_topics() -> None:
    prints = fingerprints(pa.array(["d1", "d1", "d2"]))
    keys = keyed(prints, np.array([0, 1, 0]))
    assert keys[0] != keys[1] and len(set(keys.tolist())) == 3


QRELS = read_qrels("1 0 a 2\n1 0 b 0\n1 0 c -1\n1 0 x 1\n2 0 a 0\n3 0 z 1\n")


def colliding(strings: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Every string gets one fingerprint: each repeat and match is then in doubt."""
    return np.zeros(len(strings), dtype=np.uint64)


def test_collisions_fall_back_to_exact_hashing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 0.5 t\n1 Q0 d 4 0.25 t\n"
                    "2 Q0 a 1 3 t\n2 Q0 x 2 3 t\n4 Q0 q 1 1 t\n")
    expected = evaluate_recall(read_run(path), QRELS, ks=(1, 2, 3), complete=True)
    monkeypatch.setattr(arrow_run, "fingerprints", colliding)
    got = evaluate_recall_files([path], QRELS, ks=(1, 2, 3), complete=True)
    pd.testing.assert_frame_equal(got.per_topic, expected.per_topic)
    assert got.per_topic["num_rel_ret"].tolist() == [1, 0, 0]


def test_collision_then_repeat_names_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arrow_run, "fingerprints", colliding)
    path = tmp_path / "dup.txt"
    path.write_text("1 Q0 a 1 1.0 t\n2 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.2 t\n")
    with pytest.raises(FormatError, match=r"dup.txt:4: docno 'a' appears twice"):
        evaluate_recall_files([path], QRELS)


def test_repeats_and_key_table_with_shared_buckets() -> None:
    """Keys that share their top bits (one bucket) and keys alone in theirs."""
    crowded = np.array([5 << 60, (5 << 60) + 1, (5 << 60) + 2], dtype=np.uint64)
    alone = np.array([1, 2 << 62, 3 << 62], dtype=np.uint64)
    keys = np.concatenate([crowded, alone])
    assert not repeats(keys)
    assert repeats(np.concatenate([keys, crowded[1:2]]))
    assert repeats(np.concatenate([keys, alone[2:]]))
    table = KeyTable(keys, np.arange(10, 16))
    queries = np.array([(5 << 60) + 2, 2 << 62, (5 << 60) + 3, 7, 3 << 62, 5 << 60], dtype=np.uint64)
    assert table.find(queries).tolist() == [12, 14, -1, -1, 15, 10]
    assert KeyTable(np.array([], dtype=np.uint64), np.array([])).find(queries).tolist() == [-1] * 6


@pytest.mark.parametrize("length", [1, 7, 8, 9, 16, 17])
def test_strings_of_one_length_print_as_among_other_lengths(length: int) -> None:
    """All strings of one length take a shortcut (rows of aligned words); their prints
    are the ones the general loop gives them beside a string of another length, also
    from a slice whose first string does not start the buffer."""
    texts = [chr(ord("a") + i) * length for i in range(5)] + ["é" * length]
    sizes = {len(text.encode()) for text in texts}
    same = [text for text in texts if len(text.encode()) == length]
    mixed = fingerprints(pa.array(same + ["x" * (length + 3)])).tolist()[:-1]
    assert sizes != {length}  # the mixed array is not all one length
    assert fingerprints(pa.array(same)).tolist() == mixed
    assert fingerprints(pa.array(["z" * length] + same).slice(1)).tolist() == mixed


@settings(max_examples=examples(150), deadline=None)
@given(st.sets(st.tuples(st.integers(0, 3), st.integers(0, 40)), max_size=80),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 45)), max_size=60))
def test_key_table_finds_what_a_dict_finds(entries: set[tuple[int, int]],
                                           asked: list[tuple[int, int]]) -> None:
    """Keys crowded into a few home slots (the top bits from a handful of values, so
    lookups walk long stretches of taken slots, past the last home slot too), key 0
    (a free slot holds 0), keys absent and asked twice."""
    def key(top: int, low: int) -> int:
        return (top << 62) | (low * 7919) if top < 3 else (2**64 - 1 - low)

    table = {key(top, low): row for row, (top, low) in enumerate(sorted(entries))}
    keys = np.array(list(table), dtype=np.uint64)
    found = KeyTable(keys, np.array(list(table.values()))).find(
        np.array([key(*q) for q in asked], dtype=np.uint64))
    assert found.tolist() == [table.get(key(*q), -1) for q in asked]
