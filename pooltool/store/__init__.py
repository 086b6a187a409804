"""The SQLite judgment store: topics, documents, runs, pools and the judgment log."""

from pooltool.store.store import GradeLevel, ImportSummary, JudgmentStore

__all__ = ["GradeLevel", "ImportSummary", "JudgmentStore"]
