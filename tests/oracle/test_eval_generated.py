"""pooltool eval on generated small cases against pytrec_eval and, where one is given, a
trec_eval 10.0 binary.

The cases (seeded): 1-4 topics of up to 30 documents, tied scores, grades -1, 0..3 and
12, qrels topics absent from the run, a run topic absent from the qrels, topics whose
qrels judge nothing relevant. pytrec_eval (pytrec-eval-terrier) embeds trec_eval 9.x,
so its per-topic values must equal pooltool's to the bit on every measure both have,
except ``iprec_at_recall`` and ``11pt_avg``, whose recall points 10.0 rounds with
``lround`` where 9.x added 0.9 and truncated. The trec_eval comparison (set
``POOLTOOL_TREC_EVAL`` to a trec_eval 10.0 binary, or put one on ``PATH``; skipped
otherwise) checks the whole printed text under ``-q`` with ``-c``, ``-J``, ``-M``,
``-l 0``, ``-l 2``, ``-N`` and parameters (fractional gains, ``rbp.p``, utility).
"""

from __future__ import annotations

import itertools
import math
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from pooltool.errors import NothingToScore
from pooltool.formats.qrels import read_qrels_table
from pooltool.measures.trec import Options, evaluate_files, format_trec
from pooltool.measures.trec.shapes import long_rows

NOT_IN_9X = {"11pt_avg"}
SEEDS = range(30)


def write_case(seed: int, folder: Path) -> tuple[Path, Path]:
    """A seeded qrels file and run file (topic 99 is in the run only)."""
    rnd = random.Random(seed)
    qrels, run = [], []
    for topic in range(1, rnd.randint(2, 5)):
        docs = [f"d{i}" for i in range(rnd.randint(1, 30))]
        if rnd.random() < 0.8:
            for doc in rnd.sample(docs, rnd.randint(1, len(docs))):
                qrels.append(f"{topic} 0 {doc} {rnd.choice([-1, 0, 0, 1, 1, 2, 3, 12])}")
        if rnd.random() < 0.85:
            for doc in rnd.sample(docs, rnd.randint(1, len(docs))):
                score = rnd.choice([1.0, 2.0, 0.5, rnd.random()])
                run.append(f"{topic} Q0 {doc} 1 {score} R")
    run.append("99 Q0 x 1 1 R")
    qrels = qrels or ["1 0 d0 1"]
    (folder / "q").write_text("\n".join(qrels) + "\n")
    (folder / "r").write_text("\n".join(run) + "\n")
    return folder / "q", folder / "r"


def _pytrec(qrels_file: Path, run_file: Path, level: int) -> dict[str, dict[str, float]]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_file.read_text().splitlines():
        topic, _, docno, grade = line.split()
        qrels.setdefault(topic, {})[docno] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in run_file.read_text().splitlines():
        topic, _, docno, _, score, _ = line.split()
        run.setdefault(topic, {})[docno] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures,
                                               relevance_level=level)
    found: dict[str, dict[str, float]] = evaluator.evaluate(run)
    return found


@pytest.mark.parametrize("level", [1, 2])
def test_every_topic_value_equals_pytrec_eval(tmp_path: Path, level: int) -> None:
    compared = 0
    for seed in SEEDS:
        qrels, run = write_case(seed, tmp_path)
        try:
            result, _ = evaluate_files([run], read_qrels_table(qrels), ["all_trec"],
                                       Options(level=level))
        except NothingToScore:
            continue
        theirs = _pytrec(qrels, run, level)
        rows = long_rows(result, per_topic=True)
        for topic, name, value in zip(rows["topic"], rows["measure"], rows["value"],
                                      strict=True):
            if (topic == "all" or isinstance(value, str) or name in NOT_IN_9X
                    or name.startswith("iprec_at_recall") or name not in theirs.get(topic, {})):
                continue
            other = theirs[topic][name]
            assert value == other or (math.isnan(value) and math.isnan(other)), \
                (seed, topic, name, value, other)
            compared += 1
    assert compared > 2000


def _trec_eval() -> str | None:
    return os.environ.get("POOLTOOL_TREC_EVAL") or shutil.which("trec_eval")


MEASURES = [["all_trec"],
            ["ndcg.1=0.5,2=3,0=0.2", "G.2=1.5,3=0", "Rndcg.1=0.5,3=0.3", "ndcg_rel.1=-1,2=2"],
            ["utility.1,-2,0.5,0.1", "relstring.4", "set_F.0.5", "P.1,2,50",
             "iprec_at_recall.0.33,0.5", "11pt_avg.0.2,0.5,0.8"], ["rbp.p=0.5"],
            ["rbp.2=0.9,p=0.95"]]
FLAGS: list[tuple[list[str], Options]] = [
    ([], Options()), (["-c"], Options(complete=True)),
    (["-c", "-J"], Options(complete=True, judged_only=True)),
    (["-c", "-M", "3"], Options(complete=True, max_docs=3)),
    (["-c", "-l", "2"], Options(level=2, complete=True)),
    (["-c", "-l", "0"], Options(level=0, complete=True)),
    (["-c", "-N", "100"], Options(complete=True, num_docs=100))]


def test_generated_cases_print_as_trec_eval(tmp_path: Path) -> None:
    """``rbp`` with gain parameters runs alone: trec_eval's m_rbp.c reads its ``min`` and
    ``max`` before setting them, so with other measures before it its value depends
    on what they left on the stack (pooltool starts both at 0, trec_eval's value when
    rbp runs alone and in every shared output)."""
    binary = _trec_eval()
    if binary is None:
        pytest.skip("no trec_eval binary (set POOLTOOL_TREC_EVAL)")
    checked = 0
    for seed, measures, (flags, options) in itertools.product(range(12), MEASURES, FLAGS):
        qrels, run = write_case(seed, tmp_path)
        args = [binary, "-q", *flags, *[x for m in measures for x in ("-m", m)], str(qrels),
                str(run)]
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        if done.returncode:  # a qrels topic missing without -c, or nothing to score
            continue
        result, _ = evaluate_files([run], read_qrels_table(qrels), measures, options)
        assert format_trec(result, per_topic=True) == done.stdout, (seed, measures, flags)
        checked += 1
    assert checked > 200
