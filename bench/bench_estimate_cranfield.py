"""Validation (not speed): estimates from a sample beyond a Cranfield pool against the truth.

    python bench/bench_estimate_cranfield.py --repetitions 200 --budget 20 --pool-depth 10

Builds three runs over Cranfield (BM25, BM25 on abstracts, TF-IDF; written in
tests/cranfield_sampling.py), pools them at --pool-depth, then per repetition
(seed 0, 1, ...) draws a stratified sample of --budget documents per topic
beyond the pool (strata --strata, --allocation), takes its judgments and the
pool's from the full cranqrel, and estimates R and Recall@k of the run bm25 per
topic. Prints: the mean error of the Horvitz-Thompson R and its standard error
over repetitions (unbiased: within about 2 SE of 0), that of the posterior mean
R (est_R), how many estimates lie outside their own intervals (0), and the coverage of the 95%
intervals of R, Recall@k (per topic x repetition) and mean R and mean Recall@k,
with their mean widths, for the Beta-binomial interval pooltool reports, for
the MOVER-Wilson interval around the Horvitz-Thompson estimate (with its mean
Recall@k estimate and its estimates outside their intervals, 0) and for the
plain normal interval. ``--topics N`` takes N of the 225 topics (every
(225 // N)-th), as a smaller campaign. Needs ../shared/data/cranfield. Takes about
2.7 s of CPU a repetition on all topics.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from cranfield_sampling import Experiment, load, summarize  # noqa: E402

from pooltool.analysis.beta_draws import DRAWS, RECALL_DRAWS  # noqa: E402
from pooltool.analysis.sampling import DEFAULT_STRATA  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "cranfield")
    parser.add_argument("--repetitions", type=int, default=200)
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--pool-depth", type=int, default=10)
    parser.add_argument("--strata", default=DEFAULT_STRATA)
    parser.add_argument("--allocation", default="equal")
    parser.add_argument("-k", type=int, default=100)
    parser.add_argument("--draws", type=int, default=DRAWS, help="draws of R")
    parser.add_argument("--recall-draws", type=int, default=RECALL_DRAWS,
                        help="draws of Recall@k")
    parser.add_argument("--topics", type=int, default=0,
                        help="only this many topics, evenly spaced (every (225 // N)-th "
                             "query, the first N of them); 0: all 225")
    args = parser.parse_args()
    started = time.perf_counter()
    collection = load(args.data)
    step = max(1, len(collection.topics) // args.topics) if args.topics else 1
    topics = collection.topics[::step][:args.topics] if args.topics else None
    experiment = Experiment(collection, args.pool_depth, args.strata, topics=topics, k=args.k)
    trials = [experiment.trial(seed, args.budget, args.allocation, args.draws, args.recall_draws)
              for seed in range(args.repetitions)]
    result = {"design": {key: value for key, value in vars(args).items() if key != "data"},
              **summarize(trials), "seconds": round(time.perf_counter() - started, 1)}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
