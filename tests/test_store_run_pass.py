"""add-runs with the compiled join (:func:`pooltool.formats.run_pass.trec_order`) and
without it (``POOLTOOL_NATIVE=0``): the same stored runs, byte for byte, and the same
refusals.

``trec_order`` must answer only when no docno repeats within a topic, and then give
:func:`pooltool.ranking.order_table`'s table (rows, columns, topic dictionary) unless a
topic is not written best score first; the store's blobs of real runs (TREC-COVID round 1, the demo) and of
generated ones (ties, -0.0, topics out of order or interleaved, several run tags)
must not depend on which path read them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from pooltool.errors import FormatError
from pooltool.formats.run import run_table
from pooltool.formats.run_pass import trec_order
from pooltool.native import run_pass
from pooltool.ranking import order_table
from pooltool.store import JudgmentStore, run_columns

DEMO_RUNS = Path(__file__).resolve().parents[1] / "demo" / "runs"
needs_native = pytest.mark.skipif(run_pass() is None, reason="pooltool.native is not built")


@pytest.fixture
def native_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Runs the block with ``POOLTOOL_NATIVE=0`` (read at each call)."""
    monkeypatch.setenv("POOLTOOL_NATIVE", "0")
    yield


def stored_runs(paths: list[Path]) -> list[tuple[str, int, str, str, bytes]]:
    """add-runs of ``paths`` into a fresh store: each run's tag, lines, sha256s and blob."""
    store = JudgmentStore.memory()
    store.add_runs(paths)
    return [tuple(row) for row in store.conn.execute(
        "SELECT r.run_tag, c.lines, c.sha256, c.source_sha256, c.entries FROM runs r "
        "JOIN run_columns c USING (run_id) ORDER BY r.run_id")]


def both_paths(paths: list[Path], monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, str, str, bytes]]:
    """:func:`stored_runs` with the compiled pass and without it, asserted equal."""
    monkeypatch.delenv("POOLTOOL_NATIVE", raising=False)
    native = stored_runs(paths)
    monkeypatch.setenv("POOLTOOL_NATIVE", "0")
    python = stored_runs(paths)
    monkeypatch.delenv("POOLTOOL_NATIVE")
    assert native == python
    return native


def run_lines(rows: list[tuple[str, str, float, str]]) -> str:
    return "".join(f"{topic} Q0 {docno} {rank} {score!r} {tag}\n"
                   for rank, (topic, docno, score, tag) in enumerate(rows, 1))


