"""The one place where a run is ordered: trec_eval's order.

trec_eval sorts each topic's retrieved documents by score descending and
breaks ties by docno descending, comparing docnos with ``strcmp``
(``comp_sim_docno`` in ``form_res_rels.c``); the rank column of the file is
ignored. Python compares ``str`` by code point, which for UTF-8 text is the
same order as ``strcmp`` on the bytes. NIST pooled TREC-COVID in this order
(``../shared/data/SOURCES.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.arrow.numbers import arrow_numbers, numbers
from pooltool.errors import InvalidArgument

if TYPE_CHECKING:
    import pandas as pd

def order_run(frame: pd.DataFrame) -> pd.DataFrame:
    """Order a run as trec_eval does and number the positions.

    :param frame: rows with at least ``topic``, ``docno`` and ``score``
        columns; a ``run_tag`` column, if present, keeps runs apart.
    :returns: a new DataFrame sorted by run tag and topic (ascending, string
        order), then score descending, then docno descending, with an added
        ``trec_rank`` column: the 1-based position of the document within its
        run and topic in that order.
    """
    order, trec_rank = _order(frame)
    ordered = frame.take(order).reset_index(drop=True)
    ordered["trec_rank"] = trec_rank
    return ordered


def trec_ranks(frame: pd.DataFrame) -> np.ndarray:
    """The ``trec_rank`` :func:`order_run` gives each row, in the frame's own row order
    (no reordered copy of the frame is made).

    :param frame: ``n`` rows, as :func:`order_run` takes them.
    :returns: int64 ``n``: each row's 1-based position within its run and topic in
        trec_eval's order.
    """
    order, trec_rank = _order(frame)
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = trec_rank
    return ranks


def _order(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """:func:`order_run`'s row order (positions in ``frame``) and the ``trec_rank`` of
    each row in that order: :func:`_trec_order`, else pandas' stable sort."""
    keys = [c for c in ("run_tag", "topic") if c in frame.columns]
    fast = _trec_order(frame, keys)
    if fast is not None:
        return fast
    ordered = frame.reset_index(drop=True).sort_values(
        keys + ["score", "docno"],
        ascending=[True] * len(keys) + [False, False],
        kind="mergesort",
    )
    trec_rank = ordered.groupby(keys, sort=False).cumcount().to_numpy(dtype=np.int64) + 1
    return ordered.index.to_numpy(dtype=np.int64), trec_rank


