"""The compiled pass (pooltool/native/_runpass.c): where it reads a file, the values of
the line reader, bit for bit; where it is unsure, it declines; it never crashes on
bytes; switched off (``POOLTOOL_NATIVE=0``) every output is the same. Its parity with
the other readers on the shared cases runs in test_formats_run.py, test_recall_columns.py
and test_recall_properties.py (``reader_paths``: each test on both paths)."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from pooltool.errors import FormatError
from pooltool.formats import run as run_module
from pooltool.formats.fingerprint import fingerprints, keyed, string_buffers
from pooltool.formats.run import iter_run_entries, run_frame
from pooltool.formats.run_pass import pass_table
from pooltool.measures import arrow_run
from pooltool.measures.arrow_run import encode_table
from pooltool.measures.per_topic import EncodedRun
from pooltool.measures.qrels_index import NONPOOL, QrelsIndex, index_qrels
from pooltool.native import INTERFACE, built, run_pass, usable

DEMO = Path(__file__).resolve().parents[1] / "demo"


def test_the_extension_is_built_where_it_must_be() -> None:
    """``POOLTOOL_REQUIRE_NATIVE=1`` (CI): an install that lost the compiled pass fails
    here instead of quietly running every file through the slower readers."""
    if os.environ.get("POOLTOOL_REQUIRE_NATIVE") != "1":
        pytest.skip("POOLTOOL_REQUIRE_NATIVE is not set")
    assert built(), "pooltool.native._runpass is not built: pip install -e . with a C compiler"


def test_a_build_of_another_interface_is_left_unused(native: ModuleType) -> None:
    """A module built from older sources (an editable install not rebuilt after a pull)
    lacks functions or takes other arguments: it is declined like a missing one, so the
    Python readers answer instead of an AttributeError in the middle of an import."""
    assert native.INTERFACE == INTERFACE and usable(native) is native
    before = ModuleType("_runpass")  # a build from before INTERFACE: no such constant
    setattr(before, "read_run", native.read_run)  # noqa: B010
    other = ModuleType("_runpass")
    setattr(other, "INTERFACE", INTERFACE - 1)  # noqa: B010
    assert usable(before) is None and usable(other) is None
    assert usable(None) is None


def test_switched_off_by_the_environment(monkeypatch: pytest.MonkeyPatch, native: ModuleType) -> None:
    monkeypatch.setenv("POOLTOOL_NATIVE", "0")
    assert run_pass() is None and pass_table(b"1 Q0 d 1 2.5 t\n") is None
    monkeypatch.setenv("POOLTOOL_NATIVE", "1")
    assert run_pass() is native


# --- the values: the line reader's, bit for bit --------------------------------------


def bits(value: float) -> bytes:
    return struct.pack("<d", value)


def line_reader_frame(data: bytes):  # type: ignore[no-untyped-def]
    """The line reader's frame of ``data`` (no repeat check: the pass does not look)."""
    return run_module._entries_frame(iter_run_entries(data.decode().splitlines(), check_duplicates=False))


def same_as_line_reader(data: bytes) -> bool:
    """The pass's table of ``data`` is the line reader's frame (scores bit for bit), or it
    declined; ``True`` when it read the bytes. A file the line reader refuses is declined."""
    table = pass_table(data)
    try:
        expected = line_reader_frame(data)
    except (FormatError, UnicodeDecodeError):
        assert table is None
        return False
    if table is None:
        return False
    frame = run_frame(table)
    assert frame[["run_tag", "topic", "docno"]].equals(expected[["run_tag", "topic", "docno"]])
    assert frame["rank"].tolist() == expected["rank"].tolist()
    assert [bits(v) for v in frame["score"]] == [bits(v) for v in expected["score"]]
    return True


SCORES = [
    "0", "-0", "+0", "-0.0", "0.5", ".5", "5.", "+.5", "-5.", "1e5", "1E+05", "1e-5", "-1.5e-3", "39.903",
    "0.1", "0.3", "123456789012345678", "12345678901234567890", "9007199254740993", "9007199254740992",
    "1.7976931348623157e308", "1.7976931348623159e308", "1e308", "1e309", "1e400", "-1e400",
    "4.9e-324", "2.4e-324", "2.5e-324", "2.2250738585072011e-308", "2.2250738585072014e-308",
    "1e-400", "0.000000000000000000000000000001", "1e22", "1e23", "9999999999999999e22",
    "3.14159265358979323846264338327950288", "0." + "0" * 40 + "1", "1" * 300, "1" * 300 + ".5e-290",
    "7.0e-10", "00000000000000000000000000001.5", "1.00000000000000011102230246251565404236316680908203125",
    "1.00000000000000011102230246251565404236316680908203124", "0.1e1", "100e-2", "1e0000000000000000001",
]


