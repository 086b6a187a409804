"""Every measure of ``trec_eval -m all_trec``, exactly as trec_eval 10.0 computes and prints it.

In Python::

    from pooltool.formats.qrels import read_qrels_table
    from pooltool.measures.trec import Options, evaluate_files, format_trec

    result, sources = evaluate_files(["run.txt"], read_qrels_table("qrels.txt"),
                                     ["all_trec"], Options(complete=True))
    print(format_trec(result, per_topic=True), end="")

One module per measure family (``precision``, ``recall``, ``average_precision``,
``interpolated``, ``bpref``, ``ndcg``, ``normalized_gain``, ``rbp``, ``rank``,
``set_based``, ``counts``), each with its formulas and ``m_*.c`` source;
``registry`` holds the definitions in trec_eval's order, ``names`` the ir_measures
spellings, ``c_arith`` the C arithmetic kept exact.

CLI reference: ``pooltool eval --help``.
"""

from __future__ import annotations

from pooltool.measures.trec.evaluate import EvalResult, RunEval, evaluate_runs
from pooltool.measures.trec.ranked import Options
from pooltool.measures.trec.runs import evaluate, evaluate_files, evaluate_tables
from pooltool.measures.trec.trec_output import format_trec

__all__ = ["EvalResult", "Options", "RunEval", "evaluate", "evaluate_files", "evaluate_runs",
           "evaluate_tables", "format_trec"]
