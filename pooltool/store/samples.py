"""The store's sample tables: stratified samples beyond a pool (``pooltool sample``).

Tables (migration ``m005_samples``): ``samples`` (the design: base pool, strata
spec, frame, allocation, budget, seed, the runs behind the strata),
``sample_strata`` (N_h and n_h per topic and stratum) and ``sample_docs``
(each sampled document's stratum and inclusion probability). The sampled
documents are also a pool of the sample's name (strategy ``sample``, one round
of depth 0), so ``pooltool judge --pool NAME`` judges them and the judging
queue, status and pace treat them as any pool. The design itself is
:mod:`pooltool.analysis.sampling`; the estimates :mod:`pooltool.analysis.sample_estimates`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pooltool.errors import StoreError
from pooltool.store.core import StoreCore
from pooltool.store.engine import Engine
from pooltool.store.provenance import utc_now

if TYPE_CHECKING:
    import pandas as pd


class SampleTables(StoreCore):
    """Sample methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def pool_run_ids(self, pool: str) -> list[int]:
        """The runs (ids) that built a pool's rounds, in id order.

        :raises StoreError: no such pool.
        """
        rows = self.conn.execute(
            "SELECT DISTINCT rr.run_id FROM pool_round_runs rr JOIN pool_rounds r "
            "USING (round_id) WHERE r.pool_id = ? ORDER BY rr.run_id",
            [self.pool_id(pool)]).fetchall()
        return [int(row[0]) for row in rows]

    def best_ranks(self, run_ids: list[int], topics: list[str] | None = None) -> pd.DataFrame:
        """Each (topic, docno) the runs retrieved, with the best trec_eval rank any of
        them gave it: ``topic, docno, best_rank`` (retired runs are read too: their
        entries never change).

        :param topics: only these topics (default: all).
        """
        import pandas as pd  # here, not at the top: the store opens without pandas
        import pyarrow as pa
        import pyarrow.compute as pc

        if not run_ids:
            return pd.DataFrame({"topic": [], "docno": [], "best_rank": []})
        tops = self.run_entries(run_ids)
        entries = pa.concat_tables([pa.table({
            "topic": pc.cast(top["topic"], pa.string()), "docno": top["docno"],
            "trec_rank": top["trec_rank"]}) for top in tops])
        best = entries.group_by(["topic", "docno"], use_threads=False).aggregate(
            [("trec_rank", "min")]).sort_by([("topic", "ascending"), ("docno", "ascending")])
        frame = pd.DataFrame({
            "topic": pd.Series(best["topic"].to_numpy(), dtype=object),
            "docno": pd.Series(best["docno"].to_numpy(), dtype=object),
            "best_rank": best["trec_rank_min"].to_numpy()})
        if topics is not None:
            frame = frame[frame["topic"].isin(set(topics))].reset_index(drop=True)
        return frame

    def docnos(self) -> list[str]:
        """Every document the store holds (string order); empty when none were added."""
        return [str(row[0]) for row in
                self.conn.execute("SELECT docno FROM documents ORDER BY docno")]

    def has_sample(self, name: str) -> bool:
        """Whether a sample of this name exists."""
        return self.conn.execute("SELECT 1 FROM samples WHERE name = ?",
                                 [name]).fetchone() is not None

    def add_sample(self, name: str, base_pool: str, design: dict[str, Any], run_ids: list[int],
                   docs: pd.DataFrame, strata: pd.DataFrame) -> int:
        """Store a drawn sample and make its documents a pool named ``name`` (one
        transaction).

        :param design: ``strata`` (spec), ``frame``, ``allocation``, ``budget``, ``seed``.
        :param docs: ``topic, docno, stratum, inclusion``.
        :param strata: ``topic, stratum, population, size``.
        :returns: the sample's id.
        :raises StoreError: a pool or sample of that name exists, or no such base pool.
        """
        base_id = self.pool_id(base_pool)
        with self.writing() as conn:
            if conn.execute("SELECT 1 FROM pools WHERE name = ?", [name]).fetchone():
                raise StoreError(f"a pool named {name!r} exists already; choose another "
                                 "name for the sample")
            now = utc_now()
            pool_id = conn.insert_id(
                "INSERT INTO pools(name, strategy, created_at) VALUES (?, 'sample', ?) "
                "RETURNING pool_id",
                [name, now])
            sample_id = conn.insert_id(
                "INSERT INTO samples(name, pool_id, base_pool_id, strata, frame, allocation, "
                "budget, seed, run_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING sample_id",
                [name, pool_id, base_id, design["strata"], design["frame"],
                 design["allocation"], int(design["budget"]), int(design["seed"]),
                 json.dumps(run_ids), now])
            _add_sample_round(conn, pool_id, sample_id, docs, now)
            conn.executemany(
                "INSERT INTO sample_strata(sample_id, topic, stratum, population, size) "
                "VALUES (?, ?, ?, ?, ?)",
                [(sample_id, str(t), str(s), int(n_pop), int(n)) for t, s, n_pop, n in zip(
                    strata["topic"], strata["stratum"], strata["population"],
                    strata["size"], strict=True)])
        return sample_id

    def sample_design(self, name: str) -> dict[str, Any]:
        """A sample's design: ``name, base_pool, strata, frame, allocation, budget, seed,
        run_ids`` (list), ``created_at``.

        :raises StoreError: no such sample.
        """
        row = self.conn.execute(
            "SELECT s.name, p.name, s.strata, s.frame, s.allocation, s.budget, s.seed, "
            "s.run_ids, s.created_at FROM samples s JOIN pools p ON p.pool_id = s.base_pool_id "
            "WHERE s.name = ?", [name]).fetchone()
        if row is None:
            names = [str(r[0]) for r in self.conn.execute("SELECT name FROM samples ORDER BY name")]
            known = f" (samples: {', '.join(names)})" if names else " (there is none yet)"
            raise StoreError(f"no sample {name!r} in the store{known}: draw one with "
                             "'pooltool sample --name NAME --budget N'")
        keys = ["name", "base_pool", "strata", "frame", "allocation", "budget", "seed",
                "run_ids", "created_at"]
        design = dict(zip(keys, row, strict=True))
        design["run_ids"] = json.loads(design["run_ids"])
        grown = self.conn.execute(
            "SELECT MAX(g.budget) FROM sample_growths g JOIN samples s USING (sample_id) "
            "WHERE s.name = ?", [name]).fetchone()[0]
        if grown is not None:
            design["budget"] = int(grown)
        return design

    def sample_base_pool(self, name: str) -> pd.DataFrame:
        """The documents of a sample's base pool with ``drawn_after``: ``topic, docno,
        drawn_after`` (bool: pooled by a round after the sample was drawn, so not part
        of the pool the sample lies beyond), by topic, docno. Rounds are numbered in
        the order they were stored; the sample's first round marks its draw.

        :raises StoreError: no such sample.
        """
        self.sample_design(name)
        return self.query(
            "SELECT d.topic, d.docno, d.round_id > (SELECT MIN(r.round_id) FROM pool_rounds r "
            "WHERE r.pool_id = s.pool_id) AS drawn_after FROM samples s JOIN pool_docs d "
            "ON d.pool_id = s.base_pool_id WHERE s.name = ? ORDER BY d.topic, d.docno",
            [name]).astype({"drawn_after": bool})

    def sample_docs(self, name: str) -> pd.DataFrame:
        """A sample's documents: ``topic, docno, stratum, inclusion`` (by topic, docno),
        the inclusion probability n_h / N_h of the sample as it is now (grown or not)."""
        docs = self.query(
            "SELECT d.topic, d.docno, d.stratum FROM sample_docs d JOIN samples s "
            "USING (sample_id) WHERE s.name = ? ORDER BY d.topic, d.docno", [name])
        strata = self.sample_strata(name)
        strata = strata.assign(inclusion=strata["size"] / strata["population"])
        return docs.merge(strata[["topic", "stratum", "inclusion"]], on=["topic", "stratum"],
                          how="left")

    def sample_strata(self, name: str) -> pd.DataFrame:
        """A sample's strata per topic: ``topic, stratum, population, size`` (N_h, and n_h
        after its latest growth, if it grew)."""
        return self.query(
            "SELECT d.topic, d.stratum, d.population, COALESCE((SELECT g.size FROM "
            "sample_strata_grown g WHERE g.sample_id = d.sample_id AND g.topic = d.topic "
            "AND g.stratum = d.stratum ORDER BY g.budget DESC LIMIT 1), d.size) AS size "
            "FROM sample_strata d JOIN samples s USING (sample_id) WHERE s.name = ? "
            "ORDER BY d.topic, d.stratum", [name])

    def grow_sample(self, name: str, budget: int, docs: pd.DataFrame,
                    strata: pd.DataFrame) -> None:
        """Append a growth of a sample (one transaction): its budget, the strata sizes
        after it, and the documents it adds (to the sample and, as a new round, to its
        pool). Nothing stored before changes.

        :param docs: the added documents, ``topic, docno, stratum, inclusion``.
        :param strata: ``topic, stratum, size`` after the growth (every stratum).
        :raises StoreError: no such sample, or a budget not above the current one.
        """
        design = self.sample_design(name)
        if budget <= int(design["budget"]):
            raise StoreError(f"sample {name!r} has a budget of {design['budget']} already")
        with self.writing() as conn:
            sample_id, pool_id = conn.execute(
                "SELECT sample_id, pool_id FROM samples WHERE name = ?", [name]).fetchone()
            now = utc_now()
            conn.execute("INSERT INTO sample_growths(sample_id, budget, created_at) "
                         "VALUES (?, ?, ?)", [sample_id, budget, now])
            conn.executemany(
                "INSERT INTO sample_strata_grown(sample_id, budget, topic, stratum, size) "
                "VALUES (?, ?, ?, ?, ?)",
                [(sample_id, budget, str(t), str(s), int(n)) for t, s, n in zip(
                    strata["topic"], strata["stratum"], strata["size"], strict=True)])
            _add_sample_round(conn, pool_id, sample_id, docs, now)

    def mix_sample(self, base_pool: str, sample: str) -> tuple[str, int]:
        """The pool that mixes ``base_pool`` and ``sample`` in one judging queue, brought
        up to date (``pooltool judge --pool P --with-sample S``).

        The mixed pool is named ``P+S`` (strategy ``mixed``). Each call adds, as a new
        round, the documents of either pool it does not hold yet (a grown sample, a
        deeper pool); nothing is removed. It records no run hits, so the judging
        screen cannot tell a pooled document from a sampled one.

        :returns: the mixed pool's name and the documents this call added.
        :raises StoreError: no such sample, a sample drawn beyond another pool, or a
            pool named ``P+S`` that is not a mixed pool.
        """
        if self.sample_design(sample)["base_pool"] != base_pool:
            raise StoreError(f"sample {sample!r} was drawn beyond pool "
                             f"{self.sample_design(sample)['base_pool']!r}, not {base_pool!r}")
        name = f"{base_pool}+{sample}"
        base_id, sample_id = self.pool_id(base_pool), self.pool_id(sample)
        with self.writing() as conn:
            row = conn.execute("SELECT pool_id, strategy FROM pools WHERE name = ?",
                               [name]).fetchone()
            if row is not None and row[1] != "mixed":
                raise StoreError(f"pool {name!r} exists and is not a mixed pool; rename it "
                                 "or judge the two pools apart")
            now = utc_now()
            mixed_id = int(row[0]) if row is not None else conn.insert_id(
                "INSERT INTO pools(name, strategy, created_at) VALUES (?, 'mixed', ?) "
                "RETURNING pool_id", [name, now])
            new = conn.execute(
                "SELECT DISTINCT topic, docno FROM pool_docs WHERE pool_id IN (?, ?) "
                "EXCEPT SELECT topic, docno FROM pool_docs WHERE pool_id = ?",
                [base_id, sample_id, mixed_id]).fetchall()
            if new:
                round_id = conn.insert_id(
                    "INSERT INTO pool_rounds(pool_id, depth, run_tags, docs_added, created_at) "
                    "VALUES (?, 0, '[]', ?, ?) RETURNING round_id", [mixed_id, len(new), now])
                conn.executemany(
                    "INSERT INTO pool_docs(pool_id, topic, docno, round_id) VALUES (?, ?, ?, ?)",
                    [(mixed_id, t, d, round_id) for t, d in new])
        return name, len(new)

    def pool_strategy(self, pool: str) -> str:
        """How a pool was made: ``depth`` (and other pooling strategies), ``sample`` or
        ``mixed``.

        :raises StoreError: no such pool.
        """
        row = self.conn.execute("SELECT strategy FROM pools WHERE pool_id = ?",
                                [self.pool_id(pool)]).fetchone()
        return str(row[0])

    def sample_stratum(self, sample: str, topic: str, docno: str) -> str | None:
        """The stratum a sampled document was drawn from (``None``: not in the sample)."""
        row = self.conn.execute(
            "SELECT d.stratum FROM sample_docs d JOIN samples s USING (sample_id) "
            "WHERE s.name = ? AND d.topic = ? AND d.docno = ?", [sample, topic, docno]).fetchone()
        return None if row is None else str(row[0])


def _add_sample_round(conn: Engine, pool_id: int, sample_id: int,
                      docs: pd.DataFrame, now: str) -> None:
    """Add drawn documents (``topic, docno, stratum, inclusion``) to a sample and, as
    one new round, to its pool."""
    round_id = conn.insert_id(
        "INSERT INTO pool_rounds(pool_id, depth, run_tags, docs_added, created_at) "
        "VALUES (?, 0, '[]', ?, ?) RETURNING round_id", [pool_id, len(docs), now])
    conn.executemany(
        "INSERT INTO pool_docs(pool_id, topic, docno, round_id) VALUES (?, ?, ?, ?)",
        [(pool_id, str(t), str(d), round_id) for t, d in zip(
            docs["topic"], docs["docno"], strict=True)])
    conn.executemany(
        "INSERT INTO sample_docs(sample_id, topic, docno, stratum, inclusion) "
        "VALUES (?, ?, ?, ?, ?)",
        [(sample_id, str(t), str(d), str(s), float(p)) for t, d, s, p in zip(
            docs["topic"], docs["docno"], docs["stratum"], docs["inclusion"], strict=True)])