@pytest.mark.parametrize("score", SCORES)
def test_a_score_is_the_double_float_gives(native: ModuleType, score: str) -> None:
    table = pass_table(f"1 Q0 d 1 {score} t\n".encode())
    assert table is not None
    assert bits(table["score"][0].as_py()) == bits(float(score))


@pytest.mark.parametrize("score", ["inf", "-inf", "Infinity", "nan", "NaN", "1e", "e5", ".", "-", "1.2.3",
                                   "1e+", "0x10", "1_000", "1,5", "١", "1" * 600])
def test_a_score_of_another_form_is_declined(native: ModuleType, score: str) -> None:
    assert pass_table(f"1 Q0 d 1 {score} t\n".encode()) is None


@settings(max_examples=examples(400), deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["{!r}", "{:.17g}", "{:.3f}",
                                                                           "{:.20e}", "{:.1e}", "{:.25f}"]))
def test_every_written_double_reads_back_as_float_reads_it(value: float, form: str) -> None:
    text = form.format(value)
    table = pass_table(f"1 Q0 d 1 {text} t\n".encode())
    if run_pass() is not None:
        assert table is not None and bits(table["score"][0].as_py()) == bits(float(text))


DIGITS = st.text("0123456789", min_size=0, max_size=25)


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(["", "+", "-"]), DIGITS, st.sampled_from(["", "."]), DIGITS,
       st.sampled_from(["", "e", "E", "e+", "e-"]), st.text("0123456789", max_size=4))
def test_decimal_forms_read_as_float_reads_them(sign: str, whole: str, point: str, fraction: str,
                                                mark: str, exponent: str) -> None:
    text = sign + whole + point + fraction + (mark + exponent if mark else "")
    same_as_line_reader(f"1 Q0 d 1 {text} t\n".encode())


@pytest.mark.parametrize("rank", ["0", "-0", "007", "-12", "9223372036854775807", "-9223372036854775808"])
def test_a_rank_is_the_integer_written(native: ModuleType, rank: str) -> None:
    table = pass_table(f"1 Q0 d {rank} 1.5 t\n".encode())
    assert table is not None and table["rank"][0].as_py() == int(rank)


@pytest.mark.parametrize("rank", ["+1", "0x10", "1.0", "9223372036854775808", "-9223372036854775809",
                                  "99999999999999999999", "-", "1e3"])
def test_a_rank_of_another_form_is_declined(native: ModuleType, rank: str) -> None:
    assert pass_table(f"1 Q0 d {rank} 1.5 t\n".encode()) is None


# --- what it declines: every byte the Python readers treat specially -----------------

DECLINED = {
    "comment": b"# a comment\n1 Q0 d 1 1 t\n",
    "comment after blanks": b"1 Q0 d 1 1 t\n  \t#x y\n",
    "seven fields": b"1 Q0 d 1 1 t extra\n",
    "five fields": b"1 Q0 d 1 t\n",
    "lone CR": b"1 Q0 d 1 1 t\r1 Q0 e 2 1 t\n",
    "CR inside a line": b"1 Q0 d\r 1 1 t\n",
    "NUL": b"1 Q0 d\x00 1 1 t\n",
    "vertical tab": b"1 Q0 d 1 1\x0bt\n",
    "form feed": b"1 Q0 d 1 1 t\x0c\n",
    "file separator": b"1 Q0 d\x1c 1 1 t\n",
    "ESC in a docno": b"1 Q0 d\x1b[2J 1 1 t\n",
    "DEL": b"1 Q0 d\x7f 1 1 t\n",
    "byte order mark": b"\xef\xbb\xbf1 Q0 d 1 1 t\n",
    "UTF-8 docno": "1 Q0 dé 1 1 t\n".encode(),
    "NBSP": "1 Q0\u00a0d 1 1 t\n".encode(),
    "not UTF-8": b"1 Q0 d\xff 1 1 t\n",
    "empty": b"",
    "blank only": b" \n\t\n\n",
    "NaN": b"1 Q0 d 1 nan t\n",
}


@pytest.mark.parametrize("name", sorted(DECLINED))
def test_declines_what_the_python_readers_treat_specially(native: ModuleType, name: str) -> None:
    assert native.read_run(DECLINED[name]) is None


