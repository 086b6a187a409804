"""trec_eval's C arithmetic where Python's differs: libm ``log2``, ``lround``, sequential sums,
glibc's merge sort, and ``printf`` formats (``%6.4f`` of a NaN, ``%3.2f`` names cut to a buffer).

Byte-identical output needs the same doubles as the C code (usnistgov/trec_eval
10.0), so every sum here adds left to right as the C loops do (``np.cumsum`` is a
sequential fold; ``np.sum`` is pairwise and can differ in the last bit), and every
logarithm is ``math.log2`` (the C library's) rather than numpy's own vector
implementation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")

#: 0.0 / 0.0 on x86-64 is the default NaN, whose sign bit is set: glibc prints ``-nan``.
C_NAN = -math.nan

_LOG2: list[np.ndarray] = [np.array([-math.inf, 0.0])]


def log2_table(n: int) -> np.ndarray:
    """``math.log2(k)`` for ``k = 0 .. n`` (``-inf`` at 0), float64, shape ``(>= n + 1,)``."""
    table = _LOG2[0]
    if len(table) <= n:
        size = max(n + 1, 2 * len(table))
        table = np.array([-math.inf] + [math.log2(k) for k in range(1, size)])
        _LOG2[0] = table
    return table


def discounts(n: int) -> np.ndarray:
    """``log2(i + 2)`` for ranks ``i = 0 .. n - 1`` (the DCG discount of ``m_ndcg.c``)."""
    return log2_table(n + 1)[2:n + 2]


def row_sums(values: np.ndarray) -> np.ndarray:
    """Each row added left to right from 0.0 (float64 ``(T, W)`` -> ``(T,)``), as a C loop
    over one topic's documents does (``np.cumsum`` along a row is that fold; a 0.0 cell,
    padding or a skipped document, changes no double)."""
    if values.shape[1] == 0:
        return np.zeros(values.shape[0], dtype=np.float64)
    return np.cumsum(values, axis=1)[:, -1]


def row_prefix(values: np.ndarray) -> np.ndarray:
    """Running left-to-right sums of each row, ``[0, v0, v0+v1, ...]`` (float64
    ``(T, W)`` -> ``(T, W + 1)``)."""
    out = np.zeros((values.shape[0], values.shape[1] + 1), dtype=np.float64)
    np.cumsum(values, axis=1, out=out[:, 1:])
    return out


def lround(x: float | np.ndarray) -> np.ndarray:
    """C's ``lround``, elementwise: the nearest integer, halves away from zero (Python's
    ``round`` sends halves to even); int64 of ``x``'s shape."""
    magnitude = np.abs(x)
    low = np.floor(magnitude)
    return np.copysign(np.where(magnitude - low >= 0.5, low + 1, low), x).astype(np.int64)


def msort(items: Sequence[T], compare: Callable[[T, T], int]) -> list[T]:
    """glibc 2.x ``qsort`` on small arrays (``msort_with_tmp``): a top-down merge sort that
    takes from the left run when ``compare(left, right) <= 0``. Kept exact because trec_eval
    sorts gains with a comparator that truncates to ``int`` (``comp_rel_gain`` in
    ``gain_init.c``), which is no order at all on fractional gains."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = msort(items[:half], compare), msort(items[half:], compare)
    merged: list[T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def c_int(x: float) -> int:
    """C's conversion of a double to ``int``: truncation toward zero."""
    return int(x)


def c_atol(text: str) -> int:
    """C's ``atol``: leading blanks, a sign, then digits; 0 when there are none."""
    stripped = text.lstrip(" \t\n\v\f\r")
    sign, digits = 1, stripped
    if digits[:1] in ("+", "-"):
        sign, digits = (-1 if digits[0] == "-" else 1), digits[1:]
    count = 0
    while count < len(digits) and digits[count].isdigit() and digits[count].isascii():
        count += 1
    return sign * int(digits[:count]) if count else 0


def c_atof(text: str) -> float:
    """C's ``atof`` on the usual inputs: the longest leading decimal number, 0.0 if none."""
    stripped = text.lstrip(" \t\n\v\f\r")
    best = 0.0
    for end in range(len(stripped), 0, -1):
        try:
            best = float(stripped[:end])
        except ValueError:
            continue
        if stripped[:end].strip() == stripped[:end] and "_" not in stripped[:end]:
            return best
    return 0.0


def value_text(value: float) -> str:
    """``printf("%6.4f", value)`` as glibc prints it (``-nan`` and ``nan`` included)."""
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


#: Past this many ten-thousandths a value is formatted one by one (``%6.4f`` of 0..9.9999
#: is always ``d.dddd``, six characters, so two table lookups give it).
_FAST_LIMIT = 100_000
#: How close to a half ten-thousandth ``value * 1e4`` may come before the rounding of the
#: product (at most 2**-53 of it, under 1.2e-11 below 1e5) could put the exact value on the
#: other side of the tie: such values (1/32 = 0.03125 is exactly one) are formatted one by one.
_TIE_MARGIN = 1e-6
_FRACTIONS: dict[str, np.ndarray] = {}
_UNITS = np.array([str(d) for d in range(10)], dtype=object)


def value_pieces(values: np.ndarray, end: str = "") -> tuple[np.ndarray, np.ndarray]:
    """:func:`value_text` of each value of a float64 column ``(n,)``, followed by ``end``,
    as two object arrays of str ``(n,)`` whose concatenation, element by element, is the text
    (kept apart so that a caller joining many lines copies them without building them).

    Values in ``[0, 9.99995)`` (no sign bit) take their digits from a table: the exact
    double times 10^4 rounded to the nearest integer is what glibc's ``%6.4f`` prints, and
    ``rint(value * 1e4)`` is that integer unless the product lies within ``_TIE_MARGIN`` of a
    half; those, NaN, negatives and larger values go through :func:`value_text`.
    """
    fractions = _FRACTIONS.get(end)
    if fractions is None:
        fractions = np.array([f".{k:04d}{end}" for k in range(10_000)], dtype=object)
        _FRACTIONS[end] = fractions
    with np.errstate(invalid="ignore"):
        scaled = values * 10_000.0
        rounded = np.rint(scaled)
        fast = ((values >= 0) & ~np.signbit(values) & (rounded < _FAST_LIMIT)
                & (np.abs(scaled - np.floor(scaled) - 0.5) > _TIE_MARGIN))
    digits = np.where(fast, rounded, 0).astype(np.int64)
    heads, tails = _UNITS[digits // 10_000], fractions[digits % 10_000]
    for row in np.flatnonzero(~fast).tolist():
        heads[row], tails[row] = value_text(float(values[row])), end
    return heads, tails


def name_with_double(name: str, value: float) -> str:
    """``append_double`` of ``meas_init.c``: ``NAME_%3.2f`` in a buffer of
    ``len(NAME) + 10`` bytes, so at most ``len(NAME) + 9`` characters are kept."""
    return f"{name}_{value:3.2f}"[:len(name) + 9]
