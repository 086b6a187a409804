"""Qrels and runs naming docnos the collection lacks (issue 24, 3): named on stderr
(count, first few, the nearest case-insensitive match), refused with --strict-docs; a
store without documents checks nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pooltool.cli import cli
from pooltool.errors import UnknownDocnos
from pooltool.records import Document
from pooltool.store import JudgmentStore
from pooltool.store.docno_check import MissingDocnos

DOCS = "".join(f'{{"docno": "{d}", "title": "", "text": "t"}}\n' for d in ["a", "d2", "D3", "d3"])


def _pooltool(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def db(tmp_path: Path) -> str:
    (tmp_path / "docs.jsonl").write_text(DOCS)
    path = str(tmp_path / "s.db")
    assert _pooltool("--db", path, "init").exit_code == 0
    assert _pooltool("--db", path, "add-docs", str(tmp_path / "docs.jsonl")).exit_code == 0
    return path


def test_qrels_docnos_the_collection_lacks_are_named(db: str, tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("1 0 A 1\n1 0 d2 0\n1 0 zz-404 1\n")
    result = _pooltool("--db", db, "import-qrels", str(tmp_path / "q.txt"), "--version", "v")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == (
        f"warning: {tmp_path / 'q.txt'}: 2 docno(s) not among the store's documents (another "
        "corpus version or id scheme?): 'A' (likely 'a'), 'zz-404'; imported anyway "
        "(--strict-docs refuses them)")
    assert _pooltool("--db", db, "export-qrels").stdout == "1 0 A 1\n1 0 d2 0\n1 0 zz-404 1\n"


def test_strict_docs_refuses_and_imports_nothing(db: str, tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("1 0 d2 0\n1 0 zz-404 1\n")
    result = _pooltool("--db", db, "import-qrels", str(tmp_path / "q.txt"), "--version", "v",
                       "--strict-docs")
    assert (result.exit_code, result.stderr) == (1, (
        f"Error: {tmp_path / 'q.txt'}: 1 docno(s) not among the store's documents (another "
        "corpus version or id scheme?): 'zz-404'; nothing was imported\n"))
    with JudgmentStore.open(db) as store:
        assert store.judgment_log().empty and store.versions().empty


def test_runs_retrieving_docnos_the_collection_lacks_are_named(db: str, tmp_path: Path) -> None:
    lines = [f"1 Q0 {d} {i} {10 - i} r1\n" for i, d in enumerate(
        ["a", "d3", "x1", "x2", "x3", "x4", "x5", "x6", "D2"], 1)]
    (tmp_path / "r1").write_text("".join(lines))
    result = _pooltool("--db", db, "add-runs", str(tmp_path / "r1"))
    assert result.exit_code == 0, result.output
    assert (f"warning: {tmp_path / 'r1'}: 7 docno(s) not among the store's documents (another "
            "corpus version or id scheme?): 'D2' (likely 'd2'), 'x1', 'x2', 'x3', 'x4', ... "
            "(2 more); imported anyway (--strict-docs refuses them)") in result.stderr.splitlines()
    refused = _pooltool("--db", db, "add-runs", "--replace", "--strict-docs", str(tmp_path / "r1"))
    assert refused.exit_code == 1 and "nothing was imported" in refused.stderr


def test_a_store_without_documents_checks_nothing(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("1 0 zz-404 1\n")
    found: list[MissingDocnos] = []
    with JudgmentStore.open(tmp_path / "s.db", create=True) as store:
        store.import_qrels(tmp_path / "q.txt", "v", strict_docs=True, on_missing_docnos=found.append)
        assert found == [] and len(store.judgment_log()) == 1
        store.add_documents([Document("d1", "", "t")], "<one>")
        with pytest.raises(UnknownDocnos, match="'zz-404'; nothing was imported$"):
            store.import_qrels(tmp_path / "q.txt", "w", strict_docs=True)