READ = {
    "spaces and TABs mixed, doubled, at the ends": b"  1 \t Q0\t\td 1  2.5 t \t\n\n \t \n2 Q0 e 1 3 t",
    "CRLF": b"1 Q0 d 1 1 t\r\n1 Q0 e 2 0.5 t\r\n",
    "no final line end": b"1 Q0 d 1 1 t",
    "several tags and topics": b"1 Q0 d 1 1 a\n2 Q0 d 1 1 b\n1 Q0 e 2 1 a\n10 Q0 d 1 1 a\n",
    "a repeated docno (not looked for here)": b"1 Q0 d 1 1 t\n1 Q0 d 2 1 t\n",
    "punctuation in ids": b"q-1 Q0 doc#1/x_y.z 1 1 run:1\n",
}


@pytest.mark.parametrize("name", sorted(READ))
def test_reads_what_the_line_reader_reads(native: ModuleType, name: str) -> None:
    assert same_as_line_reader(READ[name])


def test_labels_are_coded_as_dictionary_encode_codes_them(native: ModuleType) -> None:
    data = b"".join(f"{t} Q0 d{i} {i} 1 {g}\n".encode()
                    for i, (t, g) in enumerate([("3", "b"), ("1", "a"), ("3", "b"), ("20", "a"), ("1", "c")]))
    table = pass_table(data)
    assert table is not None
    assert table["topic"].chunk(0).dictionary.to_pylist() == ["3", "1", "20"]
    assert table["topic"].chunk(0).indices.to_pylist() == [0, 1, 0, 2, 1]
    assert table["run_tag"].chunk(0).dictionary.to_pylist() == ["b", "a", "c"]
    assert table["run_tag"].chunk(0).indices.to_pylist() == [0, 1, 0, 1, 2]


def test_many_topics_grow_the_label_table(native: ModuleType) -> None:
    data = b"".join(f"t{i % 997} Q0 d{i} {i} {i / 7!r} run\n".encode() for i in range(5000))
    assert same_as_line_reader(data)
    table = pass_table(data)
    assert table is not None and len(table["topic"].chunk(0).dictionary) == 997


def test_the_arrow_path_gives_the_same_table(monkeypatch: pytest.MonkeyPatch, native: ModuleType) -> None:
    data = (DEMO / "runs" / "bm25.run").read_bytes()
    table = run_module.run_table(data)
    monkeypatch.setenv("POOLTOOL_NATIVE", "0")
    arrow = run_module.run_table(data)
    assert table is not None and arrow is not None and table.equals(arrow)


TOKEN = st.sampled_from(["1", "2", "d", "D1", "Q0", "-3", "0.5", "1e3", "#", "x", "+1", "nan", "é", "\x1b",
                         "\x00", "\ufeff", "\u00a0", "0x1"])
SEP = st.sampled_from([" ", "\t", "  ", " \t", "\x0b", "\r"])
END = st.sampled_from(["\n", "\r\n", "\r", "", "\n\n"])


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.tuples(st.lists(TOKEN, min_size=0, max_size=8), SEP, END), max_size=6))
def test_random_lines_are_read_as_the_line_reader_reads_them_or_declined(
        lines: list[tuple[list[str], str, str]]) -> None:
    data = "".join(sep.join(tokens) + end for tokens, sep, end in lines).encode()
    same_as_line_reader(data)


VALID = b"1 Q0 d1 1 2.5 t\n1 Q0 d2 2 2.25 t\n2\tQ0\td1\t1\t-1e3\tt\r\n"


@settings(max_examples=examples(600), deadline=None)
@given(st.binary(max_size=200) | st.builds(lambda at, b: VALID[:at] + b + VALID[at:],
                                           st.integers(0, len(VALID)), st.binary(min_size=1, max_size=4)))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    """Random and mutated bytes: a table or a decline (``None``), and a table only of
    bytes the line reader reads the same."""
    native = run_pass()
    if native is None:
        return
    read = native.read_run(data)
    assert read is None or read[0] >= 1
    try:
        text = data.decode()
    except UnicodeDecodeError:
        assert read is None
        return
    if "\x00" not in text:
        same_as_line_reader(data)


# --- the join: grades and repeats, as the vectorised join gives them -----------------


