"""The TREC run reader: strict, streaming-friendly, identical on fast and strict paths."""

from __future__ import annotations

import gzip
import math
import os
from functools import cache
from pathlib import Path
from unittest import mock

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from reader_paths import reader_path  # noqa: F401  (autouse: every test on both reader paths)

from pooltool.errors import FormatError
from pooltool.formats import run as run_module
from pooltool.formats.run import read_run, read_run_lines, read_run_table
from pooltool.formats.source import BYTE_ORDER_MARK_REASON, NUL_REASON, NUMBER
from pooltool.ranking import ranks_of_order, trec_ranks

RUN = """\
1 Q0 d1 1 2.5 tagA
1 Q0 d2 2 2.5 tagA
2\tQ0\td3\t0\t-1e3\ttagA

1  Q0  d1  1  9  tagB
"""


def test_reads_columns_and_types() -> None:
    run = read_run(RUN)
    assert list(run.columns) == ["run_tag", "topic", "docno", "rank", "score"]
    assert run.values.tolist() == [
        ["tagA", "1", "d1", 1, 2.5],
        ["tagA", "1", "d2", 2, 2.5],
        ["tagA", "2", "d3", 0, -1000.0],
        ["tagB", "1", "d1", 1, 9.0],
    ]
    assert str(run["rank"].dtype) == "int64" and str(run["score"].dtype) == "float64"


def test_comment_lines_are_skipped() -> None:
    run = read_run("# produced by bm25\n1 Q0 d1 1 2 t\n#1 Q0 d1 1 2 t\n")
    assert run["docno"].tolist() == ["d1"]


def test_gzip_and_path(tmp_path: Path) -> None:
    path = tmp_path / "run.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(RUN)
    assert len(read_run(path)) == 4
    assert len(read_run(str(path))) == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 Q0 d1 1 2.0\n", "<string>:1: expected 6 columns (topic Q0 docno rank score tag), got 5"),
        ("1 Q0 d1 1 2 t\n1 Q0 d2 2 abc t\n", "<string>:2: score 'abc' is not a number"),
        ("1 Q0 d1 1 NaN t\n", "<string>:1: score 'NaN' is not a number (NaN)"),
        ("1 Q0 d1 one 2 t\n", "<string>:1: rank 'one' is not an integer"),
        ("1 Q0 d1 1 1_000 t\n", "<string>:1: score '1_000' is not a number"),
        ("1 Q0 d1 1 \u0663 t\n", "<string>:1: score '\u0663' is not a number"),
        ("1 Q0 d1 1 0x10 t\n", "<string>:1: score '0x10' is not a number"),
        ("1 Q0 d1 1_0 1 t\n", "<string>:1: rank '1_0' is not an integer"),
        ("# nothing but a comment\n\n", "<string>: holds no run lines"),
        ("1 Q0 d1 1 2 t\n\n1 Q0 d1 2 1 t\n",
         "<string>:3: docno 'd1' appears twice for topic '1' in run 't' (first on line 1)"),
    ],
)
def test_bad_lines_name_file_and_line(text: str, message: str) -> None:
    with pytest.raises(FormatError) as info:
        read_run(text)
    assert str(info.value) == message


def test_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.run"
    path.write_text("1 Q0 d1 1 2 t\n1 Q0 d2 2 nan t\n")
    with pytest.raises(FormatError, match=r"bad\.run:2: score 'nan' is not a number \(NaN\)"):
        read_run(path)


def test_text_after_the_sixth_column_is_ignored_as_trec_eval_does() -> None:
    run = read_run("301\tQ0\tD1\t99\t  2.13\tSTANDARD more junk at\n301 Q0 D2 1 1 STANDARD\n")
    assert run[["docno", "score", "run_tag"]].values.tolist() == [
        ["D1", 2.13, "STANDARD"], ["D2", 1.0, "STANDARD"]]


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no such file"):
        read_run(tmp_path / "absent.run")


def test_same_docno_in_two_runs_or_topics_is_fine() -> None:
    run = read_run("1 Q0 d 1 1 a\n2 Q0 d 1 1 a\n1 Q0 d 1 1 b\n")
    assert len(run) == 3


line = st.tuples(
    st.sampled_from(["1", "2", "09", "9"]),
    st.sampled_from(["d1", "d2", "D1", "d10", "x"]),
    st.integers(-3, 1000),
    st.one_of(st.sampled_from([0.0, 1.0, 1.5, -2.0]), st.floats(-1e6, 1e6)),
    st.sampled_from(["a", "b"]),
)


