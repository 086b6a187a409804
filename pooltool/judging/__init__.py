"""Judging work over the store: the judging queue, pace, assignments and agreement.

No SQL here: each module applies the store's rules
(:mod:`pooltool.store.judged`) through :class:`~pooltool.store.JudgmentStore`
methods.
"""
