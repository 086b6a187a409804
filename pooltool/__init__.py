"""pooltool: build IR test collections the TREC way.

Pool runs into a SQLite judgment store, judge them in a terminal UI, and
measure Recall@k exactly as trec_eval computes it, with unjudged rates and
the effect of qrels changes beside every score. In Python (docs/python.md)::

    import pooltool

    scores = pooltool.evaluate("runs/bm25.txt", "qrels.txt", ["nDCG@10", "AP"])  # a DataFrame
    with pooltool.open_store("covid.db") as store:
        log = store.judgment_log()

    store = pooltool.JudgmentStore.open("covid.db", create=True)
    store.add_runs(["runs/bm25.txt", "runs/dense.txt"])
    pooltool.pool_runs(store, depth=7)
    result = pooltool.evaluate_recall(pooltool.read_run("runs/bm25.txt"),
                                      pooltool.read_qrels("qrels.txt"), ks=(10, 100))

The names below are imported on first use (``pooltool.read_run`` imports
:mod:`pooltool.formats.run` then), so that importing the package, as the
command line does, costs no pandas.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pooltool.analysis.bias import leave_one_out, new_run_exposure
    from pooltool.analysis.impact import qrels_impact
    from pooltool.analysis.qrels_diff import diff_qrels
    from pooltool.analysis.stability import compare_rankings
    from pooltool.errors import FormatError, PooltoolError, StoreError
    from pooltool.formats.qrels import read_qrels
    from pooltool.formats.run import read_run
    from pooltool.judging.queue import judging_queue, pool_status
    from pooltool.measures import evaluate_recall, evaluate_recall_files
    from pooltool.measures.tidy import evaluate
    from pooltool.pooling import pool_runs
    from pooltool.ranking import order_run
    from pooltool.store import JudgmentStore, open_store

_HOMES = {
    "leave_one_out": "pooltool.analysis.bias",
    "new_run_exposure": "pooltool.analysis.bias",
    "qrels_impact": "pooltool.analysis.impact",
    "diff_qrels": "pooltool.analysis.qrels_diff",
    "compare_rankings": "pooltool.analysis.stability",
    "FormatError": "pooltool.errors",
    "PooltoolError": "pooltool.errors",
    "StoreError": "pooltool.errors",
    "read_qrels": "pooltool.formats.qrels",
    "read_run": "pooltool.formats.run",
    "judging_queue": "pooltool.judging.queue",
    "pool_status": "pooltool.judging.queue",
    "evaluate": "pooltool.measures.tidy",
    "evaluate_recall": "pooltool.measures",
    "evaluate_recall_files": "pooltool.measures",
    "pool_runs": "pooltool.pooling",
    "order_run": "pooltool.ranking",
    "JudgmentStore": "pooltool.store",
    "open_store": "pooltool.store",
}


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (PEP 562).

    :raises AttributeError: ``name`` is not one of :data:`__all__`.
    """
    if name not in _HOMES:
        raise AttributeError(f"module 'pooltool' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value

__all__ = [
    "FormatError",
    "JudgmentStore",
    "PooltoolError",
    "StoreError",
    "compare_rankings",
    "diff_qrels",
    "evaluate",
    "evaluate_recall",
    "evaluate_recall_files",
    "judging_queue",
    "leave_one_out",
    "new_run_exposure",
    "open_store",
    "order_run",
    "pool_runs",
    "pool_status",
    "qrels_impact",
    "read_qrels",
    "read_run",
]
