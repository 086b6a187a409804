"""trec_eval's order: score descending, ties by docno descending, rank column ignored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from pooltool.formats.run import read_run
from pooltool.ranking import _group_score_order, _written_in_order, order_run, top_k, trec_ranks


def test_ties_broken_by_docno_descending_and_rank_ignored() -> None:
    run = read_run("1 Q0 a 1 1.0 t\n1 Q0 c 2 1.0 t\n1 Q0 b 3 2.0 t\n1 Q0 B 4 1.0 t\n")
    ordered = order_run(run)
    assert ordered["docno"].tolist() == ["b", "c", "a", "B"]
    assert ordered["trec_rank"].tolist() == [1, 2, 3, 4]


def test_positions_restart_per_topic_and_run() -> None:
    run = read_run("2 Q0 x 1 1 t\n1 Q0 y 1 1 t\n1 Q0 z 1 5 t\n1 Q0 y 1 1 u\n")
    ordered = order_run(run)
    assert ordered[["run_tag", "topic", "docno", "trec_rank"]].values.tolist() == [
        ["t", "1", "z", 1], ["t", "1", "y", 2], ["t", "2", "x", 1], ["u", "1", "y", 1]]


def test_docno_comparison_is_strcmp_order() -> None:
    """strcmp compares bytes: digits < upper case < lower case; '10' < '9'."""
    run = read_run("1 Q0 9 1 0 t\n1 Q0 10 1 0 t\n1 Q0 Z 1 0 t\n1 Q0 a 1 0 t\n")
    assert order_run(run)["docno"].tolist() == ["a", "Z", "9", "10"]


def test_top_k_and_bad_depth() -> None:
    run = read_run("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    assert top_k(run, 2)["docno"].tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="depth must be at least 1"):
        top_k(run, 0)


def independent_order(path: Path) -> dict[str, list[str]]:
    """Plain-Python trec_eval order of a run file, written apart from pooltool."""
    by_topic: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        topic, _, docno, _, score, _ = line.split()[:6]
        by_topic.setdefault(topic, []).append((float(score), docno))
    return {t: [d for _, d in sorted(docs, reverse=True)] for t, docs in by_topic.items()}


@pytest.mark.parametrize("name", ["ixa-ir-filter-query", "UIowaS_Run3", "sheikh_bm25_all"])
def test_real_runs_with_ties_and_odd_ranks(shared_data: Path, name: str) -> None:
    path = shared_data / "trec_covid_r1" / "runs" / name
    ordered = order_run(read_run(path))
    expected = independent_order(path)
    got = {t: g["docno"].tolist() for t, g in ordered.groupby("topic")}
    assert got == expected


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5, float("inf")])),
                min_size=1, max_size=40),
       st.booleans())
def test_group_score_order_is_lexsort(rows: list[tuple[int, float]], written_in_order: bool) -> None:
    """The shortcut for runs written topic by topic, best first, gives lexsort's order."""
    if written_in_order:
        rows = sorted(rows, key=lambda row: (row[0], -row[1]))
    group = np.array([g for g, _ in rows], dtype=np.int64)
    scores = np.array([s for _, s in rows])
    expected = np.lexsort((-scores, group))
    order = _group_score_order(group, scores)  # sorted_groups=True: never None
    assert order is not None and order.tolist() == expected.tolist()


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["t", "u"]), st.sampled_from(["1", "2", "10"]),
                          st.sampled_from(["a", "B", "9", "10", "b"]),
                          st.sampled_from([0.0, 1.0, 2.5, float("nan")])),
                min_size=1, max_size=40),
       st.booleans())
def test_trec_ranks_are_order_runs_in_row_order(rows: list[tuple[str, str, str, float]],
                                                python_strings: bool) -> None:
    """Each row's trec_rank, the frame left as it is: numpy's path (Python strings, no
    NaN score), and pandas' where order_run falls back to it."""
    frame = pd.DataFrame(rows, columns=["run_tag", "topic", "docno", "score"])
    if python_strings:
        frame = frame.astype({"run_tag": object, "topic": object, "docno": object})
    ordered = order_run(frame.assign(row=np.arange(len(frame))))
    expected = np.empty(len(frame), dtype=np.int64)
    expected[ordered["row"].to_numpy()] = ordered["trec_rank"].to_numpy()
    before = frame.copy()
    assert trec_ranks(frame).tolist() == expected.tolist()
    assert frame.equals(before)


def test_stretches_by_hand() -> None:
    from pooltool.ranking import stretches

    starts, lengths = stretches(np.array([7, 7, 3, 7]))
    assert starts.tolist() == [0, 2, 3] and lengths.tolist() == [2, 1, 1]
    starts, lengths = stretches(np.array(["b", "b", "a"], dtype=object))
    assert starts.tolist() == [0, 2] and lengths.tolist() == [2, 1]
    assert [len(a) for a in stretches(np.array([], dtype=object))] == [0, 0]



@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(["b", "a", "10", "9", "é", ""]), max_size=40))
def test_stretch_codes_and_first_seen_are_pandas_factorize_and_unique(values: list[str]) -> None:
    from pooltool.ranking import first_seen, stretch_codes

    array = np.array(values, dtype=object)
    codes, uniques = stretch_codes(array)
    expected_codes, expected_uniques = pd.factorize(array, sort=True)
    assert codes.dtype == np.int64 and codes.tolist() == expected_codes.tolist()
    assert list(uniques) == list(expected_uniques)
    assert list(first_seen(array)) == list(pd.unique(array))


