"""ir_datasets as a source (irds:NAME), on small datasets registered here through
ir_datasets' own API from local files; a dataset whose files are not in the local cache
is refused in one line, without a connection (nothing hangs)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.store import JudgmentStore

ir_datasets = pytest.importorskip("ir_datasets", reason="pip install -e '.[irds]'")
from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.formats import (  # noqa: E402
    TrecQrels,
    TrecQueries,
    TrecScoredDocs,
    TsvDocs,
    TsvQueries,
)
from ir_datasets.util import Cache, LocalDownload, RequestsDownload  # noqa: E402

TREC_TOPICS = """<top>
<num> Number: 301
<title> heat transfer
<desc> Description:
How does heat move through a boundary layer?
<narr> Narrative:
A relevant document gives a measured rate.
</top>
"""


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A generic-query dataset with TSV documents and qrels, a TREC-topics one, and one
    whose documents would have to be downloaded."""
    folder = tmp_path_factory.mktemp("irds")
    (folder / "docs.tsv").write_text("d1\tboundary layer flow\nd2\theat transfer rates\n"
                                     "d3\tsupersonic wings\n")
    (folder / "queries.tsv").write_text("1\tboundary layer\n2\twings at speed\n")
    (folder / "qrels.txt").write_text("1 0 d1 2\n1 0 d3 0\n2 0 d3 1\n")
    (folder / "topics.trec").write_text(TREC_TOPICS)
    (folder / "bm25.run").write_text("1 Q0 d2 1 4.5 bm25\n1 Q0 d1 2 4.5 bm25\n2 Q0 d3 1 1.0 bm25\n")
    definitions = {0: "not relevant", 1: "relevant", 2: "very relevant"}
    registered = {
        "pooltool-test/generic": Dataset(
            TsvDocs(LocalDownload(folder / "docs.tsv")),
            TsvQueries(LocalDownload(folder / "queries.tsv")),
            TrecQrels(LocalDownload(folder / "qrels.txt"), definitions),
            TrecScoredDocs(LocalDownload(folder / "bm25.run"))),
        "pooltool-test/trec": Dataset(TrecQueries(LocalDownload(folder / "topics.trec"))),
        "pooltool-test/remote": Dataset(TsvDocs(Cache(
            RequestsDownload("https://ir-datasets.invalid/docs.tsv"), folder / "cache.tsv"))),
    }
    for name, dataset in registered.items():
        if name not in ir_datasets.registry:
            ir_datasets.registry.register(name, dataset)
    return {"folder": folder}


def run(db: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def test_topics_documents_and_qrels(datasets: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert run(db, "init")[0] == 0
    assert run(db, "add-topics", "irds:pooltool-test/generic")[0] == 0
    code, _, err = run(db, "add-docs", "irds:pooltool-test/generic")
    assert code == 0 and "3 documents read, 3 added" in err
    code, _, err = run(db, "import-qrels", "irds:pooltool-test/generic", "--version", "official")
    assert code == 0 and "3 judgments read, 3 added" in err
    assert run(db, "add-topics", "irds:pooltool-test/trec")[0] == 0
    with JudgmentStore.open(db) as store:
        assert store.topic("1").title == "boundary layer"
        trec = store.topic("301")
        assert (trec.title, trec.description, trec.narrative) == (
            "heat transfer", "How does heat move through a boundary layer?",
            "A relevant document gives a measured rate.")
        document = store.document("d2")
        assert document is not None and document.text == "heat transfer rates"
        qrels = store.qrels("official")
        assert qrels[["topic", "docno", "grade"]].values.tolist() == [
            ["1", "d1", 2], ["1", "d3", 0], ["2", "d3", 1]]
        assert store.versions()["source_path"].tolist() == ["irds:pooltool-test/generic"]
        assert set(store.judgment_log()["origin"]) == {"qrels:irds:pooltool-test/generic"}


def test_a_dataset_not_in_the_cache_is_one_line_at_once(datasets: dict[str, Path],
                                                         tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    run(db, "init")
    started = time.monotonic()
    code, _, err = run(db, "add-docs", "irds:pooltool-test/remote")
    assert time.monotonic() - started < 10
    assert code == 1 and len(err.splitlines()) == 1
    assert "not in ir_datasets' local cache" in err and "ir_datasets.load(" in err
    assert not (datasets["folder"] / "cache.tsv").exists()


def test_unknown_datasets_and_missing_parts(datasets: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    run(db, "init")
    code, _, err = run(db, "add-topics", "irds:pooltool-test/no-such")
    assert code == 1 and "ir_datasets has no dataset 'pooltool-test/no-such'" in err
    code, _, err = run(db, "import-qrels", "irds:pooltool-test/trec", "--version", "v")
    assert code == 1 and err == "Error: irds:pooltool-test/trec: the dataset has no qrels\n"


def test_measuring_against_a_datasets_qrels(datasets: dict[str, Path], tmp_path: Path) -> None:
    """eval and recall --qrels irds:NAME score as against the same qrels in a file."""
    run_file = tmp_path / "a.run"
    run_file.write_text("1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n2 Q0 d3 1 5 a\n")
    for command in (["eval", "-m", "P.2", "-m", "map"], ["recall", "-k", "2"]):
        by_id = run(tmp_path / "none.db", *command, str(run_file), "--qrels",
                    "irds:pooltool-test/generic", "--format", "csv")
        by_file = run(tmp_path / "none.db", *command, str(run_file), "--qrels",
                      str(datasets["folder"] / "qrels.txt"), "--format", "csv")
        assert by_id[0] == by_file[0] == 0 and by_id[1] == by_file[1] != ""


def test_scoreddocs_as_a_run(datasets: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    run(db, "init")
    code, out, _ = run(db, "add-runs", "irds:pooltool-test/generic", "--format", "csv")
    assert code == 0 and out == ("run_tag,source_path,lines,topics\n"
                                 "pooltool-test/generic,irds:pooltool-test/generic,3,2\n")
    with JudgmentStore.open(db) as store:  # trec_eval's order: the tie goes to docno d2
        frame = store.run_frame("pooltool-test/generic")
        assert frame[["topic", "docno", "trec_rank"]].values.tolist() == [
            ["1", "d2", 1], ["1", "d1", 2], ["2", "d3", 1]]
    refused = run(db, "add-runs", "irds:pooltool-test/generic", "--replace")
    assert refused[0] == 2
