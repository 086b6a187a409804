"""The runs in the store: each run's provenance (``runs``: tag, source path, sha256,
lines, topics, import time) and its entries in trec_eval order
(:func:`pooltool.ranking.order_table`) as one compressed Arrow IPC blob
(``run_columns``, :mod:`pooltool.store.run_columns`), written in one transaction.

A run is never changed or deleted: a replaced or removed run is *retired*
(``run_retirements``) and stays readable, so each pooling round still names the runs
and file hashes that built it (``pool_round_runs``); the *live* runs (the
``live_runs`` view) are the ones not retired.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pooltool.errors import DuplicateRunTag, RunInPool, UnknownRun
from pooltool.records import RUN_COLUMNS
from pooltool.store.core import StoreCore
from pooltool.store.docno_check import MissingDocnos, OnMissingDocnos, check_docnos
from pooltool.store.engine import Engine
from pooltool.store.provenance import utc_now
from pooltool.store.topic_check import OnUnknownTopics, UnknownTopics, check_topics

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from pooltool.store.run_columns import RunBlob
    from pooltool.store.run_files import LoadedFile

# Arrow, numpy and the modules that need them (run_files, run_columns) are imported in
# the methods that read or write entries: the store opens without them (init)

_FILES_IN_FLIGHT = 2  # run files read and packed ahead, one thread each, while one is stored
#: The columns of what :meth:`RunTables.add_runs` returns, a row per run added.
ADDED_COLUMNS = ("run_tag", "source_path", "lines", "topics")


class RunTables(StoreCore):
    """Run methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def add_runs(self, paths: str | Path | Iterable[str | Path], *,
                 replace: bool = False, force: bool = False,
                 strict_topics: bool = False,
                 on_unknown_topics: OnUnknownTopics | None = None,
                 strict_docs: bool = False,
                 on_missing_docnos: OnMissingDocnos | None = None) -> pd.DataFrame:
        """Import run files (one path or several), all in one transaction.

        Each file may hold several run tags; each tag becomes one run. Entries
        are stored with their trec_eval rank (score desc, docno desc).

        :param replace: a tag that has a live run already gets the new run; the
            old one is retired (kept, with its provenance, as replaced).
        :param force: with ``replace``, also replace a run that built a pool
            (the pool keeps its documents; its rounds still name the old run).
        :param strict_topics: refuse files with topics the store does not hold
            (when it holds topics; see :mod:`pooltool.store.topic_check`).
        :param on_unknown_topics: called after the import, once per file with
            such topics (when not ``strict_topics``).
        :param strict_docs: refuse files retrieving docnos no stored document has (when
            the store holds documents; see :mod:`pooltool.store.docno_check`).
        :param on_missing_docnos: called after the import, once per file with such
            docnos (when not ``strict_docs``).
        :returns: one row per run added: ``run_tag, source_path, lines, topics``.
        :raises FormatError: a malformed line (nothing is imported).
        :raises StoreError: a run tag already in the store (without
            ``replace``) or repeated across the files (nothing is imported).
        :raises RunInPool: ``replace`` without ``force`` of a run that built a
            pool (nothing is imported).
        :raises UnknownTopic: ``strict_topics`` and a file has unknown topics
            (nothing is imported).
        :raises UnknownDocnos: ``strict_docs`` and a file retrieves docnos the store's
            documents lack (nothing is imported).
        """
        import pandas as pd  # here, not at the top: the store opens without pandas

        added = self.add_run_records(paths, replace=replace, force=force,
                                     strict_topics=strict_topics,
                                     on_unknown_topics=on_unknown_topics,
                                     strict_docs=strict_docs, on_missing_docnos=on_missing_docnos)
        return pd.DataFrame(added, columns=list(ADDED_COLUMNS))

    def add_run_records(self, paths: str | Path | Iterable[str | Path], *,
                        replace: bool = False, force: bool = False,
                        strict_topics: bool = False,
                        on_unknown_topics: OnUnknownTopics | None = None,
                        strict_docs: bool = False,
                        on_missing_docnos: OnMissingDocnos | None = None) -> list[dict[str, Any]]:
        """:meth:`add_runs`, without pandas (what ``pooltool add-runs`` calls): the same
        import, options and errors.

        :returns: one dict per run added, keys :data:`ADDED_COLUMNS` (``lines`` and
            ``topics`` ints), in the order :meth:`add_runs` gives its rows.
        """
        from pooltool.store.run_files import load_file

        if isinstance(paths, (str, Path)):
            paths = [paths]
        paths = list(paths)
        threads = len(paths) == 1  # several files: one reader thread each is enough

        def store(path: str | Path, loading: Future[LoadedFile]) -> None:
            runs, sha, docnos = loading.result()
            file_topics = set().union(*(run.topic_names for _, run in runs))
            found = check_topics(conn, file_topics, str(path), strict_topics)
            if found is not None:
                unknown.append(found)
            lacking = check_docnos(conn, docnos, str(path), strict_docs) if docnos else None
            if lacking is not None:
                missing.append(lacking)
            for tag, run in runs:
                earlier = [a["source_path"] for a in added if a["run_tag"] == tag]
                if earlier:
                    raise DuplicateRunTag(f"{path}: run tag {tag!r} is also in {earlier[0]}; "
                                     "nothing was imported")
                added.append(self._add_run(conn, tag, run, str(path), sha,
                                           replace=replace, force=force))

        added: list[dict[str, Any]] = []
        unknown: list[UnknownTopics] = []
        missing: list[MissingDocnos] = []
        with_documents = self.conn.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is not None
        # Worker threads read and order the next files while this thread stores one (Arrow
        # lets go of the GIL); at most _FILES_IN_FLIGHT files are held at a time. Only this
        # thread uses ``conn``; files are stored in the order given, so errors come in
        # that order too.
        with self.writing("imported") as conn, \
                ThreadPoolExecutor(max_workers=_FILES_IN_FLIGHT) as reader:
            waiting: deque[tuple[str | Path, Future[LoadedFile]]] = deque()
            for path in paths:
                waiting.append((path, reader.submit(load_file, Path(path), threads,
                                                    with_documents)))
                if len(waiting) == _FILES_IN_FLIGHT:
                    store(*waiting.popleft())
            while waiting:
                store(*waiting.popleft())
        if on_unknown_topics is not None:
            for found in unknown:
                on_unknown_topics(found)
        if on_missing_docnos is not None:
            for lacking in missing:
                on_missing_docnos(lacking)
        return added

    def add_run_frame(self, frame: pd.DataFrame, source: str = "<api>") -> pd.DataFrame:
        """Import runs given as a DataFrame (columns as :func:`read_run` returns).

        :returns: as :meth:`add_runs`.
        :raises FrameError: the frame breaks the run contract
            (:func:`~pooltool.formats.frames.check_run_frame`); nothing is imported.
        :raises DuplicateRunTag: a run tag already in the store.
        """
        import pandas as pd  # here, not at the top: the store opens without pandas

        from pooltool.formats.frames import check_run_frame  # it imports pandas
        from pooltool.store.run_columns import pack
        from pooltool.store.run_files import ordered_table

        check_run_frame(frame, with_rank=True, unique_docnos=True)
        with self.writing("imported") as conn:
            rows = [self._add_run(conn, str(tag), pack(ordered_table(entries)),
                                  source, "")
                    for tag, entries in frame.groupby("run_tag", sort=False)]
        return pd.DataFrame(rows, columns=list(ADDED_COLUMNS))

    def _add_run(self, conn: Engine, tag: str, run: RunBlob,
                 source: str, sha: str, replace: bool = False,
                 force: bool = False) -> dict[str, Any]:
        """Store one run: its provenance row and its entries' blob; ``replace``,
        ``force``: as :meth:`add_runs`."""
        from pooltool.store.run_columns import FORMAT

        old = conn.execute(
            "SELECT run_id, source_path, imported_at FROM live_runs WHERE run_tag = ?", [tag]
        ).fetchone()
        if old is not None and not replace:
            raise DuplicateRunTag(
                f"{source}: run tag {tag!r} is already in the store "
                f"(imported from {old[1]} at {old[2]})"
            )
        if old is not None and not force:
            _check_not_pooled(conn, int(old[0]), f"{source}: replacing run {tag!r}", "imported")
        run_id = conn.insert_id(
            "INSERT INTO runs(run_tag, source_path, sha256, lines, topics, imported_at) "
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING run_id",
            [tag, source, sha, run.lines, len(run.topic_names), utc_now()],
        )
        conn.execute(
            "INSERT INTO run_columns(run_id, format, lines, sha256, source_sha256, entries) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [run_id, FORMAT, run.lines, run.sha256, sha, run.blob])
        if old is not None:
            conn.execute("INSERT INTO run_retirements(run_id, replaced_by, retired_at) "
                         "VALUES (?, ?, ?)", [old[0], run_id, utc_now()])
        return {"run_tag": tag, "source_path": source, "lines": run.lines,
                "topics": len(run.topic_names)}

    def remove_run(self, tag: str, *, force: bool = False) -> dict[str, Any]:
        """Retire the live run ``tag``: it leaves the runs that pooling, ``runs()``
        and run lookups see, and stays in :meth:`run_history` with its entries.

        :param force: also remove a run that built a pool (the pool keeps its
            documents; its rounds still name the run and its file's sha256).
        :returns: the removed run's ``run_tag, source_path, sha256, imported_at``.
        :raises UnknownRun: no live run with this tag.
        :raises RunInPool: the run built a pool and ``force`` is false.
        """
        with self.writing() as conn:
            run_id = self.run_id(tag)
            if not force:
                _check_not_pooled(conn, run_id, f"removing run {tag!r}", "changed")
            conn.execute("INSERT INTO run_retirements(run_id, replaced_by, retired_at) "
                         "VALUES (?, NULL, ?)", [run_id, utc_now()])
            row = conn.execute("SELECT run_tag, source_path, sha256, imported_at FROM runs "
                               "WHERE run_id = ?", [run_id]).fetchone()
        return dict(zip(["run_tag", "source_path", "sha256", "imported_at"], row, strict=True))

    def runs(self) -> pd.DataFrame:
        """Live runs' provenance: ``run_tag, source_path, sha256, lines, topics,
        imported_at``, in import order."""
        return self.query(
            "SELECT run_tag, source_path, sha256, lines, topics, imported_at FROM live_runs "
            "ORDER BY run_id"
        )

    def run_history(self) -> pd.DataFrame:
        """Every run ever stored, live, replaced or removed, in import order.

        :returns: columns ``run_id, run_tag, source_path, sha256, lines, topics,
            imported_at``; ``status`` (``live``, ``replaced`` or ``removed``);
            ``retired_at`` (UTC, ISO 8601; empty while live); ``pooled_in``, the
            pooling rounds that used the run as ``POOL:ROUND`` separated by
            spaces (empty: none).
        """
        return self.query(
            "SELECT r.run_id, r.run_tag, r.source_path, r.sha256, r.lines, r.topics, "
            "r.imported_at, CASE WHEN t.run_id IS NULL THEN 'live' "
            "WHEN t.replaced_by IS NULL THEN 'removed' ELSE 'replaced' END AS status, "
            "COALESCE(t.retired_at, '') AS retired_at, "
            "COALESCE((SELECT group_concat(used, ' ') FROM (SELECT p.name || ':' || x.round_id "
            "AS used FROM pool_round_runs x JOIN pool_rounds o USING (round_id) JOIN pools p "
            "USING (pool_id) WHERE x.run_id = r.run_id ORDER BY x.round_id) AS uses), '') AS pooled_in "
            "FROM runs r LEFT JOIN run_retirements t USING (run_id) ORDER BY r.run_id")

    def run_tags(self) -> list[str]:
        """The tags of the live runs, in import order."""
        return [r[0] for r in self.conn.execute("SELECT run_tag FROM live_runs ORDER BY run_id")]

    def has_run(self, tag: str) -> bool:
        """Whether a live run has this tag."""
        return self.conn.execute(
            "SELECT 1 FROM live_runs WHERE run_tag = ?", [tag]).fetchone() is not None

    def run_id(self, tag: str) -> int:
        """The store's id of the live run with this tag.

        :raises UnknownRun: no live run with this tag.
        """
        row = self.conn.execute("SELECT run_id FROM live_runs WHERE run_tag = ?",
                                [tag]).fetchone()
        if row is None:
            known = ", ".join(self.run_tags()) or "none"
            raise UnknownRun(f"no run tagged {tag!r} in the store (runs: {known})")
        return int(row[0])

    def run_frame(self, tag: str) -> pd.DataFrame:
        """A stored run, as :func:`~pooltool.formats.run.read_run` would return it.

        :returns: columns ``run_tag, topic, docno, rank, score`` plus
            ``trec_rank``, topics in string order, each in trec_eval order.
        :raises UnknownRun: no run with this tag.
        """
        import pandas as pd  # here, not at the top: the store opens without pandas
        import pyarrow as pa
        import pyarrow.compute as pc

        entries = self.run_entries([self.run_id(tag)])[0]
        frame = pd.DataFrame({
            "run_tag": pd.Series([tag] * entries.num_rows, dtype=object),
            "topic": pd.Series(pc.cast(entries["topic"], pa.string()).to_numpy(), dtype=object),
            "docno": pd.Series(entries["docno"].to_numpy(), dtype=object),
            **{name: entries[name].to_numpy() for name in ("rank", "score", "trec_rank")}})
        return frame[RUN_COLUMNS + ["trec_rank"]]

    def iter_run_tables(self, tags: list[str]) -> Iterator[pa.Table]:
        """Live runs as :func:`~pooltool.formats.run.run_table` reads run files, one
        table per tag, decoded one at a time as they are asked for: ``topic`` and
        ``run_tag`` (dictionaries of strings), ``docno`` (string), ``rank`` (int64),
        ``score`` (float64); topics in string order, each in trec_eval order.

        :raises UnknownRun: a tag of no live run (before any table is given).
        """
        import numpy as np
        import pyarrow as pa

        run_ids = [self.run_id(tag) for tag in tags]
        for tag, run_id in zip(tags, run_ids, strict=True):
            entries = self.run_entries([run_id])[0]
            run_tag = pa.DictionaryArray.from_arrays(
                pa.array(np.zeros(entries.num_rows, dtype=np.int32)),
                pa.array([tag], pa.string()))
            yield entries.drop_columns(["trec_rank"]).append_column("run_tag", run_tag)

    def run_entries(self, run_ids: list[int], depth: int | None = None,
                    columns: list[str] | None = None) -> list[pa.Table]:
        """The entries of stored runs (live or retired), in the order of ``run_ids``:
        :func:`pooltool.store.run_columns.decode`'s columns (only ``columns`` when
        given; ``topic`` always) plus ``trec_rank`` (int64), only the first ``depth``
        per topic when ``depth`` is given. Blobs are decoded (their sha256 checked,
        and cut to ``depth``) in threads, a few at a time: a blob is read from the
        store only when a thread is about to be free for it, so that the blobs
        (compressed, 11 MB for a run of a million lines) are not all held at once.

        :raises UnknownRun: an id of no run.
        :raises StoreError: a blob that does not match its sha256.
        """
        from pooltool.store import run_columns

        def stored(run_id: int) -> tuple[bytes, str, str]:
            row = self.conn.execute("SELECT entries, sha256 FROM run_columns WHERE run_id = ?",
                                    [run_id]).fetchone()
            if row is None:
                raise UnknownRun(f"no run with id {run_id} in the store")
            return row[0], row[1], f"run {run_id}"

        def read(blob: bytes, sha256: str, what: str) -> pa.Table:
            return run_columns.with_trec_ranks(run_columns.decode(blob, sha256, what, columns),
                                               depth)

        threads = min(len(run_ids), os.cpu_count() or 1)
        if threads < 2:
            return [read(*stored(run_id)) for run_id in run_ids]
        tables: list[pa.Table] = []
        with ThreadPoolExecutor(max_workers=threads) as pool:
            waiting: deque[Future[pa.Table]] = deque()
            for run_id in run_ids:  # only this thread uses the connection
                waiting.append(pool.submit(read, *stored(run_id)))
                if len(waiting) > threads:
                    tables.append(waiting.popleft().result())
            tables += [future.result() for future in waiting]
        return tables



def _check_not_pooled(conn: Engine, run_id: int, doing: str, what: str) -> None:
    """Refuse to retire a run that built a pool (``doing``: what was asked, for the
    message; ``what``: the past participle for "nothing was ...").

    :raises RunInPool: the run was pooled in some round.
    """
    pooled = conn.execute(
        "SELECT p.name, group_concat(x.round_id, ', ') FROM pool_round_runs x "
        "JOIN pool_rounds o USING (round_id) JOIN pools p USING (pool_id) "
        "WHERE x.run_id = ? GROUP BY p.pool_id ORDER BY p.pool_id", [run_id]).fetchall()
    if pooled:
        built = "; ".join(f"pool {name!r} (round {rounds})" for name, rounds in pooled)
        raise RunInPool(f"{doing}, which built {built}, changes which runs the pool stands "
                        f"for; nothing was {what}")


__all__ = ["RunTables"]
