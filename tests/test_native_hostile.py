"""The compiled join (pooltool/native/runpass_join.c) against docnos made to share a
64-bit fingerprint, and the pass against line ends at the very end of a file.

The tests of test_native_runpass.py and test_fingerprint.py force collisions by
replacing :func:`pooltool.formats.fingerprint.fingerprints`, which the C join does not
call (it computes the same values itself): only real collisions reach its decline
on a fingerprint twice within a topic and its check of each match on the bytes.
"""

from __future__ import annotations

import struct
from types import ModuleType

import numpy as np
import pyarrow as pa
import pytest

from pooltool.formats.fingerprint import fingerprints
from pooltool.formats.run import run_table
from pooltool.formats.run_pass import pass_table, trec_order
from pooltool.measures import arrow_run
from pooltool.measures.arrow_run import encode_table
from pooltool.measures.qrels_index import NONPOOL, QrelsIndex, index_qrels

# Two pairs of printable 16-byte docnos with equal fingerprints. Made, not found: the
# state after a string's first word is known (splitmix64's finaliser is a bijection),
# so among random first words two were taken whose states differ only in bits that
# printable second words can cancel (state ^ word equal for both), 256 tries or so.
COLLIDING = [("F0K}|aWa4pqff;J7", "P,Yub.5cA0mL9e<%"), ('r"FN`]4-2IFs1y=u', "h!9dYk#$sU93IzV4")]
(A, B), (C, D) = COLLIDING


def qrels(rows: list[tuple[str, str, int]]) -> QrelsIndex:
    return index_qrels(pa.table({"topic": [r[0] for r in rows], "docno": [r[1] for r in rows],
                                 "grade": pa.array([r[2] for r in rows], pa.int64())}))


def native_grades(native: ModuleType, docnos: list[str], judged: QrelsIndex) -> list[int] | None:
    """The compiled join's grades of ``docnos``, all of topic "1" (the qrels' first), or None."""
    joined = arrow_run._native_join(native, pa.array(docnos, pa.string()), np.zeros(len(docnos), np.int64),
                                    np.zeros(len(docnos)), judged)
    return None if joined is None else joined.grade.tolist()


def test_the_crafted_docnos_share_a_fingerprint() -> None:
    for first, second in COLLIDING:
        prints = fingerprints(pa.array([first, second]))
        assert first != second and prints[0] == prints[1]


def test_two_colliding_docnos_in_a_topic_are_declined_then_graded_exactly(
        native: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    judged = qrels([("1", A, 2), ("1", "x", 1)])
    assert native_grades(native, [A, B, "x"], judged) is None
    data = f"1 Q0 {A} 1 3 t\n1 Q0 {B} 2 2 t\n1 Q0 x 3 1 t\n".encode()
    table = run_table(data)
    assert table is not None
    encoded = [encode_table(table, judged)]
    monkeypatch.setenv("POOLTOOL_NATIVE", "0")
    encoded.append(encode_table(table, judged))
    for result in encoded:
        assert result is not None and result[1].grade.tolist() == [2, NONPOOL, 1]


def test_a_docno_colliding_with_a_judged_one_is_not_judged(native: ModuleType) -> None:
    """The match on the fingerprint is checked on the bytes: B is not A."""
    assert native_grades(native, [B, "x"], qrels([("1", A, 2), ("1", "x", 1)])) == [NONPOOL, 1]


def test_colliding_judgments_of_one_topic_keep_their_own_grades(native: ModuleType) -> None:
    judged = qrels([("1", A, 2), ("1", B, 1), ("1", C, 3), ("1", D, 0)])
    assert native_grades(native, [B, C, "y", D, A], judged) is None  # B and A: one print
    assert native_grades(native, [B, C, "y"], judged) == [1, 3, NONPOOL]
    assert native_grades(native, [A, D], judged) == [2, 0]


def test_the_import_order_declines_colliding_docnos(native: ModuleType) -> None:
    """trec_order's table proves that no docno repeats: two docnos of one print in a
    topic are declined (the store's own check then decides); in two topics they are not."""
    table = run_table(f"1 Q0 {A} 1 3 t\n1 Q0 {B} 2 3 t\n2 Q0 {C} 1 1 t\n".encode())
    assert table is not None and trec_order(table) is None
    table = run_table(f"1 Q0 {A} 1 3 t\n1 Q0 x 2 3 t\n1 Q0 {D} 3 0 t\n2 Q0 {C} 1 1 t\n".encode())
    assert table is not None
    checked = trec_order(table)  # C and D: one print, but in two topics
    assert checked is not None and checked.ordered is not None
    assert checked.ordered["docno"].to_pylist() == ["x", A, D, C]


@pytest.mark.parametrize(("data", "read"), [(b"1 Q0 d 1 1 t\r", False), (b"1 Q0 d 1 1 t\r\n", True),
                                            (b"1 Q0 d 1 1 t \r\n", True), (b"1 Q0 d 1 1 t\r \n", False),
                                            (b"1 Q0 d 1 1 t\n\r", False), (b"1 Q0 d 1 1 t\n\r\n", True)])
def test_a_line_end_at_the_end_of_the_file(native: ModuleType, data: bytes, read: bool) -> None:
    """A CR is a line end only before LF: a lone CR at the very end, after the last field
    or alone on the last line, is str.splitlines' line break, left to the Python readers."""
    table = pass_table(data)
    assert (table is not None) == read
    if table is not None:
        assert table["docno"].to_pylist() == ["d"] and table["run_tag"].to_pylist() == ["t"]


@pytest.mark.parametrize("score", ["2349735972095008e8", "7109674519335673e-22", "2743912717067783e-9"])
def test_scores_that_x87_arithmetic_would_round_twice(native: ModuleType, score: str) -> None:
    """Digits and a power of ten both exact doubles, the one operation of Clinger's fast
    path: correctly rounded only where it is rounded once. A build whose doubles are
    computed in x87 extended precision (32-bit x86, ``-mfpmath=387``) gave the next double
    up or down for these (found by a search over such pairs); the pass then leaves them
    to strtod_l. The value is float()'s, bit for bit."""
    table = pass_table(f"1 Q0 d 1 {score} t\n".encode())
    assert table is not None
    assert struct.pack("<d", table["score"][0].as_py()) == struct.pack("<d", float(score))