def _trec_order(frame: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """The row order and positions :func:`order_run` gives, computed on numbers.

    Sorts integer codes of the keys (in string order) and the negated score
    with ``np.lexsort``, then re-sorts only the rows whose (keys, score) is
    tied by docno descending. The result is the stable mergesort's, row for
    row. ``None`` (use pandas' sort) for inputs where that is not certain:
    no ``topic`` key, no rows, a score that is not float64 or has a NaN,
    key or docno columns that are not plain strings or integers.
    """
    import pandas as pd  # a DataFrame was given: pandas is loaded

    if "topic" not in keys or len(frame) == 0 or "score" not in frame or "docno" not in frame:
        return None
    score = frame["score"]
    if score.dtype != np.float64:
        return None
    scores = score.to_numpy()
    if np.isnan(scores).any():
        return None
    columns: dict[str, np.ndarray] = {}
    for name in [*keys, "docno"]:
        values = _sortable(frame[name])
        if values is None:
            return None
        columns[name] = values
    group = np.zeros(len(frame), dtype=np.int64)
    for key in keys:
        codes, uniques = pd.factorize(columns[key], sort=True)
        group = group * len(uniques) + codes
    order = order_lines(group, scores, columns["docno"])[0]
    return order, positions_in_groups(group[order])


def order_lines(group: np.ndarray, score: np.ndarray, docno: np.ndarray | pa.Array,
                rows: np.ndarray | None = None, *, sorted_groups: bool = True,
                ) -> tuple[np.ndarray, np.ndarray]:
    """trec_eval's order on number columns: the one implementation of it, for the
    frame path (:func:`order_run`) and the Arrow path of the measures
    (:mod:`pooltool.measures.arrow_run`).

    Rows go by group (a topic, or run and topic, as integer codes), then score
    descending, then docno descending (``strcmp``); rows equal on all three keep
    their order (the stable mergesort's result, row for row). Only the rows tied on
    (group, score) are compared by docno.

    :param group: ``n`` integer codes, in the order the groups sort.
    :param score: ``n`` float64 scores, no NaN.
    :param docno: the docnos: a numpy array of ``str`` (object), or an Arrow string
        array (compared byte by byte, ``strcmp`` order, as Python compares ``str``).
    :param rows: each row's position in ``docno`` (default: the row itself).
    :param sorted_groups: ``False``: the groups may come in any order when each is
        one stretch of rows (a run file written topic by topic: then only ties move).
    :returns: the row order (positions), and per row an integer ``>= 1`` that orders
        it among the rows tied with it on (group, score) as the docnos compare (equal
        docnos, equal integers), ``0`` for a row with no tie.
    """
    order = _group_score_order(group, score, sorted_groups)
    # rows as written (None) need no gather: group and score are already in order
    group_in, score_in = (group, score) if order is None else (group[order], score[order])
    same = (group_in[1:] == group_in[:-1]) & (score_in[1:] == score_in[:-1])
    if order is None:
        order = np.arange(len(group))
    ties = np.zeros(len(order), dtype=np.int64)
    if not same.any():
        return order, ties
    # positions (in order) tied with a neighbour; only they are compared and moved
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] = same
    tied[:-1] |= same
    at = np.flatnonzero(tied)
    lines = order[at]
    codes = _docno_codes(docno, lines if rows is None else rows[lines]) + 1
    ties[lines] = codes
    # stretches of tied rows: a new one wherever the row before is not tied to it
    block = np.cumsum(np.concatenate(([0], ~same[at[1:] - 1])))
    top = int(codes.max())
    order[at] = lines[np.argsort(block * (top + 1) + (top - codes), kind="stable")]
    return order, ties


def _group_score_order(group: np.ndarray, scores: np.ndarray,
                       sorted_groups: bool = True) -> np.ndarray | None:
    """``np.lexsort((-scores, group))``: rows by group, then score descending, ties in row order;
    ``None`` when that is the rows as they are (``sorted_groups=False`` only).

    Runs are written topic by topic, best score first: then a stable sort on
    the group alone gives that order (numpy's timsort merges the topics'
    blocks in linear time), and the scores are only checked. With
    ``sorted_groups=False`` rows so written keep their order (``None``).
    """
    if not sorted_groups and _written_in_order(group, scores):
        return None
    order = np.argsort(group, kind="stable")
    same = group[order][1:] == group[order][:-1]
    ordered = scores[order]
    if (ordered[1:][same] <= ordered[:-1][same]).all():
        return order
    return np.lexsort((-scores, group))


def _written_in_order(group: np.ndarray, scores: np.ndarray) -> bool:
    """Whether each group is one stretch of rows, best score first."""
    same = group[1:] == group[:-1]
    if len(group) < 2:
        return False
    # each group is one stretch when no two stretches share a value; the stretches'
    # first rows hold every value, so only they are compared (no hash of all rows)
    heads = np.sort(group[np.flatnonzero(np.concatenate(([True], ~same)))])
    if (heads[1:] == heads[:-1]).any():  # not np.unique: it imports numpy.ma (30 ms at start)
        return False
    return bool((scores[1:][same] <= scores[:-1][same]).all())