@needs_native
def test_trec_covid_runs_are_stored_alike_and_take_the_join(shared_data: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    paths = sorted((shared_data / "trec_covid_r1" / "runs").iterdir())
    for path in paths:  # the join answers for each (else the test compares one path twice)
        table = run_table(path.read_bytes(), False)
        answer = trec_order(table) if table is not None else None
        assert answer is not None and answer.ordered is not None, path.name
    stored = both_paths(paths, monkeypatch)
    assert len(stored) == 15 and sum(run[1] for run in stored) == sum(
        len(path.read_bytes().splitlines()) for path in paths)


@needs_native
def test_demo_runs_are_stored_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = sorted(DEMO_RUNS.iterdir())
    assert len(both_paths(paths, monkeypatch)) == len(paths)


@needs_native
def test_generated_runs_are_stored_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ties, -0.0 beside 0.0, topics in file order unlike string order, a topic in two
    stretches, a topic not best score first, two run tags in a file."""
    chooser = random.Random(7)
    files = {
        "ties": [("10", f"d{chooser.randrange(50)}x{i}", float(-(i // 4)), "T") for i in range(40)],
        "zeros": [("2", "b", 0.0, "Z"), ("2", "a", -0.0, "Z"), ("2", "c", 0.0, "Z"),
                  ("1", "a", 1.0, "Z")],
        "topics": [(t, f"doc{i}", float(9 - i), "S") for t in ("9", "10", "1", "100")
                   for i in range(5)],
        "stretches": [("1", "a", 2.0, "R"), ("2", "a", 2.0, "R"), ("1", "b", 1.0, "R")],
        "unordered": [("1", "a", 1.0, "U"), ("1", "b", 2.0, "U"), ("2", "c", 1.0, "U")],
        "two_tags": [("1", "a", 2.0, "V"), ("1", "a", 2.0, "W"), ("1", "b", 1.0, "V")],
    }
    paths = []
    for name, rows in files.items():
        paths.append(tmp_path / f"{name}.run")
        paths[-1].write_text(run_lines(rows))
    # whether the join answers (no repeats), and whether it orders the lines too
    expected_join = {"ties": (True, True), "zeros": (True, True), "topics": (True, True),
                     "stretches": (False, False), "unordered": (True, False), "two_tags": (False, False)}
    for path in paths:
        table = run_table(path.read_bytes(), False)
        assert table is not None
        answer = trec_order(table)
        found = (answer is not None, answer is not None and answer.ordered is not None)
        assert found == expected_join[path.stem], path.name
    stored = both_paths(paths, monkeypatch)
    assert [run[0] for run in stored] == ["T", "Z", "S", "R", "U", "V", "W"]


@needs_native
def test_a_file_the_join_checked_is_not_checked_again(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A topic not written best score first: the join still proved that no docno repeats,
    so add-runs orders the lines without run_columns.repeats_docno."""
    path = tmp_path / "unordered.run"
    path.write_text(run_lines([("1", "a", 1.0, "U"), ("1", "b", 2.0, "U"), ("2", "c", 1.0, "U")]))

    def refuse(table: pa.Table) -> bool:
        raise AssertionError("repeats_docno ran again")

    monkeypatch.setattr(run_columns, "repeats_docno", refuse)
    store = JudgmentStore.memory()
    store.add_runs([path])
    assert store.run_frame("U")["docno"].tolist() == ["b", "a", "c"]


@pytest.mark.parametrize("native", ["1", "0"])
def test_a_repeated_docno_is_refused_with_its_file_and_line(native: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POOLTOOL_NATIVE", native)
    good = tmp_path / "good.run"
    good.write_text(run_lines([("1", "a", 2.0, "G"), ("1", "b", 1.0, "G")]))
    path = tmp_path / "dup.run"
    path.write_text("1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n2 Q0 a 1 2 A\n1 Q0 a 3 1 A\n")
    store = JudgmentStore.memory()
    with pytest.raises(FormatError, match=r"dup\.run:4: docno 'a' appears twice for topic '1' "
                                          r"in run 'A' \(first on line 1\)"):
        store.add_runs([good, path])
    assert store.run_tags() == []


# "é": files the compiled pass declines and Arrow's reader reads (trec_order takes its tables too)
rows_strategy = st.lists(st.tuples(st.sampled_from(["1", "10", "2", "9", "é"]),
                                   st.text("aAbBz09.-é", min_size=1, max_size=3),
                                   st.sampled_from([3.0, 2.5, 1.0, 0.0, -0.0, -1.0])),
                         min_size=1, max_size=40)


@needs_native
@settings(max_examples=examples(300), deadline=None)
@given(rows_strategy, st.booleans(), st.booleans())
def test_trec_order_is_order_table_and_answers_only_without_repeats(
        rows: list[tuple[str, str, float]], by_topic: bool, by_score: bool) -> None:
    """Lines grouped by topic and best score first, or as drawn (then the join may
    decline); docnos repeated or not."""
    if by_topic:
        rows = sorted(rows, key=lambda row: row[0])
    if by_score:
        rows = sorted(rows, key=lambda row: (row[0] if by_topic else "", -row[2]))
    table = run_table(run_lines([(*row, "A") for row in rows]).encode(), False)
    assert table is not None
    answer = trec_order(table)
    if answer is None:
        return
    assert not run_columns.repeats_docno(table)
    ordered = answer.ordered
    written_best_first = all(
        a[2] >= b[2] for a, b in zip(rows, rows[1:], strict=False) if a[0] == b[0])
    if ordered is None:  # only when some topic is not written best score first
        assert not written_best_first
        return
    expected = order_table(table)
    assert ordered.equals(expected)
    assert ordered["topic"].chunk(0).dictionary.equals(expected["topic"].chunk(0).dictionary)
    assert run_columns.pack(ordered) == run_columns.pack(expected)


@needs_native
def test_trec_order_takes_tables_in_chunks() -> None:
    """Arrow's reader gives chunks (with its threads): the same order as in one piece."""
    rows = [(topic, f"d{i % 7}{i}", float(-(i // 3)), "A") for topic in ("b", "a") for i in range(30)]
    whole = run_table(run_lines(rows).encode(), False)
    assert whole is not None
    chunked = pa.concat_tables([whole.slice(0, 17), whole.slice(17, 20), whole.slice(37)])
    assert chunked["docno"].num_chunks == 3
    answer = trec_order(chunked)
    assert answer is not None and answer.ordered is not None and answer.ordered.equals(order_table(whole))


@needs_native
def test_trec_order_answers_for_a_run_written_in_order() -> None:
    """The usual file (topics grouped, best score first, no repeats): the join answers,
    so the comparisons above are not all of declined tables."""
    rows = [(topic, f"d{i}", float(-i), "A") for topic in ("3", "1", "2") for i in range(20)]
    table = run_table(run_lines(rows).encode(), False)
    assert table is not None
    answer = trec_order(table)
    assert answer is not None and answer.ordered is not None and answer.ordered.equals(order_table(table))
    assert answer.ordered["topic"].to_pylist()[::20] == ["1", "2", "3"]


def test_trec_order_declines_when_switched_off(native_off: None) -> None:
    table = pa.table({"topic": pa.array(["1"]).dictionary_encode(), "docno": ["a"],
                      "rank": [1], "score": [1.0], "run_tag": pa.array(["A"]).dictionary_encode()})
    assert trec_order(table) is None


@needs_native
def test_trec_order_takes_what_arrows_reader_read() -> None:
    """UTF-8: the pass declines, Arrow's reader reads; the join orders its table (topics
    and docnos compared byte by byte, as strcmp compares)."""
    data = "é Q0 dé 1 2 A\né Q0 a 2 2 A\né Q0 z 3 2 A\n1 Q0 x 1 1 A\n".encode()
    native = run_pass()
    assert native is not None and native.read_run(data) is None
    table = run_table(data, False)
    assert table is not None
    answer = trec_order(table)
    assert answer is not None and answer.ordered is not None
    ordered = answer.ordered
    assert ordered.equals(order_table(table))
    assert ordered["topic"].to_pylist() == ["1", "é", "é", "é"]
    assert ordered["docno"].to_pylist() == ["x", "z", "dé", "a"]
