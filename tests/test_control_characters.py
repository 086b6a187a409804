"""Text from data is data: control characters are shown, never obeyed (issue 23, item 3),
and identifiers holding one are refused with ``FILE:LINE`` by every reader."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.errors import FormatError
from pooltool.formats.documents import iter_documents
from pooltool.formats.guidelines import read_guidelines
from pooltool.formats.qrels import read_qrels, read_qrels_table
from pooltool.formats.run import read_run
from pooltool.formats.topics import read_topics
from pooltool.records import Document, Topic
from pooltool.report import emit
from pooltool.store import JudgmentStore
from pooltool.text import control_character, visible

TITLE_SET = "t\x1b]2;PWNED\x1b\\x"  # sets a terminal's title
SHOWN = "t\\x1b]2;PWNED\\x1b\\x"
QUOTED = "'t\\x1b]2;PWNED\\x1b\\\\x'"  # as an error quotes it: repr, its backslash doubled
REASON = "holds a control character (\\x1b); docnos, run tags, topic ids and assessor names may not"


def test_visible_escapes_every_control_character() -> None:
    assert visible(TITLE_SET) == SHOWN
    assert visible("a\x00b\x7fc\x85d\x9fe") == "a\\x00b\\x7fc\\x85d\\x9fe"
    assert visible("\u202eevil\u202c \u2066x\u2069") == "\\u202eevil\\u202c \\u2066x\\u2069"
    assert visible("a\tb\nc\rd") == "a\\x09b\\x0ac\\x0dd"
    assert visible("a\tb\nc\rd", lines=True) == "a\tb\nc\\x0dd"
    assert visible("plain é ü 漢字 \u2070 [b]") == "plain é ü 漢字 \u2070 [b]"
    assert control_character("ok\u202a") == "\u202a" and control_character("ok") is None


# -- readers: a control character in an identifier is refused, naming FILE:LINE -----------

def _run_file(tag: str, docno: str = "d2", topic: str = "1") -> str:
    return f"1 Q0 d1 1 2.0 ok\n{topic} Q0 {docno} 2 1.0 {tag}\n"


READERS: list[tuple[str, str, Callable[[Path], Any], str]] = [
    ("run tag", _run_file(TITLE_SET), read_run, f"2: run tag {QUOTED} {REASON}"),
    ("run docno", _run_file("ok", docno="d\x1b[2J"), read_run,
     f"2: docno 'd\\x1b[2J' {REASON}"),
    ("run topic", _run_file("ok", topic="1\x9b"), read_run,
     "2: topic id '1\\x9b' " + REASON.replace("\\x1b", "\\x9b")),
    ("qrels docno", "1 0 d1 1\n1 0 d\u202e2 0\n", read_qrels,
     "2: docno 'd\\u202e2' " + REASON.replace("\\x1b", "\\u202e")),
    ("qrels table topic", "1\x1b 0 d1 1\n", read_qrels_table, f"1: topic id '1\\x1b' {REASON}"),
    ("topics trec", f"<top>\n<num> Number: {TITLE_SET}\n<title> t\n</top>\n", read_topics,
     f"2: topic id {QUOTED} {REASON}"),
    ("topics tsv", f"1\tfine\n{TITLE_SET}\ttitle\n", read_topics,
     f"2: topic id {QUOTED} {REASON}"),
    ("topics jsonl", '{"topic": "1", "title": "x"}\n{"topic": "2\\u001b", "title": "x"}\n',
     read_topics, f"2: topic id '2\\x1b' {REASON}"),
    ("topics xml bidi", '<topics>\n<topic number="7\u202e">\n<query>q</query>\n</topic>\n'
     "</topics>\n", read_topics, "2: topic id '7\\u202e' " + REASON.replace("\\x1b", "\\u202e")),
    ("topics xml C0", '<topics>\n<topic number="7\x1b">\n<query>q</query>\n</topic>\n</topics>\n',
     read_topics, "2: bad XML: not well-formed (invalid token)"),
    ("documents jsonl", '{"docno": "d1", "text": "x"}\n{"docno": "d\\u001b", "text": "x"}\n',
     lambda path: list(iter_documents(path)), f"2: docno 'd\\x1b' {REASON}"),
    ("documents tsv", "d1\ttext\nd\x1b[2J\ttext\n", lambda path: list(iter_documents(path)),
     f"2: docno 'd\\x1b[2J' {REASON}"),
    ("documents trec", "<DOC>\n<DOCNO> d\x1b </DOCNO>\n</DOC>\n",
     lambda path: list(iter_documents(path, "trec")), f"2: docno 'd\\x1b' {REASON}"),
    ("guidelines NUL", "read it\nall\x00\n", read_guidelines,
     "2: holds a NUL byte (control character U+0000); only text can be read"),
]


@pytest.mark.parametrize(("what", "text", "reader", "message"), READERS,
                         ids=[case[0] for case in READERS])
def test_each_reader_refuses_a_control_character_in_an_identifier(
        tmp_path: Path, what: str, text: str, reader: Callable[[Path], Any],
        message: str) -> None:
    path = tmp_path / "input.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        reader(path)
    assert str(caught.value) == f"{path}:{message}"


def test_text_fields_keep_control_characters_as_data(tmp_path: Path) -> None:
    """Titles and texts are kept as written (whoever shows them shows them visibly)."""
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"docno": "d1", "title": "a\x1b[2Jb", "text": "c\u202ed"}) + "\n")
    assert list(iter_documents(path)) == [Document("d1", "a\x1b[2Jb", "c\u202ed")]


def test_the_fast_and_line_run_readers_agree(tmp_path: Path) -> None:
    """A control character outside the identifiers (the ignored Q0 column) is read the
    same by both paths; one in an identifier is refused by both."""
    lines = "".join(f"1 Q0 d{i} {i} {1 / i} tag\n" for i in range(1, 50))
    ignored = tmp_path / "q0.run"
    ignored.write_text(lines + "1 Q\x1b d99 99 0.001 tag\n")
    frame = read_run(ignored)
    assert frame["docno"].iloc[-1] == "d99" and len(frame) == 50
    assert frame.equals(read_run(io.StringIO(ignored.read_text())))


# -- outputs: the visible form, never a raw control byte -----------------------------------

def _no_raw_control(text: str) -> None:
    assert control_character(text.replace("\n", "").replace("\t", "")) is None, repr(text)


@pytest.mark.parametrize("fmt", ["table", "csv", "tsv", "json", "jsonl"])
def test_report_shows_data_visibly_in_every_format(fmt: str) -> None:
    value = TITLE_SET + "\u202e\x7f"
    frames: list[Any] = [pd.DataFrame({"run_tag": [value], "recall": [0.5]}),
                         {"run_tag": np.array([value], dtype=object), "recall": np.array([0.5])}]
    for frame in frames:
        out = io.StringIO()
        emit(frame, fmt, out, title=value)
        _no_raw_control(out.getvalue())
        if fmt in ("json", "jsonl"):
            rows = [json.loads(line) for line in out.getvalue().splitlines()] if fmt == "jsonl" \
                else json.loads(out.getvalue())
            assert rows == [{"run_tag": value, "recall": 0.5}]  # JSON keeps the value exact
        else:
            assert SHOWN + "\\u202e\\x7f" in out.getvalue()


@pytest.fixture
def marked_store(tmp_path: Path) -> str:
    """A store whose run tag, topic, docno and titles hold ESC (put in through the Python
    API, which no reader checks)."""
    path = str(tmp_path / "store.db")
    with JudgmentStore.open(path, create=True) as store:
        store.add_topics([Topic("1", f"title {TITLE_SET}")], "<t>")
        store.add_documents([Document("d1", "x", "y")], "<t>")
        store.add_run_frame(pd.DataFrame([(TITLE_SET, "1", "d1", 1, 1.0)],
                                         columns=["run_tag", "topic", "docno", "rank", "score"]))
    return path


@pytest.mark.parametrize("fmt", ["table", "csv", "tsv", "json", "jsonl"])
def test_recall_shows_a_stored_run_tag_visibly(marked_store: str, tmp_path: Path,
                                               fmt: str) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n")
    result = CliRunner().invoke(cli, ["--db", marked_store, "recall", TITLE_SET, "--qrels",
                                      str(qrels), "--format", fmt, "-k", "10"])
    assert result.exit_code == 0, result.output
    _no_raw_control(result.stdout + result.stderr)
    assert (SHOWN if fmt not in ("json", "jsonl") else "t\\u001b]2;PWNED") in result.stdout


def test_runs_and_status_show_data_visibly(marked_store: str) -> None:
    result = CliRunner().invoke(cli, ["--db", marked_store, "runs"])
    assert result.exit_code == 0, result.output
    _no_raw_control(result.stdout + result.stderr)
    assert SHOWN in result.stdout
    CliRunner().invoke(cli, ["--db", marked_store, "pool", "--depth", "5"])
    status = CliRunner().invoke(cli, ["--db", marked_store, "status", "--format", "csv"])
    assert status.exit_code == 0, status.output
    _no_raw_control(status.stdout + status.stderr)


def test_an_error_quoting_a_file_name_shows_it_visibly(tmp_path: Path) -> None:
    bad = tmp_path / "r\x1b[2J.run"
    bad.write_text("1 Q0 d1 x 1.0 t\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")  # not positives only: no note before the error
    result = CliRunner().invoke(cli, ["recall", str(bad), "--qrels", str(qrels)])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {tmp_path}/r\\x1b[2J.run:1: rank 'x' is not an integer\n"


def test_a_warning_on_stderr_shows_a_file_name_visibly(tmp_path: Path) -> None:
    two = tmp_path / "two\x1b]2;X\x07.run"
    two.write_text("1 Q0 d1 1 1.0 a\n1 Q0 d1 1 1.0 b\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n")
    result = CliRunner().invoke(cli, ["recall", str(two), "--qrels", str(qrels)])
    assert result.exit_code == 0, result.output
    assert f"note: {tmp_path}/two\\x1b]2;X\\x07.run gave 2 runs, one per run tag: a, b" \
        in result.stderr
    _no_raw_control(result.stderr)


def test_an_assessor_name_with_a_control_character_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "s.db"), "judge", "-a",
                                      "al\x1bice"])
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "Error: Invalid value for '-a' / '--assessor': assessor name 'al\\x1bice' holds a "
        "control character (\\x1b); docnos, run tags, topic ids and assessor names may not\n")


def test_plot_labels_are_shown_visibly() -> None:
    from pooltool.measures.plot import plot_label

    assert plot_label("a$x$b\x1b\u202e") == "a$x$b\\x1b\\u202e"
