"""The holes of pooltool.measures.holes against every assignment of grades, scored by
pytrec_eval (trec_eval's own code) or ir_measures (Judged@k), on small seeded cases.

Each case is one topic: a ranked list of up to 10 documents, some judged (grades
0..G), up to 6 unjudged at random ranks, and judged qrels documents that were not
retrieved (some cases have no relevant document). Every assignment of grades
0..G to the unjudged documents (to those of the first k for a measure with a
cutoff) is added to the qrels as its own query and scored by the oracle; every
score must lie in the hole, and the hole's ends must be scores where it says
they are exact.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import ir_measures
import numpy as np
import pytest
import pytrec_eval

from pooltool.errors import InvalidArgument
from pooltool.measures.holes import (
    Hole,
    ap_hole,
    bpref_hole,
    judged_hole,
    ndcg_hole,
    precision_hole,
    rbp_hole,
    recall_hole,
    reciprocal_rank_hole,
    rprec_hole,
    success_hole,
)
from pooltool.measures.holes import ndcg as ndcg_module

TOL = 1e-12


@dataclass(frozen=True)
class Case:
    """One topic: the ranked list (``None`` unjudged), unretrieved judged grades, G, level, k."""

    ranked: tuple[int | None, ...]
    extra: tuple[int, ...]
    max_grade: int
    level: int
    k: int

    @property
    def array(self) -> np.ndarray:
        return np.array([np.nan if g is None else g for g in self.ranked], dtype=float)

    @property
    def qrels_grades(self) -> np.ndarray:
        return np.array([g for g in self.ranked if g is not None] + list(self.extra), dtype=int)


def make_cases(count: int, seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        n = int(rng.integers(1, 11))
        max_grade = int(rng.integers(1, 3))
        unjudged = set(rng.choice(n, size=int(rng.integers(0, min(n, 6) + 1)), replace=False))
        ranked = tuple(None if i in unjudged else int(rng.integers(0, max_grade + 1))
                       for i in range(n))
        extra = tuple(int(g) for g in rng.integers(0, max_grade + 1, size=int(rng.integers(0, 4))))
        level = int(rng.integers(1, max_grade + 2))  # level > G: nothing can be relevant
        cases.append(Case(ranked, extra, max_grade, level, int(rng.integers(1, n + 3))))
    return cases


CASES = make_cases(140, seed=25)
# fixed corners: nothing relevant anywhere (num_rel 0 until graded), all unjudged, none unjudged
CASES += [Case((None, 0, None), (), 1, 1, 2), Case((None,) * 6, (), 2, 1, 4),
          Case((0, 0, 1, 2), (0,), 2, 2, 3), Case((0, None, 0), (0, 0), 2, 1, 10)]


def assignments(case: Case, cut: int | None) -> list[tuple[int, ...]]:
    """The full ranked list's grades under every assignment (to the first ``cut`` unjudged)."""
    depth = len(case.ranked) if cut is None else cut
    holes = [i for i, g in enumerate(case.ranked) if g is None and i < depth]
    out = []
    for grades in itertools.product(range(case.max_grade + 1), repeat=len(holes)):
        filled = list(case.ranked)
        for i, g in zip(holes, grades, strict=True):
            filled[i] = g
        out.append(tuple(-1 if g is None else g for g in filled))  # -1: stays unjudged
    return out


CUT_MEASURES = ("P", "recall", "success", "map_cut", "ndcg_cut")
WHOLE_MEASURES = ("map", "ndcg", "recip_rank", "Rprec", "bpref")


def trec_scores(case: Case, measure: str, cut: int | None) -> np.ndarray:
    """pytrec_eval's ``measure`` for every assignment (``cut``: the case's k or None)."""
    return _scored(case, cut is not None)[measure.replace(".", "_")]


@functools.cache
def _scored(case: Case, cut: bool) -> dict[str, np.ndarray]:
    """Every measure of the family for every assignment: one query per assignment, one
    evaluator per case and family (cached: the tests share them)."""
    filled = assignments(case, case.k if cut else None)
    qrels, run = {}, {}
    for q, grades in enumerate(filled):
        docs = {f"d{i}": g for i, g in enumerate(grades) if g >= 0}
        docs.update({f"x{j}": g for j, g in enumerate(case.extra)})
        qrels[f"q{q}"] = docs
        run[f"q{q}"] = {f"d{i}": float(len(grades) - i) for i in range(len(grades))}
    measures = {f"{m}.{case.k}" for m in CUT_MEASURES} if cut else set(WHOLE_MEASURES)
    result = pytrec_eval.RelevanceEvaluator(qrels, measures,
                                            relevance_level=case.level).evaluate(run)
    keys = [m.replace(".", "_") for m in measures]
    return {key: np.array([result[f"q{q}"][key] for q in range(len(filled))]) for key in keys}


