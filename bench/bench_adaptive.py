"""Benchmark: the next document of a live adaptive pool, read from the store (issue 12).

    python bench/bench_adaptive.py --runs 30 --topics 20 --depth 1000 --judged 100 --seed 1

Generates runs with bench_pool.generate_runs (deterministic for a seed), adds
them to a new store, makes an adaptive pool per strategy (``pool --strategy``)
and judges ``--judged`` documents of one topic through
:meth:`pooltool.judging.adaptive.AdaptivePicker.choose` (relevant with
probability 0.3, seeded). Then times :meth:`~pooltool.judging.adaptive.AdaptivePicker.next_for`
as a judging app calls it after a grade: the topic's runs already read once
(the app keeps them), the log, the claims and the pool read from the store,
the strategy rebuilt from the log. Target (issue 12): a live choice under 20 ms.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pool import generate_runs  # noqa: E402

from pooltool.judging.adaptive import AdaptivePicker, create_adaptive_pool  # noqa: E402
from pooltool.store import JudgmentStore  # noqa: E402

STRATEGIES = ["depth", "rrf", "mtf", "mmns", "thompson", "hedge"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--depth", type=int, default=1000, help="lines per topic per run")
    parser.add_argument("--judged", type=int, default=100, help="judgments before the timing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5, help="timings per strategy (best kept)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pooltool-bench-adaptive-"))
    files = generate_runs(folder, args.runs, args.topics, args.depth, args.seed)
    rng = np.random.default_rng(args.seed)
    with JudgmentStore.open(folder / "live.db", create=True) as store:
        store.add_runs(files)
        print(f"{args.runs} runs x {args.topics} topics x {args.depth} documents; "
              f"{args.judged} judgments of one topic per pool before the choice")
        for name in STRATEGIES:
            pool = f"live-{name}"
            create_adaptive_pool(store, pool, name, budget=None)
            picker = AdaptivePicker(store, pool)
            topic = picker.topics()[0]
            assessor = f"bench-{name}"
            for _ in range(args.judged):
                docno = picker.choose(topic, assessor)
                if docno is None:
                    break
                store.record_judgment(topic, docno, int(rng.random() < 0.3), assessor)
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                picker.next_for(topic, assessor)
                times.append(time.perf_counter() - start)
            print(f"  next document, {name:10} {min(times) * 1000:7.1f} ms   target < 20 ms")
            store.release_claims(topic, assessor)  # claims are per topic, not per pool
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
