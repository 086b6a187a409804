"""The TREC qrels reader."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pandas as pd
import pyarrow as pa
import pytest

from pooltool.errors import FormatError
from pooltool.formats import qrels as qrels_module
from pooltool.formats.qrels import read_qrels, read_qrels_table, write_qrels


def test_reads_grades_and_keeps_negative_and_iteration() -> None:
    qrels = read_qrels("# a comment\n1 0.5  d1 2\n\n1 1 d2 -1\n2 0 d1 0\n")
    assert qrels.values.tolist() == [["1", "0.5", "d1", 2], ["1", "1", "d2", -1], ["2", "0", "d1", 0]]


def test_identical_duplicates_are_kept_once() -> None:
    assert len(read_qrels("1 0 d1 1\n1 0 d1 1\n")) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 0 d1\n", "<string>:1: expected 4 columns (topic iteration docno grade), got 3"),
        ("1 0 d1 1.5\n", "<string>:1: grade '1.5' is not an integer"),
        ("1 0 d1 rel\n", "<string>:1: grade 'rel' is not an integer"),
        ("1 0 d1 1_0\n", "<string>:1: grade '1_0' is not an integer"),
        ("1 0 d1 \u0662\n", "<string>:1: grade '\u0662' is not an integer"),
        ("1 0 d1 99999999999999999999\n",
         "<string>:1: grade 99999999999999999999 is out of range (64-bit integer)"),
        ("# only a comment\n\n", "<string>: holds no qrels lines"),
        ("1 0 d1 1\n1 0 d2 0\n1 0 d1 0\n",
         "<string>:3: docno 'd1' for topic '1' has grade 0 here but grade 1 on line 1"),
    ],
)
def test_bad_lines(text: str, message: str) -> None:
    with pytest.raises(FormatError) as info:
        read_qrels(text)
    assert str(info.value) == message


def test_round_trip() -> None:
    text = "1 0.5 d1 2\n1 1 d2 0\n"
    out = io.StringIO()
    write_qrels(read_qrels(text), out)
    assert out.getvalue() == text


def test_real_qrels(shared_data: Path) -> None:
    qrels = read_qrels(shared_data / "trec_covid_r1" / "qrels-rnd1.txt")
    assert len(qrels) == 8691
    assert qrels["grade"].value_counts().to_dict() == {0: 6339, 2: 1237, 1: 1115}
    assert (qrels["iteration"] == "0.5").sum() == 2627
    graded = read_qrels(shared_data / "trec_eval_test" / "qrels.rel_level")
    assert graded["grade"].value_counts().to_dict() == {-1: 304, 0: 2818, 1: 462, 2: 14, 3: 77, 4: 6}


TREC_EVAL_TEST_FILES = {
    "qrels.test": 3681,
    "qrels.test.with-comments": 3681,
    "qrels.rel_level": 3681,
    "qrels-302.test": 1061,
    "qrels.comment.test": 5890,
}


@pytest.mark.parametrize(("name", "lines"), TREC_EVAL_TEST_FILES.items())
def test_trec_eval_test_qrels_import(shared_data: Path, name: str, lines: int) -> None:
    assert len(read_qrels(shared_data / "trec_eval_test" / name)) == lines


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("qrels.123", "qrels.123:3682: docno 'CR93E-10279' for topic '301' is given again "
                      "under column 2 '1' (line 1: '0'): qrels with a subtopic or judgment "
                      "group in column 2 (diversity qrels, qrels_jg) are not read; give one "
                      "line per (topic, docno)"),
        ("qrels.comments.123", "qrels.comments.123:3685: docno 'CR93E-10279' for topic '301' "
                               "is given again under column 2 '1' (line 1: '0'): qrels with a "
                               "subtopic or judgment group in column 2 (diversity qrels, "
                               "qrels_jg) are not read; give one line per (topic, docno)"),
    ],
)
def test_qrels_jg_files_are_refused_as_plain_qrels(shared_data: Path, name: str,
                                                   message: str) -> None:
    """qrels_jg files judge one pair in several judgment groups (column 2): read as plain
    qrels that is refused, at the first line that repeats a pair under another group."""
    with pytest.raises(FormatError) as info:
        read_qrels(shared_data / "trec_eval_test" / name)
    assert str(info.value).endswith(message)


# --- the Arrow fast path ---------------------------------------------------------------

def read_strict(path: Path) -> pd.DataFrame:
    with mock.patch.object(qrels_module, "_read_fast", return_value=None):
        return read_qrels(path)


FILES = {
    "plain": "1 0 d1 1\n1 0 d2 0\n2 0 d1 -1\n",
    "double spaces, tabs, comments, crlf": "# c\r\n1 0.5  d1\t2\r\n\r\n  1 1 d2 0 \r\n",
    "identical duplicate": "1 0 d1 1\n1 0 d1 1\n",
    "conflicting duplicate": "1 0 d1 1\n1 0 d2 0\n1 0 d1 0\n",
    "signed grade": "1 0 d1 +1\n",
    "padded grade": "1 0 d1 007\n",
    "hex grade": "1 0 d1 0x1\n",
    "grade beyond int64": "1 0 d1 9223372036854775808\n",
    "five columns": "1 0 d1 1 x\n",
    "three columns": "1 0 d1\n",
    "nul": "1 0 d\x001 1\n",
    "only a comment": "# c\n",
    "byte order mark": "\ufeff1 0 d1 1\n",
}


def _result_or_same_error(path: Path, reference: Callable[[Path], Any],
                          other: Callable[[Path], Any]) -> Any:
    """``reference(path)``; where it raises a FormatError, ``other(path)`` must raise one
    with the same message, and ``None`` is returned."""
    try:
        return reference(path)
    except FormatError as exc:
        with pytest.raises(FormatError) as caught:
            other(path)
        assert str(caught.value) == str(exc)
        return None


def _written(folder: Path, text: str) -> Path:
    """``text`` as the UTF-8 file ``qrels.txt`` in ``folder``."""
    path = folder / "qrels.txt"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("text", FILES.values(), ids=FILES.keys())
def test_fast_and_strict_paths_give_the_same_frame_or_error(tmp_path: Path, text: str) -> None:
    path = _written(tmp_path, text)
    expected = _result_or_same_error(path, read_strict, read_qrels)
    if expected is not None:
        pd.testing.assert_frame_equal(read_qrels(path), expected)


@pytest.mark.parametrize("text", FILES.values(), ids=FILES.keys())
def test_the_arrow_table_holds_the_frame_or_gives_its_error(tmp_path: Path, text: str) -> None:
    path = _written(tmp_path, text)
    expected = _result_or_same_error(path, read_qrels, read_qrels_table)
    if expected is not None:
        table = read_qrels_table(path)
        assert table.schema.types == [pa.string()] * 3 + [pa.int64()]
        assert table.to_pylist() == expected.to_dict(orient="records")


def test_fast_path_values_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"# judged by NIST\r\n1 0.5  d1\t2\r\n\r\n  09 1 \xc3\xa9 -2 \r\n")
    with mock.patch.object(qrels_module, "iter_qrels", side_effect=AssertionError("strict")):
        qrels = read_qrels(path)
    assert qrels.values.tolist() == [["1", "0.5", "d1", 2], ["09", "1", "\u00e9", -2]]


def test_real_qrels_take_the_fast_path(shared_data: Path) -> None:
    path = shared_data / "trec_covid_r1" / "qrels-rnd1.txt"
    with mock.patch.object(qrels_module, "iter_qrels", side_effect=AssertionError("strict")):
        qrels = read_qrels(path)
    pd.testing.assert_frame_equal(qrels, read_strict(path))


def test_a_bad_grade_deep_in_a_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"1 0 d{i} 1\n" for i in range(4000)) + "1 0 x 1.5\n")
    with pytest.raises(FormatError, match=r"qrels\.txt:4001: grade '1\.5' is not an integer"):
        read_qrels(path)
