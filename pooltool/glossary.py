"""What every reported column means, and where its definition comes from.

``pooltool explain NAME`` prints these entries and docs/glossary.md lists
them. A column written ``NAME@k`` (per-topic rows, ``bias`` new runs) is the
entry ``NAME`` at cutoff k; ``NAME_a`` / ``NAME_b`` / ``NAME_change`` (``impact``,
``qrels diff``) are ``NAME`` under qrels A, under B, and B minus A.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Term(NamedTuple):
    """A glossary entry: what the column holds, and the source of the definition."""

    definition: str
    source: str


TREC_EVAL = "trec_eval 10.0"
_RECALL = "Recall@k = num_rel_ret@k / num_rel"
_LOO = ("leave-one-out pool bias (Zobel 1998, 'How reliable are the results of large-scale "
        "IR experiments?'; Buckley et al. 2007, 'Bias and the limits of pooling')")

_ALPHA = ("Krippendorff 2011, 'Computing Krippendorff's alpha-reliability'; the "
          "krippendorff package")
_CORRECTION = ("Webber and Park 2009, 'Score adjustment for correction of pooling bias'; "
               "Lipani, Lupu and Hanbury 2015, 'Splitting water: precision and "
               "anti-precision to reduce pool bias' (pooltool/analysis/bias_correction.py)")
_ESTIMATE = "An estimate from a judged sample beyond the pool (recall --estimate): "
_BETA = ("Ericson 1969 (Beta-binomial posterior of a finite population); Gelman et al. 2013, "
         "'Bayesian Data Analysis', sec. 5.3 (hierarchical Beta-binomial model: the prior "
         "the topics share, drawn from its posterior); Chen and Shao 1999 (the shortest "
         "interval from draws)")

GLOSSARY: dict[str, Term] = {
    # identifiers
    "run_tag": Term("The run's name (the 6th column of a TREC run line).", "TREC run format"),
    "topic": Term("The topic (query) id; 'all' is the row over every topic.", "TREC format"),
    "run": Term("eval: the run's tag (run_tag).", "TREC run format"),
    "measure": Term("eval: the measure's name as asked for in ir_measures' spelling "
                    "(nDCG@10), else as trec_eval prints it (P_10, ndcg_cut_10); the formula "
                    "and its m_*.c file are in pooltool/measures/trec/.",
                    f"{TREC_EVAL} (measures.c); ir_measures 0.4 (parse_measure)"),
    "value": Term("eval: the measure's value for the run and topic (a fraction, a count, or "
                  "relstring's grades); on an 'all' row trec_eval's summary (mean over "
                  "topics; sum for counts; geometric mean for gm_map, gm_bpref).",
                  f"{TREC_EVAL}, meas_avg.c"),
    "low": Term("eval: the lowest value judging the run's unjudged documents could give, "
                "the low end of the measure's hole (mean over topics on an 'all' row; empty "
                "for a measure without one, see pooltool/measures/trec/hole_columns.py).",
                "pooltool.measures.holes (issue 25, item 3)"),
    "high": Term("eval: the highest value judging the run's unjudged documents could give, "
                 "the high end of the measure's hole (as low).",
                 "pooltool.measures.holes (issue 25, item 3)"),
    "k": Term("The cutoff: only a run's first k documents (trec_eval order) count.",
              f"{TREC_EVAL}, m_recall.c"),
    "docno": Term("The document id.", "TREC format"),
    "group": Term("The group a run belongs to in bias (--group/--groups); left out together.",
                  _LOO),
    "name": Term("A name: of the qrels version, or of the grade.", "pooltool"),
    # recall and its relatives
    "num_q": Term("Topics scored in the mean (qrels topics the run has; all qrels topics "
                  "with -c).", f"{TREC_EVAL}, num_q"),
    "num_ret": Term("Documents retrieved (after -M).", f"{TREC_EVAL}, m_num_ret.c"),
    "num_rel": Term("Relevant documents in the qrels (grade >= LEVEL).",
                    f"{TREC_EVAL}, m_num_rel.c"),
    "num_rel_ret": Term("Relevant documents retrieved at any rank, no cutoff.",
                        f"{TREC_EVAL}, m_num_rel_ret.c"),
    "rel_ret": Term("Relevant documents in the first k (num_rel_ret@k, summed over topics in "
                    "summaries); num_rel_ret is the same without the cutoff.",
                    f"{TREC_EVAL}, m_recall.c"),
    "recall": Term(f"{_RECALL} (0 when num_rel is 0); in summaries, the mean over topics.",
                   f"{TREC_EVAL}, m_recall.c"),
    "micro_recall": Term("sum of num_rel_ret@k / sum of num_rel over topics: recall pooled "
                         "over topics, so topics with many relevant documents weigh more.",
                         "Manning, Raghavan and Schuetze 2008, ch. 13.6 (micro averaging)"),
    "median_recall": Term("The median over topics of Recall@k.", "pooltool"),
    "min_recall": Term("The lowest Recall@k of any topic.", "pooltool"),
    "zero_recall_share": Term("Fraction of topics with Recall@k = 0 (no relevant document in "
                              "the first k).", "pooltool"),
    "ceiling": Term("min(k, num_rel) / num_rel: the best Recall@k any run could reach "
                    "(0 when num_rel is 0); mean over topics.", "pooltool (measures/per_topic.py)"),
    "P": Term("Precision@k = num_rel_ret@k / k; missing ranks count as not relevant.",
              f"{TREC_EVAL}, m_P.c"),
    "unjudged": Term("recall, bias, impact: documents in the first k with no qrels line or a "
                     "negative grade, divided by k. eval: the same over the ranks the value "
                     "looks at (k for a cutoff measure, else all n retrieved: U(n)/n); on an "
                     "'all' row the mean over topics. status: pooled documents not judged yet. "
                     "assign: the topic's pooled documents nobody has judged (imported qrels "
                     "count as judged), the work dealt.",
                     f"{TREC_EVAL}, m_unjudged.c (unj.k)"),
    "judged": Term("recall: documents in the first k with any qrels line (negative grades "
                   "included), divided by min(k, num_ret); not 1 - unjudged. status, qrels "
                   "versions/diff: the number of judged documents (qrels lines). assign: "
                   "the topic's pooled documents this assessor has judged (grade >= 0). "
                   "assessors: pairs the assessor judged (own grade >= 0).",
                   "ir_measures 0.4.3, Judged@k (judged_provider.py)"),
    "recall_upper": Term("(num_rel_ret@k + U) / (num_rel + U), U the unjudged documents in "
                         "the first k: Recall@k if every one of them were relevant.",
                         "pooltool; the bound of Buckley and Voorhees 2004 "
                         "(bpref paper, 'Retrieval evaluation with incomplete information')"),
    "recall_nrel": Term("recall_nrel_<bin>: mean Recall@k over the topics whose num_rel is in "
                        "the bin (1, 2_5, 6_20, 21_100, gt100); '-' when no topic is.",
                        "pooltool"),
    # bias (leave-one-out)
    "recall_loo": Term("Recall@k after removing the judgments of documents only this run (or "
                       "group) pooled.", _LOO),
    "recall_drop": Term("recall - recall_loo: what the run loses without its unique documents.",
                        _LOO),
    "recall_drop_rel": Term("recall_drop / recall ('-' when recall is 0).", _LOO),
    "P_loo": Term("P@k after removing the run's unique documents' judgments.", _LOO),
    "P_drop": Term("P - P_loo.", _LOO),
    "unique_pooled": Term("Topic-document pairs only this run (or group) put in the pool.",
                          _LOO),
    "unique_relevant": Term("Of unique_pooled, those judged relevant.", _LOO),
    "unjudged_loo": Term("unjudged@k after removing the run's unique documents' judgments.",
                         _LOO),
    "rank": Term("The run's rank by Recall@k (1 is best).", "pooltool"),
    "rank_loo": Term("The run's rank when only its own score is the leave-one-out score.",
                     _LOO),
    "recall_change_judgments": Term("impact: the part of recall_change from changed "
                                    "judgments, the mean of recall_b - recall_a over the "
                                    "topics scored under both A and B.", "pooltool"),
    "recall_change_topics": Term("impact: the part of recall_change from the changed topic "
                                 "set, recall_change - recall_change_judgments.", "pooltool"),
    "rank_change": Term("rank_loo - rank (impact: rank_b - rank_a); positive is a fall.",
                        "pooltool"),
    "verdict": Term("bias: reusable (unjudged@k up to the leave-out runs' mean), use with "
                    "care (up to their largest), not reusable (beyond); compare: a (run_a "
                    "significantly better), b (run_b), none (not significant at --alpha).",
                    f"{_LOO}; pooltool/analysis/comparison.py"),
    # bias -m MEASURE
    "score": Term("bias -m, simulate -m: the run's measure on the full qrels (trec_eval's "
                  "'all' value); impact -m: score_a, score_b under qrels A and B.", TREC_EVAL),
    "score_loo": Term("bias -m: the measure on the qrels less the judgments of documents only "
                      "this run (or group) pooled, the run scored whole again.", _LOO),
    "drop": Term("bias -m: score - score_loo.", _LOO),
    "score_change_judgments": Term("impact -m: the part of score_change from changed "
                                   "judgments, the mean of score_b - score_a over the topics "
                                   "scored under both A and B.", "pooltool"),
    "score_change_topics": Term("impact -m: the part of score_change from the changed topic "
                                "set, score_change - score_change_judgments.", "pooltool"),
    "drop_rel": Term("bias -m: drop / score ('-' when score is 0).", _LOO),
    "sentence": Term("The row's verdict in words.", "pooltool"),
    "score_partial": Term("simulate -m: the measure under the partial qrels the strategy "
                          "built at the budget.", "pooltool"),
    "MAE_score": Term("simulate -m: the mean over runs of |score_partial - score|.",
                      "Zobel 1998; Buckley et al. 2007"),
    "Kendall_tau_score": Term("simulate -m: Kendall's tau-b between the rankings of the runs "
                              "by the measure under the full and the partial qrels.",
                              "Kendall 1945 (tau-b)"),
    "tau_ap_score": Term("simulate -m: tau_ap of the partial ranking by the measure against "
                         "the full one.", "Yilmaz, Aslam and Robertson 2008"),
    # compare
    "run_a": Term("compare: the pair's run with the higher mean as judged (ties by run tag); "
                  "eval, impact: the run's tag under qrels A.", "pooltool"),
    "run_b": Term("compare: the pair's other run; eval, impact: the run's tag under qrels B.",
                  "pooltool"),
    "mean": Term("compare: the run's mean of the measure over the compared topics.", TREC_EVAL),
    "mean_a": Term("compare: run_a's mean over the compared topics.", TREC_EVAL),
    "mean_b": Term("compare: run_b's mean over the compared topics.", TREC_EVAL),
    "difference": Term("compare: mean_a - mean_b as judged.", "pooltool"),
    "p_value": Term("compare: the two-sided p-value of the paired test (Holm-adjusted over the "
                    "pairs unless --adjust none; Tukey's HSD with --adjust tukey).",
                    "Student 1908 (scipy.stats.ttest_rel); Fisher 1935 (randomization); Efron "
                    "and Tibshirani 1993, sec. 16.4 (bootstrap); Holm 1979; Tukey 1953"),
    "difference_worst": Term("compare: the mean difference with run_a at its per-topic hole "
                             "lows and run_b at its highs.", "pooltool"),
    "p_worst": Term("compare: the p-value at those ends (adjusted like p_value).", "pooltool"),
    "difference_best": Term("compare: the mean difference with run_a at its highs and run_b at "
                            "its lows.", "pooltool"),
    "p_best": Term("compare: the p-value at those ends.", "pooltool"),
    "hole": Term("compare: holds (the same verdict at the judged scores and at both ends of the "
                 "holes), could reverse (judging the unjudged documents could change it), no "
                 "hole (the measure has no hole bound).", "pooltool"),
    "MAE": Term("Mean absolute error: the mean over runs of |recall_drop|.",
                "Zobel 1998; Buckley et al. 2007"),
    "SRE": Term("System rank error: the sum over runs of |rank_change|.",
                "Lipani et al.'s pool-bias reports (e.g. Lipani, Lupu and Hanbury 2015, "
                "'Splitting water: precision and anti-precision to reduce pool bias')"),
    "Kendall_tau": Term("Kendall's tau-b between two rankings of the runs (1: same order).",
                        "Kendall 1945 (tau-b); Voorhees 2000, 'Variations in relevance judgments and the "
                        "measurement of retrieval effectiveness'"),
    "tau_ap": Term("AP correlation: like Kendall's tau, but swaps near the top weigh more.",
                   "Yilmaz, Aslam and Robertson 2008, 'A new rank correlation coefficient "
                   "for information retrieval'"),
    # simulate (pooling strategies replayed against complete qrels)
    "strategy": Term("The pooling strategy with its parameters (NAME:KEY=VALUE,...); each is "
                     "defined, with its source, in pooltool/judging/strategies.py.",
                     "the strategy's paper (e.g. Cormack, Palmer and Clarke 1998 for mtf; "
                     "Losada, Parapar and Barreiro 2016, 2017 for maxmean and mmns)"),
    "budget": Term("Judgments per topic the strategy may spend (status of an adaptive pool: "
                   "documents it may choose per topic; empty: no limit).", "pooltool"),
    "budget_used": Term("Documents of the topic the adaptive pool's strategy chose that are "
                        "judged (status of a pool made with pool --strategy).", "pooltool"),
    "relevant_found": Term("Of budget_used, the relevant ones (grade >= the pool's level, "
                           "the first judgment of each document).", "pooltool"),
    "recent_rate": Term("Share relevant among the topic's last 10 judgments of chosen "
                        "documents (empty before the first).", "pooltool"),
    "est_unfound": Term("Estimated relevant documents not found yet: recent_rate times the "
                        "documents the pool's runs retrieved for the topic that nobody has "
                        "judged. An extrapolation that errs high (the strategies judge the "
                        "likeliest documents first); near 0: another judgment is unlikely "
                        "to pay.", "pooltool (stated estimator, not from a paper)"),
    "spent": Term("Judgments made (summed over topics in the summary); less than budget per "
                  "topic where the strategy ran out of documents.", "pooltool"),
    "found": Term("Relevant documents (grade >= LEVEL in the complete qrels) among the "
                  "judgments made; a document without a qrels line counts as non-relevant.",
                  "Losada, Parapar and Barreiro 2017 (relevant found per judgments spent)"),
    "found_share": Term("found / num_rel: the share of the qrels' relevant documents found "
                        "(0 when num_rel is 0).", "pooltool"),
    "recall_partial": Term("Recall@k under the partial qrels: the judgments the strategy made "
                           "within the budget (mean over topics).", f"{TREC_EVAL}, m_recall.c"),
    "P_partial": Term("P@k under the partial qrels: the judgments the strategy made within "
                      "the budget (mean over topics).", f"{TREC_EVAL}, m_P.c"),
    "MAE_recall": Term("The mean over runs of |recall_partial - recall|: how far the partial "
                       "qrels move the runs' Recall@k.", "pooltool; the MAE of pool-bias "
                       "studies (Zobel 1998; Buckley et al. 2007)"),
    "MAE_P": Term("The mean over runs of |P_partial - P|: how far the partial qrels move the "
                  "runs' P@k.", "pooltool; the MAE of pool-bias studies (Zobel 1998; "
                  "Buckley et al. 2007)"),
    # impact and qrels diff
    "change": Term("The value under B minus the value under A.", "pooltool"),
    "abs_change": Term("|change|, the mean over runs.", "pooltool"),
    "runs_moved": Term("Runs whose Recall@k on the topic changed.", "pooltool"),
    "grade": Term("The relevance grade (qrels 4th column); '-' where a side has none.",
                  "TREC qrels format"),
    "relevance": Term("How the change moves relevance at LEVEL: gained, lost or same.",
                      "pooltool"),
    "added": Term("Judgments in B not in A.", "pooltool"),
    "removed": Term("Judgments in A not in B.", "pooltool"),
    "regraded": Term("Judgments in both with a different grade.", "pooltool"),
    # store and judging
    "pooled": Term("Documents in the pool (pool: the run's top-depth pairs; status, assign: "
                   "per topic).", "TREC pooling (Sparck Jones and van Rijsbergen 1975)"),
    "unique": Term("The run's pooled pairs no other pooled run has.", "pooltool"),
    "new": Term("The run's pooled pairs not in the pool before.", "pooltool"),
    "relevant": Term("Judged with grade >= LEVEL.", "pooltool"),
    "judged_nonneg": Term("Qrels lines with grade >= 0 (trec_eval counts negative as "
                          "unjudged).", f"{TREC_EVAL}, m_unjudged.c"),
    "judged_outside": Term("Judgments of the topic for documents not in this pool.", "pooltool"),
    "done": Term("judged / pooled, 0..1.", "pooltool"),
    "topics": Term("Topics with at least one line.", "pooltool"),
    "created_at": Term("When the version was tagged (UTC).", "pooltool"),
    "note": Term("The note given with 'qrels tag --note'.", "pooltool"),
    "sha256": Term("SHA-256 of the imported file, so a run can be matched to its file.",
                   "pooltool"),
    "run_id": Term("The store's id of one import of a run (a replaced run keeps its id; "
                   "the new import of the tag gets a new one).", "pooltool"),
    "imported_at": Term("When the run was imported (UTC).", "pooltool"),
    "status": Term("runs --all: live, replaced (by a later import of the tag) or removed.",
                   "pooltool"),
    "retired_at": Term("When the run was replaced or removed (UTC).", "pooltool"),
    "pooled_in": Term("The pooling rounds (pool:round) the run took part in.", "pooltool"),
    "source_path": Term("The file imported.", "pooltool"),
    "lines": Term("Lines read from the file.", "pooltool"),
    "assessor": Term("Who judged (recorded with each grade).", "pooltool"),
    "role": Term("primary, or overlap (a second judgment for agreement).", "pooltool"),
    "judgments": Term("Timed judgments (from the judging UI) by the assessor.", "pooltool"),
    "judgments_per_hour": Term("3,600,000 x judgments / sum of their milliseconds on screen "
                               "(each capped at 10 minutes).", "pooltool"),
    "median_seconds": Term("Median seconds on screen per judgment.", "pooltool"),
    "remaining": Term("Documents still in the assessor's judging queue.", "pooltool"),
    "eta_hours": Term("remaining / judgments_per_hour.", "pooltool"),
    "assessor_a": Term("The first assessor (or group: people, machines) of a pair.",
                       "pooltool"),
    "kind": Term("person or machine (import-qrels --machine, assessors --set-kind); the "
                 "default qrels policies use people's judgments only.", "pooltool"),
    "assessor_b": Term("The second assessor (or group) of a pair.", "pooltool"),
    "docs": Term("Documents both assessors judged.", "pooltool"),
    "agreement": Term("Fraction of docs given the same grade.", "pooltool"),
    "binary_agreement": Term("Fraction of docs on the same side of --threshold.", "pooltool"),
    "scored_as": Term("bias --correct: 'left out' (a pooled run scored without its unique "
                      "judgments, the estimator fitted on the other runs) or 'new' (a run "
                      "outside the pool, full qrels).", "Webber and Park 2009, 'Score "
                      "adjustment for correction of pooling bias'"),
    "P_plain": Term("bias --correct: P@k as judged (left out: without the run's unique "
                    "judgments).", f"{TREC_EVAL}, m_P.c"),
    "P_corrected": Term("bias --correct: P@k corrected for pool bias by the method named.",
                        _CORRECTION),
    "P_full": Term("bias --correct: a left-out run's P@k with the full qrels (the truth the "
                   "correction aims at).", f"{TREC_EVAL}, m_P.c"),
    "recall_plain": Term("bias --correct: Recall@k as judged (left out: without the run's "
                         "unique judgments).", f"{TREC_EVAL}, m_recall.c"),
    "recall_corrected": Term("bias --correct: Recall@k corrected for pool bias by the method "
                             "named.", _CORRECTION),
    "clipped": Term("bias --correct: the corrected score fell outside 0..1 and was clipped "
                    "to the nearest bound (stderr gives the value before).", _CORRECTION),
    "recall_full": Term("bias --correct: a left-out run's Recall@k with the full qrels.",
                        f"{TREC_EVAL}, m_recall.c"),
    "kind_a": Term("The kind of the first side: person, machine, or mixed (a group of both).",
                   "pooltool"),
    "kind_b": Term("The kind of the second side (see kind_a).", "pooltool"),
    "alpha_ordinal": Term("Krippendorff's alpha on grades at the ordinal level (agreement "
                          "--alpha-level): 1 - observed / expected disagreement, a "
                          "disagreement weighed by the grades given between the two (1: "
                          "perfect, 0: chance).", _ALPHA),
    "alpha_nominal": Term("Krippendorff's alpha on grades at the nominal level: any two "
                          "different grades disagree alike.", _ALPHA),
    "alpha_interval": Term("Krippendorff's alpha on grades at the interval level: a "
                           "disagreement weighs the squared difference of the grades.", _ALPHA),
    "kappa": Term("Cohen's kappa on relevant/not relevant at --threshold.", "Cohen 1960"),
    "kappa_linear": Term("Cohen's kappa on grades, disagreements weighted by distance.",
                         "Cohen 1968 (weighted kappa)"),
    "kappa_quadratic": Term("Cohen's kappa on grades, weighted by squared distance.",
                            "Cohen 1968 (weighted kappa)"),
    "key": Term("The key that gives the grade on the judging screen.", "pooltool"),
    # samples beyond the pool and the estimates from them (pooltool sample, recall --estimate)
    "stratum": Term("A stratum of a sample: documents outside the pool whose best rank over "
                    "the pool's runs is in a range (A-B, A+), or that no run retrieved "
                    "(unretrieved); 'all' is the row over every stratum.",
                    "stratified sampling (Cochran 1977, 'Sampling Techniques', ch. 5)"),
    "population": Term("N_h: the stratum's documents outside the pool, summed over topics.",
                       "Cochran 1977, ch. 5"),
    "sampled": Term("sample: documents drawn (n_h, a simple random sample per stratum and "
                    "topic, summed over topics). recall --estimate: the topic's sampled "
                    "documents that are judged (summed over topics in summaries).",
                    "Cochran 1977, ch. 5"),
    "est_R": Term(_ESTIMATE + "the relevant documents in the sample's frame: the posterior "
                  "mean of R under the hierarchical Beta-binomial model whose draws give "
                  "its interval, worked out given the prior's draws (documents; mean over "
                  "topics in summaries; the interval method is named on stderr and in JSON).",
                  _BETA),
    "est_R_ht": Term(_ESTIMATE + "the Horvitz-Thompson estimate of the relevant documents "
                     "in the sample's frame: pooled relevant + sum over strata of sampled "
                     "relevant / inclusion probability (documents; mean over topics in "
                     "summaries); unbiased over samples, but not the model of the interval, "
                     "so it may lie outside est_R_low..est_R_high.",
                     "Horvitz and Thompson 1952; as in Yilmaz and Aslam 2006 (infAP) and "
                     "Aslam, Pavlu and Yilmaz 2006 (statAP)"),
    "est_R_low": Term(_ESTIMATE + "the lower end of the 95% interval of est_R (of the mean "
                      "in summaries): the lower end of the shortest interval holding 95% "
                      "of hierarchical Beta-binomial posterior draws.", _BETA),
    "est_R_high": Term(_ESTIMATE + "the upper end of the 95% interval of est_R (the "
                       "shortest interval holding 95% of the draws).", _BETA),
    "est_missed": Term(_ESTIMATE.replace("recall --estimate", "status --estimate") +
                       "est_R minus the relevant documents of the pool the sample was drawn "
                       "beyond, as it was then (a pool grown since is named on stderr, and "
                       "its relevant column then counts more): the relevant documents that "
                       "pool missed (documents; posterior mean).", _BETA),
    "est_missed_low": Term(_ESTIMATE.replace("recall --estimate", "status --estimate") +
                           "est_R_low minus the relevant documents of the pool the sample was "
                           "drawn beyond (as it was then): the lower end of est_missed's 95% "
                           "interval.",
                           _BETA),
    "est_missed_high": Term(_ESTIMATE.replace("recall --estimate", "status --estimate") +
                            "est_R_high minus the relevant documents of the pool the sample was "
                            "drawn beyond (as it was then): the upper end of est_missed's 95% "
                            "interval.", _BETA),
    "est_recall": Term(_ESTIMATE + "Recall@k with the relevant documents the pool missed "
                       "estimated: the posterior mean of relevant-in-top-k / R over the "
                       "hierarchical Beta-binomial draws, 0..1 (mean over topics in summaries).",
                       _BETA),
    "est_recall_low": Term(_ESTIMATE + "the lower end of the 95% interval of est_recall "
                           "(the shortest interval holding 95% of the draws).", _BETA),
    "est_recall_high": Term(_ESTIMATE + "the upper end of the 95% interval of est_recall "
                            "(the shortest interval holding 95% of the draws).", _BETA),
    "interval": Term("In recall --estimate and status --estimate rows (csv, tsv, jsonl): "
                     "the interval method "
                     "behind their _low/_high columns: beta (hierarchical Beta-binomial "
                     "posterior, the shortest interval holding 95% of its draws; what "
                     "recall --estimate reports) or mover-wilson (around est_R_ht, from "
                     "estimate_recall(interval='mover-wilson'), for comparison) or gamma "
                     "(recall --prels with a prels file: Fay and Feuer's gamma interval for "
                     "est_R, MOVER-R for est_recall); stderr names it in full.", _BETA),
    "est_infAP": Term("recall --prels with a strata file: the run's xinfAP as NIST's "
                      "sample_eval.pl computes it from the stratified sample, 0..1 (the mean "
                      "over the counted topics in summaries).",
                      "Yilmaz, Kanoulas and Aslam 2008, 'A simple and efficient sampling "
                      "method for estimating AP and NDCG'; sample_eval.pl"),
}

#: Spellings in tables and messages that mean a glossary entry.
ALIASES = {"kendall_tau": "Kendall_tau", "mae": "MAE", "sre": "SRE", "num_rel_ret@k": "rel_ret"}
_SIDE = re.compile(r"^(?P<base>.+)_(?P<side>a|b|change)$")
_SIDES = {"a": "under qrels A (--from, or A)", "b": "under qrels B (--to, or B)",
          "change": "B minus A"}


def lookup(column: str) -> Term | None:
    """The entry of a column as a command writes it, or ``None``.

    :param column: e.g. ``recall``, ``recall@10``, ``recall_nrel_2_5``,
        ``unjudged_b``, ``num_rel_change``, ``tau_ap`` (case as written).
    :returns: the entry (a side suffix adds 'under qrels A/B' to it).
    """
    name = ALIASES.get(column, column)
    name = re.sub(r"@\d+$", "", name)
    if name.startswith("recall_nrel_"):
        name = "recall_nrel"
    if name in GLOSSARY:
        return GLOSSARY[name]
    side = _SIDE.match(name)
    if side and side["base"] in GLOSSARY:
        base = GLOSSARY[side["base"]]
        return Term(f"{base.definition} ({_SIDES[side['side']]})", base.source)
    return None


def glossary_markdown() -> str:
    """The glossary as a Markdown list, sorted case-insensitively (docs/glossary.md)."""
    return "\n".join(f"* `{name}`: {term.definition} *Source:* {term.source}."
                     for name, term in sorted(GLOSSARY.items(), key=lambda i: i[0].lower()))
