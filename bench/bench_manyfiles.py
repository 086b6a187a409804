"""Speed on many small run files (issue 26), whole processes, back to back with the peers.

Real campaigns hold many small runs (TREC-COVID round 1: 143 runs of about
24,000 lines; TREC tracks: 50-150 runs of 50 topics), where the fixed cost
of each file counts more than the cost of each line. This script writes
``--runs`` x ``--topics`` x ``--depth`` files (default 150 x 30 x 1000,
4.5M lines, with ``bench_recall.generate``: deterministic in ``--seed``,
reused from ``--workdir``), then times, each contender its own process,
in turn, ``--repeat`` rounds after a warm-up (``bench_recall.back_to_back``):

* recall + unjudged: ``pooltool recall RUNS --qrels QRELS -k 100,1000 -c``
  against pytrec_eval-terrier (parsing included), trec_eval looped over the
  files (one process per file) and the Arrow read floor (``arrow_floor.py``);
* import + pool, as the CLI runs them: ``pooltool --db S init``, ``add-runs
  RUNS`` and ``pool --depth 100`` (one ``sh`` of three processes, start-up
  included, a new store each time) against ``trec_eval -m num_ret`` looped
  over the same files with a one-line-per-topic qrels (trec_eval reading and
  sorting the runs, nothing more) and the Arrow read floor.

Last, the per-file cost beyond reading: (import + pool's wall - the Arrow
floor's wall) / files, from the medians. Usage::

    PATH=/tmp/trec_eval:$PATH python bench/bench_manyfiles.py --workdir /tmp/manyfiles
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_recall import BENCH, contenders, generate, measure


def import_commands(runs: list[Path], folder: Path, depth: int) -> dict[str, list[str]]:
    """The import + pool chain and its peers, each one command line."""
    files = " ".join(shlex.quote(str(p)) for p in runs)
    store = shlex.quote(str(folder / "bench.db"))
    pooltool = f"{shlex.quote(sys.executable)} -m pooltool --db {store}"
    chain = (f"rm -f {store} {store}-wal {store}-shm && {pooltool} init 2>/dev/null && "
             f"{pooltool} add-runs {files} >/dev/null 2>&1 && "
             f"{pooltool} pool --depth {depth} >/dev/null 2>&1")
    commands = {"pooltool init + add-runs + pool": ["sh", "-c", chain]}
    if shutil.which("trec_eval"):
        qrels = folder / "one_per_topic.qrels"
        topics = sorted({line.split(maxsplit=1)[0] for line in runs[0].open()})
        qrels.write_text("".join(f"{t} 0 none 1\n" for t in topics))
        loop = (f"for run in {files}; do trec_eval -m num_ret {shlex.quote(str(qrels))} "
                f"\"$run\" || exit 1; done")
        commands["trec_eval reading"] = ["sh", "-c", loop]
    commands["Arrow read floor"] = [sys.executable, str(BENCH / "arrow_floor.py"), *map(str, runs)]
    return commands


def table(label: str, commands: dict[str, list[str]], runs: list[Path], repeat: int) -> dict[str, float]:
    """Run ``commands`` back to back; print medians and each peer's wall over the first
    contender's (pooltool), round by round; return the median walls by name."""
    samples: dict[str, list] = {name: [] for name in commands}
    for command in commands.values():
        measure(command)  # warm-up
    for _ in range(repeat):
        for name, command in commands.items():
            samples[name].append(measure(command))
    base = samples[next(iter(commands))]
    lines = sum(p.read_bytes().count(b"\n") for p in runs)
    print(f"\n{label}: {len(runs)} files, {lines:,} lines; medians of {repeat}, whole process")
    print("| contender | wall s | CPU s | peak MiB | pooltool's wall / this |")
    print("|---|---:|---:|---:|---:|")
    walls = {}
    for name, rows in samples.items():
        ratio = statistics.median(ours.wall / row.wall for row, ours in zip(rows, base, strict=True))
        walls[name] = statistics.median(r.wall for r in rows)
        print(f"| {name} | {walls[name]:.2f} | {statistics.median(r.cpu for r in rows):.2f} | "
              f"{statistics.median(r.peak_mib for r in rows):.0f} | {ratio:.2f} |")
    return walls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--pool-depth", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keep the generated files here and reuse them")
    parser.add_argument("--skip-recall", action="store_true")
    parser.add_argument("--skip-import", action="store_true")
    args = parser.parse_args()
    if not shutil.which("trec_eval"):
        print("(trec_eval is not on PATH: its rows are not measured)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.workdir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        qrels, runs = generate(folder, args.runs, args.topics, args.depth, args.seed)
        if not args.skip_recall:
            recall = contenders(qrels, runs)
            table("recall + unjudged", recall, runs, args.repeat)
        if not args.skip_import:
            walls = table(f"init + add-runs + pool --depth {args.pool_depth}",
                          import_commands(runs, folder, args.pool_depth), runs, args.repeat)
            beyond = walls["pooltool init + add-runs + pool"] - walls["Arrow read floor"]
            print(f"\nper file beyond reading: {1000 * beyond / len(runs):.1f} ms "
                  f"((import + pool - Arrow floor) / {len(runs)} files)")


if __name__ == "__main__":
    main()
