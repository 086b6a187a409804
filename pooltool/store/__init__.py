"""The SQLite judgment store: topics, documents, runs, pools and the judgment log.

The only package that writes SQL against the store's tables; everything else
calls its methods (a test checks this).
"""

from pooltool.store.judged import OwnJudgment
from pooltool.store.pools import DEFAULT_POOL, PoolPairs
from pooltool.store.store import GradeLevel, ImportSummary, JudgmentStore, open_store

__all__ = ["DEFAULT_POOL", "GradeLevel", "ImportSummary", "JudgmentStore", "OwnJudgment",
           "PoolPairs", "open_store"]
