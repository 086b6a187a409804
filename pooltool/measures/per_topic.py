"""Per-topic recall, precision and judgment rates of one run, vectorised.

Definitions (usnistgov/trec_eval 10.0; ``k`` a cutoff, a topic's documents in
trec_eval order, see :mod:`pooltool.ranking`):

* ``num_ret``: documents retrieved for the topic (after ``-M``), ``m_num_ret.c``;
* ``num_rel``: qrels documents with ``grade >= level`` (``m_num_rel.c``);
* ``num_rel_ret``: relevant documents retrieved at any rank (``m_num_rel_ret.c``);
* ``num_rel_ret@k``: relevant documents among the first ``k`` (``R_k``);
* ``recall@k = R_k / num_rel``, 0 when ``num_rel = 0`` (``m_recall.c``);
* ``P@k = R_k / k``: missing ranks count as not relevant (``m_P.c``);
* ``unjudged@k = U_k / k`` with ``U_k`` the documents among the first ``k``
  that have no qrels line or a negative grade; ranks past the end of the run
  count as judged (trec_eval's ``unj``, ``m_unjudged.c``);
* ``judged@k = J_k / min(k, num_ret)`` with ``J_k`` the documents among the
  first ``k`` that have a qrels line of any grade, negative included
  (ir_measures 0.4.3 ``Judged@k``, ``providers/judged_provider.py``); 0 when
  nothing was retrieved;
* ``ceiling@k = min(k, num_rel) / num_rel``: the best recall@k any run could
  reach, 0 when ``num_rel = 0``;
* ``recall_upper@k = (R_k + U_k) / (num_rel + U_k)``: recall@k if every
  unjudged document in the first ``k`` were judged relevant (each one then
  also adds to ``num_rel``); 0 when the denominator is 0. It is the most that
  judging this run's unjudged top-``k`` documents can raise recall@k to.

``unjudged@k`` and ``judged@k`` are not complements: they differ in the
denominator (``k`` against ``min(k, num_ret)``) and in negative grades
(unjudged for trec_eval, judged for ir_measures); ir_measures also breaks
score ties by docno ascending where trec_eval (and pooltool) use descending.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pooltool.errors import DuplicateDocno
from pooltool.measures.qrels_index import NONPOOL, QrelsIndex
from pooltool.ranking import order_run
from pooltool.records import is_judged, is_relevant

#: Result columns: name -> one value per row, every column of one length, in column order.
Columns = dict[str, np.ndarray]

#: The per-k measures, in column order; each becomes ``<name>@<k>``.
AT_K = ("num_rel_ret", "recall", "P", "ceiling", "unjudged", "judged", "recall_upper")


@dataclass(frozen=True)
class RunScores:
    """One run's per-topic rows and the topics that were not scored normally.

    :ivar columns: one row per scored topic (see :func:`score_run`).
    :ivar missing: qrels topics absent from the run, in topic order.
    :ivar ignored: run topics absent from the qrels, in topic order.
    """

    columns: Columns
    missing: list[str]
    ignored: list[str]


@dataclass(frozen=True)
class EncodedRun:
    """One run's scored lines as numbers, ready for ordering and counting.

    :ivar topic_pos: each line's position in ``qrels.topics`` (all >= 0:
        lines of topics without qrels are already dropped).
    :ivar score: each line's score, float64.
    :ivar docno: each line's docno (str), or integers that order tied lines
        as their docnos would (any value elsewhere).
    :ivar grade: each line's grade, :data:`NONPOOL` when not in the qrels.
    :ivar ignored: run topics absent from the qrels, in ``strcmp`` order.
    :ivar trec_rank: when the lines are already in trec_eval's order, each
        line's 1-based position within its topic; ``None`` to have
        :func:`finish_run` order them.
    """

    topic_pos: np.ndarray
    score: np.ndarray
    docno: np.ndarray
    grade: np.ndarray
    ignored: list[str]
    trec_rank: np.ndarray | None = None


def score_run(
    run_tag: str,
    topic: np.ndarray,
    docno: np.ndarray,
    score: np.ndarray,
    qrels: QrelsIndex,
    ks: Sequence[int],
    complete: bool = False,
    max_docs: int | None = None,
    trec_rank: np.ndarray | None = None,
) -> RunScores:
    """Measure one run against prepared qrels.

    :param run_tag: the run's tag (copied to the ``run_tag`` column).
    :param topic: topic id of each run line, str; shape ``(n,)``.
    :param docno: docno of each run line, str; shape ``(n,)``.
    :param score: score of each run line, float64 without NaN; shape ``(n,)``.
    :param qrels: the judgments, from :func:`~pooltool.measures.qrels_index.index_qrels`.
    :param ks: cutoffs, positive, increasing.
    :param complete: trec_eval ``-c``: qrels topics absent from the run get a
        row of zeros (``ceiling@k`` excepted) instead of being left out.
    :param max_docs: trec_eval ``-M``: keep only the first ``max_docs``
        documents of each topic in trec_eval order.
    :param trec_rank: the lines' trec_eval ranks, trusted (see :func:`encode_run`), or None.
    :returns: a :class:`RunScores` whose columns have, per topic in ``strcmp``
        order, ``run_tag, topic, num_ret, num_rel, num_rel_ret`` and for every
        k in ``ks`` the :data:`AT_K` columns ``<name>@<k>``; fractions are 0..1.
    :raises DuplicateDocno: a docno is repeated within a topic.
    """
    encoded = encode_run(run_tag, topic, docno, score, qrels, trec_rank)
    return finish_run(run_tag, encoded, qrels, ks, complete, max_docs)


def encode_run(
    run_tag: str, topic: np.ndarray, docno: np.ndarray, score: np.ndarray, qrels: QrelsIndex,
    trec_rank: np.ndarray | None = None,
) -> EncodedRun:
    """Check a run for repeated docnos and look up every line's topic and grade.

    :param trec_rank: each line's 1-based rank within its topic in trec_eval's order
        (:func:`pooltool.ranking.order_run`'s), shape ``(n,)``, or None: given, the
        lines come back sorted by topic position then rank and :func:`finish_run`
        does not order them again.
    :raises DuplicateDocno: a docno is repeated within a topic.
    """
    import pandas as pd  # lines given as Python objects (a DataFrame's): pandas is loaded

    topic_codes, topic_uniques = pd.factorize(topic)
    doc_codes, n_docs, doc_pos = _doc_codes(docno, qrels)
    _check_duplicates(run_tag, topic, docno, topic_codes, doc_codes, n_docs)
    topic_in_qrels = qrels.topic_positions(topic_uniques)
    topic_pos = topic_in_qrels[topic_codes]
    scored = topic_pos >= 0
    ignored = sorted(str(t) for t in topic_uniques[topic_in_qrels < 0])
    grade = qrels.lookup(topic_pos[scored], doc_pos[scored])
    if trec_rank is None:
        return EncodedRun(topic_pos[scored], score[scored], docno[scored], grade, ignored)
    order = np.lexsort((trec_rank[scored], topic_pos[scored]))
    return EncodedRun(topic_pos[scored][order], score[scored][order], docno[scored][order],
                      grade[order], ignored, trec_rank[scored][order].astype(np.int64))


def finish_run(
    run_tag: str,
    encoded: EncodedRun,
    qrels: QrelsIndex,
    ks: Sequence[int],
    complete: bool = False,
    max_docs: int | None = None,
) -> RunScores:
    """Order the encoded lines with :func:`pooltool.ranking.order_run`, cut, count, divide.

    Topics go to order_run as their positions in the qrels' sorted topic
    list, which keeps their ``strcmp`` order and spares it the strings. See
    :func:`score_run` for the parameters and the result.
    """
    topic, rank, grade = ordered_lines(encoded)
    if max_docs is not None:
        kept = rank <= max_docs
        topic, rank, grade = topic[kept], rank[kept], grade[kept]
    counts = _counts(topic, rank, grade, qrels, ks)
    present = counts["num_ret"] > 0
    keep = np.ones(len(present), dtype=bool) if complete else present
    columns = _columns(run_tag, qrels, counts, ks, keep)
    return RunScores(columns, qrels.topics[~present].tolist(), encoded.ignored)


def ordered_lines(encoded: EncodedRun) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The encoded lines in trec_eval's order (:func:`pooltool.ranking.order_run`).

    :returns: ``(topic_pos, trec_rank, grade)``, int64 arrays of one length, sorted by
        topic position then ``trec_rank`` (1-based within the topic).
    """
    if encoded.trec_rank is None:
        import pandas as pd  # only lines given as Python objects (encode_run) come unordered

        ordered = order_run(pd.DataFrame({
            "topic": encoded.topic_pos, "score": encoded.score,
            "docno": encoded.docno, "grade": encoded.grade,
        }))
        topic, rank, grade = (ordered[name].to_numpy() for name in ("topic", "trec_rank", "grade"))
        return topic, rank, grade
    return encoded.topic_pos, encoded.trec_rank, encoded.grade


def _doc_codes(docno: np.ndarray, qrels: QrelsIndex) -> tuple[np.ndarray, int, np.ndarray]:
    """Integer codes of the docnos, and each docno's position among the judged docnos.

    One hash pass over the judged docnos followed by the run's: a code below
    ``len(qrels.doc_index)`` is that judged docno's position.

    :returns: ``(codes, number of codes, positions)``, positions -1 where
        no topic judged the docno.
    """
    import pandas as pd  # see encode_run

    judged = qrels.doc_index.to_numpy(zero_copy_only=False)
    codes, uniques = pd.factorize(np.concatenate([judged, docno]))
    codes = codes[len(judged):]
    doc_pos = np.where(codes < len(judged), codes, -1)
    return codes, len(uniques), doc_pos


def _check_duplicates(
    run_tag: str,
    topic: np.ndarray,
    docno: np.ndarray,
    topic_codes: np.ndarray,
    doc_codes: np.ndarray,
    n_docs: int,
) -> None:
    key = topic_codes.astype(np.int64) * max(n_docs, 1) + doc_codes
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    first = order[same[0] + 1]
    raise DuplicateDocno(run_tag, str(topic[first]), str(docno[first]))


def _counts(topic: np.ndarray, rank: np.ndarray, grade: np.ndarray, qrels: QrelsIndex,
            ks: Sequence[int]) -> dict[str, np.ndarray]:
    """Per-topic integer counts: ``num_ret``, ``num_rel_ret`` and per k ``R``, ``U``, ``J``,
    of lines given by topic position, trec_eval rank and grade.

    One ``bincount`` over (topic, band, kind): a line's band is how many cutoffs its
    rank passes (it counts for every larger k), its kind three bits (relevant,
    unjudged, has a qrels line); the counts per k are sums over bands and kinds.
    """
    n_topics = len(qrels.topics)
    cutoffs = sorted(set(ks))
    kind = (is_relevant(grade, qrels.level).astype(np.int64)
            | ((~is_judged(grade)).astype(np.int64) << 1)
            | ((grade != NONPOOL).astype(np.int64) << 2))
    band = np.zeros(len(rank), dtype=np.int64)
    for k in cutoffs:
        band += rank > k
    bands = len(cutoffs) + 1
    cells = np.bincount((topic * bands + band) * 8 + kind, minlength=n_topics * bands * 8)
    cells = cells.reshape(n_topics, bands, 8).astype(np.int64)
    within = np.cumsum(cells, axis=1)  # [:, i]: the lines of rank <= cutoffs[i]
    has = {bit: [value for value in range(8) if value & bit] for bit in (1, 2, 4)}
    counts = {
        "num_ret": cells.sum(axis=(1, 2)),
        "num_rel_ret": cells[:, :, has[1]].sum(axis=(1, 2)),
    }
    for i, k in enumerate(cutoffs):
        counts[f"R{k}"] = within[:, i, has[1]].sum(axis=1)
        counts[f"U{k}"] = within[:, i, has[2]].sum(axis=1)
        counts[f"J{k}"] = within[:, i, has[4]].sum(axis=1)
    return counts


def _columns(
    run_tag: str,
    qrels: QrelsIndex,
    counts: dict[str, np.ndarray],
    ks: Sequence[int],
    keep: np.ndarray,
) -> Columns:
    num_rel = qrels.num_rel[keep]
    num_ret = counts["num_ret"][keep]
    columns: Columns = {
        "run_tag": np.full(int(keep.sum()), run_tag, dtype=object),
        "topic": qrels.topics[keep],
        "num_ret": num_ret,
        "num_rel": num_rel,
        "num_rel_ret": counts["num_rel_ret"][keep],
    }
    per_k = {k: _at_k(k, counts[f"R{k}"][keep], counts[f"U{k}"][keep],
                      counts[f"J{k}"][keep], num_rel, num_ret) for k in ks}
    for name in AT_K:
        for k in ks:
            columns[f"{name}@{k}"] = per_k[k][name]
    return columns


def _at_k(
    k: int,
    rel_ret: np.ndarray,
    unjudged: np.ndarray,
    judged: np.ndarray,
    num_rel: np.ndarray,
    num_ret: np.ndarray,
) -> dict[str, np.ndarray]:
    """The :data:`AT_K` values at cutoff ``k``; double division as trec_eval does."""
    return {
        "num_rel_ret": rel_ret,
        "recall": _ratio(rel_ret, num_rel),
        "P": rel_ret / float(k),
        "ceiling": _ratio(np.minimum(k, num_rel), num_rel),
        "unjudged": unjudged / float(k),
        "judged": _ratio(judged, np.minimum(k, num_ret)),
        "recall_upper": _ratio(rel_ret + unjudged, num_rel + unjudged),
    }


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` as float64, 0 where the denominator is 0."""
    out = np.zeros(len(numerator), dtype=np.float64)
    nonzero = denominator > 0
    out[nonzero] = numerator[nonzero] / denominator[nonzero].astype(np.float64)
    return out
