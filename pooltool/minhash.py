"""MinHash signatures and LSH bands of many shingle sets at once, with numpy.

The values are datasketch's, bit for bit (``MinHash`` with its default scheme
``affine32``: each input hash pre-mixed by the 32-bit MurmurHash3 finalizer, then
``a * h + b`` modulo 2**32 per permutation, the minimum kept; the permutations drawn as
``MinHash._init_permutations`` draws them), and two signatures share a band exactly
when datasketch's ``MinHashLSH`` puts them in one bucket (the same ``r`` values). What
differs is the cost: datasketch takes one set at a time in Python and keeps every key
of every band in dicts (6.7 GiB for a million short documents); here a chunk of sets
is one numpy computation, and the bands are a matrix of small bucket numbers.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

_U32 = np.uint32
_FMIX = (_U32(16), _U32(0x85EBCA6B), _U32(13), _U32(0xC2B2AE35), _U32(16))

_CHUNK_VALUES = 1 << 13
"""Input hashes permuted at once: a (num_perm x chunk) uint32 matrix, 4 MiB at 128 (it
stays in the processor's cache: faster than 8 times as many at once)."""

KNOWN_BANDS = {(0.8, 128, (0.05, 0.95)): (16, 8)}
"""``datasketch.lsh._optimal_param`` for the defaults of :mod:`pooltool.duplicates`
(tests/test_minhash.py checks them against datasketch): importing datasketch loads
scipy, over a second that ``add-docs --duplicates`` should not pay."""


def permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``(a, b)`` uint32 arrays of datasketch's ``MinHash(num_perm, seed)``."""
    gen = np.random.RandomState(seed)
    a = gen.randint(0, 1 << 31, num_perm, dtype=_U32) * _U32(2) + _U32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=_U32)
    return a, b


def signatures(values: np.ndarray, offsets: np.ndarray, num_perm: int,
               seed: int) -> np.ndarray:
    """MinHash signatures of many sets of 32-bit hashes.

    :param values: the sets one after another (uint32).
    :param offsets: set ``i`` is ``values[offsets[i]:offsets[i + 1]]`` (int64, ``n + 1``
        increasing entries, each set non-empty).
    :returns: an ``(n, num_perm)`` uint32 matrix, row ``i`` equal to the ``hashvalues``
        of a datasketch ``MinHash(num_perm=num_perm, seed=seed)`` updated with set ``i``.
    """
    a, b = permutations(num_perm, seed)
    a, b = a.reshape(-1, 1), b.reshape(-1, 1)
    out = np.empty((len(offsets) - 1, num_perm), dtype=_U32)
    for first, last in _chunks(offsets):
        start, stop = offsets[first], offsets[last]
        # (num_perm x values): each set's values are contiguous in a row, which
        # reduceat takes an order of magnitude faster than the transpose
        permuted = a * _fmix32(values[start:stop])  # uint32: wraps, the modulo 2**32
        permuted += b
        out[first:last] = np.minimum.reduceat(permuted, offsets[first:last] - start, axis=1).T
    return out


def _chunks(offsets: np.ndarray) -> Iterator[tuple[int, int]]:
    """``(first, last)`` set numbers of chunks of about :data:`_CHUNK_VALUES` values."""
    first, count = 0, len(offsets) - 1
    while first < count:
        last = int(np.searchsorted(offsets, offsets[first] + _CHUNK_VALUES, side="right")) - 1
        last = min(count, max(last, first + 1))
        yield first, last
        first = last


def _fmix32(h: np.ndarray) -> np.ndarray:
    s1, m1, s2, m2, s3 = _FMIX
    h = h ^ (h >> s1)
    h = h * m1
    h = h ^ (h >> s2)
    h = h * m2
    return h ^ (h >> s3)


def band_params(threshold: float, num_perm: int, weights: tuple[float, float]
                ) -> tuple[int, int]:
    """datasketch ``MinHashLSH``'s bands and rows ``(b, r)`` for these parameters
    (from :data:`KNOWN_BANDS`, else computed by datasketch, imported only then)."""
    known = KNOWN_BANDS.get((threshold, num_perm, weights))
    if known is not None:
        return known
    from datasketch.lsh import _optimal_param

    bands, rows = _optimal_param(threshold, num_perm, *weights)
    return int(bands), int(rows)


def shared_buckets(signature: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Which sets share an LSH bucket with another, band by band.

    :param signature: ``(n, num_perm)`` uint32 (:func:`signatures`), ``bands * rows <=
        num_perm``.
    :returns: an ``(n, bands)`` int32 matrix: in column ``k``, sets whose ``rows``
        values of band ``k`` are equal have one bucket number (>= 0); a set alone in
        its bucket has -1 (it can be no other's candidate in that band).
    """
    out = np.full((len(signature), bands), -1, dtype=np.int32)
    for band in range(bands):
        block = np.ascontiguousarray(signature[:, band * rows:(band + 1) * rows])
        keys = block.view(np.dtype((np.void, block.dtype.itemsize * rows))).ravel()
        _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        inverse = inverse.ravel()
        shared = counts[inverse] > 1
        out[shared, band] = inverse[shared]
    return out


__all__ = ["KNOWN_BANDS", "band_params", "permutations", "shared_buckets", "signatures"]