def _docno_codes(docno: np.ndarray | pa.Array, rows: np.ndarray) -> np.ndarray:
    """Integer codes from 0 of the docnos at ``rows`` that sort as they do (equal
    docnos, equal codes)."""
    if isinstance(docno, pa.Array):
        taken = kernels.take(docno, arrow_numbers(np.asarray(rows, dtype=np.int64)))
        dense = kernels.rank(taken, "dense")  # uint64, from 1; equal docnos, equal ranks
        return numbers(dense).astype(np.int64) - 1
    return _order_codes(docno[rows])


def _order_codes(values: np.ndarray) -> np.ndarray:
    """Integer codes that sort as ``values`` do (equal values, equal codes).

    Short strings go through numpy's fixed-width unicode sort, which compares
    code points as Python does, unless a string ends in NUL (numpy pads with
    NUL, so ``"a"`` and ``"a\\0"`` would compare equal); anything else through
    ``pd.factorize``.
    """
    import pandas as pd  # called on a DataFrame's columns: pandas is loaded

    if values.dtype == object and len(values):
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        if lengths.max() <= _MAX_FIXED_WIDTH:
            fixed = values.astype(str)
            if (np.char.str_len(fixed) == lengths).all():
                return np.unique(fixed, return_inverse=True)[1].reshape(-1).astype(np.int64)
    return pd.factorize(values, sort=True)[0].astype(np.int64)


_MAX_FIXED_WIDTH = 256


def _sortable(column: pd.Series) -> np.ndarray | None:
    """The column as a numpy array that numpy and ``pd.factorize`` order as pandas'
    sort orders the column, or ``None`` (not sure): numpy integers, or plain ``str``
    values (object dtype, or pandas' python-backed string dtype)."""
    import pandas as pd  # a Series was given: pandas is loaded

    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return column.to_numpy()
    is_object = isinstance(dtype, np.dtype) and dtype.kind == "O"
    is_str_dtype = isinstance(dtype, pd.StringDtype) and dtype.storage == "python"
    if not (is_object or is_str_dtype):
        return None
    values = column.to_numpy(dtype=object)
    if pd.api.types.infer_dtype(values, skipna=False) != "string":
        return None
    return values


def top_k(frame: pd.DataFrame, depth: int) -> pd.DataFrame:
    """The first ``depth`` documents of every run and topic in trec_eval order.

    :param frame: a run DataFrame, ordered or not.
    :param depth: pool or cutoff depth k (>= 1).
    :returns: :func:`order_run`'s rows with ``trec_rank <= depth``.
    :raises ValueError: ``depth`` is below 1.
    """
    if depth < 1:
        raise InvalidArgument(f"depth must be at least 1, got {depth}")
    ordered = frame if "trec_rank" in frame.columns else order_run(frame)
    return ordered[ordered["trec_rank"] <= depth].reset_index(drop=True)


def order_table(table: pa.Table) -> pa.Table:
    """:func:`order_run` on Arrow columns, for one run: the same row order, computed by
    Arrow's stable sort (strings compare byte by byte: ``strcmp`` order, as Python's).

    :param table: ``n`` rows with at least ``topic`` (string, or dictionary of
        strings), ``docno`` (string) and ``score`` (float64, no NaN).
    :returns: the rows sorted by topic (ascending), score descending, docno
        descending; ``topic`` dictionary-encoded (int32 codes), its dictionary the
        run's distinct topics in string order (as ``dictionary_encode`` of the
        ordered column gives it); no ``trec_rank`` column (see
        :func:`table_trec_ranks`).
    """
    topic = table["topic"].combine_chunks()
    if not pa.types.is_dictionary(topic.type):
        # an empty column may be null-typed
        topic = kernels.dictionary_encode(kernels.cast(topic, pa.string()))
    # topics sorted as integers: each code's rank among the topic strings (equal strings,
    # equal rank), which sorts as the strings do and faster
    ranks = kernels.rank(topic.dictionary, "dense")
    keys = pa.table({"topic": kernels.take(ranks, topic.indices), "score": table["score"],
                     "docno": table["docno"]})
    order = kernels.sort_indices(keys, [("topic", "ascending"), ("score", "descending"),
                                        ("docno", "descending")])
    index = table.schema.get_field_index("topic")
    return kernels.take(table.set_column(index, "topic", _sorted_dictionary(topic, ranks)), order)


