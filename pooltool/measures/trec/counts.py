"""Counts: ``runid``, ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``,
``num_nonrel_judged_ret`` (``m_runid.c``, ``m_num_q.c``, ``m_num_ret.c``,
``m_num_rel.c``, ``m_num_rel_ret.c``, ``m_num_nonrel_judged_ret.c``).

* ``num_ret``: documents retrieved (after ``-M``, ``-J``); 0 for a topic the run lacks;
* ``num_rel``: judged documents with grade >= ``-l``; its ``all`` line under ``-c``
  counts the qrels lines with grade > 0 of every topic, whatever ``-l`` says;
* ``num_rel_ret``: relevant documents retrieved;
* ``num_nonrel_judged_ret``: retrieved documents judged (grade >= 0) and not relevant;
* ``num_q``: topics scored (every qrels topic under ``-c``), summary only;
* ``runid``: the run tag, summary only.

The ``all`` line of the counts is their sum over topics.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.trec.ranked import Options, Ranked


def num_ret(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``num_ret`` (``(T, 1)``, as every measure returns: topics x printed names)."""
    return ranked.num_ret[:, None].astype(np.float64)


def num_rel(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``num_rel``."""
    return ranked.num_rel[:, None].astype(np.float64)


def num_rel_ret(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``num_rel_ret``."""
    return ranked.num_rel_ret[:, None].astype(np.float64)


def num_nonrel_judged_ret(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``num_nonrel_judged_ret`` = retrieved - not judged - relevant retrieved."""
    return (ranked.num_ret - ranked.num_unjudged - ranked.num_rel_ret)[:, None].astype(np.float64)


def one(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``num_q``: each scored topic counts 1."""
    return np.ones((len(ranked.topics), 1))


def nothing(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``runid`` has no per-topic value (a 0 that is never printed)."""
    return np.zeros((len(ranked.topics), 1))
