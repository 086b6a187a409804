"""Inferred AP from a stratified sample (xinfAP: Yilmaz, Kanoulas & Aslam 2008, 'A
simple and efficient sampling method for estimating AP and NDCG', SIGIR), as NIST's
``sample_eval.pl`` computes it from a ``strata`` file
(:func:`pooltool.formats.prels.read_prels`).

Per topic, with ``N_c`` the listed documents of stratum c, ``n_c`` its judged ones and
``r_c`` its judged relevant ones (grade >= level):

* ``R_hat = sum_c r_c N_c / n_c``;
* walking the run in trec_eval order (score descending, ties by docno descending; the
  first ``max_docs`` documents, sample_eval.pl's 1000), at a relevant document at rank
  ``k`` of stratum c the estimated precision is ``1/k + (d/k) * sum_c' (d_c'/d) *
  (m_c' + e) / (s_c' + 3e)`` with ``e = 0.00001``: ``d`` the listed documents above
  rank k, ``d_c'``, ``s_c'``, ``m_c'`` those of stratum c', its judged ones and its
  relevant judged ones above k; it is added to ``SAP_c``;
* ``xinfAP = sum_c (r_c N_c / n_c) / R_hat * SAP_c / r_c`` over strata with ``r_c > 0``
  (0 when R_hat is 0).

The strata are visited in the string order of their labels (Perl's ``sort keys``), so
the sums are added in sample_eval.pl's order (on the 15 TREC-COVID round 1 runs and a
three-stratum file, the 450 per-topic values equal sample_eval.pl's printed with 12
decimals). With one stratum this is trec_eval's ``infAP`` (m_infAP.c) on the same file
read as qrels, but for the smoothing: trec_eval divides by ``s + 2e``, sample_eval.pl by
``s + 3e``, which moves a value by about ``e / s`` where the ``s`` documents judged above
each relevant one are at least 1, and much more where every pooled document above a
relevant one is unjudged (``s = 0``: 1/3 against trec_eval's 1/2). Unlike
sample_eval.pl, leading zeros of a run's topic ids are kept (it strips them from the
run's, not the file's).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pooltool.ranking import order_run
from pooltool.records import is_judged, is_relevant, topic_key

#: sample_eval.pl's smoothing constant (numerator ``+ e``, denominator ``+ 3e``).
EPSILON = 0.00001

#: sample_eval.pl's ``$maxResultSize``: documents of a run counted per topic.
MAX_RESULT_SIZE = 1000


def xinf_ap(runs: pd.DataFrame, prels: pd.DataFrame, level: int = 1,
            max_docs: int = MAX_RESULT_SIZE) -> pd.DataFrame:
    """xinfAP of each run on each topic it shares with the file (module docstring).

    :param runs: ``run_tag, topic, docno, score``.
    :param prels: ``topic, docno, grade, stratum`` (a ``strata`` file; grade -1: listed,
        not sampled).
    :param level: the lowest relevant grade.
    :param max_docs: the documents of a run counted per topic.
    :returns: ``run_tag, topic, est_R`` (R_hat, documents), ``xinfAP`` (0..1), one row
        per run and topic, topics in pooltool's topic order.
    """
    ordered = order_run(runs[["run_tag", "topic", "docno", "score"]])
    ordered = ordered[ordered["trec_rank"] <= max_docs]
    universe = {topic: _Topic(group, level) for topic, group in prels.groupby("topic")}
    rows = []
    for (tag, topic), lines in ordered.groupby(["run_tag", "topic"], sort=False):
        if topic in universe:
            rows.append((tag, topic, universe[topic].r_hat,
                         universe[topic].average_precision(list(lines["docno"]))))
    out = pd.DataFrame(rows, columns=["run_tag", "topic", "est_R", "xinfAP"])
    order = sorted(range(len(out)), key=lambda i: (str(out["run_tag"].iloc[i]),
                                                   topic_key(out["topic"].iloc[i])))
    return out.iloc[order].reset_index(drop=True)


class _Topic:
    """One topic's listed documents by stratum, and what its sample found."""

    def __init__(self, group: pd.DataFrame, level: int) -> None:
        self.labels = sorted(str(s) for s in pd.unique(group["stratum"]))
        index = {label: c for c, label in enumerate(self.labels)}
        grades = group["grade"].to_numpy(dtype=np.int64)
        self.relevant = is_relevant(group["grade"], level).to_numpy(dtype=bool)
        strata = [index[str(s)] for s in group["stratum"]]
        self.docs = {d: (c, int(g), bool(r)) for d, c, g, r in
                     zip(group["docno"], strata, grades, self.relevant, strict=True)}
        width = len(self.labels)
        self.listed = np.bincount(strata, minlength=width)
        self.judged = np.bincount(strata, weights=is_judged(grades), minlength=width)
        self.judged_relevant = np.bincount(strata, weights=self.relevant, minlength=width)
        self.r_hat = 0.0
        for c in range(width):
            if self.judged[c] != 0:
                self.r_hat += self.judged_relevant[c] * self.listed[c] / self.judged[c]

    def average_precision(self, docnos: list[str]) -> float:
        """xinfAP of a ranked list of docnos (trec_eval order)."""
        width = len(self.labels)
        listed, judged, found = (np.zeros(width) for _ in range(3))
        summed = np.zeros(width)
        above = 0
        for rank, docno in enumerate(docnos, start=1):
            stratum, grade, relevant = self.docs.get(docno, (-1, -1, False))
            if relevant:
                share = 0.0
                for c in range(width):
                    if above != 0 and listed[c] / above != 0:
                        share += (listed[c] / above) * (found[c] + EPSILON) / (
                            judged[c] + 3 * EPSILON)
                summed[stratum] += 1 / rank + (above / rank) * share
                found[stratum] += 1
            if stratum >= 0:
                above += 1
                listed[stratum] += 1
                judged[stratum] += is_judged(grade)
        total = 0.0
        for c in range(width):
            if self.judged[c] != 0 and self.r_hat != 0:
                in_stratum = self.judged_relevant[c] * self.listed[c] / self.judged[c]
                mean = summed[c] / self.judged_relevant[c] if self.judged_relevant[c] else 0.0
                total += in_stratum / self.r_hat * mean
        return total