def read_strict(source: str | Path, **options: bool) -> pd.DataFrame:
    """read_run with its fast path switched off: the line-by-line reader alone."""
    with mock.patch.object(run_module, "_read_fast", return_value=None):
        return read_run(source, **options)


def same_as_strict(source: str | Path, **options: bool) -> None:
    """read_run gives the strict path's frame, or its error word for word."""
    try:
        expected = read_strict(source, **options)
    except FormatError as exc:
        with pytest.raises(FormatError) as caught:
            read_run(source, **options)
        assert str(caught.value) == str(exc)
        return
    pd.testing.assert_frame_equal(read_run(source, **options), expected)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(line, max_size=30), st.sampled_from([" ", "\t", "  "]))
def test_fast_and_strict_paths_agree(lines: list[tuple[str, ...]], sep: str) -> None:
    text = "".join(sep.join([t, "Q0", d, str(r), repr(s), g]) + "\n" for t, d, r, s, g in lines)
    same_as_strict(text)
    same_as_strict(text, check_duplicates=False)



@settings(max_examples=examples(100), deadline=None)
@given(st.lists(line, max_size=30), st.booleans(), st.booleans())
def test_read_run_lines_order_gives_the_trec_ranks(lines: list[tuple[str, str, int, float, str]],
                                                   by_topic: bool, best_first: bool) -> None:
    """One run (the join answers only then), lines as drawn, grouped by topic, or also best
    score first; docnos repeated or not: the frame is read_run's (or its error), and an
    order, when the join gives one, numbers the lines as trec_ranks does."""
    if by_topic:
        lines = sorted(lines, key=lambda row: (row[0], -row[3] if best_first else 0.0))
    text = "".join(f"{t} Q0 {d} {r} {s!r} one\n" for t, d, r, s, _ in lines)
    same_as_strict(text)
    try:
        read = read_run_lines(text)
    except FormatError:
        return
    pd.testing.assert_frame_equal(read.frame, read_strict(text))
    if read.order is not None and read.order.rows is not None:
        ranks = ranks_of_order(read.order.rows, read.order.topics)
        assert ranks.tolist() == trec_ranks(read.frame).tolist()
    if os.environ.get("POOLTOOL_NATIVE") == "0":  # the Python readers find no order
        assert read.order is None


def test_read_run_lines_order_of_a_file_by_hand() -> None:
    """Topic 2 before topic 1, a tie on score broken by docno descending."""
    read = read_run_lines("2 Q0 a 1 3 t\n2 Q0 b 2 1 t\n2 Q0 c 3 1 t\n1 Q0 z 1 0.5 t\n")
    assert read.frame["docno"].tolist() == ["a", "b", "c", "z"]
    if read.order is not None:  # the compiled pass read it
        assert read.order.rows is not None
        assert ranks_of_order(read.order.rows, read.order.topics).tolist() == [1, 3, 2, 1]
    assert trec_ranks(read.frame).tolist() == [1, 3, 2, 1]


def test_read_run_lines_a_repeat_is_still_the_line_error() -> None:
    with pytest.raises(FormatError, match="<string>:3: docno 'a' appears twice for topic '1'"):
        read_run_lines("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n")

