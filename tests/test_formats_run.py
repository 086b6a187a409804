"""The TREC run reader: strict, streaming-friendly, identical on fast and strict paths."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pooltool.errors import FormatError
from pooltool.formats.run import iter_run_entries, read_run

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


@settings(max_examples=60, deadline=None)
@given(st.lists(line, max_size=30), st.sampled_from([" ", "\t", "  "]))
def test_fast_and_strict_paths_agree(lines: list[tuple], sep: str) -> None:
    text = "".join(sep.join([t, "Q0", d, str(r), repr(s), g]) + "\n" for t, d, r, s, g in lines)
    try:
        strict = list(iter_run_entries(text.splitlines()))
    except FormatError as exc:
        with pytest.raises(FormatError) as info:
            read_run(text)
        assert str(info.value) == str(exc)
        return
    fast = read_run(text)
    assert [tuple(r) for r in fast[["topic", "docno", "rank", "score", "run_tag"]].values] == [
        tuple(e) for e in strict
    ]


def test_real_trec_covid_runs_all_import(shared_data: Path) -> None:
    """Tabs, ranks from 0, restarting ranks, heavy ties, short lists: all import."""
    runs = shared_data / "trec_covid_r1" / "runs"
    sizes = {p.name: len(read_run(p)) for p in sorted(runs.iterdir())}
    assert len(sizes) == 15
    assert sizes["sheikh_bm25_all"] == 1288
    assert sizes["OHSU_RUN2"] == 29977
    assert sizes["run1"] == 14983
    assert read_run(runs / "UIowaS_Run3")["rank"].min() == 0


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
