"""Depth-k pooling: the union of every run's top k documents per topic.

"Top k" is in trec_eval order (:mod:`pooltool.ranking`: score descending,
docno descending, rank column ignored), the order in which NIST pooled
TREC-COVID. A store holds named pools (default ``main``). Pools only grow:
pooling again with more runs or a larger depth adds the documents not yet
in the pool, and each round is recorded (depth, runs, documents added), with
which runs retrieved each pooled document at which rank (``pool_hits``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.arrow.numbers import numbers
from pooltool.errors import InvalidArgument, StoreError
from pooltool.store import DEFAULT_POOL, JudgmentStore, PoolPairs
from pooltool.store.pool_hits import pair_starts

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class PoolRound:
    """The outcome of one pooling round.

    :ivar docs_added: (topic, docno) pairs new to the pool in this round.
    :ivar pool_size: pairs in the pool after the round.
    :ivar contribution_columns: :attr:`contributions` as columns (name -> numpy array:
        ``run_tag`` objects, the counts int64), for :func:`pooltool.report.emit` without
        pandas.
    """

    pool: str
    depth: int
    docs_added: int
    pool_size: int
    contribution_columns: dict[str, np.ndarray]

    @property
    def contributions(self) -> pd.DataFrame:
        """One row per run: ``run_tag``; ``pooled``, its (topic, docno) pairs in its top
        ``depth``; ``unique``, those no other run of this round has in its top ``depth``;
        ``new``, those that were not in the pool before this round (a pair new to the
        pool counts for every run that retrieved it)."""
        import pandas as pd  # here, not at the top: pool_runs needs no pandas

        return pd.DataFrame(self.contribution_columns)


def pool_runs(store: JudgmentStore, depth: int, run_tags: list[str] | None = None,
              pool: str = DEFAULT_POOL) -> PoolRound:
    """Pool the top ``depth`` documents of each run (all stored runs by default).

    One transaction: the round, the new pooled documents and the hits
    (:meth:`~pooltool.store.JudgmentStore.add_pool_round`).

    :raises StoreError: depth below 1, or no runs to pool.
    :raises UnknownRun: a tag not in the store.
    :raises InvalidArgument: ``pool`` is an adaptive pool, a sample or a mixed pool.
    """
    if depth < 1:
        raise InvalidArgument(f"pool depth must be at least 1, got {depth}")
    tags = run_tags or store.run_tags()
    if not tags:
        raise StoreError("the store has no runs to pool: add some with 'pooltool add-runs'")
    run_ids = {tag: store.run_id(tag) for tag in tags}
    counts = np.zeros((3, len(run_ids)), dtype=np.int64)  # pooled, unique, new; per run

    def count(hits: PoolPairs, before: PoolPairs) -> None:
        counts[:] += _batch_contributions(hits, before, len(run_ids))

    before, added = store.add_pool_round(pool, depth, tags, on_batch=count)
    position = {tag: at for at, tag in enumerate(run_ids)}  # a tag given twice: two rows
    rows = counts[:, [position[tag] for tag in tags]]
    columns = {"run_tag": np.array(tags, dtype=object), "pooled": rows[0], "unique": rows[1],
               "new": rows[2]}
    return PoolRound(pool, depth, added, before + added, columns)


def _batch_contributions(hits: PoolPairs, before: PoolPairs, runs: int) -> np.ndarray:
    """Per run (``hits.run``: its position, ``runs`` of them) its pooled, unique and new
    pairs among ``hits``, the hits of some topics sorted by pair
    (:func:`~pooltool.store.pool_hits.pair_starts`), given the pairs of those topics
    pooled before: int64, shape ``(3, runs)``."""
    first = pair_starts(hits)
    pair_of_hit = np.cumsum(first) - 1
    runs_per_pair = np.bincount(pair_of_hit)
    unique = runs_per_pair[pair_of_hit] == 1
    new = _not_in(hits, before) if len(before.run) else np.ones(len(hits.run), dtype=bool)
    return np.stack([np.bincount(hits.run, minlength=runs),
                     np.bincount(hits.run, weights=unique, minlength=runs).astype(np.int64),
                     np.bincount(hits.run, weights=new, minlength=runs).astype(np.int64)])


def _not_in(hits: PoolPairs, before: PoolPairs) -> np.ndarray:
    """Whether each hit's (topic, docno) is not among ``before``'s pairs (bool)."""
    # one integer per distinct (topic, docno), over the hits and the pairs pooled before
    topic_codes = _codes(pa.concat_arrays([hits.topic, before.topic]))
    docno_codes = _codes(pa.concat_arrays([hits.docno, before.docno]))
    pair = topic_codes * (int(docno_codes.max(initial=0)) + 1) + docno_codes
    return ~np.isin(pair[:len(hits.run)], pair[len(hits.run):])


def _codes(strings: pa.Array) -> np.ndarray:
    """One int64 per string, equal for equal strings (Arrow's hash encoding)."""
    return numbers(kernels.dictionary_encode(strings).indices).astype(np.int64)  # not .to_numpy(): pandas


def contributor_depths(store: JudgmentStore, pool: str = DEFAULT_POOL) -> dict[str, int]:
    """Each live contributor of a pool (:func:`pool_contributors`) with the largest
    depth any round pooled it to.

    :raises StoreError: no such pool.
    """
    tags, _ = pool_contributors(store, pool)
    rounds = store.pool_rounds(pool)
    depths: dict[str, int] = {}
    for listed, depth in zip(rounds["run_tags"], rounds["depth"], strict=True):
        for tag in json.loads(listed):
            if tag in tags:
                depths[tag] = max(depths.get(tag, 0), int(depth))
    return depths


def pool_contributors(store: JudgmentStore, pool: str = DEFAULT_POOL) -> tuple[list[str], int]:
    """The live runs that built a pool (in first-pooled order) and its largest depth.

    A run is matched by its store id, not its tag: a run removed since
    (``remove-run --force``) is left out, and so is a tag whose run was replaced
    (``add-runs --replace --force``) after it pooled, until the new run pools in
    a round of its own: the new run under the old tag did not build the pool, so
    it is a run outside it, not the contributor the tag once named.

    :raises StoreError: no such pool.
    """
    rounds = store.pool_rounds(pool)
    builders = set(store.pool_run_ids(pool))
    live = [t for t in store.run_tags() if store.run_id(t) in builders]
    tags: list[str] = []
    for listed in rounds["run_tags"]:
        tags += [t for t in json.loads(listed) if t not in tags and t in live]
    return tags, int(rounds["depth"].max())