CASES = {
    "plain": "1 Q0 a 1 1.5 t\n1 Q0 b 2 0.5 t\n",
    "tabs": "1\tQ0\ta\t1\t1.5\tt\n1\tQ0\tb\t2\t0.5\tt\n",
    "tabs and padding": "1\tQ0\ta\t1\t  1.5\tt\n2\tQ0\tb\t2\t0.5\tt\n",
    "doubled tab": "1\tQ0\t\ta\t1\t1\tt\n",
    "tabs and spaces": "1\tQ0 a\t1 1\tt\n",
    "leading spaces": " 1 Q0 a 1 1 t\n  1 Q0 b 2 1 t\n",
    "trailing blanks": "1 Q0 a 1 1 t \n1 Q0 b 2 1 t\t\n",
    "leading space hides a missing column": " 1 a 1 1 t\n",
    "doubled space hides a missing column": "1  a 1 1 t\n",
    "doubled space before an empty score": "1 Q0 a 1  t\n",
    "crlf": "1 Q0 a 1 1.5 t\r\n1 Q0 b 2 0.5 t\r\n",
    "crlf after a space": "1 Q0 a 1 1.5 t \r\n",
    "lone carriage return": "1 Q0 a 1 1 t\r1 Q0 b 2 1 t\n",
    "no final newline": "1 Q0 a 1 1.5 t\n1 Q0 b 2 0.5 t",
    "blank lines": "\n1 Q0 a 1 1.5 t\n\n   \n1 Q0 b 2 0.5 t\n",
    "only blanks": "\n  \n\t\n",
    "comment line": "# made by hand\n1 Q0 a 1 1.5 t\n",
    "indented comment line": "1 Q0 a 1 1.5 t\n  #1 Q0 b 2 1 t\n",
    "hash inside docno": "1 Q0 doc#1 1 1.5 t\n",
    "byte order mark": "\ufeff1 Q0 a 1 1 t\n",
    "byte order mark before a comment": "\ufeff# c\n1 Q0 a 1 1 t\n",
    "two byte order marks": "\ufeff\ufeff1 Q0 a 1 1 t\n",
    "signed and padded ranks": "1 Q0 a +1 1 t\n1 Q0 b -02 1 t\n1 Q0 c 1_0 1 t\n",
    "largest ranks": "1 Q0 a 9223372036854775807 1 t\n1 Q0 b -9223372036854775808 1 t\n",
    "rank beyond int64": "1 Q0 a 1 1 t\n1 Q0 b 9223372036854775808 1 t\n",
    "exponent and inf scores": "1 Q0 a 1 1e3 t\n1 Q0 b 2 -inf t\n1 Q0 c 3 Infinity t\n",
    "several tags": "1 Q0 a 1 1 t\n1 Q0 a 1 1 u\n",
    "topic ids": "09 Q0 a 1 1 t\n9 Q0 a 1 1 t\n",
    "non-ascii docno": "1 Q0 doc\u00e9 1 1 t\n",
    "non-breaking space": "1 Q0 a\u00a0b 1 1 t\n",
    "unit separator": "1 Q0 a\x1fb 1 1 t\n",
    "control character in docno": "1 Q0 a\x01b 1 1 t\n",
    "nul": "1 Q0 a\x00b 1 1 t\n",
    "quote in docno": '1 Q0 "a 1 1 t\n1 Q0 b" 2 1 t\n',
    "rank 1.0": "1 Q0 a 1.0 1 t\n",
    "rank 1e2": "1 Q0 a 1e2 1 t\n",
    "nan score": "1 Q0 a 1 nan t\n",
    "word score": "1 Q0 a 1 high t\n",
    "five columns": "1 Q0 a 1 1\n",
    "five on line two": "1 Q0 a 1 1 t\n1 Q0 b 2 1\n",
    "seven columns": "1 Q0 a 1 1 t extra\n",
    "seven on line one": "1 Q0 a 1 1 t x\n1 Q0 b 2 1 t\n",
    "seven on line two": "1 Q0 a 1 1 t\n1 Q0 b 2 1 t x\n",
    "duplicate docno": "1 Q0 a 1 1 t\n1 Q0 a 2 1 t\n",
    "empty": "",
    "vertical tab": "1 Q0 a\x0bb 1 1 t\n",
    "form feed": "1 Q0 a 1 1 t\x0c1 Q0 b 2 1 t\n",
}