def encode_both(table: pa.Table, qrels: pa.Table, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    native = encode_table(table, index_qrels(qrels))
    monkeypatch.setenv("POOLTOOL_NATIVE", "0")
    python = encode_table(table, index_qrels(qrels))
    monkeypatch.delenv("POOLTOOL_NATIVE")
    return native, python


def qrels_table(rows: list[tuple[str, str, int]]) -> pa.Table:
    return pa.table({"topic": [r[0] for r in rows], "docno": [r[1] for r in rows],
                     "grade": pa.array([r[2] for r in rows], pa.int64())})


RUN_LINES = st.lists(st.tuples(st.sampled_from(["1", "2", "3", "x"]),
                               st.sampled_from(["a", "b", "c", "dd", "e" * 9]), st.integers(0, 4)),
                     min_size=1, max_size=30)
JUDGMENTS = st.lists(st.tuples(st.sampled_from(["1", "2", "3", "4"]),
                               st.sampled_from(["a", "b", "c", "dd", "e" * 9, "f"]), st.integers(-1, 3)),
                     min_size=1, max_size=15, unique_by=lambda r: r[:2])


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(RUN_LINES, JUDGMENTS, st.booleans())
def test_the_join_gives_the_vectorised_joins_grades(
        monkeypatch: pytest.MonkeyPatch, native: ModuleType, run: list[tuple[str, str, int]],
        judged: list[tuple[str, str, int]], in_order: bool) -> None:
    """Same encoded run from both joins, or the same DuplicateDocno (a repeat); a topic in
    two stretches is declined by the compiled join and settled by the other. ``in_order``:
    each topic's lines written together, best score first (ties in any docno order), as
    the compiled join orders them itself."""
    if in_order:
        run = sorted(run, key=lambda line: (line[0], -line[2]))
    data = "".join(f"{t} Q0 {d} {i} {s} run\n" for i, (t, d, s) in enumerate(run)).encode()
    table = run_module.run_table(data)
    assert table is not None
    try:
        native_run, python_run = encode_both(table, qrels_table(judged), monkeypatch)
    except Exception as exc:  # the repeat, raised by the exact path on both
        monkeypatch.setenv("POOLTOOL_NATIVE", "0")
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            encode_table(table, index_qrels(qrels_table(judged)))
        return
    assert native_run is not None and python_run is not None
    (tag, ours), (their_tag, theirs) = native_run, python_run
    assert tag == their_tag == "run" and ours.ignored == theirs.ignored
    for name in ("topic_pos", "score", "grade", "trec_rank"):
        assert np.array_equal(getattr(ours, name), getattr(theirs, name)), name
    assert set(ours.grade.tolist()) <= {NONPOOL} | {g for _, _, g in judged}
    same_tie_order(ours, theirs)


def same_tie_order(ours: EncodedRun, theirs: EncodedRun) -> None:
    """The tie codes (``EncodedRun.docno``) mark the same lines as tied, and order each tie
    the same way (the compiled join numbers a tie k .. 1, order_lines by all tied docnos)."""
    assert np.array_equal(ours.docno > 0, theirs.docno > 0)
    tied = (ours.docno[1:] > 0) & (ours.docno[:-1] > 0) & (ours.topic_pos[1:] == ours.topic_pos[:-1]) \
        & (ours.score[1:] == ours.score[:-1])
    assert np.array_equal(np.sign(np.diff(ours.docno))[tied], np.sign(np.diff(theirs.docno))[tied])
    assert (np.diff(ours.docno)[tied] < 0).all()


def grades_of(native: ModuleType, docnos: list[str], topic_key: list[int],
              qrels: QrelsIndex) -> np.ndarray | None:
    joined = arrow_run._native_join(native, pa.array(docnos, pa.string()),
                                    np.array(topic_key, dtype=np.int64), np.zeros(len(docnos)), qrels)
    return None if joined is None else joined.grade


def test_the_join_declines_a_repeat_and_a_topic_in_two_stretches(native: ModuleType) -> None:
    qrels = index_qrels(qrels_table([("1", "a", 2), ("2", "b", 1)]))
    found = grades_of(native, ["a", "b", "a"], [0, 0, 1], qrels)
    assert found is not None and list(found) == [2, NONPOOL, NONPOOL]
    assert grades_of(native, ["a", "b", "a"], [0, 0, 0], qrels) is None  # "a" twice in topic 1
    assert grades_of(native, ["a", "b", "c"], [0, 1, 0], qrels) is None  # topic 1, 2, 1
    found = grades_of(native, ["b", "a"], [1, 2], qrels)  # 2: a topic without judgments
    assert found is not None and list(found) == [1, NONPOOL]


def test_the_join_fingerprints_are_fingerprint_py(native: ModuleType) -> None:
    """The table's slots hold fingerprints.fingerprints' values: a docno of each length
    0-40 found in it, its own key matching keyed()'s combination the Python join uses."""
    docnos = ["x" * n + "é" * (n % 3) for n in range(41)]
    qrels = index_qrels(qrels_table([("1", d, 1) for d in docnos]))
    found = grades_of(native, docnos, [0] * len(docnos), qrels)
    assert found is not None and list(found) == [1] * len(docnos)
    index = native.judged_index(np.zeros(len(docnos), dtype=np.int64), *string_buffers(pa.array(docnos)), 1)
    starts = np.frombuffer(index, dtype=np.int64, count=2)
    slots = np.frombuffer(index, dtype=np.uint64, offset=16).reshape(-1, 2)
    assert starts[1] == len(slots) == 128
    stored = sorted(int(p) for p, row in slots if int(row) < 2**63)
    assert stored == sorted(int(p) for p in fingerprints(pa.array(docnos)))
    keys = keyed(fingerprints(pa.array(docnos)), np.zeros(len(docnos), dtype=np.int64))
    assert len(set(keys.tolist())) == len(docnos)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.binary(max_size=12), max_size=20), st.lists(st.integers(-2, 5), max_size=20),
       st.binary(max_size=64), st.integers(-3, 6))
