"""64-bit fingerprints of Arrow strings, computed with numpy, for hash-free joins.

Scoring a run needs two questions answered per line: is its (topic, docno)
repeated, and what grade does the qrels give it; importing a run needs the
first (:func:`pooltool.store.run_columns.repeats_docno`). Hashing every docno string
with Arrow's kernels costs more than reading the file; a fingerprint reads
the same bytes eight at a time as integers (:func:`fingerprints`) and mixes
them with the splitmix64 finaliser (Steele, Lea and Flood, "Fast splittable
pseudorandom number generators", OOPSLA 2014). Equal strings always get
equal fingerprints; unequal strings get equal ones only by a collision,
which callers must treat as "not sure" and settle exactly: distinct
fingerprints prove distinct strings, and a match is confirmed on the strings
themselves.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
# MASKS[r]: the low r bytes of a little-endian word (r = 0..8)
_MASKS = np.array([(1 << (8 * r)) - 1 for r in range(9)], dtype=np.uint64)


def mix(values: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser of each uint64 (a bijection); a new array."""
    x = values ^ (values >> np.uint64(30))
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


def fingerprints(strings: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """One uint64 per string, a function of its bytes only.

    :param strings: an Arrow ``string`` array without nulls, ``n`` values.
    :returns: uint64 array, shape ``(n,)``; equal strings, equal values.
    """
    offsets, data_buffer = string_buffers(strings)
    starts = offsets[:-1].astype(np.int64)
    lengths = np.diff(offsets).astype(np.int64)
    longest = int(lengths.max()) if len(lengths) else 0
    if longest and int(lengths.min()) == longest:
        return _same_length(np.frombuffer(data_buffer, dtype=np.uint8), int(starts[0]), len(lengths), longest)
    data = np.zeros(len(data_buffer) + 8, dtype=np.uint8)
    data[:-8] = np.frombuffer(data_buffer, dtype=np.uint8)
    # the 8 bytes that start at each byte, as one little-endian integer (unaligned view)
    words = np.ndarray(shape=(len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))
    state = mix(lengths.astype(np.uint64) * _GOLDEN)
    for step in range(0, longest, 8):
        active = lengths > step  # a string's words after its end are not mixed in
        rows: slice | np.ndarray = slice(None) if active.all() else np.flatnonzero(active)
        left = np.minimum(lengths[rows] - step, 8)
        word = words[starts[rows] + step] & _MASKS[left]
        state[rows] = mix((state[rows] ^ word) + _GOLDEN)
    return state


def string_buffers(strings: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, pa.Buffer | bytes]:
    """The offsets and bytes of ``n`` Arrow strings (no nulls), no copy of the bytes.

    :returns: int32 offsets, shape ``(n + 1,)``, string ``i`` being
        ``data[offsets[i]:offsets[i + 1]]``; the data (``b""`` when Arrow holds none,
        every string being empty).
    """
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    if strings.type != pa.string():
        strings = kernels.cast(strings, pa.string())
    _, offsets_buffer, data_buffer = strings.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32)[strings.offset:strings.offset + len(strings) + 1]
    return offsets, b"" if data_buffer is None else data_buffer


def _same_length(data: np.ndarray, first: int, count: int, length: int) -> np.ndarray:
    """:func:`fingerprints` when all ``count`` strings have ``length > 0`` bytes (docnos
    often do), string ``i`` at ``first + i * length``: the bytes as rows, zero-padded
    to whole aligned words (the loop's masks give the same zeros), and the length's
    start state computed once. The same values as the loop, at about 2/3 of its cost
    (250,000 docnos of 9 bytes: 15 -> 10 ms)."""
    width = -(-length // 8) * 8
    rows = np.zeros((count, width), dtype=np.uint8)
    rows[:, :length] = data[first:first + count * length].reshape(count, length)
    words = rows.view("<u8")
    state = np.full(count, mix(np.array([length], dtype=np.uint64) * _GOLDEN)[0], dtype=np.uint64)
    for column in range(width // 8):
        state = mix((state ^ words[:, column]) + _GOLDEN)
    return state


def keyed(prints: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Fingerprints combined with an integer key each (a topic), for one join on both."""
    return mix(prints + (keys.astype(np.uint64) + np.uint64(1)) * _GOLDEN)


def _bucket_bits(count: int) -> int:
    """Bits of the bucket number for ``count`` keys: at least 4 buckets per key."""
    return max(16, (4 * max(count, 1) - 1).bit_length())


def repeats(keys: np.ndarray) -> bool:
    """Whether a uint64 key occurs twice (``n`` keys, any order).

    One sort and a comparison of neighbours: numpy's vectorised sort of uint64
    beats counting the keys into buckets first (30,000 keys: 0.16 against
    0.30 ms).
    """
    if len(keys) < 2:
        return False
    ordered = np.sort(keys)
    return bool((ordered[1:] == ordered[:-1]).any())


class KeyTable:
    """Distinct uint64 keys, each with a row, looked up in a vectorised hash table.

    Open addressing with linear probing: a key's home slot is its top bits (at least
    4 slots per key), and keys taken in order of home slot each go to the first free
    slot from their home on (``slot_i = max(home_i, slot_{i-1} + 1)``, a running
    maximum); the table runs on past the last home slot, so nothing wraps around.
    Between a key's home and its slot every slot is taken, so a lookup walks from
    the home slot until it finds the key or a free slot: one step for most queries.

    :param keys: distinct uint64 keys, any order, shape ``(m,)``.
    :param rows: the row of each key (integers ``>= 0``), shape ``(m,)``.
    """

    def __init__(self, keys: np.ndarray, rows: np.ndarray) -> None:
        bits = _bucket_bits(len(keys))
        self.shift = np.uint64(64 - bits)
        home = (keys >> self.shift).astype(np.intp)
        order = np.argsort(home, kind="stable")
        home = home[order]
        count = np.arange(len(keys))
        slot = count + np.maximum.accumulate(home - count) if len(keys) else count
        self.slot_keys = np.zeros((1 << bits) + len(keys), dtype=np.uint64)
        self.slot_rows = np.full(len(self.slot_keys), -1, dtype=np.int64)  # -1: a free slot
        self.slot_keys[slot] = keys[order]
        self.slot_rows[slot] = np.asarray(rows, dtype=np.int64)[order]

    def find(self, queries: np.ndarray) -> np.ndarray:
        """The row of each query's key, -1 where the key is not in the table
        (``n`` uint64 queries -> int64 ``n``)."""
        slot = (queries >> self.shift).astype(np.intp)
        rows = self.slot_rows[slot]
        hit = self.slot_keys[slot] == queries  # a free slot's row is -1: found or not, -1
        found = np.where(hit, rows, -1)
        walking = np.flatnonzero(~hit & (rows >= 0))  # their slot holds another key: walk on
        slot = slot[walking]
        while len(walking):
            slot += 1
            rows = self.slot_rows[slot]
            hit = self.slot_keys[slot] == queries[walking]
            found[walking[hit]] = rows[hit]
            going = ~hit & (rows >= 0)
            walking, slot = walking[going], slot[going]
        return found