def test_stretch_codes_by_hand() -> None:
    from pooltool.ranking import first_seen, stretch_codes

    codes, uniques = stretch_codes(np.array(["b", "b", "a", "b", "c"], dtype=object))
    assert codes.tolist() == [1, 1, 0, 1, 2] and list(uniques) == ["a", "b", "c"]
    assert first_seen(np.array(["b", "b", "a", "b", "c"], dtype=object)).tolist() == ["b", "a", "c"]

@pytest.mark.parametrize("sorted_groups", [True, False])
def test_order_lines_is_one_order_for_numpy_and_arrow_docnos(sorted_groups: bool) -> None:
    """The frame path and the measures' Arrow path order by one function: ties on
    (group, score) by docno descending, equal docnos kept in row order."""
    import pyarrow as pa

    from pooltool.ranking import order_lines

    group = np.array([1, 1, 1, 1, 0, 0, 0], dtype=np.int64)
    score = np.array([2.0, 1.0, 1.0, 1.0, 5.0, 5.0, 4.0])
    docno = np.array(["a", "b", "c", "b", "d10", "d9", "x"], dtype=object)
    expected = [5, 4, 6, 0, 2, 1, 3] if sorted_groups else [0, 2, 1, 3, 5, 4, 6]
    on_numpy = order_lines(group, score, docno, sorted_groups=sorted_groups)
    on_arrow = order_lines(group, score, pa.array(list(docno)), sorted_groups=sorted_groups)
    assert on_numpy[0].tolist() == on_arrow[0].tolist()
    assert on_numpy[1].tolist() == on_arrow[1].tolist() == [0, 1, 2, 1, 3, 4, 0]
    frame_order = order_run(pd.DataFrame({"topic": group.astype(str), "score": score,
                                          "docno": docno}))
    assert frame_order["docno"].tolist() == docno[[5, 4, 6, 0, 2, 1, 3]].tolist()
    assert on_numpy[0].tolist() == expected


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0.0, 1.0, 2.5])), max_size=30))
def test_written_in_order_is_one_stretch_per_group_best_first(rows: list[tuple[int, float]]) -> None:
    """The shortcut's test, against plain Python: each group's rows adjacent, scores
    not rising within a group (fewer than two rows: no shortcut)."""
    group = np.array([g for g, _ in rows], dtype=np.int64)
    scores = np.array([s for _, s in rows])
    heads = [g for i, (g, _) in enumerate(rows) if i == 0 or rows[i - 1][0] != g]
    best_first = all(rows[i][1] <= rows[i - 1][1] for i in range(1, len(rows))
                     if rows[i][0] == rows[i - 1][0])
    expected = len(rows) >= 2 and len(heads) == len(set(heads)) and best_first
    assert _written_in_order(group, scores) == expected


def _reference_order(group: list[int], score: list[float], docno: list[str]) -> list[int]:
    """Rows by group, score descending, docno descending, equal rows in row order (two
    stable sorts: Python's ``reverse=True`` keeps equal items in their order)."""
    by_docno = sorted(range(len(group)), key=lambda row: docno[row], reverse=True)
    return sorted(by_docno, key=lambda row: (group[row], -score[row]))


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([0.0, 0.5, 1.0]),
                          st.sampled_from(["a", "b", "B", "10", "9"])), min_size=1, max_size=40),
       st.booleans(), st.booleans())
def test_order_lines_is_the_reference_order(rows: list[tuple[int, float, str]], written: bool,
                                            offset: bool) -> None:
    """Against plain Python on heavy ties: tied stretches back to back, equal docnos,
    rows written topic by topic best first (then as written, ``sorted_groups=False``:
    groups in their order of appearance) or not, docnos given through ``rows``."""
    import pyarrow as pa

    from pooltool.ranking import order_lines

    if written:  # topic by topic, best first, the topics in descending code order
        rows = [(3 - g, s, d) for g, s, d in sorted(rows, key=lambda row: (row[0], -row[1]))]
    group = [g for g, _, _ in rows]
    score = [s for _, s, _ in rows]
    docno = [d for _, _, d in rows]
    appearance = {g: group.index(g) for g in group}
    arrays = np.array(group, dtype=np.int64), np.array(score)
    names = pa.array((["pad"] if offset else []) + docno)
    where = np.arange(len(rows)) + 1 if offset else None
    for sorted_groups in ((True, False) if written else (True,)):
        keys = group if sorted_groups else [appearance[g] for g in group]
        order, ties = order_lines(*arrays, names, where, sorted_groups=sorted_groups)
        assert order.tolist() == _reference_order(keys, score, docno)
        tied = [any(i != j and group[i] == group[j] and score[i] == score[j]
                    for j in range(len(rows))) for i in range(len(rows))]
        assert [bool(t) for t in ties] == tied
        for i in range(len(rows)):
            for j in range(len(rows)):
                if tied[i] and tied[j] and (group[i], score[i]) == (group[j], score[j]):
                    assert (ties[i] < ties[j]) == (docno[i] < docno[j])