def test_the_join_never_crashes_on_inconsistent_buffers(docnos: list[bytes], keys: list[int], index: bytes,
                                                        topics: int) -> None:
    """Buffers that do not fit (offsets past the bytes, a short index, negative keys):
    a ValueError, a decline or grades; never a crash."""
    native = run_pass()
    if native is None:
        return
    offsets = np.concatenate(([0], np.cumsum([len(d) for d in docnos]))).astype(np.int32)
    args = (offsets, b"".join(docnos), np.array(keys, dtype=np.int64), np.zeros(len(keys)), index, topics,
            offsets, b"".join(docnos), np.zeros(len(docnos), dtype=np.int64), -1)
    try:
        native.join_grades(*args)
    except (ValueError, OverflowError):
        pass
    try:
        native.judged_index(np.array(keys, dtype=np.int64), offsets[::-1].copy(), b"".join(docnos), topics)
    except (ValueError, OverflowError):
        pass
    try:
        native.trec_order(*args[:4])
    except (ValueError, OverflowError):
        pass


def test_trec_order_is_the_joins_order_without_judgments(native: ModuleType) -> None:
    """The store's check-and-order call: join_grades' order with no judgments, the
    refusals join_grades makes, and b"" for a topic not written best score first."""
    docnos = ["z", "b", "c", "a", "ab", "y", "q"]
    offsets, text = string_buffers(pa.array(docnos))
    score = np.array([9, 5, 5, 5, 5, 1, 3], dtype=np.float64)
    topics = np.array([0] * 6 + [1], dtype=np.int64)
    order = native.trec_order(offsets, text, topics, score)
    # keys past the qrels' one topic: every line unjudged, as trec_order joins them
    joined = arrow_run._native_join(native, pa.array(docnos), topics + 1, score,
                                    index_qrels(qrels_table([("9", "z", 1)])))
    assert joined is not None and joined.order is not None
    assert order is not None and np.frombuffer(order, dtype=np.int64).tolist() == list(joined.order) \
        == [0, 2, 1, 4, 3, 5, 6]
    unordered = score.copy()
    unordered[5] = 6.0  # y above the tie of 5s
    assert native.trec_order(offsets, text, topics, unordered) == b""
    assert native.trec_order(*string_buffers(pa.array(["a", "b", "a"])), np.zeros(3, dtype=np.int64),
                             np.zeros(3)) is None  # a repeat
    assert native.trec_order(*string_buffers(pa.array(["a", "b", "c"])), np.array([0, 1, 0], dtype=np.int64),
                             np.zeros(3)) is None  # topic 0 in two stretches
    with pytest.raises(ValueError):
        native.trec_order(offsets, text, topics[:-1], score)


# --- switched off: the same outputs --------------------------------------------------


