"""(topic, docno) pairs looked up among known pairs: each of millions of run lines' row
among the pairs a sample's design knows (for
:mod:`~pooltool.analysis.run_placement`), by the compiled table
(:mod:`pooltool.native`, ``runpass_pairs.c``) or else by Arrow's ``index_in`` and
integer pair codes; both give the same rows.

A join of millions of run lines on two string columns is slow; the compiled table
reads the docnos' Python strings in place (no Arrow copy of them) with the GIL
released: on bench_estimate.py's 7.5M lines (2026-12-04, one thread) the table of the
1.2M known pairs takes 0.1 CPU-s and the lookup 0.25, where the Arrow path took 0.66 to
copy the docnos into Arrow, 0.96 for ``index_in`` and about 0.5 for the pair codes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pooltool.native import run_pass


class PairLookup:
    """Known (topic, docno) pairs, each once, and lines looked up among them.

    :param topic: int64 ``m``: each known pair's topic position, in ``[0, topics)``.
    :param docnos: ``m`` docnos (strings).
    :param topics: how many topic positions there are.
    """

    def __init__(self, topic: np.ndarray, docnos: pd.Series, topics: int) -> None:
        self._topic = np.ascontiguousarray(topic, dtype=np.int64)
        self._docnos = docnos
        self._topics = topics
        native = run_pass()
        self._table = None if native is None else native.pair_table(self._topic, _python_strings(docnos),
                                                                    topics)
        self._codes: _PairCodes | None = None

    def rows(self, topic: np.ndarray, docnos: pd.Series) -> np.ndarray:
        """Each line's known row: the ``j`` whose topic and docno are the line's, ``-1``
        where none.

        :param topic: int64 ``n``: the lines' topic positions, in ``[0, topics)``.
        :param docnos: ``n`` docnos (strings).
        :returns: int64 ``n`` (read-only).
        """
        native = run_pass()
        if native is not None and self._table is not None:
            found = native.find_pairs(self._table, np.ascontiguousarray(topic, dtype=np.int64),
                                      _python_strings(docnos))
            if found is not None:
                return np.frombuffer(found, dtype=np.int64)
        if self._codes is None:
            self._codes = _PairCodes(self._topic, self._docnos)
        return self._codes.rows(topic, docnos)


class _PairCodes:
    """The Python path of :class:`PairLookup`: the known docnos dictionary-encoded, a
    pair coded ``topic * docnos + code``, a line's docno looked up in the dictionary
    (Arrow's ``index_in``; a docno outside it is in no known pair) and its pair code
    among the known ones (``Index.get_indexer``)."""

    def __init__(self, topic: np.ndarray, docnos: pd.Series) -> None:
        encoded = pc.dictionary_encode(_arrow_strings(docnos))
        self.docnos = encoded.dictionary
        self.count = max(len(self.docnos), 1)
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        self.index = pd.Index(topic.astype(np.int64) * self.count + codes)

    def rows(self, topic: np.ndarray, docnos: pd.Series) -> np.ndarray:
        code = pc.fill_null(pc.index_in(_arrow_strings(docnos), value_set=self.docnos), -1)
        code = code.to_numpy(zero_copy_only=False).astype(np.int64)
        key = np.where(code >= 0, topic.astype(np.int64) * self.count + code, -1)
        return self.index.get_indexer(key)


def _python_strings(column: pd.Series) -> list[object]:
    """A column's values as a list (Python strings, as an object column holds them)."""
    return column.to_numpy(dtype=object).tolist()


def _arrow_strings(column: pd.Series) -> pa.Array:
    """A column of strings as one Arrow ``large_string`` array."""
    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow":
        strings = pa.array(column.array)
        if isinstance(strings, pa.ChunkedArray):
            strings = strings.combine_chunks()
        return strings.cast(pa.large_string())
    return pa.array(column.to_numpy(dtype=object), type=pa.large_string())
