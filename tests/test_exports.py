"""Exports for other tools: the judgment log and qrels as Parquet and JSON Lines, qrels and
runs as the {topic: {docno: value}} dicts of ranx and ir_measures. Checked against the
files imported, read here, and against ir_measures scoring the original files."""

from __future__ import annotations

import json
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.store import JudgmentStore

DEMO = Path(__file__).resolve().parents[1] / "demo"
QRELS = DEMO / "qrels.txt"
BM25 = DEMO / "runs" / "bm25.run"


def qrels_lines() -> pd.DataFrame:
    frame = pd.read_csv(QRELS, sep=" ", header=None, dtype=str,
                        names=["topic", "iteration", "docno", "grade"])
    return frame.assign(grade=frame["grade"].astype(int))


def run_lines() -> pd.DataFrame:
    frame = pd.read_csv(BM25, sep=" ", header=None, dtype=str,
                        names=["topic", "q0", "docno", "rank", "score", "tag"])
    return frame.assign(score=frame["score"].astype(float))


def pooltool(db: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo qrels by a person, three lines by a machine, one judgment retracted."""
    folder = tmp_path_factory.mktemp("exports")
    machine = folder / "llm.qrels"
    machine.write_text("1 0 getopt 0\n1 0 argparse 1\n2 0 zipfile 2\n")
    db = folder / "s.db"
    pooltool(db, "init")
    pooltool(db, "add-runs", str(BM25))
    pooltool(db, "import-qrels", str(QRELS), "--version", "official")
    pooltool(db, "import-qrels", str(machine), "--version", "llm", "--assessor", "gpt-judge",
             "--machine")
    with JudgmentStore.open(db) as opened:
        opened.retract(1, "qrels")
    return db


def test_the_judgment_log_as_jsonl_and_parquet(store: Path) -> None:
    rows = [json.loads(line) for line in pooltool(store, "export-judgments").splitlines()]
    pooltool(store, "export-judgments", "--format", "parquet", "-o", str(store.parent / "j.pq"))
    parquet = pd.read_parquet(store.parent / "j.pq")
    expected = qrels_lines()
    assert len(rows) == len(parquet) == len(expected) + 3 + 1
    first = rows[0]
    assert (first["topic"], first["docno"], first["grade"], first["assessor"], first["kind"]) == (
        expected["topic"][0], expected["docno"][0], expected["grade"][0], "qrels", "person")
    assert first["origin"] == f"qrels:{QRELS}" and first["ms_spent"] is None
    machine = [row for row in rows if row["assessor"] == "gpt-judge"]
    assert [(r["docno"], r["grade"], r["kind"]) for r in machine] == [
        ("getopt", 0, "machine"), ("argparse", 1, "machine"), ("zipfile", 2, "machine")]
    retraction = rows[-1]
    assert retraction["grade"] is None and retraction["retracts"] == 1
    assert parquet["grade"].isna().tolist() == [row["grade"] is None for row in rows]
    assert parquet["kind"].tolist() == [row["kind"] for row in rows]
    assert parquet["judged_at"].tolist() == [row["judged_at"] for row in rows]


def test_a_qrels_version_as_parquet_jsonl_and_a_dict(store: Path) -> None:
    expected = qrels_lines()
    pooltool(store, "export-qrels", "--version", "official", "--format", "parquet",
             "-o", str(store.parent / "q.pq"))
    parquet = pd.read_parquet(store.parent / "q.pq")
    pd.testing.assert_frame_equal(parquet.astype({"grade": "int64"}).astype(object),
                                  expected.astype(object), check_dtype=False)
    jsonl = [json.loads(line) for line in pooltool(store, "export-qrels", "--version",
                                                     "official", "--format", "jsonl").splitlines()]
    assert jsonl == expected.to_dict("records")
    nested = json.loads(pooltool(store, "export-qrels", "--version", "official", "--format",
                                 "json"))
    assert sum(len(docs) for docs in nested.values()) == len(expected)
    assert all(nested[t][d] == g for t, d, g in expected[["topic", "docno", "grade"]].itertuples(
        index=False))


def test_ranx_and_ir_measures_dicts_score_as_the_files(store: Path) -> None:
    qrels = json.loads(pooltool(store, "export-qrels", "--version", "official", "--format",
                                "json"))
    run = json.loads(pooltool(store, "export-run", "bm25"))
    measures = [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.P @ 5]

    def per_topic(qrels: object, run: object) -> dict[tuple[str, str], float]:
        return {(m.query_id, str(m.measure)): m.value
                for m in ir_measures.iter_calc(measures, qrels, run)}

    from_dicts = per_topic(qrels, run)
    from_files = per_topic(
        qrels_lines().rename(columns={"topic": "query_id", "docno": "doc_id",
                                      "grade": "relevance"}),
        run_lines().rename(columns={"topic": "query_id", "docno": "doc_id"}))
    assert from_dicts == from_files and len(from_dicts) == 30
    lines = run_lines()
    assert {(t, d): s for t, docs in run.items() for d, s in docs.items()} == {
        (t, d): s for t, d, s in lines[["topic", "docno", "score"]].itertuples(index=False)}


def test_refusals_are_one_line(store: Path) -> None:
    for args in (["export-run", "nope"], ["export-judgments", "--format", "parquet"]):
        result = CliRunner().invoke(cli, ["--db", str(store), *args])
        assert result.exit_code == 1 and result.stderr.startswith("Error: ")
        assert len(result.stderr.splitlines()) == 1