def check(hole: Hole, scores: np.ndarray) -> None:
    assert scores.min() >= hole.low - TOL and scores.max() <= hole.high + TOL, (hole, scores)
    if hole.low_exact:
        assert abs(scores.min() - hole.low) <= TOL, (hole, scores.min())
    if hole.high_exact:
        assert abs(scores.max() - hole.high) <= TOL, (hole, scores.max())


Hole3 = Callable[[Case], Hole]

CUT: dict[str, Hole3] = {
    "P": lambda c: precision_hole(c.array, c.qrels_grades, c.k, c.max_grade, c.level),
    "recall": lambda c: recall_hole(c.array, c.qrels_grades, c.k, c.max_grade, c.level),
    "success": lambda c: success_hole(c.array, c.qrels_grades, c.k, c.max_grade, c.level),
    "map_cut": lambda c: ap_hole(c.array, c.qrels_grades, c.max_grade, c.level, k=c.k),
    "ndcg_cut": lambda c: ndcg_hole(c.array, c.qrels_grades, c.max_grade, k=c.k),
}
WHOLE: dict[str, Hole3] = {
    "map": lambda c: ap_hole(c.array, c.qrels_grades, c.max_grade, c.level),
    "ndcg": lambda c: ndcg_hole(c.array, c.qrels_grades, c.max_grade),
    "recip_rank": lambda c: reciprocal_rank_hole(c.array, c.qrels_grades, c.max_grade, c.level),
    "Rprec": lambda c: rprec_hole(c.array, c.qrels_grades, c.max_grade, c.level),
    "bpref": lambda c: bpref_hole(c.array, c.qrels_grades, c.max_grade, c.level),
}


@pytest.mark.parametrize("name", sorted(CUT))
def test_cutoff_measures_against_trec_eval(name: str) -> None:
    for case in CASES:
        check(CUT[name](case), trec_scores(case, f"{name}.{case.k}", case.k))


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_whole_ranking_measures_against_trec_eval(name: str) -> None:
    for case in CASES:
        check(WHOLE[name](case), trec_scores(case, name, None))


def test_the_cases_reach_both_sides_of_the_questions() -> None:
    """The cases hold unjudged documents that change the scores, and topics with num_rel 0."""
    widths = [ndcg_hole(c.array, c.qrels_grades, c.max_grade).width for c in CASES]
    assert sum(w > 0 for w in widths) > 60
    assert sum(int((c.qrels_grades >= c.level).sum()) == 0 for c in CASES) > 10
    assert max(sum(g is None for g in c.ranked) for c in CASES) == 6


def test_ndcg_bound_contains_every_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback when Dinkelbach's method does not settle (forced: no step allowed)."""
    monkeypatch.setattr(ndcg_module, "ITERATIONS", 0)
    for case in CASES:
        hole = ndcg_hole(case.array, case.qrels_grades, case.max_grade, k=case.k)
        scores = trec_scores(case, f"ndcg_cut.{case.k}", case.k)
        assert scores.min() >= hole.low - TOL and scores.max() <= hole.high + TOL
        assert not (hole.low_exact or hole.high_exact)


def test_ndcg_ends_on_long_rankings_against_trec_eval() -> None:
    """30 unjudged documents among 60, grades 0..2: every assignment with the grades in
    descending (ascending) order down the ranking, one per chain t_1 >= t_2, scored by
    pytrec_eval; the hole's high (low) is their max (min), as the rearrangement
    inequality says it must be (checked on every assignment by the tests above)."""
    rng = np.random.default_rng(8)
    grades = rng.integers(0, 3, 60).astype(float)
    grades[rng.choice(60, 30, replace=False)] = np.nan
    holes = np.flatnonzero(np.isnan(grades))
    extra = rng.integers(0, 3, 20)
    qrels, run = {}, {}
    for t1 in range(31):
        for t2 in range(t1 + 1):
            for name in ("desc", "asc"):
                filled = np.nan_to_num(grades, nan=0.0)
                slots = holes if name == "desc" else holes[::-1]
                filled[slots[:t2]] = 2
                filled[slots[t2:t1]] = 1
                q = f"{name}-{t1}-{t2}"
                qrels[q] = {f"d{i}": int(g) for i, g in enumerate(filled)}
                qrels[q].update({f"x{j}": int(g) for j, g in enumerate(extra)})
                run[q] = {f"d{i}": float(60 - i) for i in range(60)}
    result = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)
    judged = np.concatenate([grades[~np.isnan(grades)], extra]).astype(int)
    hole = ndcg_hole(grades, judged, 2)
    assert hole.high == pytest.approx(max(v["ndcg"] for q, v in result.items()
                                          if q.startswith("desc")), abs=TOL)
    assert hole.low == pytest.approx(min(v["ndcg"] for q, v in result.items()
                                         if q.startswith("asc")), abs=TOL)


