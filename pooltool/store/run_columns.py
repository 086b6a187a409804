"""A stored run's entries as one compressed Arrow IPC blob (table ``run_columns``).

Runs are written once and read whole or by top k per topic, never queried row
by row, so the store keeps each run's entries as columns in one blob (an Arrow
IPC stream, buffers compressed with zstd) beside its provenance row in
``runs``; pools, judgments and provenance stay SQL tables. The blob holds the
run in trec_eval order (:func:`pooltool.ranking.order_table`: topics in string
order, then score descending, docno descending), so a row's trec_eval rank is
its position within its topic (:func:`pooltool.ranking.table_trec_ranks`).
Its sha256 is stored beside it and checked on every read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from pooltool.arrow import kernels
from pooltool.arrow.numbers import arrow_numbers, numbers
from pooltool.errors import StoreError
from pooltool.formats.fingerprint import fingerprints, keyed, repeats
from pooltool.ranking import table_trec_ranks

FORMAT = "arrow-ipc-zstd"
SCHEMA = pa.schema([
    ("topic", pa.dictionary(pa.int32(), pa.string())),
    ("docno", pa.string()),
    ("rank", pa.int64()),      # as written in the file (ignored for ordering)
    ("score", pa.float64()),
])
_ZSTD_LEVEL = 2  # 150 runs of 30,000 lines: 3.7 ms a run and 303 KB; level 3 4.4 ms, 310 KB


@dataclass(frozen=True)
class RunBlob:
    """A run ready to store: its blob (:func:`encode`), the blob's sha256, its
    number of entries, and its topics (string order)."""

    blob: bytes
    sha256: str
    lines: int
    topic_names: list[str]


def pack(ordered: pa.Table) -> RunBlob:
    """:func:`encode` a run in trec_eval order and count its entries and topics."""
    topic = _topic_codes(ordered)
    blob = _encode(ordered, topic)
    return RunBlob(blob, blob_sha256(blob), ordered.num_rows,
                   [str(name) for name in topic.dictionary.to_pylist()])


def encode(ordered: pa.Table) -> bytes:
    """The blob of a run in trec_eval order (:func:`pooltool.ranking.order_table`).

    :param ordered: ``n`` rows with ``topic`` (string), ``docno`` (string),
        ``rank`` (int64), ``score`` (float64); other columns are left out.
    :returns: an Arrow IPC stream of :data:`SCHEMA`, one record batch, zstd-compressed.
    """
    return _encode(ordered, _topic_codes(ordered))


def _topic_codes(ordered: pa.Table) -> pa.DictionaryArray:
    """The ``topic`` column dictionary-encoded as ``pc.dictionary_encode`` does it: the
    distinct topics in order of first appearance (string order for a run in trec_eval
    order). A column :func:`pooltool.ranking.order_table` encoded so is kept as it is."""
    topic = ordered["topic"].combine_chunks()
    if not pa.types.is_dictionary(topic.type):
        return kernels.dictionary_encode(topic)
    if _first_appearance_order(topic):
        return topic
    return kernels.dictionary_encode(kernels.cast(topic, pa.string()))


def _first_appearance_order(topic: pa.DictionaryArray) -> bool:
    """Whether a dictionary column is encoded as ``pc.dictionary_encode`` encodes its
    values: distinct values, each first used after the one before it."""
    if topic.null_count:
        return False
    codes = numbers(topic.indices)  # not .to_numpy(), which loads pandas
    if not len(codes) or codes[0] != 0:
        return False
    firsts = np.maximum.accumulate(codes)  # the codes seen so far are 0..firsts
    return bool((np.diff(firsts) <= 1).all()
                and firsts[-1] == len(topic.dictionary) - 1
                and kernels.call("count_distinct", topic.dictionary).as_py()
                == len(topic.dictionary))


def _encode(ordered: pa.Table, topic: pa.DictionaryArray) -> bytes:
    columns = [kernels.cast(topic, SCHEMA.field(0).type)]
    columns += [kernels.cast(ordered[name].combine_chunks(), SCHEMA.field(name).type)
                for name in ("docno", "rank", "score")]
    sink = pa.BufferOutputStream()
    # one thread: runs are packed in several threads at once, and Arrow's threads for
    # the four buffers only add CPU time (about 10%)
    options = ipc.IpcWriteOptions(compression=pa.Codec("zstd", _ZSTD_LEVEL), use_threads=False)
    with ipc.new_stream(sink, SCHEMA, options=options) as writer:
        writer.write_batch(pa.record_batch(columns, schema=SCHEMA))
    return sink.getvalue().to_pybytes()


def decode(blob: bytes, sha256: str, what: str, columns: list[str] | None = None) -> pa.Table:
    """A run's entries from its blob (:func:`encode`), after checking the blob's sha256.

    :param what: names the run in the error message.
    :param columns: only these columns and ``topic`` (the others are not decompressed).
    :returns: :data:`SCHEMA`'s columns (or those asked for), in trec_eval order.
    :raises StoreError: the blob's sha256 is not the one stored (the store was
        damaged or changed behind pooltool's back).
    """
    if blob_sha256(blob) != sha256:
        raise StoreError(f"the stored entries of {what} do not match their sha256: the store "
                         "was damaged or changed outside pooltool")
    if columns is None:
        return ipc.open_stream(blob).read_all()
    wanted = sorted({SCHEMA.get_field_index(name) for name in ["topic", *columns]})
    return ipc.open_stream(blob, options=ipc.IpcReadOptions(included_fields=wanted)).read_all()


def blob_sha256(blob: bytes) -> str:
    """The hex sha256 of a blob."""
    return hashlib.sha256(blob).hexdigest()


def with_trec_ranks(entries: pa.Table, depth: int | None = None) -> pa.Table:
    """``entries`` (as :func:`decode` gives them) with a ``trec_rank`` column (int64),
    only the rows with ``trec_rank <= depth`` when ``depth`` is given."""
    ranks = table_trec_ranks(entries["topic"])
    # through the buffers: pa.array() would load pandas
    entries = entries.append_column("trec_rank", arrow_numbers(ranks))
    if depth is None:
        return entries
    return kernels.take(entries, arrow_numbers(np.flatnonzero(ranks <= depth)))


def repeats_docno(table: pa.Table) -> bool:
    """Whether a docno occurs twice within a topic of one run of ``table`` (its
    ``run_tag`` column, when it has one, keeps runs apart).

    Distinct 64-bit fingerprints of (run tag, topic, docno)
    (:mod:`pooltool.formats.fingerprint`) prove that none does, at a third of the
    cost of hashing the strings; two equal ones (a repeat, or a collision) are
    settled by Arrow's exact hashing (:func:`_repeats_exactly`).
    """
    labels = [name for name in ("run_tag", "topic") if name in table.column_names]
    group = np.zeros(table.num_rows, dtype=np.int64)
    for name in labels:
        codes, distinct = _label_codes(table[name])
        group = group * distinct + codes
    if not repeats(keyed(fingerprints(table["docno"]), group)):
        return False
    return _repeats_exactly(table, labels + ["docno"])


def _label_codes(column: pa.ChunkedArray) -> tuple[np.ndarray, int]:
    """One int64 per row of a string (or dictionary) column, equal for equal strings,
    and the number of distinct codes."""
    encoded = column.combine_chunks()  # a dictionary column's chunks are unified
    if not pa.types.is_dictionary(encoded.type):
        encoded = kernels.dictionary_encode(encoded)
    codes = numbers(encoded.indices).astype(np.int64)  # .to_numpy() would load pandas
    return codes, max(len(encoded.dictionary), 1)


def _repeats_exactly(table: pa.Table, keys: list[str]) -> bool:
    """:func:`repeats_docno` by hashing the strings (one pass of Arrow's group by)."""
    selected = table.select(keys).unify_dictionaries().combine_chunks()
    distinct = selected.group_by(keys, use_threads=False).aggregate([])
    return distinct.num_rows != table.num_rows
