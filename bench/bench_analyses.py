"""Benchmark: issue 26's analysis commands on TREC-COVID, two pooltools back to back.

    python bench/bench_analyses.py BEFORE/.venv/bin/pooltool AFTER/.venv/bin/pooltool --db c.db

``--db`` is a store of the 15 TREC-COVID round-1 runs pooled at depth 7, with the round-1
qrels imported as version ``official`` and a second version ``other`` (bench/README.md,
"Issue 26 after round 4", gives the commands that build it). Each command (``--only``
names some) runs as a whole process, the two pooltools one after the other, ``--rounds``
times; the first round is a warm-up and dropped. Prints, per command, the median wall
and CPU seconds (the children's user + system time) of each pooltool, the walls of each
round, and whether the two gave the same output (stdout, stderr and exit status).
The target is under 1 s each (issue 26).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import time
from pathlib import Path

RUNS = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec_covid_r1" / "runs"


def commands(runs: list[str]) -> dict[str, list[str]]:
    """The analyses of issue 26's targets, by name."""
    return {
        "bias -k 100": ["bias", "-k", "100"],
        "bias --correct lipani": ["bias", "-k", "10", "--correct", "lipani"],
        "bias --correct webber-park": ["bias", "-k", "10", "--correct", "webber-park"],
        "bias --correct webber-park-similar": ["bias", "-k", "10", "--correct",
                                               "webber-park-similar"],
        "impact -k 100": ["impact", *runs, "--from", "official", "--to", "other", "-k", "100"],
        "qrels diff": ["qrels", "diff", "official", "other"],
        "simulate --budget 20": ["simulate", *runs, "--qrels", "official", "--budget", "20"],
        "agreement": ["agreement"],
    }


def run(pooltool: str, store: Path, args: list[str]) -> tuple[float, float, str]:
    """One whole process: its wall and CPU seconds and a digest of what it gave."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([pooltool, "--db", str(store), *args], capture_output=True,
                          check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    digest = hashlib.sha1(done.stdout + done.stderr + bytes([done.returncode % 256]))
    return wall, cpu, digest.hexdigest()


def compare(name: str, args: list[str], pooltools: list[str], store: Path, rounds: int) -> str:
    """A line of the table: each pooltool's medians over the rounds after the first."""
    samples: dict[str, list[tuple[float, float]]] = {p: [] for p in pooltools}
    outputs: set[str] = set()
    for number in range(rounds):
        for pooltool in pooltools:
            wall, cpu, digest = run(pooltool, store, args)
            outputs.add(digest)
            if number:
                samples[pooltool].append((wall, cpu))
    cells = [name]
    for pooltool in pooltools:
        walls = [wall for wall, _ in samples[pooltool]]
        cpu = statistics.median(c for _, c in samples[pooltool])
        rounds_text = ", ".join(f"{w:.2f}" for w in walls)
        cells.append(f"{statistics.median(walls):.2f} s, {cpu:.2f} CPU-s ({rounds_text})")
    cells.append("same output" if len(outputs) == 1 else "OUTPUTS DIFFER")
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="a pooltool executable")
    parser.add_argument("after", help="another pooltool executable")
    parser.add_argument("--db", type=Path, required=True, help="the TREC-COVID store")
    parser.add_argument("--runs", type=Path, default=RUNS, help="the 15 run files' folder")
    parser.add_argument("--rounds", type=int, default=4, help="rounds, the first dropped")
    parser.add_argument("--only", action="append", help="a command's name (repeatable)")
    args = parser.parse_args()
    runs = sorted(str(path) for path in args.runs.iterdir())
    table = commands(runs)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as an installed package runs
    print(f"| command | {args.before} | {args.after} | outputs |")
    print("|---|---|---|---|")
    for name in args.only or list(table):
        print(compare(name, table[name], [args.before, args.after], args.db, args.rounds),
              flush=True)


if __name__ == "__main__":
    main()