def _sorted_dictionary(topic: pa.DictionaryArray, ranks: pa.Array) -> pa.DictionaryArray:
    """``topic`` re-encoded with int32 codes into a dictionary of the distinct values it
    holds, in string order (``ranks``: each dictionary value's dense rank among them)."""
    codes = numbers(topic.indices)
    held = np.zeros(len(topic.dictionary), dtype=bool)
    held[codes] = True
    entries = np.flatnonzero(held)
    entry_ranks = numbers(ranks)[entries]
    distinct, first = np.unique(entry_ranks, return_index=True)  # string order
    code_of = np.zeros(len(held), dtype=np.int32)
    code_of[entries] = np.searchsorted(distinct, entry_ranks)
    dictionary = kernels.take(topic.dictionary, arrow_numbers(entries[first]))
    return pa.DictionaryArray.from_arrays(arrow_numbers(code_of[codes]), dictionary)


def table_trec_ranks(topic: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The trec_eval rank (1-based position within its topic) of each row of a run in
    :func:`order_table`'s order, from its ``topic`` column (``n`` rows -> int64 ``n``)."""
    if isinstance(topic, pa.ChunkedArray):
        topic = topic.combine_chunks()
    encoded = topic if pa.types.is_dictionary(topic.type) else kernels.dictionary_encode(topic)
    return positions_in_groups(numbers(encoded.indices))


def ranks_of_order(rows: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """:func:`trec_ranks` from an order found elsewhere (the compiled join's,
    :func:`pooltool.formats.run_pass.line_order`): each line's 1-based position in its
    group in that order, in the lines' own order.

    :param rows: ``n`` line positions in trec_eval's order, each group's lines one stretch.
    :param groups: ``n`` group codes (a run's topics), in the lines' own order.
    :returns: int64 ``n``.
    """
    ranks = np.empty(len(rows), dtype=np.int64)
    ranks[rows] = positions_in_groups(groups[rows])
    return ranks


def positions_in_groups(groups: np.ndarray) -> np.ndarray:
    """The 1-based position of each row within its group, rows of a group adjacent
    (``n`` group codes -> int64 ``n``; ``[7, 7, 3, 7]`` -> ``[1, 2, 1, 1]``): the
    trec_eval rank of each line of a run in trec_eval order, grouped by topic."""
    starts, lengths = stretches(groups)
    return np.arange(1, len(groups) + 1, dtype=np.int64) - np.repeat(starts, lengths)


def stretches(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stretches of equal consecutive values (``[7, 7, 3, 7]``: three): where each
    starts (row positions, ascending) and how many rows it holds; both empty for no
    rows. Values of any dtype numpy compares with ``!=`` (object strings too)."""
    if len(values) == 0:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    return starts, np.diff(np.append(starts, len(values)))


def stretch_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(values, sort=True)``, hashing only the first value of each
    :func:`stretches` stretch: a run's tags and topics come in long stretches (15
    TREC-COVID runs: 366,000 lines, 450 stretches of topic), and hashing every line's
    string was most of the cost.

    :param values: ``n`` values (object strings, or numbers).
    :returns: ``n`` int64 codes into the distinct values, and those values sorted.
    """
    import pandas as pd  # a frame's column was given: pandas is loaded

    starts, lengths = stretches(values)
    codes, uniques = pd.factorize(values[starts], sort=True)
    return np.repeat(codes.astype(np.int64), lengths), uniques


def first_seen(values: np.ndarray) -> np.ndarray:
    """``pd.unique(values)`` (the distinct values in order of first appearance), hashing
    only the first value of each :func:`stretches` stretch (see :func:`stretch_codes`)."""
    import pandas as pd  # a frame's column was given: pandas is loaded

    return pd.unique(values[stretches(values)[0]])
