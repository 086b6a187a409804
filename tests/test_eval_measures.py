"""The registry's two spellings, trec_eval's parameters, and the C arithmetic kept exact."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from pooltool.errors import InvalidArgument
from pooltool.measures.trec.c_arith import (
    lround,
    msort,
    name_with_double,
    value_pieces,
    value_text,
)
from pooltool.measures.trec.gains import setup_gains
from pooltool.measures.trec.registry import NICKNAMES
from pooltool.measures.trec.select import select


@pytest.mark.parametrize("spec,trec,names,level", [
    ("nDCG@10", "ndcg_cut", ("ndcg_cut_10",), None), ("AP", "map", ("map",), None),
    ("AP@100", "map_cut", ("map_cut_100",), None), ("R@100", "recall", ("recall_100",), None),
    ("P(rel=2)@10", "P", ("P_10",), 2), ("RR", "recip_rank", ("recip_rank",), None),
    ("RBP(p=0.8)", "rbp", ("rbp_p=0.8",), None), ("Judged@10", "judged", ("judged_10",), None),
    ("bpref", "bpref", ("bpref",), None), ("Bpref", "bpref", ("bpref",), None),
    ("infAP", "infAP", ("infAP",), None), ("NumRelRet", "num_rel_ret", ("num_rel_ret",), 1),
    ("ndcg_cut.10", "ndcg_cut", ("ndcg_cut_10",), None),
    ("P.10,5", "P", ("P_5", "P_10"), None)])
def test_two_spellings_one_definition(spec: str, trec: str, names: tuple[str, ...],
                                      level: int | None) -> None:
    [request] = select([spec])
    assert (request.measure.name, request.names, request.level) == (trec, names, level)


def test_trec_eval_rules_for_m() -> None:
    """Registry order whatever the -m order; the first parameters of a measure win."""
    requests = select(["P.5", "map", "recall.10", "recall.100", "num_q"])
    assert [r.names for r in requests] == [("num_q",), ("map",), ("P_5",), ("recall_10",)]
    assert len(NICKNAMES["all_trec"]) == 37
    assert [r.measure.name for r in select([])] == list(NICKNAMES["official"])


@pytest.mark.parametrize("spec", ["ERR@10", "RR@10", "P.0", "P.5,5", "ndcg.1", "map.5",
                                  "nDCG(judged_only=True)@10", "nothing"])
def test_refused_measures(spec: str) -> None:
    with pytest.raises(InvalidArgument):
        select([spec])


def test_c_arithmetic() -> None:
    assert [lround(x) for x in (0.5, 1.5, 2.5, 2.4999999999999996, 7.7)] == [1, 2, 3, 2, 8]
    assert [round(x) for x in (0.5, 2.5)] == [0, 2]  # why lround is not round
    assert value_text(0.0 / 1.0) == "0.0000" and value_text(-math.nan) == "  -nan"
    assert name_with_double("iprec_at_recall", 0.1) == "iprec_at_recall_0.10"
    assert name_with_double("Rprec_mult", 123.456) == "Rprec_mult_123.46"
    assert name_with_double("x", 123456.789) == "x_123456.7"  # snprintf into len + 10 bytes


def test_value_pieces_print_what_value_text_prints() -> None:
    """The table path of %6.4f against the one-by-one path, on exact ties (k/32, halves of
    a ten-thousandth), their neighbours one ulp away, the ends of the table (9.99995 and
    past), signed zeros, NaN of both signs, infinities, negatives, subnormals, integers
    and seeded random values of several magnitudes."""
    edges = [0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 5e-324, -5e-324, 1.0, 9.9999,
             9.99995, 9.999949999999999, 10.0, 99999.99995, 1e300, -930.0, -4.35262159,
             0.00005, 0.00015, 0.00025, 0.99995, 0.5, 1 / 3, 2 / 3, 0.1 + 0.2]
    ties = [k / 32 for k in range(320)] + [(2 * k + 1) / 20000 for k in range(0, 200_000, 997)]
    near = [float(np.nextafter(x, direction)) for x in ties for direction in (-math.inf, math.inf)]
    rnd = np.random.default_rng(7)
    drawn = np.concatenate([rnd.random(2000), rnd.random(500) * 20 - 10, rnd.random(200) * 1e6,
                            np.round(rnd.random(500), 5), np.round(rnd.random(500) * 10, 5)])
    values = np.array(edges + ties + near + drawn.tolist(), dtype=np.float64)
    for end in ("", "\n"):
        heads, tails = value_pieces(values, end)
        assert [h + t for h, t in zip(heads.tolist(), tails.tolist(), strict=True)] == [
            value_text(v) + end for v in values.tolist()]
    assert [h + t for h, t in zip(*value_pieces(np.array([0.03125, 9.99995, -0.0])),
                                  strict=True)] == ["0.0312", "10.0000", "-0.0000"]
    assert [len(part) for part in value_pieces(np.zeros(0))] == [0, 0]


def test_gains_sort_like_glibc_with_a_truncating_comparator() -> None:
    """comp_rel_gain truncates the difference to int, so 0.5 and 0 tie and keep their
    order: with ndcg.1=0.5 the ideal walk starts at grade 0's gain 0 and is empty."""
    gains = setup_gains((("1", 0.5),), np.array([3, 2]))
    assert [g for g, _, _ in gains.levels] == [1, 0]
    assert len(gains.ideal()[0]) == 0
    assert msort([3, 1, 2], lambda a, b: a - b) == [1, 2, 3]
    assert [g for g, _, _ in setup_gains((("1", 3.0),), np.array([3, 2, 1])).levels] == [0, 2, 1]