ROWS_AB = [["t", "1", "a", 1, 1.5], ["t", "1", "b", 2, 0.5]]
ROWS_AB_1 = [["t", "1", "a", 1, 1.0], ["t", "1", "b", 2, 1.0]]
SIX = "expected 6 columns (topic Q0 docno rank score tag), got "
Reading = list[list[object]] | tuple[int, str]
# What each case reads as, worked out from its text by trec_eval's rules: the rows
# (run_tag, topic, docno, rank, score), or the error's (line, reason). Lines end at
# \n, \r, \r\n and the other breaks of str.splitlines (\v, \f); fields split on
# ASCII white space; text after the sixth field is ignored.
EXPECTED: dict[str, Reading] = {
    "plain": ROWS_AB,
    "tabs": ROWS_AB,
    "tabs and padding": [["t", "1", "a", 1, 1.5], ["t", "2", "b", 2, 0.5]],
    "doubled tab": [["t", "1", "a", 1, 1.0]],
    "tabs and spaces": [["t", "1", "a", 1, 1.0]],
    "leading spaces": ROWS_AB_1,
    "trailing blanks": ROWS_AB_1,
    "leading space hides a missing column": (1, SIX + "5"),
    "doubled space hides a missing column": (1, SIX + "5"),
    "doubled space before an empty score": (1, SIX + "5"),
    "crlf": ROWS_AB,
    "crlf after a space": [["t", "1", "a", 1, 1.5]],
    "lone carriage return": ROWS_AB_1,
    "no final newline": ROWS_AB,
    "blank lines": ROWS_AB,
    "only blanks": (0, "holds no run lines"),
    "comment line": [["t", "1", "a", 1, 1.5]],
    "indented comment line": [["t", "1", "a", 1, 1.5]],
    "hash inside docno": [["t", "1", "doc#1", 1, 1.5]],
    "byte order mark": (1, BYTE_ORDER_MARK_REASON),
    "byte order mark before a comment": (1, BYTE_ORDER_MARK_REASON),
    "two byte order marks": (1, BYTE_ORDER_MARK_REASON),
    "signed and padded ranks": (3, "rank '1_0' is not an integer"),
    "largest ranks": [["t", "1", "a", 2**63 - 1, 1.0], ["t", "1", "b", -(2**63), 1.0]],
    "rank beyond int64": (2, "rank '9223372036854775808' is out of range (64-bit integer)"),
    "exponent and inf scores": [["t", "1", "a", 1, 1000.0], ["t", "1", "b", 2, -math.inf],
                                ["t", "1", "c", 3, math.inf]],
    "several tags": [["t", "1", "a", 1, 1.0], ["u", "1", "a", 1, 1.0]],
    "topic ids": [["t", "09", "a", 1, 1.0], ["t", "9", "a", 1, 1.0]],
    "non-ascii docno": [["t", "1", "doc\u00e9", 1, 1.0]],
    "non-breaking space": [["t", "1", "a\u00a0b", 1, 1.0]],
    "unit separator": (1, "docno 'a\\x1fb' holds a control character (\\x1f); docnos, run "
                          "tags, topic ids and assessor names may not"),
    "control character in docno": (1, "docno 'a\\x01b' holds a control character (\\x01); "
                                      "docnos, run tags, topic ids and assessor names may not"),
    "nul": (1, NUL_REASON),
    "quote in docno": [["t", "1", '"a', 1, 1.0], ["t", "1", 'b"', 2, 1.0]],
    "rank 1.0": (1, "rank '1.0' is not an integer"),
    "rank 1e2": (1, "rank '1e2' is not an integer"),
    "nan score": (1, "score 'nan' is not a number (NaN)"),
    "word score": (1, "score 'high' is not a number"),
    "five columns": (1, SIX + "5"),
    "five on line two": (2, SIX + "5"),
    "seven columns": [["t", "1", "a", 1, 1.0]],
    "seven on line one": ROWS_AB_1,
    "seven on line two": ROWS_AB_1,
    "duplicate docno": (2, "docno 'a' appears twice for topic '1' in run 't' (first on line 1)"),
    "empty": (0, "holds no run lines"),
    "vertical tab": (1, SIX + "3"),
    "form feed": ROWS_AB_1,
}
WITHOUT_DUPLICATE_CHECK: dict[str, Reading] = {
    "duplicate docno": [["t", "1", "a", 1, 1.0], ["t", "1", "a", 2, 1.0]],
}


def reading(source: str | Path, check_duplicates: bool) -> Reading:
    """The rows read_run gives, or its error's (line, reason)."""
    try:
        frame = read_run(source, check_duplicates=check_duplicates)
    except FormatError as exc:
        return exc.line, exc.reason
    assert list(frame.columns) == ["run_tag", "topic", "docno", "rank", "score"]
    return [list(row) for row in frame.itertuples(index=False)]


def test_every_case_has_its_expected_reading() -> None:
    assert set(EXPECTED) == set(CASES)


@pytest.mark.parametrize("check_duplicates", [True, False])
@pytest.mark.parametrize("name", CASES)
def test_same_frame_or_same_error(tmp_path: Path, name: str, check_duplicates: bool) -> None:
    text = CASES[name]
    path = tmp_path / "run.txt"
    path.write_bytes(text.encode("utf-8"))
    expected = (WITHOUT_DUPLICATE_CHECK.get(name, EXPECTED[name]) if not check_duplicates
                else EXPECTED[name])
    for source in (path, text):
        same_as_strict(source, check_duplicates=check_duplicates)
        assert reading(source, check_duplicates) == expected, repr(source)


