"""Benchmark: the hole of every measure, per topic (issue 25 item 3).

    python bench/bench_holes.py --topics 200 --depth 1000 --unjudged 0.6 --max-grade 2

Generates topics (deterministic for ``--seed``): a ranked list of ``--depth``
grades with a share ``--unjudged`` of them unjudged (NaN), and judged qrels of
the retrieved judged documents plus as many unretrieved ones. Times each hole
function of :mod:`pooltool.measures.holes` over every topic and prints the
median and the total per measure. No target is set; a run over 30 runs x 50
topics is 1500 topics.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pooltool.measures import holes  # noqa: E402


def topics(count: int, depth: int, unjudged: float, max_grade: int,
           seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(ranked, qrels_grades)`` per topic."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        ranked = rng.integers(0, max_grade + 1, depth).astype(float)
        ranked[rng.random(depth) < unjudged] = np.nan
        judged = ranked[~np.isnan(ranked)].astype(int)
        out.append((ranked, np.concatenate([judged, rng.permutation(judged)])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--unjudged", type=float, default=0.6)
    parser.add_argument("--max-grade", type=int, default=2)
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    g = args.max_grade
    measures: dict[str, Callable[[np.ndarray, np.ndarray], holes.Hole]] = {
        "P@10": lambda r, q: holes.precision_hole(r, q, 10, g),
        "recall@100": lambda r, q: holes.recall_hole(r, q, 100, g),
        "RR": lambda r, q: holes.reciprocal_rank_hole(r, q, g),
        "Rprec": lambda r, q: holes.rprec_hole(r, q, g),
        "AP": lambda r, q: holes.ap_hole(r, q, g),
        "AP@100": lambda r, q: holes.ap_hole(r, q, g, k=100),
        "bpref": lambda r, q: holes.bpref_hole(r, q, g),
        "nDCG": lambda r, q: holes.ndcg_hole(r, q, g),
        "nDCG@10": lambda r, q: holes.ndcg_hole(r, q, g, k=10),
        "RBP(0.8)": lambda r, q: holes.rbp_hole(r, g, 0.8),
    }
    data = topics(args.topics, args.depth, args.unjudged, g, args.seed)
    print(f"{args.topics} topics, depth {args.depth}, {args.unjudged:.0%} unjudged, grades 0..{g}")
    for name, hole in measures.items():
        times = []
        for ranked, qrels in data:
            start = time.perf_counter()
            hole(ranked, qrels)
            times.append(time.perf_counter() - start)
        print(f"{name:>10}: median {1e3 * np.median(times):7.3f} ms/topic, "
              f"total {sum(times):6.2f} s")


if __name__ == "__main__":
    main()
