"""pooltool: build IR test collections the TREC way.

Pool runs into a SQLite judgment store, judge them in a terminal UI, and
measure Recall@k exactly as trec_eval computes it, with unjudged rates and
the effect of qrels changes beside every score.
"""

from pooltool.errors import FormatError, PooltoolError, StoreError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.pooling import pool_runs
from pooltool.ranking import order_run
from pooltool.store import JudgmentStore

__all__ = [
    "FormatError",
    "JudgmentStore",
    "PooltoolError",
    "StoreError",
    "order_run",
    "pool_runs",
    "read_qrels",
    "read_run",
]