@pytest.mark.parametrize("name", ["plain", "tabs", "tabs and padding", "doubled tab",
                                  "tabs and spaces", "leading spaces", "trailing blanks", "crlf",
                                  "blank lines", "several tags",
                                  "non-ascii docno", "hash inside docno", "largest ranks"])
def test_well_formed_text_takes_the_fast_path(tmp_path: Path, name: str) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(CASES[name].encode("utf-8"))
    with mock.patch.object(run_module, "iter_run_entries", side_effect=AssertionError("strict")):
        read_run(CASES[name])
        read_run(path)


def test_a_byte_order_mark_is_refused_as_trec_eval_would_misread_it(tmp_path: Path) -> None:
    """trec_eval reads the mark into the first topic id ("\\ufeff1" matches no qrels
    topic 1), so a run that starts with one is refused, whichever reader, gzip too."""
    plain, packed = tmp_path / "run.txt", tmp_path / "run.gz"
    plain.write_bytes("\ufeff1 Q0 a 1 1 t\n# note\n".encode())
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, packed):
        for read in (read_run, read_strict, read_run_table):
            with pytest.raises(FormatError) as info:
                read(path)
            assert str(info.value) == f"{path}:1: {BYTE_ORDER_MARK_REASON}"


def test_without_duplicate_check_repeats_are_kept() -> None:
    text = "1 Q0 a 1 1 t\n1 Q0 a 2 1 t\n"
    assert len(read_run(text, check_duplicates=False)) == 2
    assert len(read_strict(text, check_duplicates=False)) == 2


def test_bytes_that_are_not_utf8_are_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 a\xff 1 1 t\n")
    with pytest.raises(FormatError, match=r"run\.txt:1: is not UTF-8 text \(byte 0xFF\)"):
        read_run(path)


def test_gzip_takes_the_same_paths(tmp_path: Path) -> None:
    for name in ("plain", "comment line", "duplicate docno"):
        path = tmp_path / f"{len(name)}.txt.gz"
        with gzip.open(path, "wt") as handle:
            handle.write(CASES[name])
        same_as_strict(path)


TOKEN = st.sampled_from(["1", "+2", "-3", "007", "1.0", "2e3", ".5", "5.", "inf", "-Infinity",
                         "nan", "1_0", "x", "0x1", "1e", "--1", "9" * 18, "9" * 19,
                         "1.7976931348623157e309", "2.4703282292062328e-324", ""])


@settings(max_examples=examples(80), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "03"]), st.sampled_from("abcdef"), TOKEN,
                          TOKEN, st.sampled_from([" ", "\t", "  ", " \t"]),
                          st.sampled_from(["", " ", "\t"]), st.sampled_from(["\n", "\r\n"])),
                min_size=1, max_size=6))
def test_random_tokens(tmp_path: Path, lines: list[tuple[str, ...]]) -> None:
    text = "".join(lead + sep.join([topic, "Q0", doc, rank, score, "t"]) + end
                   for topic, doc, rank, score, sep, lead, end in lines)
    path = tmp_path / "run.txt"
    path.write_bytes(text.encode("utf-8"))
    same_as_strict(path)
    same_as_strict(path, check_duplicates=False)


def test_real_trec_covid_runs_all_import(shared_data: Path) -> None:
    """Tabs, ranks from 0, restarting ranks, heavy ties, short lists: all import."""
    runs = shared_data / "trec_covid_r1" / "runs"
    sizes = {p.name: len(read_run(p)) for p in sorted(runs.iterdir())}
    assert len(sizes) == 15
    assert sizes["sheikh_bm25_all"] == 1288
    assert sizes["OHSU_RUN2"] == 29977
    assert sizes["run1"] == 14983
    assert read_run(runs / "UIowaS_Run3")["rank"].min() == 0


@cache
def strict_file(path: Path) -> pd.DataFrame:
    """:func:`read_strict` of a file, read once for both reader paths: the line-by-line
    reader is the same on both (``POOLTOOL_NATIVE`` only changes the fast path), and it
    took 2.5 of the 3 CPU-s of each path's reading of the TREC-COVID runs."""
    return read_strict(path)


