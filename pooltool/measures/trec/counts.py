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

from pooltool.measures.trec.ranked import Options, Topic


def num_ret(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``num_ret``."""
    return [float(topic.num_ret)]


def num_rel(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``num_rel``."""
    return [float(topic.num_rel)]


def num_rel_ret(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``num_rel_ret``."""
    return [float(topic.num_rel_ret)]


def num_nonrel_judged_ret(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``num_nonrel_judged_ret`` = retrieved - not judged - relevant retrieved."""
    return [float(topic.num_ret - len(topic.unjudged_ranks) - topic.num_rel_ret)]


def one(_topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``num_q``: each scored topic counts 1."""
    return [1.0]


def nothing(_topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``runid`` has no per-topic value (a 0 that is never printed)."""
    return [0.0]
