"""Benchmark: replaying pooling strategies against complete qrels, and choosing live (issue 12).

    python bench/bench_simulate.py --runs 30 --topics 250 --depth 1000 --seed 1

Generates runs with bench_pool.generate_runs (deterministic for a seed) and
synthetic complete qrels: every document of the depth-50 pool is judged,
relevant with a probability that falls with its best rank (0.6 / sqrt(rank)).
Times :func:`pooltool.analysis.simulation.simulate` with 8 strategies x 4
budgets (10, 20, 50, 100), then the live choice: rebuilding a chooser from a
log of 100 judgments with :func:`pooltool.judging.strategies.next_document`
for one topic of every run. Targets (issue 12): the simulation under 60 s, a
live choice under 20 ms.
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

from pooltool.analysis.simulation import simulate  # noqa: E402
from pooltool.formats.run import read_run  # noqa: E402
from pooltool.judging.strategies import (  # noqa: E402
    judge_sequence,
    next_document,
    parse_strategy,
    topic_runs,
)
from pooltool.ranking import order_run  # noqa: E402

STRATEGIES = ["depth", "roundrobin", "rrf", "rbp", "mtf", "maxmean", "mmns", "thompson"]
BUDGETS = [10, 20, 50, 100]


def synthetic_qrels(ordered: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Judge the depth-50 pool: relevant (grade 1) with probability 0.6 / sqrt(best rank)."""
    pool = ordered[ordered["trec_rank"] <= 50].groupby(["topic", "docno"])["trec_rank"].min()
    rng = np.random.default_rng(seed)
    relevant = rng.random(len(pool)) < 0.6 / np.sqrt(pool.to_numpy())
    return pd.DataFrame({"topic": pool.index.get_level_values(0),
                         "docno": pool.index.get_level_values(1),
                         "grade": relevant.astype(np.int64)})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000, help="lines per topic per run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "pooltool-bench")
    args = parser.parse_args()
    files = generate_runs(args.workdir, args.runs, args.topics, args.depth, args.seed)
    runs = pd.concat([read_run(path) for path in files], ignore_index=True)
    ordered = order_run(runs)
    qrels = synthetic_qrels(ordered, args.seed)
    strategies = [parse_strategy(name) for name in STRATEGIES]
    start = time.perf_counter()
    result = simulate(ordered, qrels, strategies, BUDGETS)
    simulated = time.perf_counter() - start
    print(f"{args.runs} runs x {args.topics} topics x {args.depth} documents, "
          f"{int((qrels['grade'] > 0).sum())} relevant of {len(qrels)} judged")
    print(f"  simulate, {len(STRATEGIES)} strategies x {len(BUDGETS)} budgets  "
          f"{simulated:7.2f} s   target < 60 s")
    topic = sorted(set(qrels["topic"]))[0]
    ranked = topic_runs(ordered[ordered["topic"] == topic])[topic]
    relevant = frozenset(qrels[(qrels["topic"] == topic) & (qrels["grade"] > 0)]["docno"])
    for name in [*STRATEGIES, "hedge"]:
        strategy = parse_strategy(name)
        log = [(d, d in relevant) for d in judge_sequence(strategy.chooser(ranked, topic),
                                                            relevant, 100)]
        start = time.perf_counter()
        next_document(strategy.chooser(ranked, topic), log)
        live = time.perf_counter() - start
        print(f"  next document after 100 judgments, {strategy.label:24} "
              f"{live * 1000:7.1f} ms   target < 20 ms")
    found = result.summary.set_index(["strategy", "budget"])["found"]
    print("  found at budget 20: " + ", ".join(
        f"{s.label} {found[(s.label, 20)]}" for s in strategies))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
