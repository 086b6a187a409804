"""Benchmark: pooltool's import and pool steps, each a process of its own, for checkouts
compared back to back.

For each round and each checkout given (``--repo``, default this one), in turn:
one process imports the run files of ``--workdir`` into a new store
(``JudgmentStore.open`` + ``add_runs``), then another opens that store and
pools it (``pool_runs(depth=--pool-depth)``). Each step reports its wall
seconds, CPU seconds (user + system, all threads, after Python has loaded
pooltool) and peak memory (``ru_maxrss``). Prints every round and then the
medians per checkout, with the load average seen before each step: on a
shared machine CPU seconds taken back to back say more than wall times.

The run files are ``bench_pool.py``'s (run it once with the same
``--workdir`` to write them)::

    python bench/bench_pool.py --workdir /tmp/pool-bench --skip-pandas --skip-trectools
    python bench/bench_pool_steps.py --workdir /tmp/pool-bench --repo ../main --repo .
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

STEP = r"""
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

step, db, depth, files = sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
start, start_cpu = time.perf_counter(), cpu()
if step == "import":
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    store = JudgmentStore.open(db, create=True)
    store.add_runs(files)
    size = store.runs()["lines"].sum()
else:
    store = JudgmentStore.open(db)
    size = pool_runs(store, depth).pool_size
store.close()
print(json.dumps({"wall_s": time.perf_counter() - start, "cpu_s": cpu() - start_cpu,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "size": int(size)}))
"""


def run_step(repo: Path, step: str, db: Path, depth: int, files: list[Path]) -> dict:
    """One step in a new process; its figures and the 1-minute load average before it."""
    load = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", STEP, str(repo), step, str(db), str(depth),
                          *map(str, files)], check=True, capture_output=True, text=True)
    return {**json.loads(out.stdout.splitlines()[-1]), "load": load}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True,
                        help="holds bench_pool.py's run files (run*.txt); the stores go here")
    parser.add_argument("--repo", type=Path, action="append",
                        help="a pooltool checkout to time (repeat to compare; default: this one)")
    parser.add_argument("--pool-depth", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    repos = [repo.resolve() for repo in args.repo or [REPO]]
    files = sorted(args.workdir.glob("run*.txt"))
    if not files:
        raise SystemExit(f"no run*.txt in {args.workdir}: run bench_pool.py --workdir first")
    results: dict[Path, list[dict]] = {repo: [] for repo in repos}
    for round_ in range(1, args.rounds + 1):
        for number, repo in enumerate(repos):
            db = args.workdir / f"steps_{number}.db"
            steps = {step: run_step(repo, step, db, args.pool_depth, files)
                     for step in ("import", "pool")}
            results[repo].append(steps)
            print(f"round {round_} {repo}: " + "; ".join(
                f"{step} {s['wall_s']:.2f} s, {s['cpu_s']:.2f} CPU-s, {s['peak_mb']:.0f} MB "
                f"(load {s['load']:.1f})" for step, s in steps.items()), flush=True)
    print("\nmedians:")
    print(f"{'checkout':40s} {'import s':>9s} {'CPU s':>7s} {'pool s':>7s} {'CPU s':>7s} "
          f"{'both CPU s':>10s} {'peak MB':>8s} {'pool size':>10s}")
    for repo, rounds in results.items():
        def median(step: str, key: str, rounds: list[dict] = rounds) -> float:
            return statistics.median(r[step][key] for r in rounds)
        both = statistics.median(r["import"]["cpu_s"] + r["pool"]["cpu_s"] for r in rounds)
        peak = max(median("import", "peak_mb"), median("pool", "peak_mb"))
        print(f"{str(repo)[-40:]:40s} {median('import', 'wall_s'):9.2f} "
              f"{median('import', 'cpu_s'):7.2f} {median('pool', 'wall_s'):7.2f} "
              f"{median('pool', 'cpu_s'):7.2f} {both:10.2f} {peak:8.0f} "
              f"{rounds[0]['pool']['size']:10,d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
