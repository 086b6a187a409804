"""Numbers and text between Arrow and numpy without loading pandas.

pyarrow's own conversions load pandas the first time they run, whether or not
pandas is needed: ``Array.to_numpy`` (its C++ converter looks pandas up),
``pa.array`` (its pandas shim asks whether the input is a pandas object), and
a compute function given a Python scalar (made with ``pa.scalar``). That costs
a command which otherwise never needs pandas (``pooltool recall`` on files)
about 0.3 CPU-s, as much as the rest of its work on 15 TREC-COVID runs. The
functions here go through the arrays' buffers instead: fixed-width numbers
without nulls are zero-copy views both ways, and text is built from its UTF-8
bytes and offsets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels

_NUMPY = {
    pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
    pa.uint8(): np.uint8, pa.uint16(): np.uint16, pa.uint32(): np.uint32,
    pa.uint64(): np.uint64, pa.float32(): np.float32, pa.float64(): np.float64,
}
_ARROW = {np.dtype(numpy): arrow for arrow, numpy in _NUMPY.items()}


def numbers(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The values of a fixed-width numeric Arrow array without nulls as a numpy array
    (``n`` values -> shape ``(n,)``, the matching dtype): a read-only view of a single
    chunk, a copy of several.

    :raises ValueError: a type other than integers or floats, or a null.
    """
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            return numbers(values.chunk(0))
        dtype = _numpy_type(values.type)
        return np.concatenate([numbers(chunk) for chunk in values.chunks]) if values.num_chunks \
            else np.empty(0, dtype=dtype)
    dtype = _numpy_type(values.type)
    if values.null_count:
        raise ValueError(f"{values.null_count} null value(s) in a numeric column")
    buffer = values.buffers()[1]
    if buffer is None:  # no values
        return np.empty(0, dtype=dtype)
    return np.frombuffer(buffer, dtype=dtype, count=len(values),
                         offset=values.offset * dtype.itemsize)


def arrow_numbers(values: np.ndarray) -> pa.Array:
    """A 1-d numpy array of integers or floats as an Arrow array (a view when it is
    contiguous, else of a contiguous copy).

    :raises ValueError: another dtype.
    """
    values = np.ascontiguousarray(values)
    if values.dtype not in _ARROW:
        raise ValueError(f"no Arrow type here for numpy dtype {values.dtype}")
    return pa.Array.from_buffers(_ARROW[values.dtype], len(values), [None, pa.py_buffer(values)])


def arrow_strings(values: Sequence[str]) -> pa.Array:
    """Python strings as an Arrow ``string`` array (``n`` strings -> ``n`` values)."""
    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(value) for value in encoded], out=offsets[1:])
    data = b"".join(encoded)
    return kernels.cast(pa.Array.from_buffers(pa.large_string(), len(encoded),
                                              [None, pa.py_buffer(offsets), pa.py_buffer(data)]),
                        pa.string())


def _numpy_type(kind: pa.DataType) -> np.dtype:
    if kind not in _NUMPY:
        raise ValueError(f"not a fixed-width numeric Arrow type: {kind}")
    return np.dtype(_NUMPY[kind])