def cli(args: list[str], native: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "POOLTOOL_NATIVE": native}
    return subprocess.run([sys.executable, "-m", "pooltool", *args], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("extra", [["--format", "csv", "-k", "5,100", "-c"], ["--format", "trec", "-q"],
                                   ["--format", "json", "-q", "-c", "-l", "2"]])
def test_the_cli_prints_the_same_with_the_pass_switched_off(native: ModuleType, extra: list[str]) -> None:
    runs = sorted(str(p) for p in (DEMO / "runs").iterdir())
    args = ["recall", *runs, "--qrels", str(DEMO / "qrels.txt"), *extra]
    on, off = cli(args, "1"), cli(args, "0")
    assert on.returncode == off.returncode == 0, on.stderr
    assert (on.stdout, on.stderr) == (off.stdout, off.stderr) and on.stdout


@pytest.mark.parametrize(("bad", "line"), [("1 Q0 d 1 1 t\n1 Q0 d 2 0.5 t\n", 3), ("1 Q0 d 1 abc t\n", 2),
                                           ("1 Q0 d 1 1\n", 2), ("1 Q0 d\x1b 1 1 t\n", 2),
                                           ("1 Q0 d 1 nan t\n", 2), ("1 Q0 d 0x1 1 t\n", 2)])
def test_errors_name_the_same_line_with_the_pass_on_or_off(tmp_path: Path, native: ModuleType, bad: str,
                                                           line: int) -> None:
    path = tmp_path / "bad.run"
    path.write_text("2 Q0 z 1 3 t\n" + bad)
    args = ["recall", str(path), "--qrels", str(DEMO / "qrels.txt")]
    on, off = cli(args, "1"), cli(args, "0")
    assert on.returncode == off.returncode != 0
    assert (on.stdout, on.stderr) == (off.stdout, off.stderr)
    assert f"{path}:{line}" in on.stderr


def test_real_runs_are_read_by_the_pass(shared_data: Path, native: ModuleType) -> None:
    """The TREC-COVID runs are what the pass is for: each read by it, as the line reader reads it."""
    runs = sorted((shared_data / "trec_covid_r1" / "runs").iterdir())
    assert len(runs) == 15
    for path in runs:
        assert same_as_line_reader(path.read_bytes()), path


def test_ties_go_by_docno_descending_as_strcmp_orders_them(native: ModuleType) -> None:
    """Written best score first, tied on 5: trec_eval gives c, b, ab, a (strcmp descending:
    a prefix sorts first); the untied lines keep their places."""
    data = (b"1 Q0 z 1 9 t\n1 Q0 b 2 5 t\n1 Q0 c 3 5 t\n1 Q0 a 4 5 t\n1 Q0 ab 5 5 t\n1 Q0 y 6 1 t\n"
            b"2 Q0 q 1 3 t\n")
    table = pass_table(data)
    assert table is not None
    encoded = encode_table(table, index_qrels(qrels_table([("1", "a", 1), ("2", "q", 2)])))
    assert encoded is not None
    run = encoded[1]
    docnos = table["docno"].to_pylist()
    joined = arrow_run._native_join(native, table["docno"].combine_chunks(), np.array([0] * 6 + [1]),
                                    table["score"].to_numpy(), index_qrels(qrels_table([("1", "a", 1)])))
    assert joined is not None and joined.order is not None
    assert [docnos[row] for row in joined.order] == ["z", "c", "b", "ab", "a", "y", "q"]
    assert run.trec_rank is not None and run.trec_rank.tolist() == [1, 2, 3, 4, 5, 6, 1]
    assert run.docno.tolist() == [0, 4, 3, 2, 1, 0, 0]
    assert run.grade.tolist() == [NONPOOL, NONPOOL, NONPOOL, NONPOOL, 1, NONPOOL, 2]
    assert run.score.tolist() == [9, 5, 5, 5, 5, 1, 3]


@pytest.mark.parametrize("length", range(1, 21))
def test_fields_are_cut_eight_bytes_at_a_time_exactly(native: ModuleType, length: int) -> None:
    """Fields are scanned a word at a time: the edge bytes of the printable range ('!'
    0x21, '~' 0x7e) stay inside a docno of any length, at any place in a word; each
    byte outside it (0x7f up, below 0x21 but space and TAB) at any place is declined."""
    docno = "".join("!~a#0Z"[i % 6] for i in range(length))
    for prefix in ("", "   ", "       "):  # the docno at several offsets in the words
        data = f"{prefix}1 Q0 {docno} 1 2 t\n".encode()
        assert same_as_line_reader(data)
        for place in range(length):
            for byte in (0x7F, 0x80, 0xFF, 0x1F, 0x00, 0x0B, 0x0D):
                bad = docno[:place].encode() + bytes([byte]) + docno[place + 1:].encode()
                assert native.read_run(f"{prefix}1 Q0 ".encode() + bad + b" 1 2 t\n") is None, (place, byte)
