"""Benchmark: ``pooltool recall`` on stored run tags beside the same runs read from files.

Generates the runs and qrels of ``bench_recall.py`` (reused from ``--workdir``),
imports the runs into a store there once (``add-runs``), then runs, as whole
processes, in turn (A B A B ...), after one warm-up round, ``--repeat`` rounds of

* **files**: ``python -m pooltool recall RUN_FILES --qrels QRELS -k 100,1000 -c --format csv``;
* **stored**: ``python -m pooltool --db STORE recall RUN_TAGS --qrels QRELS -k 100,1000 -c --format csv``

and prints the median wall time, CPU time and peak memory of each, and the
median of stored / files wall time taken round by round (target, issue 10: at
most 1.2). Both outputs must be identical (exit status 1 if not).

Example::

    python bench/bench_recall_stored.py --workdir /tmp/recall-stored
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from bench_recall import KS, generate, measure  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, required=True,
                        help="keep the generated files and the store here and reuse them")
    args = parser.parse_args()
    qrels, runs = generate(args.workdir, args.runs, args.topics, args.depth, args.seed)
    store = args.workdir / "stored.db"
    if not store.exists():
        subprocess.run([sys.executable, "-m", "pooltool", "--db", str(store), "init"],
                       check=True, cwd=BENCH.parent)
        subprocess.run([sys.executable, "-m", "pooltool", "--db", str(store), "add-runs",
                        *map(str, runs)], check=True, cwd=BENCH.parent)
    tags = [line.split()[5] for line in (p.open().readline() for p in runs)]
    options = ["--qrels", str(qrels), "-k", KS, "-c", "--format", "csv"]
    commands = {
        "files": [sys.executable, "-m", "pooltool", "recall", *map(str, runs), *options],
        "stored": [sys.executable, "-m", "pooltool", "--db", str(store), "recall", *tags,
                   *options],
    }
    outputs = {name: subprocess.run(command, check=True, capture_output=True,
                                    cwd=BENCH.parent).stdout
               for name, command in commands.items()}  # also the warm-up
    samples: dict[str, list] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            samples[name].append(measure(command))
    lines = sum(p.read_bytes().count(b"\n") for p in runs)
    print(f"{len(runs)} runs, {lines:,} lines; medians of {args.repeat}, whole process")
    print("| recall reads | wall s | CPU s | peak MiB | wall / files' |")
    print("|---|---:|---:|---:|---:|")
    for name, rows in samples.items():
        ratio = statistics.median(row.wall / base.wall
                                  for row, base in zip(rows, samples["files"], strict=True))
        print(f"| {name} | {statistics.median(r.wall for r in rows):.2f} | "
              f"{statistics.median(r.cpu for r in rows):.2f} | "
              f"{statistics.median(r.peak_mib for r in rows):.0f} | {ratio:.2f} |")
    same = outputs["files"] == outputs["stored"]
    print("outputs identical" if same else "outputs DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
