"""Benchmark: ``pooltool store copy`` of a large store, SQLite to PostgreSQL and back.

Builds a SQLite store from generated runs (as ``bench_pool.py``: ``--runs`` files of
``--topics`` topics x ``--depth`` lines, pooled to ``--pool-depth``), with a
share (``--judged``) of the pool judged by one assessor (qrels version ``v1``)
and a tenth of those again by a machine assessor (version ``v2``). Then times
three copies, each in its own subprocess (wall and CPU seconds, peak memory of
that process (CPU: this process's, all threads); the PostgreSQL server's own CPU is
not counted):

* SQLite -> PostgreSQL (a new database),
* PostgreSQL -> SQLite (a new file),
* SQLite -> SQLite,

each as :func:`pooltool.store.copy.copy_store` (copy, then the full check), and
the check alone again (:func:`~pooltool.store.copy.compare_stores`) so the two
can be told apart. The PostgreSQL server is ``--postgresql ADMIN_URL``,
``POOLTOOL_TEST_POSTGRESQL``, or a throwaway one (``tests/postgresql_server.py``).

Example (the 7.5M-line set of ``bench_pool.py``)::

    python bench/bench_store_copy.py --workdir /tmp/copy-bench
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "bench"), str(REPO / "tests")]


def build_store(workdir: Path, args: argparse.Namespace) -> Path:
    """The source store (reused when ``workdir`` holds one built with the same options)."""
    from bench_pool import generate_runs

    from pooltool.pooling import pool_runs
    from pooltool.store import JudgmentStore

    spec = {k: getattr(args, k) for k in ("runs", "topics", "depth", "pool_depth", "judged",
                                          "seed")}
    db, marker = workdir / "src.db", workdir / "src.json"
    if db.exists() and marker.exists() and json.loads(marker.read_text()) == spec:
        return db
    db.unlink(missing_ok=True)
    files = generate_runs(workdir, args.runs, args.topics, args.depth, args.seed)
    with JudgmentStore.open(db, create=True) as store:
        store.add_runs(files)
        pool_runs(store, args.pool_depth)
        docs = store.pool_docs()
        rng = np.random.default_rng(args.seed)
        judged = docs[rng.random(len(docs)) < args.judged]
        grades = rng.integers(0, 3, len(judged))
        _write_qrels(workdir / "v1.qrels", judged, grades)
        store.import_qrels(workdir / "v1.qrels", "v1", "nist")
        again = rng.random(len(judged)) < 0.1
        _write_qrels(workdir / "v2.qrels", judged[again], (grades[again] + 1) % 3)
        store.import_qrels(workdir / "v2.qrels", "v2", "llm", machine=True)
    marker.write_text(json.dumps(spec))
    return db


def _write_qrels(path: Path, docs: object, grades: np.ndarray) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for (topic, docno), grade in zip(docs[["topic", "docno"]].itertuples(index=False),
                                         grades.tolist(), strict=True):
            out.write(f"{topic} 0 {docno} {grade}\n")


def child(src: str, dst: str) -> None:
    """Copy ``src`` into ``dst`` (``store copy``), check again, print the numbers."""
    from pooltool.store import JudgmentStore
    from pooltool.store.copy import compare_stores, copy_store

    start, start_cpu = time.perf_counter(), time.process_time()
    with JudgmentStore.open(src) as a, JudgmentStore.open(dst, create=True) as b:
        check = copy_store(a, b)
        copied, copied_cpu = time.perf_counter(), time.process_time()
        compare_stores(a, b)
        checked, checked_cpu = time.perf_counter(), time.process_time()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "copy_and_check_s": copied - start, "check_s": checked - copied,
        "copy_and_check_cpu_s": copied_cpu - start_cpu, "check_cpu_s": checked_cpu - copied_cpu,
        "peak_mb": usage.ru_maxrss / 1024,
        "rows": {d.what.removeprefix("table "): d.rows for d in check.tables},
        "qrels_checked": len(check.qrels)}))


def run_child(src: str, dst: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", src, dst], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def new_database(admin_url: str) -> str:
    import psycopg

    name = f"copy_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--pool-depth", type=int, default=100)
    parser.add_argument("--judged", type=float, default=0.5,
                        help="share of the pool judged (default 0.5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, help="where the runs and stores go (required)")
    parser.add_argument("--postgresql", help="an admin URL (may create databases)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    if args.workdir is None:
        parser.error("--workdir is required")
    args.workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    src = build_store(args.workdir, args)
    print(f"source store {src}: {src.stat().st_size / 1e6:.0f} MB "
          f"(built or reused in {time.perf_counter() - started:.0f} s)")
    server = None
    admin = args.postgresql or os.environ.get("POOLTOOL_TEST_POSTGRESQL")
    if admin is None:
        import postgresql_server

        server = postgresql_server.start()
        admin = server.admin_url
    try:
        url = new_database(admin)
        back = args.workdir / f"back-{uuid.uuid4().hex[:8]}.db"
        twin = args.workdir / f"twin-{uuid.uuid4().hex[:8]}.db"
        legs = [("SQLite -> PostgreSQL", str(src), url), ("PostgreSQL -> SQLite", url, str(back)),
                ("SQLite -> SQLite", str(src), str(twin))]
        results = [(name, run_child(a, b)) for name, a, b in legs]
    finally:
        if server is not None:
            server.stop()
    rows = results[0][1]["rows"]
    print(f"rows: {sum(rows.values()):,} in {len(rows)} tables (pool_hits "
          f"{rows['pool_hits']:,}, pool_docs {rows['pool_docs']:,}, judgments "
          f"{rows['judgments']:,}); qrels checked: {results[0][1]['qrels_checked']}")
    print("| copy | copy + check s | CPU s | check alone s | CPU s | peak MB |")
    print("|---|---|---|---|---|---|")
    for name, r in results:
        print(f"| {name} | {r['copy_and_check_s']:.1f} | {r['copy_and_check_cpu_s']:.1f} | "
              f"{r['check_s']:.1f} | {r['check_cpu_s']:.1f} | {r['peak_mb']:.0f} |")
    for path in (back, twin):
        path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