def test_real_trec_covid_runs_take_the_fast_path(shared_data: Path) -> None:
    for path in sorted((shared_data / "trec_covid_r1" / "runs").iterdir()):
        with mock.patch.object(run_module, "iter_run_entries", side_effect=AssertionError(path)):
            frame = read_run(path)
        pd.testing.assert_frame_equal(frame, strict_file(path))


TREC_EVAL_TEST_RUNS = {
    "results.test": (1500, 3),
    "results.trunc": (584, 2),
    "results-302.test": (500, 1),
    "results.comment.test": (30100, 301),
    "prefs.results.test": (480, 24),
}


@pytest.mark.parametrize(("name", "size"), TREC_EVAL_TEST_RUNS.items())
def test_trec_eval_test_runs_import(shared_data: Path, name: str, size: tuple[int, int]) -> None:
    run = read_run(shared_data / "trec_eval_test" / name)
    assert (len(run), run["topic"].nunique()) == size


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("prefs.rank20", "prefs.rank20:1: expected 6 columns (topic Q0 docno rank score tag), got 5"),
        ("prefs.test", "prefs.test:1: expected 6 columns (topic Q0 docno rank score tag), got 5"),
        ("qrels.test", "qrels.test:1: expected 6 columns (topic Q0 docno rank score tag), got 4"),
        ("zscores_file", "zscores_file:1: expected 6 columns (topic Q0 docno rank score tag), got 4"),
    ],
)
def test_files_that_are_not_runs_are_refused(shared_data: Path, name: str, message: str) -> None:
    with pytest.raises(FormatError) as info:
        read_run(shared_data / "trec_eval_test" / name)
    assert str(info.value).endswith(message)


def test_write_run_round_trips_exactly() -> None:
    """write_run writes scores with repr, so read_run gets the same doubles back."""
    import io

    from pooltool.formats.run import write_run

    run = read_run("1 Q0 a 3 0.1 t\n1 Q0 b 1 -1e-300 t\n2 Q0 c 7 12345678.123456789 u\n")
    out = io.StringIO()
    write_run(run, out)
    assert read_run(out.getvalue()).equals(run)


# --- the Arrow fast path, pinned to values written down by hand -------------------------

def fast_only(source: str | Path) -> pd.DataFrame:
    """read_run with the line reader switched off: the Arrow path must take the file."""
    with mock.patch.object(run_module, "iter_run_entries", side_effect=AssertionError("strict")):
        return read_run(source)


def test_fast_path_values_with_comments_blanks_ties_and_exponents(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"# system: bm25\r\n"
                     b"301 Q0 D-9 1 1.5e1 sys\r\n"
                     b"\r\n"
                     b"   # an indented comment\r\n"
                     b"301\tQ0  D-10\t2\t15 sys\r\n"
                     b"  302 Q0 \xc3\xa9t\xc3\xa9 -3 -.25E-2 sys \r\n"
                     b"302 Q0 x 0 -Infinity sys")
    assert fast_only(path).values.tolist() == [
        ["sys", "301", "D-9", 1, 15.0],
        ["sys", "301", "D-10", 2, 15.0],
        ["sys", "302", "\u00e9t\u00e9", -3, -0.0025],
        ["sys", "302", "x", 0, float("-inf")],
    ]


