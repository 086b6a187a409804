"""Inputs are named and read as they are: gzip by its bytes, NUL refused, a name that is
both a file and a stored run refused, a file of several runs said so; absent grades and
judging pace printed for people."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.errors import FormatError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.formats.topics import read_topics
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore

RUN = "1 Q0 a 1 3 T5R1\n1 Q0 b 2 2 T5R1\n2 Q0 a 1 1 T5R1\n"
QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 1\n"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args))


def test_gzip_without_gz_suffix_is_read(tmp_path: Path) -> None:
    (tmp_path / "run").write_bytes(gzip.compress(RUN.encode()))
    (tmp_path / "qrels").write_bytes(gzip.compress(QRELS.encode()))
    (tmp_path / "topics").write_bytes(gzip.compress(b"1\tfirst\n"))
    assert read_run(tmp_path / "run")["docno"].tolist() == ["a", "b", "a"]
    assert read_qrels(tmp_path / "qrels")["grade"].tolist() == [1, 0, 1]
    assert [t.topic for t in read_topics(tmp_path / "topics", "tsv")] == ["1"]
    result = invoke("recall", str(tmp_path / "run"), "--qrels", str(tmp_path / "qrels"),
                    "-k", "1", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].startswith("T5R1,1,2,3,2,2,2,1.0,")


@pytest.mark.parametrize("compress", [False, True])
def test_nul_bytes_are_refused_with_file_and_line(tmp_path: Path, compress: bool) -> None:
    data = RUN.replace("2 Q0 a", "2 Q0 a\0x").encode()
    path = tmp_path / "nul.run"
    path.write_bytes(gzip.compress(data) if compress else data)
    with pytest.raises(FormatError, match=r"nul.run:3: holds a NUL byte"):
        read_run(path)
    (tmp_path / "qrels").write_text(QRELS)
    result = invoke("recall", str(path), "--qrels", str(tmp_path / "qrels"))
    assert result.exit_code == 1
    assert f"Error: {path}:3: holds a NUL byte (control character U+0000)" in result.stderr


@pytest.fixture
def store_with_t5r1(tmp_path: Path, store_address: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder, beside a store (``POOLTOOL_DB``, once on each engine) holding
    run T5R1."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("POOLTOOL_DB", store_address)
    (tmp_path / "stored.run").write_text(RUN + "3 Q0 c 1 1 T5R1\n")
    (tmp_path / "qrels.txt").write_text(QRELS)
    for args in (["init"], ["add-runs", "stored.run"]):
        assert invoke("--db", os.environ["POOLTOOL_DB"], *args).exit_code == 0
    (tmp_path / "T5R1").write_text(RUN.replace("T5R1", "mine"))
    return tmp_path


@pytest.mark.parametrize("command", [["recall", "T5R1", "--qrels", "qrels.txt"],
                                     ["impact", "--from", "qrels.txt", "--to", "qrels.txt",
                                      "T5R1"]])
def test_a_file_named_like_a_stored_run_is_refused(store_with_t5r1: Path,
                                                    command: list[str]) -> None:
    result = invoke("--db", os.environ["POOLTOOL_DB"], *command)
    assert result.exit_code == 1
    assert result.stderr == ("Error: 'T5R1' is both a file and a run in the store: "
                             "write ./T5R1 for the file\n")
    as_file = invoke("--db", os.environ["POOLTOOL_DB"], *[("./T5R1" if a == "T5R1" else a) for a in command],
                     "--format", "csv")
    assert as_file.exit_code == 0, as_file.output
    assert "mine" in as_file.stdout and "T5R1" not in as_file.stdout


def test_several_runs_in_a_file_are_named(tmp_path: Path, store_address: str) -> None:
    run = tmp_path / "two.run"
    run.write_text(RUN + RUN.replace("T5R1", "other"))
    (tmp_path / "qrels.txt").write_text(QRELS)
    note = (f"note: {run} gave 2 runs, one per run tag: T5R1, other "
            "(trec_eval would score the file as one run)\n")
    result = invoke("recall", str(run), "--qrels", str(tmp_path / "qrels.txt"), "-k", "1",
                    "--format", "csv")
    assert result.exit_code == 0 and result.stderr == note
    db = store_address
    assert invoke("--db", db, "init").exit_code == 0
    added = invoke("--db", db, "add-runs", str(run), "--format", "csv")
    assert added.exit_code == 0 and added.stderr == note


def test_qrels_diff_changes_prints_a_dash_for_an_absent_grade(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "b.txt").write_text("1 0 a 2\n1 0 c 1\n")
    result = invoke("qrels", "diff", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"),
                    "--changes")
    assert result.exit_code == 0 and "<NA>" not in result.stdout
    rows = [[cell.strip() for cell in line.split("│")] for line in result.stdout.splitlines()
            if "│" in line]
    assert rows == [["1", "a", "1", "2", "regraded", "same"],
                    ["1", "b", "0", "-", "removed", "same"],
                    ["1", "c", "-", "1", "added", "gained"]]


def test_status_rounds_the_pace(new_store: str) -> None:
    db = new_store
    store = JudgmentStore.open(db)
    store.add_run_frame(pd.DataFrame([("r", "1", f"d{i}", i + 1, 9.0 - i) for i in range(5)],
                                     columns=["run_tag", "topic", "docno", "rank", "score"]))
    pool_runs(store, depth=5)
    for docno, ms in (("d0", 1700), ("d1", 1857)):
        store.record_judgment("1", docno, 1, "ann", ms_spent=ms)
    store.close()
    result = invoke("--db", db, "status")
    pace = next(line for line in result.stdout.splitlines() if line.startswith(" ann"))
    assert [c.strip() for c in pace.split("│")] == ["ann", "2", "2,024", "1.8", "3", "0.0"]
