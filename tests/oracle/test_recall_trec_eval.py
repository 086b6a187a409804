"""pooltool recall against what trec_eval 10.0 printed on the shared data.

Every line of the saved outputs for the measures pooltool computes (num_ret,
num_rel, num_rel_ret, P_k, recall_k, unj_k) must come out of
:func:`pooltool.measures.trec_format.format_trec` identical, in the same
order; other measures (bpref, ndcg_cut, map...) are dropped from both sides.
See ``../shared/data/trec_eval_10_outputs.md`` for how the files were made.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.measures import evaluate_recall, evaluate_recall_files
from pooltool.measures.trec_format import format_trec

OURS = re.compile(r"^(num_ret|num_rel|num_rel_ret|(P|recall|unj)_(\d+))$")
COVID_RUNS = ["BBGhelani2", "OHSU_RUN2", "T5R1", "UIowaS_Run3", "bm25_baseline",
              "ixa-ir-filter-query", "run1", "sab20.1.meta.docs", "sheikh_bm25_all",
              "smith.rm3", "udel_fang_run2", "uogTrDPH_QE"]
# file in trec_eval_test/trec_eval_10 -> (qrels, run, level); all were made with -q -c
TEST_FILES = {
    "results.test.txt": ("qrels.test", "results.test", 1),
    "results.trunc.txt": ("qrels.test", "results.trunc", 1),
    "results.trunc.unj.txt": ("qrels.test", "results.trunc", 1),
    "results-302.test.txt": ("qrels-302.test", "results-302.test", 1),
    "results.test__qrels.rel_level.txt": ("qrels.rel_level", "results.test", 1),
    "results.test__qrels.rel_level.l2.txt": ("qrels.rel_level", "results.test", 2),
    "results.test__qrels.rel_level.unj.txt": ("qrels.rel_level", "results.test", 1),
    "results.comment.test.txt": ("qrels.comment.test", "results.comment.test", 1),
    "results.comment.test.l2.txt": ("qrels.comment.test", "results.comment.test", 2),
}
# upstream `make quicktest` outputs -> (qrels, run, level, -c, -M, -q)
OUT_FILES = {
    "out.test": ("qrels.test", "results.test", 1, False, None, False),
    "out.test.a": ("qrels.test", "results.test", 1, False, None, False),
    "out.test.aq": ("qrels.test", "results.test", 1, False, None, True),
    "out.test.aqc": ("qrels.test", "results.trunc", 1, True, None, True),
    "out.test.aqcM": ("qrels.test", "results.trunc", 1, True, 100, True),
    "out.test.aql": ("qrels.rel_level", "results.test", 2, False, None, True),
    "out.test.meas_params": ("qrels.test", "results.test", 1, False, None, True),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", 1, False, None, False),
}


def expected_lines(path: Path) -> list[str]:
    """The saved lines for measures pooltool computes, in file order."""
    return [line for line in path.read_text().splitlines() if OURS.match(line.split("\t")[0].strip())]


def cutoffs(lines: list[str]) -> tuple[int, ...]:
    found = {int(m.group(3)) for line in lines if (m := OURS.match(line.split("\t")[0].strip()))
             and m.group(3)}
    return tuple(sorted(found)) or (10,)


def ours(result, per_topic: bool, wanted: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    names = {line.split("\t")[0] for line in wanted}
    return [line for line in format_trec(result, per_topic).splitlines()
            if line.split("\t")[0] in names]


@pytest.mark.parametrize("run", COVID_RUNS)
@pytest.mark.parametrize("variant", ["", ".l2", ".unj"])
def test_trec_covid_every_number(shared_data: Path, run: str, variant: str) -> None:
    covid = shared_data / "trec_covid_r1"
    wanted = expected_lines(covid / "trec_eval_10" / f"{run}{variant}.txt")
    level = 2 if variant == ".l2" else 1
    result = evaluate_recall_files([covid / "runs" / run], read_qrels(covid / "qrels-rnd1.txt"),
                                   ks=cutoffs(wanted), level=level, complete=True)
    assert len(wanted) > 100
    assert ours(result, True, wanted) == wanted


def test_num_rel_all_quirk_under_c_and_l2(shared_data: Path) -> None:
    """trec_eval's num_rel 'all' ignores -l under -c: per-topic sum 1237, 'all' 2352."""
    covid = shared_data / "trec_covid_r1"
    result = evaluate_recall_files([covid / "runs" / "T5R1"], read_qrels(covid / "qrels-rnd1.txt"),
                                   level=2, complete=True)
    assert result.per_topic["num_rel"].sum() == 1237
    assert result.positive_lines == 2352
    assert "num_rel               \tall\t2352" in format_trec(result).splitlines()
    assert result.summary.loc[0, "num_rel"] == 1237


@pytest.mark.parametrize("name", sorted(TEST_FILES))
def test_trec_eval_test_outputs(shared_data: Path, name: str) -> None:
    qrels_name, run_name, level = TEST_FILES[name]
    folder = shared_data / "trec_eval_test"
    wanted = expected_lines(folder / "trec_eval_10" / name)
    result = evaluate_recall(read_run(folder / run_name), read_qrels(folder / qrels_name),
                             ks=cutoffs(wanted), level=level, complete=True)
    assert len(wanted) >= 12
    assert ours(result, True, wanted) == wanted


@pytest.mark.parametrize("name", sorted(OUT_FILES))
def test_upstream_quicktest_outputs(shared_data: Path, name: str) -> None:
    qrels_name, run_name, level, complete, max_docs, per_topic = OUT_FILES[name]
    folder = shared_data / "trec_eval_test"
    wanted = expected_lines(folder / name)
    assert len(wanted) >= 3, f"{name}: no recall, P or num_q lines to compare"
    result = evaluate_recall(read_run(folder / run_name), read_qrels(folder / qrels_name),
                             ks=cutoffs(wanted), level=level, complete=complete,
                             max_docs=max_docs)
    assert ours(result, per_topic, wanted) == wanted
    num_q = re.search(r"^num_q\s+\tall\t(\d+)$", (folder / name).read_text(), re.M)
    if num_q:
        assert result.summary["num_q"].iloc[0] == int(num_q.group(1))


def test_results_trunc_lacks_a_topic(shared_data: Path) -> None:
    """Without -c the topic missing from the run is reported and left out."""
    folder = shared_data / "trec_eval_test"
    result = evaluate_recall(read_run(folder / "results.trunc"),
                             read_qrels(folder / "qrels.test"))
    assert result.missing_topics == {"STANDARD": ["302"]}
    assert result.per_topic["topic"].tolist() == ["301", "303"]
    assert result.summary["num_q"].tolist() == [2, 2, 2]