def test_fast_path_keeps_topic_ids_and_several_tags_as_written(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("09\tQ0\td\t1\t2\ta\n9\tQ0\td\t1\t2\ta\n9\tQ0\td\t1\t007\tb\n")
    frame = fast_only(path)
    assert frame[["run_tag", "topic", "score"]].values.tolist() == [
        ["a", "09", 2.0], ["a", "9", 2.0], ["b", "9", 7.0]]
    assert frame["topic"].map(type).eq(str).all()


def test_text_after_the_sixth_column_goes_to_the_line_reader(tmp_path: Path) -> None:
    """Arrow wants the same number of fields on every line: the line reader takes the file."""
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 2.5 t extra words\n1 Q0 b 2 2 t\n")
    assert run_module.read_run_table(path) is None
    assert read_run(path)[["docno", "score", "run_tag"]].values.tolist() == [
        ["a", 2.5, "t"], ["b", 2.0, "t"]]


@pytest.mark.parametrize(("bad", "message"), [
    ("1 Q0 d4000 4000 nan t", "score 'nan' is not a number (NaN)"),
    ("1 Q0 d4000 4000 1,5 t", "score '1,5' is not a number"),
    ("1 Q0 d4000 4000 0x1p3 t", "score '0x1p3' is not a number"),
    ("1 Q0 d4000 0x10 1 t", "rank '0x10' is not an integer"),
    ("1 Q0 d4000 4000 1", "expected 6 columns (topic Q0 docno rank score tag), got 5"),
    ("1 Q0 d7 4000 1 t", "docno 'd7' appears twice for topic '1' in run 't' (first on line 8)"),
])
def test_a_bad_line_deep_in_a_large_file_is_named(tmp_path: Path, bad: str, message: str) -> None:
    """Arrow reads the file in blocks on several threads; the error still names its line."""
    lines = [f"1 Q0 d{i} {i} {10000 - i} t" for i in range(1, 8000)]
    lines[3999] = bad
    path = tmp_path / "big.run"
    path.write_text("# header\n" + "\n".join(lines) + "\n")
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert str(info.value) == f"{path}:4001: {message}"


def test_a_byte_that_is_not_utf8_deep_in_a_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "big.run"
    path.write_bytes(b"".join(b"1 Q0 d%d %d 1 t\n" % (i, i) for i in range(3000))
                     + b"1 Q0 \xff 1 1 t\n")
    with pytest.raises(FormatError, match=r"big\.run:3001: is not UTF-8 text"):
        read_run(path)


SCORE_TEXT = st.text(alphabet="0123456789+-.eEinfatyINF_x ", min_size=1, max_size=12)


@settings(max_examples=examples(300), deadline=None)
@given(SCORE_TEXT.map(str.strip).filter(bool))
def test_arrow_reads_a_score_as_the_line_reader_does_or_defers(token: str) -> None:
    """A score Arrow takes is one the strict rule takes, with the same double (C's strtod,
    Python's float: both correctly rounded); NaN is left to the line reader."""
    table = run_module.run_table(f"1 Q0 d 1 {token} t\n".encode())
    if table is None:
        return
    value = table["score"][0].as_py()
    assert NUMBER.fullmatch(token) and value == float(token)


@settings(max_examples=examples(200), deadline=None)
@given(st.floats(allow_nan=False))
def test_arrow_reads_every_written_double_back_exactly(value: float) -> None:
    table = run_module.run_table(f"1 Q0 d 1 {value!r} t\n1 Q0 e 2 {value:.17g} t\n".encode())
    assert table is not None and table["score"].to_pylist() == [value, value]


RANKS = ["1", "-02", "007", "0", "9223372036854775807", "-9223372036854775808"]


@pytest.mark.parametrize("docno", ["d", "x", "X"])
def test_ranks_read_by_the_csv_reader_or_cast_from_text_agree(tmp_path: Path, docno: str) -> None:
    """Bytes without ``x`` or ``X`` have their ranks converted by Arrow's CSV reader (no
    hexadecimal rank can be there); with one, they are read as text, checked and cast.
    The same table either way, and the same values the line reader gives."""
    path = tmp_path / "run.txt"
    path.write_text("".join(f"1 Q0 {docno}{i} {rank} 1 t\n" for i, rank in enumerate(RANKS)))
    table = read_run_table(path)
    assert table is not None
    assert table["rank"].type == "int64"
    assert table["rank"].to_pylist() == [1, -2, 7, 0, 2**63 - 1, -(2**63)]
    same_as_strict(path)


@pytest.mark.parametrize(("rank", "message"), [
    ("0x10", "rank '0x10' is not an integer"),
    ("0X10", "rank '0X10' is not an integer"),
    ("-0x1", "rank '-0x1' is not an integer"),
    ("+3", None),
    ("9223372036854775808", "rank '9223372036854775808' is out of range (64-bit integer)"),
])
def test_hexadecimal_signed_and_huge_ranks_go_to_the_line_reader(
        tmp_path: Path, rank: str, message: str | None) -> None:
    """Arrow's int64 conversion takes ``0x10``; the line reader refuses it, so a file with
    an ``x`` or ``X`` keeps its ranks as text for the check. ``+3`` Arrow refuses and the
    line reader takes."""
    path = tmp_path / "run.txt"
    path.write_text(f"1 Q0 a 1 2 t\n1 Q0 b {rank} 1 t\n")
    assert read_run_table(path) is None
    if message is None:
        assert read_run(path)["rank"].tolist() == [1, 3]
        return
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert str(info.value) == f"{path}:2: {message}"
