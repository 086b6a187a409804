"""qrels versions / tag / diff from the command line, and qrels named by file or version."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.cli import cli


@pytest.fixture
def work(tmp_path: Path, store_address: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder, with v1.txt imported as version v1 into the store at
    ``POOLTOOL_DB`` (once on each engine), which :func:`run` uses."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("POOLTOOL_DB", store_address)
    (tmp_path / "v1.txt").write_text("1 0 a 1\n1 0 b 0\n")
    assert run("init").exit_code == 0
    assert run("import-qrels", "v1.txt", "--version", "v1").exit_code == 0
    return tmp_path


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["--db", os.environ["POOLTOOL_DB"], *args])


def test_tag_names_the_log_now(work: Path) -> None:
    from pooltool.store import JudgmentStore

    with JudgmentStore.open(os.environ["POOLTOOL_DB"]) as store:
        store.record_judgment("1", "b", 2, "ann")
    result = run("qrels", "tag", "v2", "--note", "ann regraded b")
    assert result.exit_code == 0, result.output
    assert result.stderr == "qrels version 'v2' = the judgment log up to row 3\n"
    assert run("export-qrels", "--version", "v2").stdout == "1 0 a 1\n1 0 b 2\n"
    assert run("export-qrels", "--version", "v1").stdout == "1 0 a 1\n1 0 b 0\n"
    diff = run("qrels", "diff", "v1", "v2", "--format", "csv").stdout
    assert diff.splitlines()[-1] == "all,2,2,0,0,1,1,2,1"
    versions = pd.read_csv(io.StringIO(run("qrels", "versions", "--format", "csv").stdout),
                           keep_default_na=False)
    assert versions[["name", "note"]].values.tolist() == [["v1", ""], ["v2", "ann regraded b"]]


def test_versions_csv_has_every_column_even_when_empty(store_address: str) -> None:
    CliRunner().invoke(cli, ["--db", store_address, "init"])
    result = CliRunner().invoke(cli, ["--db", store_address, "qrels", "versions", "--format", "csv"])
    assert result.stdout == ("name,created_at,source_path,note,topics,judged,judged_nonneg,"
                             "relevant\n")


def test_a_name_that_is_both_file_and_version_is_refused(work: Path) -> None:
    (work / "v1").write_text("1 0 a 0\n")
    result = run("qrels", "diff", "v1", "v1.txt")
    assert result.exit_code == 1
    assert result.stderr == ("Error: 'v1' is both a file and a qrels version in the store: "
                             "write ./v1 for the file\n")
    assert run("qrels", "diff", "./v1", "v1.txt").exit_code == 0


def test_a_name_that_is_neither_says_so(work: Path) -> None:
    result = run("qrels", "diff", "nothing.txt", "v1")
    assert result.stderr.startswith("Error: 'nothing.txt' is neither a qrels file nor a "
                                    "stored version")


def test_a_second_assessors_agreeing_grades_are_theirs(tmp_path: Path, store_address: str) -> None:
    """bob agrees with alice on 3 of 4 pooled documents: all 4 are bob's judgments."""
    (tmp_path / "a.run").write_text("1 Q0 a 1 4 A\n1 Q0 b 2 3 A\n1 Q0 c 3 2 A\n1 Q0 d 4 1 A\n")
    (tmp_path / "alice.txt").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 0\n")
    (tmp_path / "bob.txt").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 1\n")
    db = store_address

    def call(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(cli, ["--db", db, *args])

    for args in (["init"], ["add-runs", str(tmp_path / "a.run")], ["pool", "--depth", "4"],
                 ["import-qrels", str(tmp_path / "alice.txt"), "--version", "alice",
                  "--assessor", "alice"]):
        assert call(*args).exit_code == 0
    result = call("import-qrels", str(tmp_path / "bob.txt"), "--version", "bob",
                  "--assessor", "bob")
    assert result.stderr == (f"{tmp_path / 'bob.txt'}: 4 judgments read, 4 added, "
                             "0 unchanged, 0 retracted; version 'bob'; assessor 'bob' is a person\n")
    rows = json.loads(call("agreement", "--format", "json").stdout)
    assert [(r["assessor_a"], r["assessor_b"], r["topic"], r["docs"], r["agreement"],
             r["kappa"]) for r in rows] == [("alice", "bob", "1", 4, 0.75, 0.5),
                                       ("alice", "bob", "all", 4, 0.75, 0.5)]
    assert call("export-qrels", "--policy", "assessor:bob").stdout == (
        (tmp_path / "bob.txt").read_text())
