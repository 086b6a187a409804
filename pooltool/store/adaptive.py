"""The store's adaptive pools: a strategy chooses each topic's documents one at a time.

Table ``adaptive_pools`` (migration ``m011_adaptive_pools``) holds the design
(strategy, parameters, seed, per-topic budget, relevance level); the pool
itself is an ordinary pool (``pools`` row with the strategy's name) with one
round of depth 0 whose runs (``pool_round_runs``) are the runs it draws on.
A document joins ``pool_docs`` (with its ``pool_hits``) when the strategy
chooses it for an assessor, so the chosen documents are judged, exported and
counted as any pool's. The choice itself is :mod:`pooltool.judging.adaptive`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pooltool.errors import StoreError
from pooltool.store.core import StoreCore
from pooltool.store.judged import LIVE
from pooltool.store.provenance import utc_now

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


class AdaptiveTables(StoreCore):
    """Adaptive-pool methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def add_adaptive_pool(self, name: str, design: dict[str, Any], run_tags: list[str]) -> int:
        """Make an adaptive pool (one transaction), with no document chosen yet.

        :param design: ``strategy`` (name), ``params`` (dict), ``seed``, ``budget``
            (``None``: no limit), ``level``.
        :param run_tags: the runs it draws on.
        :returns: the pool's id.
        :raises StoreError: a pool of that name exists.
        :raises UnknownRun: a tag not in the store.
        """
        for tag in run_tags:
            self.run_id(tag)
        with self.writing() as conn:
            if conn.execute("SELECT 1 FROM pools WHERE name = ?", [name]).fetchone():
                raise StoreError(f"a pool named {name!r} exists already; an adaptive pool "
                                 "is made once: choose another name")
            now = utc_now()
            pool_id = conn.insert_id(
                "INSERT INTO pools(name, strategy, created_at) VALUES (?, ?, ?) RETURNING pool_id",
                [name, design["strategy"], now])
            conn.execute(
                "INSERT INTO pool_rounds(pool_id, depth, run_tags, docs_added, created_at) "
                "VALUES (?, 0, ?, 0, ?)", [pool_id, json.dumps(run_tags), now])
            conn.execute(
                "INSERT INTO adaptive_pools(pool_id, strategy, params, seed, budget, level, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [pool_id, design["strategy"], json.dumps(design["params"]), int(design["seed"]),
                 design["budget"], int(design["level"]), now])
        return pool_id

    def adaptive_design(self, pool: str) -> dict[str, Any] | None:
        """An adaptive pool's design: ``strategy, params`` (dict), ``seed, budget`` (or
        ``None``), ``level, run_tags`` (list, as pooled), ``round_id``, and ``runs``
        (run tag -> store id of the run it was built from, in ``run_tags`` order, from
        ``pool_round_runs``: the pool keeps drawing on these runs after a tag is
        removed or replaced); ``None`` when the pool is not adaptive or does not exist."""
        row = self.conn.execute(
            "SELECT a.strategy, a.params, a.seed, a.budget, a.level, r.run_tags, r.round_id "
            "FROM adaptive_pools a JOIN pools p USING (pool_id) JOIN pool_rounds r "
            "USING (pool_id) WHERE p.name = ? ORDER BY r.round_id LIMIT 1", [pool]).fetchone()
        if row is None:
            return None
        keys = ["strategy", "params", "seed", "budget", "level", "run_tags", "round_id"]
        design = dict(zip(keys, row, strict=True))
        design["params"] = json.loads(design["params"])
        design["run_tags"] = json.loads(design["run_tags"])
        built = dict(self.conn.execute(
            "SELECT r.run_tag, x.run_id FROM pool_round_runs x JOIN runs r USING (run_id) "
            "WHERE x.round_id = ?", [design["round_id"]]).fetchall())
        design["runs"] = {tag: int(built[tag]) for tag in design["run_tags"]}
        return design

    def topic_entries(self, runs: dict[str, int], topic: str) -> pd.DataFrame:
        """One topic's entries of stored runs, live or retired: ``run_tag, topic, docno,
        score, trec_rank``.

        :param runs: run tag -> the run's store id (as :meth:`adaptive_design` gives).
        :raises UnknownRun: an id of no run.
        """
        import pandas as pd  # here, not at the top: the store opens without pandas
        import pyarrow as pa
        import pyarrow.compute as pc

        frames = []
        for tag, run_id in runs.items():
            entries = self._decoded_run(run_id)
            rows = entries.filter(pc.equal(pc.cast(entries["topic"], pa.string()), topic))
            frames.append(pd.DataFrame({
                "run_tag": tag, "topic": topic,
                "docno": pd.Series(rows["docno"].to_numpy(zero_copy_only=False), dtype=object),
                "score": rows["score"].to_numpy(), "trec_rank": rows["trec_rank"].to_numpy()}))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
            {"run_tag": [], "topic": [], "docno": [], "score": [], "trec_rank": []})

    def run_topics(self, run_ids: list[int]) -> list[str]:
        """The topics any of the runs (store ids, live or retired) has entries for
        (string order).

        :raises UnknownRun: an id of no run.
        """
        import pyarrow as pa  # here, not at the top: init opens the store without Arrow
        import pyarrow.compute as pc

        topics: set[str] = set()
        for run_id in run_ids:
            entries = self._decoded_run(run_id)
            topics.update(str(t) for t in pc.unique(pc.cast(entries["topic"], pa.string()))
                          .to_pylist())
        return sorted(topics)

    def _decoded_run(self, run_id: int) -> pa.Table:
        """A run's entries with ``trec_rank``, decoded once per store object (a run's
        stored entries never change: ``run_columns`` is append-only)."""
        cache: dict[int, pa.Table] = self.__dict__.setdefault("_decoded_runs", {})
        if run_id not in cache:
            cache[run_id] = self.run_entries([run_id])[0]
        return cache[run_id]

    def topic_log(self, topic: str) -> list[tuple[int, str, str, int]]:
        """A topic's live judgments with a grade, oldest first, retractions applied:
        ``(judgment_id, docno, assessor, grade)``."""
        rows = self.conn.execute(
            "SELECT judgment_id, docno, assessor, grade FROM judgments j WHERE topic = ? "
            f"AND {LIVE} ORDER BY judgment_id", [topic])
        return [(int(i), str(d), str(a), int(g)) for i, d, a, g in rows]

    def add_choice(self, pool: str, topic: str, docno: str,
                   hits: list[tuple[str, int]]) -> bool:
        """Add a chosen document to an adaptive pool with the runs that retrieved it
        (``(run_tag, trec_rank)``, a tag naming the run the pool was built from, live
        or retired); returns whether it was new to the pool.

        :raises StoreError: the pool is not adaptive, or a tag of none of its runs.
        """
        design = self.adaptive_design(pool)
        if design is None:
            raise StoreError(f"pool {pool!r} is not an adaptive pool")
        unknown = sorted({tag for tag, _ in hits} - set(design["runs"]))
        if unknown:
            raise StoreError(f"pool {pool!r} was not built from run(s) {', '.join(unknown)} "
                             f"(its runs: {', '.join(design['runs'])})")
        pool_id = self.pool_id(pool)
        with self.writing() as conn:
            added = conn.execute(
                "INSERT OR IGNORE INTO pool_docs(pool_id, topic, docno, round_id) "
                "VALUES (?, ?, ?, ?)", [pool_id, topic, docno, design["round_id"]]).rowcount
            conn.executemany(
                "INSERT OR IGNORE INTO pool_hits(pool_id, topic, docno, run_id, trec_rank, "
                "round_id) VALUES (?, ?, ?, ?, ?, ?)",
                [(pool_id, topic, docno, design["runs"][tag], rank, design["round_id"])
                 for tag, rank in hits])
            if added:
                conn.execute("UPDATE pool_rounds SET docs_added = docs_added + 1 "
                             "WHERE round_id = ?", [design["round_id"]])
        return bool(added)