def test_judged_at_k_against_ir_measures() -> None:
    """judged@k over partial judging: each unjudged top-k document judged (grade 0) or not."""
    for case in CASES[:60]:
        ranked = case.ranked[:case.k]
        holes = [i for i, g in enumerate(ranked) if g is None]
        run = [ir_measures.ScoredDoc("q", f"d{i}", float(len(case.ranked) - i))
               for i in range(len(case.ranked))]
        scores = []
        for judged in itertools.product((False, True), repeat=len(holes)):
            qrels = [ir_measures.Qrel("q", f"d{i}", g) for i, g in enumerate(case.ranked)
                     if g is not None]
            qrels += [ir_measures.Qrel("q", f"d{i}", 0) for i, j in zip(holes, judged,
                                                                     strict=True) if j]
            qrels.append(ir_measures.Qrel("q", "x-anchor", 0))  # the topic is in the qrels
            measure = ir_measures.Judged @ case.k
            scores.append(ir_measures.calc_aggregate([measure], qrels, run)[measure])
        check(judged_hole(case.array, case.k), np.array(scores))


def rbp(gains: list[float], p: float) -> float:
    """RBP written out from Moffat & Zobel (2008), eq. 2: (1 - p) sum gain_i p^(i - 1)."""
    return (1 - p) * sum(gain * p ** i for i, gain in enumerate(gains))


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_against_its_definition(p: float) -> None:
    for case in CASES:
        scale, level = (case.max_grade if case.max_grade > 1 else 1), case.level
        filled = assignments(case, None)
        graded = [rbp([max(g, 0) / scale for g in a], p) for a in filled]
        check(rbp_hole(case.array, case.max_grade, p), np.array(graded))
        binary = [rbp([float(g >= level) for g in a], p) for a in filled]
        check(rbp_hole(case.array, case.max_grade, p, level=case.level), np.array(binary))


def test_rbp_residual_is_trec_evals_rbp_resid() -> None:
    """m_rbp_resid.c on grades [1, unjudged, 0, unjudged], p = 0.5: p^4 + 0.5 (0.5 + 0.125)."""
    hole = rbp_hole(np.array([1, np.nan, 0, np.nan]), 1, 0.5, beyond_end=True)
    assert hole.width == pytest.approx(0.5 ** 4 + 0.5 * (0.5 + 0.125), abs=1e-15)
    assert not hole.high_exact and hole.low_exact


def test_recall_high_is_recall_upper() -> None:
    """per_topic's recall_upper@3: (R + U) / (num_rel + U) = (1 + 1) / (2 + 1)."""
    hole = recall_hole(np.array([1, np.nan, 0, np.nan]), np.array([1, 0, 2]), 3, 2)
    assert hole.high == pytest.approx(2 / 3) and hole.low == pytest.approx(1 / 2)


@pytest.mark.parametrize("call", [
    lambda: precision_hole(np.array([1.0]), np.array([1]), 0, 1),
    lambda: ap_hole(np.array([3.0]), np.array([3]), 2),
    lambda: recall_hole(np.array([1.0]), np.array([1]), 1, 1, level=0),
    lambda: rbp_hole(np.array([1.0]), 1, p=1.0),
    lambda: judged_hole(np.array([1.0]), 0),
])
def test_bad_arguments_are_refused(call: Callable[[], Hole]) -> None:
    with pytest.raises(InvalidArgument):
        call()


@pytest.mark.parametrize("measure", ["map", "bpref"])
def test_ap_and_bpref_ends_on_long_rankings_against_trec_eval(measure: str) -> None:
    """80 documents, 35 unjudged, 15 judged nonrelevant unretrieved: the first r (for the
    high) and the last r (for the low) unjudged made relevant, r = 0..35, scored by
    pytrec_eval; the hole's ends are their max and min (the exchange lemma, checked on
    every assignment above, says no other assignment goes further)."""
    rng = np.random.default_rng(31)
    grades = (rng.random(80) < 0.3).astype(float)
    grades[rng.choice(80, 35, replace=False)] = np.nan
    holes = np.flatnonzero(np.isnan(grades))
    qrels, run = {}, {}
    for r in range(36):
        for name, chosen in (("first", holes[:r]), ("last", holes[len(holes) - r:])):
            filled = np.nan_to_num(grades, nan=0.0)
            filled[chosen] = 1
            q = f"{name}-{r}"
            qrels[q] = {f"d{i}": int(g) for i, g in enumerate(filled)}
            qrels[q].update({f"x{j}": 0 for j in range(15)})
            run[q] = {f"d{i}": float(80 - i) for i in range(80)}
    result = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    judged = np.concatenate([grades[~np.isnan(grades)], np.zeros(15)]).astype(int)
    hole = (ap_hole if measure == "map" else bpref_hole)(grades, judged, 1)
    assert hole.high == pytest.approx(max(v[measure] for q, v in result.items()
                                          if q.startswith("first")), abs=TOL)
    assert hole.low == pytest.approx(min(v[measure] for q, v in result.items()
                                         if q.startswith("last")), abs=TOL)
