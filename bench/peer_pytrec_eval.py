"""The pytrec_eval-terrier peer of bench_recall.py, as a whole process.

Usage: ``python bench/peer_pytrec_eval.py QRELS RUN...``. Reads the qrels
and each run with pytrec_eval's own parsers and measures recall, P at 100
and 1000 and num_rel_ret of every run (pytrec_eval has no unjudged rate);
prints each run's mean recall@1000.
"""

from __future__ import annotations

import sys

import pytrec_eval


def main(qrels_path: str, runs: list[str]) -> None:
    with open(qrels_path) as handle:
        judged = pytrec_eval.parse_qrel(handle)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"recall.100,1000", "P.100,1000", "num_rel_ret"})
    for path in runs:
        with open(path) as handle:
            scores = evaluator.evaluate(pytrec_eval.parse_run(handle))
        print(path, sum(topic["recall_1000"] for topic in scores.values()) / len(scores))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
