"""Benchmark: import + depth-k pooling, pooltool beside trectools and plain pandas.

Generates deterministic TREC run files (``--runs`` files of ``--topics`` topics
x ``--depth`` lines), then times, each in its own subprocess so that its peak
memory (``ru_maxrss``) is its own:

* **pooltool**: ``JudgmentStore.open`` on a new file, ``add_runs`` of all the
  files (one transaction), ``pool_runs(depth=--pool-depth)``;
* **trectools**: ``TrecRun`` for each file, then
  ``TrecPoolMaker().make_pool(runs, strategy="topX", topX=--pool-depth)``;
* **pandas**: ``read_csv(sep=r"\\s+")`` of each file, sort each topic in
  trec_eval order (score desc, docno desc), keep the top ``--pool-depth``,
  union;
* **trec_eval** (when ``--trec-eval PATH`` is given): ``trec_eval -m num_ret``
  of each file against a one-line-per-topic qrels, in a loop: trec_eval
  reading and sorting the same runs, as a floor for "import".

It prints seconds (wall and CPU), ratios to pooltool, the pool sizes, and the
store's size beside the gzip size of the run files (``gzip -6``, computed once
per workdir). trectools
breaks score ties by docno *ascending* (trec_eval: descending), so its pool may
differ from the other two where a tie straddles the cutoff; the difference is
reported, not treated as a failure. pooltool and pandas must agree exactly
(exit status 1 if they do not).

Example (the size in the speed target of issue 2)::

    python bench/bench_pool.py --runs 30 --topics 250 --depth 1000 --pool-depth 100 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

# -- run generation ----------------------------------------------------------


def generate_runs(workdir: Path, runs: int, topics: int, depth: int, seed: int,
                  vocabulary: int = 1_000_000, candidates: int | None = None) -> list[Path]:
    """Write ``runs`` run files into ``workdir`` and return their paths (sorted).

    Deterministic for (runs, topics, depth, seed). Each topic has its own set of
    ``candidates`` documents (default ``5 * depth``) drawn from a shared
    vocabulary of ``vocabulary`` docnos, with Zipf-like popularity
    (weight ``1 / (i + 1)``) inside the topic, so that runs overlap most near
    the top. Each run samples ``depth`` distinct candidates per topic with a
    Gumbel-perturbed popularity (a noisy retriever), sorts them into a score
    that is rounded (3 decimals; 2 for every fifth run) so that ties occur,
    and numbers the lines 1..depth in file order.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    marker = workdir / "runs.json"
    spec = {"runs": runs, "topics": topics, "depth": depth, "seed": seed,
            "vocabulary": vocabulary, "candidates": candidates, "version": 1}
    paths = [workdir / f"run{r:03d}.txt" for r in range(runs)]
    if marker.exists() and json.loads(marker.read_text()) == spec and all(
            p.exists() for p in paths):
        return paths
    candidates = candidates or 5 * depth
    if candidates < depth:
        raise SystemExit("candidates per topic must be at least --depth")
    rng = np.random.default_rng(seed)
    # per topic: the candidate docnos (distinct), most popular first
    topic_docs = [rng.choice(vocabulary, size=candidates, replace=False) for _ in range(topics)]
    log_pop = -np.log(np.arange(1, candidates + 1, dtype=np.float64))
    docno_text = np.array([f"D{n:07d}" for n in range(vocabulary)], dtype=object)
    for r, path in enumerate(paths):
        run_rng = np.random.default_rng([seed, r])
        sharpness = 0.5 + run_rng.random()  # how much a run follows popularity
        decimals = 2 if r % 5 == 0 else 3
        tag = f"bench{r:03d}"
        chunks = []
        for t in range(topics):
            keys = sharpness * log_pop + run_rng.gumbel(size=candidates)
            top = np.argpartition(-keys, depth - 1)[:depth]
            top = top[np.argsort(-keys[top], kind="stable")]
            scores = np.round(keys[top] + 20.0, decimals)
            docnos = docno_text[topic_docs[t][top]]
            topic = str(t + 1)
            fmt = f"{{:.{decimals}f}}"
            chunks.append("".join(
                f"{topic} Q0 {d} {i} {fmt.format(s)} {tag}\n"
                for i, (d, s) in enumerate(zip(docnos, scores.tolist(), strict=True), start=1)))
        path.write_text("".join(chunks))
    marker.write_text(json.dumps(spec))
    return paths


# -- the three contenders (each runs in a child process) -----------------------