# 5000: an extra variant past the byte limit (101 and 124 are past it too) that takes
# about 40 s alone, the tail of the README's run: in the slow tier, which CI runs
@pytest.mark.parametrize("top", [3, 100, 101, 124, pytest.param(5000, marks=pytest.mark.slow)])
def test_byte_wide_codes_score_as_int64(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        top: int) -> None:
    """Relevance codes up to BYTE_CODES are held in one byte; every all_trec value (-q, with
    -c, -J, -M, -l) equals the int64 matrix's, on ties, unjudged and negative grades, a qrels
    topic the run lacks and the highest grade at the byte limit and past it."""
    from pooltool.formats.qrels import read_qrels_table
    from pooltool.formats.run import read_run_table
    from pooltool.measures.arrow_run import encode_table
    from pooltool.measures.qrels_index import index_qrels
    from pooltool.measures.trec import Options, evaluate_files, format_trec
    from pooltool.measures.trec import ranked as ranked_module

    rnd = random.Random(top)
    grades = [-1, 0, 0, 1, 2, top]
    qrels = [f"{t} 0 d{d} {rnd.choice(grades)}" for t in (1, 2, 3) for d in range(0, 40, 2)]
    qrels.append("4 0 d1 1")  # a qrels topic the run lacks
    run = [f"{t} Q0 d{d} 1 {rnd.choice([1.0, 2.0, rnd.random()])} r"
           for t in (1, 2, 3) for d in rnd.sample(range(60), 30)]
    (tmp_path / "q").write_text("\n".join(qrels) + "\n")
    (tmp_path / "r").write_text("\n".join(run) + "\n")
    table = read_qrels_table(tmp_path / "q")
    variants = [Options(complete=True), Options(), Options(complete=True, judged_only=True),
                Options(complete=True, max_docs=7), Options(level=2, complete=True)]

    def printed() -> list[str]:
        return [format_trec(evaluate_files([tmp_path / "r"], table, ["all_trec", "relstring.20"],
                                           options)[0], per_topic=True) for options in variants]

    index = index_qrels(table)
    encoded = encode_table(read_run_table(tmp_path / "r"), index)
    assert encoded is not None
    [batch] = ranked_module.ranked_batches(encoded[1], index, Options(complete=True))
    assert batch.rel.dtype == (np.int8 if top <= 100 else np.int64)
    narrow = printed()
    monkeypatch.setattr(ranked_module, "BYTE_CODES", -10)  # every run in int64
    [batch] = ranked_module.ranked_batches(encoded[1], index, Options(complete=True))
    assert batch.rel.dtype == np.int64
    assert printed() == narrow
