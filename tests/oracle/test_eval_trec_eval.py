"""pooltool eval against what trec_eval 10.0 printed on the shared data, byte for byte.

Every file of ``trec_eval_10/all_trec/`` (``-m all_trec`` under ``-q -c``, ``-l 2``,
``-J``, ``-M 50``, and without ``-c``), the ``trec_eval_10/*.txt`` files (a list of
measures under ``-q -c``) and trec_eval's own ``make quicktest`` outputs
(``out.test*``) must come out of :func:`pooltool.measures.trec.format_trec`
identical, every line, in order. ``../shared/data/trec_eval_10_outputs.md`` says how
each file was made. The one file that holds trec_eval's error (exit 4: a topic
missing without ``-c``) is checked for pooltool's rule instead (the topic is left out).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pooltool.formats.qrels import read_qrels_table
from pooltool.measures.trec import Options, evaluate_files, format_trec

COVID_RUNS = ["BBGhelani2", "BM25R2", "CSIROmedNIR", "OHSU_RUN2", "T5R1", "UIowaS_Run3",
              "bm25_baseline", "ixa-ir-filter-query", "run1", "run2", "sab20.1.meta.docs",
              "sheikh_bm25_all", "smith.rm3", "udel_fang_run2", "uogTrDPH_QE"]
#: the shared files' flags (file suffix -> Options)
VARIANTS = {".c": Options(complete=True), ".c.l2": Options(level=2, complete=True),
            ".c.J": Options(complete=True, judged_only=True),
            ".c.M50": Options(complete=True, max_docs=50), "": Options()}
PAIRS = ["results.test__qrels.test", "results.trunc__qrels.test",
         "results-302.test__qrels-302.test", "results.test__qrels.rel_level",
         "results.comment.test__qrels.comment.test"]
M = ["recall.10,100,1000", "num_rel", "num_rel_ret", "P.10", "ndcg_cut.10", "bpref"]
UNJ = ["unj.5,10,20,100,1000", "num_ret"]
# trec_eval_10/*.txt -> (qrels, run, level, measures), all made with -q -c
LISTED = {
    "results.test.txt": ("qrels.test", "results.test", 1, M),
    "results.trunc.txt": ("qrels.test", "results.trunc", 1, M),
    "results.trunc.unj.txt": ("qrels.test", "results.trunc", 1, UNJ),
    "results-302.test.txt": ("qrels-302.test", "results-302.test", 1, M),
    "results.test__qrels.rel_level.txt": ("qrels.rel_level", "results.test", 1, M),
    "results.test__qrels.rel_level.l2.txt": ("qrels.rel_level", "results.test", 2, M),
    "results.test__qrels.rel_level.unj.txt": ("qrels.rel_level", "results.test", 1, UNJ),
    "results.comment.test.txt": ("qrels.comment.test", "results.comment.test", 1, M),
    "results.comment.test.l2.txt": ("qrels.comment.test", "results.comment.test", 2, M),
}
# upstream `make quicktest` outputs -> (qrels, run, options, -q, measures)
QUICKTEST = {
    "out.test": ("qrels.test", "results.test", Options(), False, []),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", Options(), False, []),
    "out.test.a": ("qrels.test", "results.test", Options(), False, ["all_trec"]),
    "out.test.aq": ("qrels.test", "results.test", Options(), True, ["all_trec"]),
    "out.test.aqc": ("qrels.test", "results.trunc", Options(complete=True), True, ["all_trec"]),
    "out.test.aqcM": ("qrels.test", "results.trunc", Options(complete=True, max_docs=100),
                      True, ["all_trec"]),
    "out.test.aql": ("qrels.rel_level", "results.test", Options(level=2), True,
                     ["all_trec", "relstring.20"]),
    "out.test.meas_params": ("qrels.test", "results.test", Options(), True, [
        "iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
        "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75",
        "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"]),
}


def printed(run: Path, qrels: Path, measures: list[str], options: Options,
            per_topic: bool = True) -> str:
    result, _ = evaluate_files([run], read_qrels_table(qrels), measures, options)
    return format_trec(result, per_topic)


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v])
@pytest.mark.parametrize("run", COVID_RUNS)
def test_trec_covid_all_trec(shared_data: Path, run: str, variant: str) -> None:
    covid = shared_data / "trec_covid_r1"
    wanted = (covid / "trec_eval_10" / "all_trec" / f"{run}{variant}.txt").read_text()
    assert wanted.count("\n") > 2900  # 30 topics x 98 lines, then the summary
    ours = printed(covid / "runs" / run, covid / "qrels-rnd1.txt", ["all_trec"],
                   VARIANTS[variant])
    assert ours == wanted


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != ".c.M50"])
@pytest.mark.parametrize("pair", PAIRS)
def test_trec_eval_test_all_trec(shared_data: Path, pair: str, variant: str) -> None:
    folder = shared_data / "trec_eval_test"
    run, qrels = pair.split("__")
    wanted = (folder / "trec_eval_10" / "all_trec" / f"{pair}{variant}.txt").read_text()
    ours = printed(folder / run, folder / qrels, ["all_trec"], VARIANTS[variant])
    if wanted.startswith("trec_eval: result qid '302' not found"):  # trec_eval 10.0 exit 4
        assert "\t302\t" not in ours and "num_q                 \tall\t2\n" in ours
        return
    assert wanted.count("\n") > 190
    assert ours == wanted


@pytest.mark.parametrize("name", sorted(LISTED))
def test_trec_eval_test_measure_lists(shared_data: Path, name: str) -> None:
    qrels, run, level, measures = LISTED[name]
    folder = shared_data / "trec_eval_test"
    wanted = (folder / "trec_eval_10" / name).read_text()
    ours = printed(folder / run, folder / qrels, measures, Options(level=level, complete=True))
    assert ours == wanted


@pytest.mark.parametrize("name", sorted(QUICKTEST))
def test_upstream_quicktest_outputs(shared_data: Path, name: str) -> None:
    qrels, run, options, per_topic, measures = QUICKTEST[name]
    folder = shared_data / "trec_eval_test"
    wanted = (folder / name).read_text()
    assert ours_equal(printed(folder / run, folder / qrels, measures, options, per_topic), wanted)


def ours_equal(ours: str, wanted: str) -> bool:
    """Equal text; on a difference, the first differing line is shown by the assert."""
    for mine, theirs in zip(ours.splitlines(), wanted.splitlines(), strict=False):
        assert mine == theirs
    return ours == wanted


def test_num_rel_all_ignores_l_under_c(shared_data: Path) -> None:
    """Under -c -l 2 the num_rel 'all' line counts grade > 0 lines (2352), not the sum of
    the per-topic num_rel (1237), as trec_eval's te_calc_avg_num_rel does."""
    covid = shared_data / "trec_covid_r1"
    text = printed(covid / "runs" / "T5R1", covid / "qrels-rnd1.txt", ["num_rel"],
                   Options(level=2, complete=True))
    per_topic = [int(line.split("\t")[2]) for line in text.splitlines()
                 if re.match(r"num_rel\s+\t\d", line)]
    assert sum(per_topic) == 1237 and text.endswith("num_rel               \tall\t2352\n")


@pytest.mark.parametrize("variant", [".c", ".c.J", ".c.M50"])
def test_topics_split_into_batches(shared_data: Path, monkeypatch: pytest.MonkeyPatch,
                                   variant: str) -> None:
    """A run scored a few topics per batch (the cap on a batch's cells made tiny) prints
    what trec_eval 10.0 printed, as when all its topics share one batch."""
    from pooltool.measures.trec import ranked

    monkeypatch.setattr(ranked, "CELLS", 3000)  # 2-3 topics of 1000 documents per batch
    covid = shared_data / "trec_covid_r1"
    wanted = (covid / "trec_eval_10" / "all_trec" / f"BM25R2{variant}.txt").read_text()
    ours = printed(covid / "runs" / "BM25R2", covid / "qrels-rnd1.txt", ["all_trec"],
                   VARIANTS[variant])
    assert ours == wanted
