"""pooltool duplicates find / list / impact, add-docs --duplicates and status's saved
column, on a small store whose copies and scores are worked out by hand here."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from pooltool.analysis.duplicate_impact import copies_at_k
from pooltool.cli import cli
from pooltool.store import JudgmentStore

TEXT = " ".join(f"word{i:02d}" for i in range(40))
DOCS = [{"docno": "a", "title": "", "text": TEXT},
        {"docno": "b", "title": "", "text": TEXT.upper() + "!"},          # exact copy of a
        {"docno": "c", "title": "", "text": TEXT.replace("word39", "x")},  # near: 35/37
        {"docno": "d", "title": "", "text": "nothing like the others"}]


def invoke(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def store(tmp_path: Path) -> Path:
    db = tmp_path / "store.db"
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    run = tmp_path / "run1"  # topic 1 ranks b, a, c, d (scores descending)
    run.write_text("1 Q0 b 1 4 r1\n1 Q0 a 2 3 r1\n1 Q0 c 3 2 r1\n1 Q0 d 4 1 r1\n")
    invoke(db, "init")
    invoke(db, "add-docs", "--duplicates", str(docs))
    invoke(db, "add-runs", str(run))
    invoke(db, "pool", "--depth", "10")
    return db


def test_add_docs_finds_the_copies_and_list_writes_them(store: Path) -> None:
    rows = json.loads(invoke(store, "duplicates", "list", "--format", "json").stdout)
    assert [(r["group"], r["docno"], r["how"]) for r in rows] == [
        (1, "a", "leader"), (1, "b", "exact"), (1, "c", "near")]
    assert rows[2]["similarity"] == pytest.approx(35 / 37)
    csv = invoke(store, "duplicates", "list", "--format", "csv").stdout.splitlines()
    assert csv[0] == "group,docno,exact_class,how,similarity"
    again = invoke(store, "duplicates", "find", "--threshold", "0.95")
    assert "1 groups, 1 exact copies, 0 near copies (Jaccard >= 0.95" in again.stderr
    assert len(json.loads(invoke(store, "duplicates", "list", "--format", "json").stdout)) == 2


def test_status_counts_the_judgments_copies_saved_and_impact_scores_both_ways(
        store: Path) -> None:
    with JudgmentStore.open(store) as s:
        s.record_judgment("1", "a", 1, "alice")
        s.record_judgment("1", "d", 0, "alice")
    status = json.loads(invoke(store, "status", "--format", "json").stdout)
    topic = status["topics"][0]
    assert topic["judged"] == 3 and topic["saved"] == 1  # b through a
    rows = json.loads(invoke(store, "duplicates", "impact", "-k", "2", "--format", "json").stdout)
    # without propagation: relevant {a}, run top 2 = b a: recall 1/1, P 1/2, unjudged 1/2;
    # with exact copies: relevant {a, b}: recall 2/2, P 2/2, unjudged 0; b, a are copies: 1
    (row,) = rows
    assert (row["recall_none"], row["P_none"], row["unjudged_none"]) == (1.0, 0.5, 0.5)
    assert (row["recall_propagated"], row["P_propagated"], row["unjudged_propagated"]) == (
        1.0, 1.0, 0.0)
    assert row["copies_at_k"] == 1


def test_copies_at_k_counts_each_repeat_of_a_unit_below_its_first() -> None:
    runs = pd.DataFrame({"run_tag": ["r"] * 5 + ["s"], "topic": ["1", "1", "1", "2", "2", "1"],
                         "docno": ["a", "b", "c", "b", "a", "a"],
                         "trec_rank": [1, 2, 3, 1, 2, 1]})
    units = pd.DataFrame({"docno": ["a", "b", "c"], "unit": ["1", "1", "1"]})
    assert copies_at_k(runs, units, 2).values.tolist() == [["r", 2], ["s", 0]]
    assert copies_at_k(runs, units, 3).values.tolist() == [["r", 3], ["s", 0]]
