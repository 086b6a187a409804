"""Speed of ``pooltool recall`` as a whole process, back to back with its peers.

Generates a deterministic set of run files and qrels (or reuses them from
``--workdir``), then runs each contender as its own process, in turn, A B C
A B C ..., ``--repeat`` rounds, and prints the median wall time, CPU time
(user + system, all threads) and peak memory (``ru_maxrss`` of the process,
or of its largest child) of each, with each peer's time divided by
pooltool's, taken round by round (so a machine that slows down between
rounds slows both sides of a ratio):

* pooltool: ``pooltool recall RUNS --qrels QRELS -k 100,1000 -c --format csv``
  (Recall@k, P@k, num_rel_ret, unjudged@k, judged@k ... of every run);
* pytrec_eval-terrier: ``bench/peer_pytrec_eval.py``, recall, P and
  num_rel_ret at the same k, parsing included (it has no unjudged measure);
* trec_eval, when on PATH: one process per run (``-c -m recall.100,1000
  -m P.100,1000 -m num_rel_ret -m unj.100,1000``) from one ``sh`` loop;
* the Arrow read floor: ``bench/arrow_floor.py``, Apache Arrow's
  multi-threaded CSV reader reading the topic, docno and score columns of
  every run (typed) and nothing else.

Then the same on the 15 TREC-COVID round-1 runs when ``../shared/data`` is
there. Usage::

    python bench/bench_recall.py --runs 30 --topics 250 --depth 1000 --seed 1 --workdir /tmp/b7
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

BENCH = Path(__file__).resolve().parent
SHARED = BENCH.parents[1] / "shared" / "data" / "trec_covid_r1"
KS = "100,1000"


class Sample(NamedTuple):
    wall: float
    cpu: float
    peak_mib: float


def generate(folder: Path, runs: int, topics: int, depth: int, seed: int) -> tuple[Path, list[Path]]:
    """Write ``qrels.txt`` and ``run00.txt``... into ``folder``; deterministic in ``seed``.

    Each topic has a pool of 600 candidate documents, of which 150-450 are
    judged (grades -1, 0, 0, 0, 1, 2); every run draws a third of its
    ``depth`` documents from the pool and the rest from a 2M-document
    collection, with scores rounded to 3 decimals (so some tie). Files
    already there for the same arguments are reused.
    """
    marker = folder / f"recall-{runs}x{topics}x{depth}-seed{seed}.done"
    qrels = folder / "qrels.txt"
    paths = [folder / f"run{r:02d}.txt" for r in range(runs)]
    if marker.exists():
        return qrels, paths
    rng = np.random.default_rng(seed)
    pools = np.stack([rng.choice(2_000_000, size=600, replace=False) for _ in range(topics)])
    qrels_lines = []
    for t in range(topics):
        judged = rng.choice(600, size=int(rng.integers(150, 450)), replace=False)
        grades = rng.choice([-1, 0, 0, 0, 1, 2], size=len(judged))
        qrels_lines += [f"{t + 1} 0 D{pools[t, j]:08d} {g}\n" for j, g in zip(judged, grades, strict=True)]
    qrels.write_text("".join(qrels_lines))
    for r, path in enumerate(paths):
        lines = []
        for t in range(topics):
            docs = np.unique(np.concatenate([
                rng.choice(pools[t], size=depth // 3, replace=False),
                rng.integers(0, 2_000_000, size=depth),
            ]))
            docs = rng.permutation(docs)[:depth]
            scores = np.round(np.sort(rng.random(depth))[::-1] * 40, 3)
            lines += [f"{t + 1} Q0 D{d:08d} {i + 1} {s} run{r:02d}\n"
                      for i, (d, s) in enumerate(zip(docs, scores, strict=True))]
        path.write_text("".join(lines))
    marker.touch()
    return qrels, paths


def contenders(qrels: Path, runs: list[Path]) -> dict[str, list[str]]:
    """The command line of each contender."""
    files = [str(p) for p in runs]
    commands = {
        "pooltool recall": [sys.executable, "-m", "pooltool", "recall", *files, "--qrels", str(qrels),
                            "-k", KS, "-c", "--format", "csv"],
        "pytrec_eval-terrier": [sys.executable, str(BENCH / "peer_pytrec_eval.py"), str(qrels), *files],
        "Arrow read floor": [sys.executable, str(BENCH / "arrow_floor.py"), *files],
    }
    if shutil.which("trec_eval"):
        measures = f"-c -m recall.{KS} -m P.{KS} -m num_rel_ret -m unj.{KS}"
        loop = (f"for run in {' '.join(map(shlex.quote, files))}; do "
                f"trec_eval {measures} {shlex.quote(str(qrels))} \"$run\" || exit 1; done")
        commands["trec_eval looped"] = ["sh", "-c", loop]
    return commands


def measure(command: list[str]) -> Sample:
    """Run ``command`` once, output thrown away, and take its wall time and resource usage."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               cwd=BENCH.parent)  # python -m pooltool: this checkout
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {shlex.join(command)}\n{errors.decode(errors='replace')}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def compare(label: str, qrels: Path, runs: list[Path], repeat: int) -> None:
    """Run the contenders back to back ``repeat`` times and print medians and ratios."""
    back_to_back(label, contenders(qrels, runs), runs, repeat, "pooltool recall")
    if not shutil.which("trec_eval"):
        print("(trec_eval is not on PATH: not measured)")


def back_to_back(label: str, commands: dict[str, list[str]], runs: list[Path], repeat: int,
                 base_name: str, ours_over_theirs: bool = False) -> None:
    """Run ``commands`` (name -> command line) in turn, ``repeat`` rounds after one warm-up
    round, and print a Markdown table of the median wall time (s), CPU time (s) and peak
    memory (MiB) of each, with the median round-by-round ratio of wall times against
    ``base_name``'s: each contender's over pooltool's, or pooltool's over each
    contender's with ``ours_over_theirs``."""
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    for command in commands.values():
        measure(command)  # warm-up: files into the page cache, imports compiled
    for _ in range(repeat):
        for name, command in commands.items():
            samples[name].append(measure(command))
    lines = sum(p.read_bytes().count(b"\n") for p in runs)
    base = samples[base_name]
    print(f"\n{label}: {len(runs)} runs, {lines:,} lines; medians of {repeat}, whole process")
    header = "pooltool's wall / this" if ours_over_theirs else "wall / pooltool's"
    print(f"| contender | wall s | CPU s | peak MiB | {header} |")
    print("|---|---:|---:|---:|---:|")
    for name, rows in samples.items():
        ratio = statistics.median((ours.wall / row.wall) if ours_over_theirs
                                  else (row.wall / ours.wall)
                                  for row, ours in zip(rows, base, strict=True))
        print(f"| {name} | {statistics.median(r.wall for r in rows):.2f} | "
              f"{statistics.median(r.cpu for r in rows):.2f} | "
              f"{statistics.median(r.peak_mib for r in rows):.0f} | {ratio:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keep the generated files here and reuse them")
    parser.add_argument("--skip-synthetic", action="store_true")
    args = parser.parse_args()
    if not args.skip_synthetic:
        with tempfile.TemporaryDirectory() as tmp:
            folder = args.workdir or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            qrels, runs = generate(folder, args.runs, args.topics, args.depth, args.seed)
            compare("synthetic", qrels, runs, args.repeat)
    if SHARED.is_dir():
        compare("TREC-COVID round 1", SHARED / "qrels-rnd1.txt", sorted((SHARED / "runs").iterdir()),
                args.repeat)


if __name__ == "__main__":
    main()
