"""pooltool.measures.fastload.load_run gives exactly what read_run gives, or read_run's error."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pooltool.errors import FormatError
from pooltool.formats.run import read_run
from pooltool.measures.fastload import load_run

CASES = {
    "plain": "1 Q0 a 1 1.5 t\n1 Q0 b 2 0.5 t\n",
    "tabs and padding": "1\tQ0\ta\t1\t  1.5\tt\n2\tQ0\tb\t2\t0.5\tt\n",
    "crlf": "1 Q0 a 1 1.5 t\r\n1 Q0 b 2 0.5 t\r\n",
    "no final newline": "1 Q0 a 1 1.5 t\n1 Q0 b 2 0.5 t",
    "blank lines": "\n1 Q0 a 1 1.5 t\n\n   \n1 Q0 b 2 0.5 t\n",
    "comment line": "# made by hand\n1 Q0 a 1 1.5 t\n",
    "hash inside docno": "1 Q0 doc#1 1 1.5 t\n",
    "signed and padded ranks": "1 Q0 a +1 1 t\n1 Q0 b -02 1 t\n1 Q0 c 1_0 1 t\n",
    "exponent and inf scores": "1 Q0 a 1 1e3 t\n1 Q0 b 2 -inf t\n1 Q0 c 3 Infinity t\n",
    "several tags": "1 Q0 a 1 1 t\n1 Q0 a 1 1 u\n",
    "topic ids": "09 Q0 a 1 1 t\n9 Q0 a 1 1 t\n",
    "non-ascii docno": "1 Q0 doc\u00e9 1 1 t\n",
    "non-breaking space": "1 Q0 a\u00a0b 1 1 t\n",
    "quote in docno": '1 Q0 "a 1 1 t\n1 Q0 b" 2 1 t\n',
    "rank 1.0": "1 Q0 a 1.0 1 t\n",
    "rank 1e2": "1 Q0 a 1e2 1 t\n",
    "nan score": "1 Q0 a 1 nan t\n",
    "word score": "1 Q0 a 1 high t\n",
    "five columns": "1 Q0 a 1 1\n",
    "seven columns": "1 Q0 a 1 1 t extra\n",
    "seven on line two": "1 Q0 a 1 1 t\n1 Q0 b 2 1 t x\n",
    "duplicate docno": "1 Q0 a 1 1 t\n1 Q0 a 2 1 t\n",
    "empty": "",
    "vertical tab": "1 Q0 a\x0bb 1 1 t\n",
}


def same_as_read_run(path: Path) -> None:
    try:
        expected = read_run(path)
    except FormatError as exc:
        with pytest.raises(FormatError) as caught:
            load_run(path)
        assert str(caught.value) == str(exc)
        return
    got = load_run(path)
    pd.testing.assert_frame_equal(got, expected)
    pd.testing.assert_frame_equal(load_run(path, ranks=False), expected.drop(columns="rank"))


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_same_frame_or_same_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(text.encode("utf-8"))
    same_as_read_run(path)


def test_gzip_goes_to_read_run(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "run.txt.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(CASES["plain"])
    same_as_read_run(path)


TOKEN = st.sampled_from(["1", "+2", "-3", "007", "1.0", "2e3", ".5", "5.", "inf", "-Infinity",
                         "nan", "1_0", "x", "0x1", "1e", "--1", "9" * 18, "1.7976931348623157e309"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "03"]), st.sampled_from("abcdef"), TOKEN,
                          TOKEN, st.sampled_from([" ", "\t", "  "])), min_size=1, max_size=6))
def test_random_tokens(tmp_path: Path, lines: list[tuple[str, str, str, str, str]]) -> None:
    text = "".join(sep.join([topic, "Q0", doc, rank, score, "t"]) + "\n"
                   for topic, doc, rank, score, sep in lines)
    path = tmp_path / "run.txt"
    path.write_text(text)
    same_as_read_run(path)
