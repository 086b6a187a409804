"""Benchmark: estimates from a sample beyond a pool (issue 13).

    python bench/bench_estimate.py --runs 30 --topics 250 --depth 1000 --sample 10000 --seed 1

Generates runs with bench_pool.generate_runs (deterministic for a seed), pools
them at depth 10, draws a stratified sample of --sample documents in all
(--sample / --topics per topic) over the strata 11-20, 21-100, 101-1000 by best
rank, and judges pool and sample synthetically (relevant with probability
0.6 / sqrt(best rank)). Times :func:`pooltool.analysis.sample_estimates.estimate_recall`
for every run at k = 10, 100, 1000: est_R and est_recall per topic and their
means, each with its 95% interval (1000 draws of R, 250 of each run's Recall@k, the
priors the topics share drawn from their posterior). Target
(issue 26): under 5 s (issue 13's was 10 s).

The runs are given as the store gives them (``recall --estimate`` with stored
runs): in trec_eval order with each line's ``trec_rank``. ``--unranked`` gives
the lines as read from the files instead (estimate_recall ranks them), and
``--threads`` how many runs x cutoffs are estimated at once (default
:data:`~pooltool.analysis.sample_estimates.THREADS`, the machine's cores up to 8).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pool import generate_runs  # noqa: E402

from pooltool.analysis.estimate import INTERVAL_METHODS  # noqa: E402
from pooltool.analysis.sample_design import Design  # noqa: E402
from pooltool.analysis.sample_estimates import THREADS, estimate_recall  # noqa: E402
from pooltool.analysis.sampling import build_frame, draw_sample, parse_strata  # noqa: E402
from pooltool.formats.run import read_run  # noqa: E402
from pooltool.ranking import order_run  # noqa: E402

STRATA = "11-20,21-100,101-1000"
KS = (10, 100, 1000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000, help="lines per topic per run")
    parser.add_argument("--sample", type=int, default=10_000, help="sampled documents in all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--interval", choices=INTERVAL_METHODS, default="beta")
    parser.add_argument("--unranked", action="store_true",
                        help="give the run lines as read from the files, without trec_rank")
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "pooltool-bench")
    args = parser.parse_args()
    files = generate_runs(args.workdir, args.runs, args.topics, args.depth, args.seed)
    runs = pd.concat([read_run(path) for path in files], ignore_index=True)
    ordered = order_run(runs)
    best = ordered.groupby(["topic", "docno"], as_index=False)["trec_rank"].min().rename(
        columns={"trec_rank": "best_rank"})
    pooled = best[best["best_rank"] <= 10][["topic", "docno"]]
    strata = parse_strata(STRATA)
    topics = sorted(set(best["topic"]))
    frame = build_frame(topics, pooled, best, strata, None)
    docs, sizes = draw_sample(frame, args.sample // args.topics, args.seed)
    judged = pd.concat([pooled, docs[["topic", "docno"]]]).merge(best, on=["topic", "docno"])
    rng = np.random.default_rng(args.seed)
    relevant = rng.random(len(judged)) < 0.6 / np.sqrt(judged["best_rank"].to_numpy())
    qrels = judged[["topic", "docno"]].assign(grade=relevant.astype(np.int64))
    design = Design("bench", strata, "runs", pooled, docs, sizes, best)
    given = runs if args.unranked else ordered
    start, cpu = time.perf_counter(), time.process_time()
    estimates = estimate_recall(given, qrels, design, KS, seed=args.seed, interval=args.interval,
                                threads=args.threads)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{args.runs} runs x {len(topics)} topics x {args.depth} documents; pool depth 10 "
          f"({len(pooled)} documents), sample {len(docs)} documents, k = "
          f"{', '.join(map(str, KS))}; lines {'as read' if args.unranked else 'ranked'}, "
          f"{args.threads} thread(s)")
    print(f"  estimate_recall ({args.interval})  {seconds:7.2f} s wall, {cpu:7.2f} s CPU   "
          "target < 5 s")
    mean = estimates.summary.iloc[0]
    print(f"  {mean['run_tag']} @{mean['k']}: est_R {mean['est_R']:.1f} "
          f"[{mean['est_R_low']:.1f}, {mean['est_R_high']:.1f}], est_recall "
          f"{mean['est_recall']:.3f} [{mean['est_recall_low']:.3f}, {mean['est_recall_high']:.3f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
