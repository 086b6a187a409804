"""Speed and memory of duplicate detection (issue 27, item 4), and what it adds to add-docs.

1. **Grouping**: ``--docs`` short documents (``--words`` words each) from the planted
   generator of ``tests/planted_copies.py`` (a tenth are bases with an exact copy, a
   copy with 1% of words edited and one with 5%; the rest unrelated, of the same
   vocabulary), grouped by :func:`pooltool.duplicates.find_groups` in a process of its
   own: wall and CPU seconds of the grouping alone, the process's peak memory
   (``ru_maxrss``), and the groups' precision and recall against the planted truth.
2. **add-docs**: ``pooltool add-docs`` of ``--add-docs`` of those documents (JSONL) into
   a new store, without and with ``--duplicates``, whole processes, back to back,
   median of ``--repeat``; the issue allows at most 1.5x.

Usage::

    python bench/bench_duplicates.py --docs 1000000 --add-docs 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.planted_copies import plant  # noqa: E402

RATES = (0.0, 0.01, 0.05)


def documents(count: int, words: int, seed: int):  # type: ignore[no-untyped-def]
    families = count // 10 // (1 + len(RATES))
    return plant(families, RATES, count - families * (1 + len(RATES)), words=words, seed=seed)


def group_in_this_process(count: int, words: int, seed: int) -> dict[str, float]:
    """Group the planted documents; the numbers of the grouping and of this process."""
    from pooltool.duplicates import find_groups

    planted = documents(count, words, seed)
    wall, cpu = time.perf_counter(), time.process_time()
    groups = find_groups(planted.documents)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    found = dict(zip(groups["docno"], groups["group_no"], strict=True))
    out: dict[str, float] = {"docs": count, "wall_s": wall, "cpu_s": cpu,
                             "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                             "grouped": len(groups)}
    for rate in RATES:
        copies = [d for d, r in planted.rate.items() if r == rate]
        hit = sum(1 for d in copies if d in found and found[d] == found.get(planted.family[d]))
        out[f"recall_{rate}"] = hit / len(copies)
    leader = {g: d for d, g in sorted(found.items(), reverse=True)}
    wrong = sum(1 for d, g in found.items()
                if planted.family.get(d, d) != planted.family.get(leader[g], leader[g]))
    out["precision"] = 1 - wrong / max(1, len(found))
    return out


def add_docs_times(count: int, words: int, seed: int, repeat: int, folder: Path) -> dict[str, float]:
    """Median wall seconds of add-docs without and with --duplicates (whole processes)."""
    jsonl = folder / "docs.jsonl"
    with open(jsonl, "w", encoding="utf-8") as out:
        for d in documents(count, words, seed).documents:
            out.write(json.dumps({"docno": d.docno, "title": d.title, "text": d.text}) + "\n")
    pooltool = str(Path(sys.executable).with_name("pooltool"))
    times: dict[str, list[float]] = {"plain": [], "duplicates": []}
    for round_no in range(repeat):
        for name, extra in (("plain", []), ("duplicates", ["--duplicates"])):
            db = folder / f"{name}{round_no}.db"
            subprocess.run([pooltool, "--db", str(db), "init"], check=True, capture_output=True)
            start = time.perf_counter()
            subprocess.run([pooltool, "--db", str(db), "add-docs", *extra, str(jsonl)],
                           check=True, capture_output=True)
            times[name].append(time.perf_counter() - start)
    plain, dup = statistics.median(times["plain"]), statistics.median(times["duplicates"])
    return {"docs": count, "plain_s": plain, "duplicates_s": dup, "ratio": dup / plain}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--add-docs", type=int, default=20_000)
    parser.add_argument("--words", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--grouping-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.grouping_only:  # the child process of step 1
        print(json.dumps(group_in_this_process(args.docs, args.words, args.seed)))
        return
    child = subprocess.run([sys.executable, __file__, "--grouping-only", "--docs",
                            str(args.docs), "--words", str(args.words), "--seed",
                            str(args.seed)], check=True, capture_output=True, text=True)
    print("grouping:", child.stdout.strip())
    if args.add_docs:
        with tempfile.TemporaryDirectory() as folder:
            print("add-docs:", json.dumps(add_docs_times(args.add_docs, args.words, args.seed,
                                                         args.repeat, Path(folder))))


if __name__ == "__main__":
    main()
