"""Measures over runs and qrels: Recall@k and its companions, as trec_eval computes them.

In Python::

    from pooltool.formats.qrels import read_qrels
    from pooltool.formats.run import read_run
    from pooltool.measures import evaluate_recall

    result = evaluate_recall(read_run("run.txt"), read_qrels("qrels.txt"), ks=(10, 100))
    result.summary        # one row per run x k
    result.per_topic      # one row per run x topic
    result.missing_topics # qrels topics each run lacks

CLI reference: ``pooltool recall --help``.
"""

from __future__ import annotations

from pooltool.measures.recall import (
    DEFAULT_KS,
    RecallOptions,
    RecallResult,
    evaluate_recall,
    evaluate_recall_files,
    evaluate_recall_tables,
)

__all__ = [
    "DEFAULT_KS",
    "RecallOptions",
    "RecallResult",
    "evaluate_recall",
    "evaluate_recall_files",
    "evaluate_recall_tables",
]