def peak_rss_mb() -> float:
    """Peak resident set size of this process (or of its largest child), in MB."""
    return max(resource.getrusage(who).ru_maxrss for who in
               (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024


def cpu_s() -> float:
    """User + system CPU seconds of this process, its threads and its waited-for children."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


def gzip_size(files: list[Path], workdir: Path) -> int:
    """Bytes of the run files compressed with gzip -6 (cached in ``workdir``)."""
    import gzip

    cache = workdir / "gzip_size.json"
    key = [[str(f), f.stat().st_size, f.stat().st_mtime] for f in files]
    if cache.exists() and json.loads(cache.read_text())["files"] == key:
        return int(json.loads(cache.read_text())["bytes"])
    size = sum(len(gzip.compress(f.read_bytes(), 6)) for f in files)
    cache.write_text(json.dumps({"files": key, "bytes": size}))
    return size


def bench_pooltool(files: list[Path], pool_depth: int, workdir: Path) -> dict:
    sys.path.insert(0, str(REPO))
    from pooltool.pooling import pool_runs
    from pooltool.store import JudgmentStore

    db = workdir / "bench_pool.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    start = time.perf_counter()
    store = JudgmentStore.open(db, create=True)
    store.add_runs(files)
    imported = time.perf_counter()
    result = pool_runs(store, pool_depth)
    pooled = time.perf_counter()
    cpu_pooled = cpu_s()  # reading the pool back to compare it is not timed
    docs = store.pool_docs()
    store.close()
    return {"import_s": imported - start, "pool_s": pooled - imported,
            "total_s": pooled - start, "pool_size": result.pool_size, "cpu_at_end": cpu_pooled,
            "store_bytes": db.stat().st_size,
            "pairs": list(zip(docs["topic"], docs["docno"], strict=True))}


def bench_trectools(files: list[Path], pool_depth: int, workdir: Path) -> dict:
    from trectools import TrecPoolMaker, TrecRun

    start = time.perf_counter()
    runs = [TrecRun(str(f)) for f in files]
    read = time.perf_counter()
    pool = TrecPoolMaker().make_pool(runs, strategy="topX", topX=pool_depth)
    pooled = time.perf_counter()
    pairs = [(str(t), str(d)) for t, docs in pool.pool.items() for d in docs]
    return {"import_s": read - start, "pool_s": pooled - read, "total_s": pooled - start,
            "pool_size": int(pool.get_total_pool_size()), "pairs": pairs}


def bench_pandas(files: list[Path], pool_depth: int, workdir: Path) -> dict:
    import pandas as pd

    start = time.perf_counter()
    frames = [pd.read_csv(f, sep=r"\s+", header=None,
                          names=["topic", "q0", "docno", "rank", "score", "tag"],
                          dtype={"topic": str, "docno": str, "tag": str})
              for f in files]
    read = time.perf_counter()
    tops = []
    for frame in frames:
        ordered = frame.sort_values(["tag", "topic", "score", "docno"],
                                    ascending=[True, True, False, False], kind="mergesort")
        tops.append(ordered.groupby(["tag", "topic"], sort=False).head(pool_depth)[
            ["topic", "docno"]])
    pool = pd.concat(tops, ignore_index=True).drop_duplicates()
    pooled = time.perf_counter()
    return {"import_s": read - start, "pool_s": pooled - read, "total_s": pooled - start,
            "pool_size": len(pool),
            "pairs": list(zip(pool["topic"], pool["docno"], strict=True))}


def bench_trec_eval(files: list[Path], pool_depth: int, workdir: Path) -> dict:
    binary = os.environ["BENCH_TREC_EVAL"]
    qrels = workdir / "one_per_topic.qrels"
    topics = sorted({line.split(maxsplit=1)[0] for line in files[0].open()})
    qrels.write_text("".join(f"{t} 0 none 1\n" for t in topics))
    start = time.perf_counter()
    for f in files:
        subprocess.run([binary, "-m", "num_ret", str(qrels), str(f)], check=True,
                       stdout=subprocess.DEVNULL)
    read = time.perf_counter()
    return {"import_s": read - start, "pool_s": 0.0, "total_s": read - start,
            "pool_size": 0, "pairs": []}


CONTENDERS = {"pooltool": bench_pooltool, "trectools": bench_trectools, "pandas": bench_pandas,
              "trec_eval": bench_trec_eval}


def child(name: str, files_json: str, pool_depth: int, workdir: Path, out: Path) -> None:
    files = [Path(f) for f in json.loads(files_json)]
    start = cpu_s()
    result = CONTENDERS[name](files, pool_depth, workdir)
    result["cpu_s"] = result.pop("cpu_at_end", cpu_s()) - start
    result["peak_mb"] = peak_rss_mb()
    out.write_text(json.dumps(result))


def run_child(name: str, files: list[Path], pool_depth: int, workdir: Path) -> dict:
    out = workdir / f"result_{name}.json"
    out.unlink(missing_ok=True)
    subprocess.run(
        [sys.executable, __file__, "--child", name, "--child-files",
         json.dumps([str(f) for f in files]), "--pool-depth", str(pool_depth),
         "--workdir", str(workdir), "--child-out", str(out)],
        check=True)
    result = json.loads(out.read_text())
    out.unlink()
    return result


# -- main ----------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000, help="lines per topic per run")
    parser.add_argument("--pool-depth", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path,
                        help="keep the generated runs and the store here (reused when the "
                             "size and seed match); default: a temporary folder")
    parser.add_argument("--skip-trectools", action="store_true")
    parser.add_argument("--skip-pandas", action="store_true")
    parser.add_argument("--trec-eval", type=Path, metavar="PATH",
                        help="also time this trec_eval binary reading the same runs")
    parser.add_argument("--child", choices=sorted(CONTENDERS), help=argparse.SUPPRESS)
    parser.add_argument("--child-files", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        child(args.child, args.child_files, args.pool_depth, args.workdir, args.child_out)
        return 0

    with tempfile.TemporaryDirectory(prefix="pooltool-bench-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        files = generate_runs(workdir, args.runs, args.topics, args.depth, args.seed)
        lines = args.runs * args.topics * args.depth
        size_mb = sum(f.stat().st_size for f in files) / 1e6
        print(f"{len(files)} runs x {args.topics} topics x {args.depth} lines = {lines:,} lines "
              f"({size_mb:.0f} MB) in {workdir}, ready in {time.perf_counter() - start:.1f} s; "
              f"pool depth {args.pool_depth}; python {sys.version.split()[0]}, "
              f"{os.cpu_count()} CPUs", flush=True)

        names = ["pooltool"]
        if not args.skip_trectools:
            names.append("trectools")
        if not args.skip_pandas:
            names.append("pandas")
        if args.trec_eval:
            os.environ["BENCH_TREC_EVAL"] = str(args.trec_eval.resolve())
            names.append("trec_eval")
        results = {}
        for name in names:
            print(f"running {name} ...", flush=True)
            results[name] = run_child(name, files, args.pool_depth, workdir)
        status = report(results)
        gzipped = gzip_size(files, workdir)
        stored = results["pooltool"]["store_bytes"]
        print(f"store {stored / 1e6:.0f} MB (runs and pool); the run files gzipped (-6) "
              f"{gzipped / 1e6:.0f} MB: {stored / gzipped:.2f}x")
        return status


def report(results: dict[str, dict]) -> int:
    base = results["pooltool"]["total_s"]
    print()
    print(f"{'':10} {'read/import s':>13} {'pool s':>8} {'total s':>8} {'CPU s':>8} "
          f"{'peak MB':>8} {'x pooltool':>10} {'pool size':>10}")
    for name, r in results.items():
        print(f"{name:10} {r['import_s']:13.2f} {r['pool_s']:8.2f} {r['total_s']:8.2f} "
              f"{r['cpu_s']:8.2f} {r['peak_mb']:8.0f} {r['total_s'] / base:10.2f} "
              f"{r['pool_size']:10,}")
    print("(x pooltool: total seconds divided by pooltool's; above 1 means pooltool is faster)")

    status = 0
    ours = set(map(tuple, results["pooltool"]["pairs"]))
    for name in ("pandas", "trectools"):
        if name not in results:
            continue
        theirs = set(map(tuple, results[name]["pairs"]))
        if theirs == ours:
            print(f"{name} pool == pooltool pool ({len(ours):,} pairs)")
            continue
        only_ours, only_theirs = len(ours - theirs), len(theirs - ours)
        print(f"{name} pool != pooltool pool: {len(theirs):,} vs {len(ours):,} pairs, "
              f"{only_ours:,} only in pooltool's, {only_theirs:,} only in {name}'s")
        if name == "trectools":
            print("  (expected where score ties straddle the cutoff: trectools breaks ties by "
                  "docno ascending, trec_eval and pooltool by docno descending)")
        else:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
