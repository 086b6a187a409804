"""Speed of ``pooltool recall`` against pytrec_eval-terrier and trec_eval.

Generates a deterministic set of run files and qrels in a temporary folder,
then times, file parsing included and over all runs:

* pooltool: Recall@k, P@k, num_rel_ret and the unjudged/judged rates at
  k = 10, 100, 1000 (:func:`pooltool.measures.evaluate_recall_files`), with
  the process count it picks itself and with one process;
* pytrec_eval-terrier: recall, P and num_rel_ret at the same k (it has no
  unjudged rate), one ``parse_run`` + ``evaluate`` per run file;
* trec_eval, if on PATH: one process per run with the same measures plus ``unj``.

It then does the same on the 15 TREC-COVID round-1 runs when
``../shared/data`` is present. Each timing is the best of ``--repeat``
rounds, tools interleaved within a round so that a noisy machine slows them
alike. Usage::

    python bench/bench_recall.py --runs 30 --topics 250 --depth 1000 --seed 1
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pooltool.formats.qrels import read_qrels  # noqa: E402
from pooltool.measures import evaluate_recall_files  # noqa: E402

KS = (10, 100, 1000)
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_covid_r1"


def generate(folder: Path, runs: int, topics: int, depth: int, seed: int) -> tuple[Path, list[Path]]:
    """Write ``qrels.txt`` and ``run00.txt``... into ``folder``; deterministic in ``seed``.

    Each topic has a pool of 600 candidate documents, of which 150-450 are
    judged (grades -1, 0, 0, 0, 1, 2); every run draws a third of its
    ``depth`` documents from the pool and the rest from a 2M-document
    collection, with scores rounded to 3 decimals (so some tie).
    """
    rng = np.random.default_rng(seed)
    pools = np.stack([rng.choice(2_000_000, size=600, replace=False) for _ in range(topics)])
    qrels_lines = []
    for t in range(topics):
        judged = rng.choice(600, size=int(rng.integers(150, 450)), replace=False)
        grades = rng.choice([-1, 0, 0, 0, 1, 2], size=len(judged))
        qrels_lines += [f"{t + 1} 0 D{pools[t, j]:08d} {g}\n" for j, g in zip(judged, grades, strict=True)]
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(qrels_lines))
    paths = []
    for r in range(runs):
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
        path = folder / f"run{r:02d}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    return qrels, paths


def time_pooltool(qrels: Path, runs: list[Path], workers: int | None) -> float:
    start = time.perf_counter()
    evaluate_recall_files(runs, read_qrels(qrels), ks=KS, complete=True, workers=workers)
    return time.perf_counter() - start


def time_pytrec_eval(qrels: Path, runs: list[Path]) -> float:
    import pytrec_eval

    start = time.perf_counter()
    with open(qrels) as handle:
        judged = pytrec_eval.parse_qrel(handle)
    cut = ",".join(map(str, KS))
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {f"recall.{cut}", f"P.{cut}", "num_rel_ret"})
    for path in runs:
        with open(path) as handle:
            evaluator.evaluate(pytrec_eval.parse_run(handle))
    return time.perf_counter() - start


def time_trec_eval(qrels: Path, runs: list[Path]) -> float:
    cut = ",".join(map(str, KS))
    start = time.perf_counter()
    for path in runs:
        subprocess.run(
            ["trec_eval", "-c", "-m", f"recall.{cut}", "-m", f"P.{cut}", "-m", "num_rel_ret",
             "-m", f"unj.{cut}", str(qrels), str(path)],
            check=True, stdout=subprocess.DEVNULL,
        )
    return time.perf_counter() - start


def compare(label: str, qrels: Path, runs: list[Path], repeat: int) -> None:
    """Time every tool ``repeat`` times (interleaved) and print best times and ratios."""
    tools: dict[str, Callable[[], float]] = {
        "pooltool (auto processes)": lambda: time_pooltool(qrels, runs, None),
        "pooltool (1 process)": lambda: time_pooltool(qrels, runs, 1),
        "pytrec_eval-terrier": lambda: time_pytrec_eval(qrels, runs),
    }
    if shutil.which("trec_eval"):
        tools["trec_eval (1 process per run)"] = lambda: time_trec_eval(qrels, runs)
    best = {name: float("inf") for name in tools}
    for _ in range(repeat):
        for name, run in tools.items():
            best[name] = min(best[name], run())
    lines = sum(1 for p in runs for _ in open(p))
    print(f"\n{label}: {len(runs)} runs, {lines:,} lines (best of {repeat})")
    base = best["pooltool (auto processes)"]
    for name, seconds in best.items():
        print(f"  {name:32s} {seconds:7.2f} s   {seconds / base:5.2f}x pooltool")
    if not shutil.which("trec_eval"):
        print("  trec_eval                        not on PATH, skipped")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the generated files here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        qrels, runs = generate(folder, args.runs, args.topics, args.depth, args.seed)
        print(f"generated in {time.perf_counter() - start:.1f} s")
        compare("synthetic", qrels, runs, args.repeat)
    if SHARED.is_dir():
        runs = sorted((SHARED / "runs").iterdir())
        compare("TREC-COVID round 1", SHARED / "qrels-rnd1.txt", runs, args.repeat)


if __name__ == "__main__":
    main()
