"""Replay pooling strategies against complete qrels: relevant found per budget, and the bias.

As in the literature (Losada, Parapar and Barreiro 2016, 2017; Lipani et al.
2017), the qrels stand for complete judgments: a document the strategy picks
that has no qrels line counts as non-relevant. Each strategy judges, topic by
topic, up to the largest budget (judgments per topic); the first ``b``
judgments of a topic are its partial qrels at budget ``b`` (each with its
grade in the qrels, 0 for a document without a line).

The bias a budget induces: every run's Recall@k and P@k (trec_eval 10.0's, as
:func:`pooltool.measures.recall.evaluate_recall` computes them; the tests check
that :class:`RunScorer` gives the same values) under the partial qrels
against under the full qrels: MAE, the mean over runs of the absolute
difference of the means over topics; Kendall's tau-b and tau_ap (Yilmaz,
Aslam and Robertson 2008) between the rankings of the runs by Recall@k under
the full and under the partial qrels (:mod:`pooltool.analysis.stability`).

Only topics both in the qrels and in some run are simulated and scored.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.analysis.stability import ranking_correlations
from pooltool.errors import PooltoolError
from pooltool.formats.frames import check_qrels_frame, check_run_frame
from pooltool.judging.strategies import RankedRun, Strategy, judge_sequence, topic_runs
from pooltool.measures.summary import trec_mean
from pooltool.ranking import first_seen, stretch_codes, trec_ranks
from pooltool.records import is_relevant, topic_key


@dataclass(frozen=True)
class SimulationResult:
    """What :func:`simulate` returns. Budgets are judgments per topic.

    :ivar summary: one row per strategy x budget: ``strategy, budget, spent``
        (judgments made over all topics, fewer than budget x topics where a
        strategy ran out), ``found`` (relevant judgments, all topics),
        ``num_rel`` (relevant in the qrels, simulated topics), ``found_share``
        (found / num_rel, 0..1), ``MAE_recall``, ``MAE_P`` (mean over runs of
        |mean partial - mean full| of Recall@k and P@k), ``Kendall_tau``,
        ``tau_ap`` (full vs partial ranking by Recall@k; NaN when a side is
        constant); with a ``measure``, also ``MAE_score``, ``Kendall_tau_score``,
        ``tau_ap_score``: the same for that measure and the ranking by it.
    :ivar per_topic: one row per strategy x budget x topic: ``strategy,
        budget, topic, spent, found, num_rel, found_share``.
    :ivar per_run: one row per strategy x budget x run: ``strategy, budget,
        run_tag, recall, recall_partial, P, P_partial`` (means over topics); with a
        ``measure``, also ``score, score_partial``.
    :ivar curve: one row per strategy x judgments per topic n = 1..largest
        budget: ``strategy, judgments, found`` (relevant found over all
        topics in each topic's first n judgments).
    :ivar topics: the simulated topics, numeric ids in numeric order (the order of
        ``per_topic``).
    :ivar left_out: qrels topics no run retrieved documents for (not simulated).
    :ivar k, level: the cutoff and the relevance level.
    """

    summary: pd.DataFrame
    per_topic: pd.DataFrame
    per_run: pd.DataFrame
    curve: pd.DataFrame
    topics: list[str]
    left_out: list[str]
    k: int
    level: int


def simulate(runs: pd.DataFrame, qrels: pd.DataFrame, strategies: list[Strategy],
             budgets: list[int], k: int = 100, level: int = 1,
             measure: str | None = None) -> SimulationResult:
    """Replay each strategy with each budget against ``qrels``.

    :param runs: run lines ``run_tag, topic, docno, score`` (as
        :func:`~pooltool.formats.run.read_run` returns); every run takes part
        in every strategy. A ``trec_rank`` column, if present, is trusted as each
        line's trec_eval rank (as :func:`~pooltool.ranking.trec_ranks` gives it).
    :param qrels: the complete judgments, ``topic, docno, grade``.
    :param strategies: the strategies (:func:`~pooltool.judging.strategies.parse_strategy`);
        labels must differ.
    :param budgets: judgments per topic, each >= 1.
    :param k: the cutoff of Recall@k and P@k.
    :param level: relevant means grade >= ``level``.
    :param measure: also the bias of any mean measure (``map``, ``nDCG@10``; see
        :func:`pooltool.measures.topic_scores.one_measure`), scored whole by
        trec_eval's definition under the full and each partial qrels: ``per_run``
        gains ``score, score_partial``, ``summary`` gains ``MAE_score``,
        ``Kendall_tau_score`` and ``tau_ap_score`` (the rankings by the measure).
    :returns: a :class:`SimulationResult`.
    :raises PooltoolError: no strategy, no budget, a budget or k below 1,
        strategies with the same label, or no topic both in the runs and in
        the qrels.
    :raises InvalidArgument: a per-run parameter naming a run not in ``runs``.
    """
    _check_options(strategies, budgets, k)
    if measure is not None:
        from pooltool.measures.topic_scores import one_measure  # trec_eval's measures: -m only

        one_measure(measure)
    check_run_frame(runs)
    check_qrels_frame(qrels)
    run_tags = first_seen(runs["run_tag"].to_numpy(dtype=object))  # strings: checked above
    for strategy in strategies:
        strategy.check_run_tags(run_tags)
    # numbered, not reordered; load_runs(ranked=True) numbers them as it reads them
    lines = runs if "trec_rank" in runs.columns else runs.assign(trec_rank=trec_ranks(runs))
    ranked = topic_runs(lines)
    judged_topics = {str(topic) for topic in pd.unique(qrels["topic"].to_numpy(dtype=object))}
    topics = sorted(set(ranked) & judged_topics, key=topic_key)
    if not topics:
        raise PooltoolError("no topic is both in the runs and in the qrels: nothing to simulate")
    qrels = qrels[qrels["topic"].isin(topics)]
    relevant = _relevant(qrels, level)
    picks = _picks(strategies, ranked, topics, relevant, max(budgets))
    per_topic = _per_topic(picks, budgets, relevant, topics)
    # every line's topic is one of ranked's: only when the qrels leave one out is there a
    # line to drop (isin hashes every line's topic)
    simulated = lines if len(topics) == len(ranked) else lines[lines["topic"].isin(topics)]
    scorer = RunScorer(simulated[simulated["trec_rank"] <= k], k, level)
    grades = _grades(qrels)  # once, for the bias of Recall@k and P@k and of -m's measure
    per_run = _per_run(scorer, picks, budgets, qrels, grades)
    if measure is not None:
        per_run = _with_measure(per_run, simulated, qrels, grades, picks, budgets, measure,
                                level)
    summary = _summary(per_topic, per_run)
    return SimulationResult(summary, per_topic, per_run, _curve(picks, relevant),
                            topics, sorted(judged_topics - set(ranked), key=topic_key), k, level)


def _check_options(strategies: list[Strategy], budgets: list[int], k: int) -> None:
    if not strategies or not budgets:
        raise PooltoolError("give at least one strategy and one budget")
    if min(budgets) < 1 or k < 1:
        raise PooltoolError(f"budgets and k must be at least 1 (got budgets "
                            f"{', '.join(map(str, budgets))}, k {k})")
    labels = [s.label for s in strategies]
    if len(set(labels)) < len(labels):
        raise PooltoolError(f"a strategy is given twice: {', '.join(labels)}")


def _relevant(qrels: pd.DataFrame, level: int) -> dict[str, frozenset[str]]:
    """Per topic with a relevant document, its relevant docnos (from lists: a groupby of
    the qrels' string columns cost ten times as much)."""
    hits = qrels[is_relevant(qrels["grade"], level)]
    found: dict[str, set[str]] = {}
    for topic, docno in zip(hits["topic"].tolist(), hits["docno"].tolist(), strict=True):
        found.setdefault(str(topic), set()).add(str(docno))
    return {topic: frozenset(docnos) for topic, docnos in found.items()}


def _picks(strategies: list[Strategy], ranked: dict[str, tuple[RankedRun, ...]],
           topics: list[str], relevant: dict[str, frozenset[str]],
           budget: int) -> dict[str, dict[str, list[str]]]:
    """Per strategy label, per topic, the documents the strategy judges, in order (at
    most ``budget``). Topic by topic, every strategy in turn: the fusions share the
    topic's docno codes (:func:`pooltool.judging.static_orders.fused_order` keeps the
    last few); each chooser depends on its topic's runs alone."""
    picks: dict[str, dict[str, list[str]]] = {s.label: {} for s in strategies}
    for topic in topics:
        for strategy in strategies:
            picks[strategy.label][topic] = judge_sequence(
                strategy.chooser(ranked[topic], topic, budget), relevant.get(topic, frozenset()),
                budget)
    return picks


def _per_topic(picks: dict[str, dict[str, list[str]]], budgets: list[int],
               relevant: dict[str, frozenset[str]], topics: list[str]) -> pd.DataFrame:
    rows = []
    for label, chosen in picks.items():
        for budget in budgets:
            for topic in topics:
                judged = chosen[topic][:budget]
                found = sum(docno in relevant.get(topic, ()) for docno in judged)
                num_rel = len(relevant.get(topic, ()))
                rows.append({"strategy": label, "budget": budget, "topic": topic,
                             "spent": len(judged), "found": found, "num_rel": num_rel,
                             "found_share": found / num_rel if num_rel else 0.0})
    return pd.DataFrame(rows)


def _grades(qrels: pd.DataFrame) -> dict[tuple[str, str], int] | None:
    """(topic, docno) -> grade, when each pair has one line in ``qrels`` (else ``None``:
    a pair listed twice is listed twice in a partial qrels, as the merge gives it)."""
    pairs = list(zip(qrels["topic"].tolist(), qrels["docno"].tolist(), strict=True))
    grades = dict(zip(pairs, qrels["grade"].tolist(), strict=True))
    return grades if len(grades) == len(pairs) else None


def _partial(chosen: dict[str, list[str]], budget: int, qrels: pd.DataFrame,
             grades: dict[tuple[str, str], int] | None = None) -> pd.DataFrame:
    """The partial qrels: each topic's first ``budget`` picks with their qrels grade (-1 if
    none); looked up in ``grades`` (:func:`_grades` of ``qrels``) when given, which is the
    merge's result without its cost (12 merges of every budget's picks with the qrels)."""
    picked = [(topic, docno) for topic, docnos in chosen.items() for docno in docnos[:budget]]
    if grades is not None and picked:
        return pd.DataFrame({"topic": [topic for topic, _ in picked],
                             "docno": [docno for _, docno in picked],
                             "grade": np.array([grades.get(pair, -1) for pair in picked],
                                               dtype=np.int64)})
    pairs = pd.DataFrame(picked, columns=["topic", "docno"])
    graded = pairs.merge(qrels[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")
    graded["grade"] = graded["grade"].fillna(-1).astype(np.int64)
    return graded


def _per_run(scorer: RunScorer, picks: dict[str, dict[str, list[str]]], budgets: list[int],
             qrels: pd.DataFrame, grades: dict[tuple[str, str], int] | None) -> pd.DataFrame:
    """One row per strategy x budget x run (tag order): Recall@k and P@k under the full
    and under the partial qrels (:class:`SimulationResult`'s ``per_run``); ``grades``:
    :func:`_grades` of ``qrels``."""
    full_recall, full_p = scorer.scores(qrels)
    columns: dict[str, list[np.ndarray]] = {name: [] for name in ("recall_partial", "P_partial")}
    for chosen in picks.values():
        for budget in budgets:
            if grades is None:  # a pair listed twice: the merged partial qrels, twice too
                recall, precision = scorer.scores(_partial(chosen, budget, qrels))
            else:
                recall, precision = scorer.scores_of_picks(chosen, budget, grades)
            columns["recall_partial"].append(recall)
            columns["P_partial"].append(precision)
    tags, rounds = len(scorer.tags), len(picks) * len(budgets)
    return pd.DataFrame({
        "strategy": np.repeat(np.array(list(picks), dtype=object), len(budgets) * tags),
        "budget": np.tile(np.repeat(np.array(budgets, dtype=np.int64), tags), len(picks)),
        "run_tag": np.tile(np.array(scorer.tags, dtype=object), rounds),
        "recall": np.tile(full_recall, rounds),
        "recall_partial": np.concatenate(columns["recall_partial"]),
        "P": np.tile(full_p, rounds),
        "P_partial": np.concatenate(columns["P_partial"])})


class RunScorer:
    """Mean Recall@k and P@k of fixed runs under many qrels, as trec_eval 10.0 computes them.

    Recall@k = num_rel_ret@k / num_rel (0 when num_rel is 0; ``m_recall.c``) and
    P@k = num_rel_ret@k / k (``m_P.c``) per topic, then each run's mean over its
    topics summed in topic (string) order (:func:`~pooltool.measures.summary.trec_mean`).
    Every topic of ``top`` must be in each qrels scored (so every topic counts,
    as in trec_eval); :func:`simulate` guarantees it.

    :param top: the runs' first ``k`` documents per topic (``run_tag, topic, docno``), in
        any row order; runs are scored and listed in run-tag (string) order.
    """

    def __init__(self, top: pd.DataFrame, k: int, level: int) -> None:
        self.k, self.level = k, level
        # each line's (run, topic) cell, cells in (tag, topic) string order; from the
        # codes of each key in string order (factorizing the pairs themselves made a
        # tuple per line), hashed once per stretch of lines
        tag_code, tags = stretch_codes(top["run_tag"].to_numpy(dtype=object))
        topic_code, topic_names = stretch_codes(top["topic"].to_numpy(dtype=object))
        self.tags = list(tags)  # as order_run lists them
        topics = list(topic_names)
        present, self.cell = np.unique(tag_code * len(topics) + topic_code, return_inverse=True)
        self.cell_count = len(present)
        # each line's (topic, docno) as a code into the distinct pairs, whose index (a
        # hash table, built once) finds a qrels' relevant pairs: hashing the 45,000 lines
        # again for each of the strategies' partial qrels was most of a scoring
        self.pair, pairs = pd.factorize((top["topic"] + " " + top["docno"]).to_numpy())
        self.pairs = pd.Index(pairs)
        self.cell_topics = [topics[code] for code in (present % len(topics)).tolist()]
        runs = present // len(topics)
        self.members = [np.flatnonzero(runs == tag) for tag in range(len(self.tags))]

    def scores(self, qrels: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Per run, in tag order (:attr:`tags`): mean Recall@k and mean P@k over topics
        (0..1) under ``qrels`` (``topic, docno, grade``), two float64 arrays."""
        relevant = qrels[is_relevant(qrels["grade"], self.level)]
        return self._scores((relevant["topic"] + " " + relevant["docno"]).to_numpy(),
                            Counter(relevant["topic"].tolist()))

    def scores_of_picks(self, chosen: dict[str, list[str]], budget: int,
                        grades: dict[tuple[str, str], int]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`scores` under the partial qrels of each topic's first ``budget`` picks in
        ``chosen`` (topic -> docnos), graded by ``grades`` (:func:`_grades`; -1 when
        not listed): what :meth:`scores` of :func:`_partial`'s frame gives."""
        found = [(topic, docno) for topic, docnos in chosen.items() for docno in docnos[:budget]
                 if is_relevant(grades.get((topic, docno), -1), self.level)]
        keys = np.array([f"{topic} {docno}" for topic, docno in found], dtype=object)
        return self._scores(keys, Counter(topic for topic, _ in found))

    def _scores(self, relevant_pairs: np.ndarray,
                num_rel: Counter[str]) -> tuple[np.ndarray, np.ndarray]:
        """Mean Recall@k and P@k per run, given the relevant pairs (``"topic docno"``
        strings) and each topic's number of relevant documents."""
        found = self.pairs.get_indexer(relevant_pairs) if len(relevant_pairs) else \
            np.zeros(0, dtype=np.intp)
        relevant_pair = np.zeros(len(self.pairs), dtype=bool)
        relevant_pair[found[found >= 0]] = True
        hits = relevant_pair[self.pair]
        rel_ret = np.bincount(self.cell, weights=hits, minlength=self.cell_count)
        topic_rel = np.array([num_rel.get(topic, 0) for topic in self.cell_topics],
                             dtype=np.float64)
        recall = np.divide(rel_ret, topic_rel, out=np.zeros_like(rel_ret), where=topic_rel > 0)
        precision = rel_ret / self.k
        return (np.array([trec_mean(recall[mine], len(mine)) for mine in self.members]),
                np.array([trec_mean(precision[mine], len(mine)) for mine in self.members]))


def _with_measure(per_run: pd.DataFrame, lines: pd.DataFrame, qrels: pd.DataFrame,
                  grades: dict[tuple[str, str], int] | None,
                  picks: dict[str, dict[str, list[str]]], budgets: list[int], measure: str,
                  level: int) -> pd.DataFrame:
    """``per_run`` with ``score`` (the measure under the full qrels) and ``score_partial``
    (under each strategy x budget's partial qrels), trec_eval's means over topics;
    ``grades``: :func:`_grades` of ``qrels``."""
    from pooltool.measures.topic_scores import ranked_lines, topic_scores

    ranked = ranked_lines(lines)  # ordered once for every strategy x budget's evaluation

    def means(judged: pd.DataFrame) -> pd.Series:
        return topic_scores(ranked, judged, measure, level,
                            ranked=True).summary.set_index("run_tag")["value"]

    full = means(qrels)
    partial = pd.concat([means(_partial(chosen, b, qrels, grades)).rename("score_partial")
                         .reset_index()
                         .assign(strategy=label, budget=b)
                         for label, chosen in picks.items() for b in budgets], ignore_index=True)
    merged = per_run.merge(partial, on=["strategy", "budget", "run_tag"], how="left")
    return merged.assign(score=merged["run_tag"].map(full))[[*per_run.columns, "score",
                                                             "score_partial"]]


def _summary(per_topic: pd.DataFrame, per_run: pd.DataFrame) -> pd.DataFrame:
    """One row per strategy x budget. ``per_topic`` and ``per_run`` hold one block of rows
    per strategy x budget, in the same order, as :func:`_per_topic` and :func:`_per_run`
    make them; the rankings are compared without :func:`compare_rankings`' table (twelve
    tables were a tenth of a simulation)."""
    rounds = per_topic[["strategy", "budget"]].drop_duplicates()
    topics, runs = len(per_topic) // len(rounds), len(per_run) // len(rounds)
    measured = "score" in per_run.columns
    rows = []
    for i, (label, budget) in enumerate(zip(rounds["strategy"], rounds["budget"], strict=True)):
        mine = per_run.iloc[i * runs:(i + 1) * runs]
        topic_rows = per_topic.iloc[i * topics:(i + 1) * topics]
        tags = mine["run_tag"].tolist()
        kendall, ap = ranking_correlations(tags, mine["recall"].tolist(),
                                           mine["recall_partial"].tolist())
        num_rel = int(topic_rows["num_rel"].sum())
        found = int(topic_rows["found"].sum())
        rows.append({
            "strategy": label, "budget": int(budget), "spent": int(topic_rows["spent"].sum()),
            "found": found, "num_rel": num_rel, "found_share": found / num_rel if num_rel else 0.0,
            "MAE_recall": float((mine["recall_partial"] - mine["recall"]).abs().mean()),
            "MAE_P": float((mine["P_partial"] - mine["P"]).abs().mean()),
            "Kendall_tau": kendall, "tau_ap": ap})
        if measured:
            kendall, ap = ranking_correlations(tags, mine["score"].tolist(),
                                               mine["score_partial"].tolist())
            rows[-1].update({
                "MAE_score": float((mine["score_partial"] - mine["score"]).abs().mean()),
                "Kendall_tau_score": kendall, "tau_ap_score": ap})
    return pd.DataFrame(rows)


def _curve(picks: dict[str, dict[str, list[str]]],
           relevant: dict[str, frozenset[str]]) -> pd.DataFrame:
    frames = []
    for label, chosen in picks.items():
        longest = max(len(docnos) for docnos in chosen.values())
        gains = np.zeros(longest, dtype=np.int64)
        for topic, docnos in chosen.items():
            hits = np.array([docno in relevant.get(topic, ()) for docno in docnos], dtype=np.int64)
            gains[:len(hits)] += hits
        frames.append(pd.DataFrame({"strategy": label, "judgments": np.arange(1, longest + 1),
                                    "found": np.cumsum(gains)}))
    return pd.concat(frames, ignore_index=True)
