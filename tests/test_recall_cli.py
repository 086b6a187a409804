"""``pooltool recall``: options, warnings on stderr, output formats, the JSON schema, the store."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import pooltool.cli.recall  # noqa: F401  registers the command on the group
from pooltool.cli.group import cli
from pooltool.measures.summary import NUM_REL_BINS, SUMMARY_COLUMNS
from pooltool.store import JudgmentStore

SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "recall-v1.json"
QRELS = "1 0 a 2\n1 0 b 0\n1 0 c -1\n1 0 x 1\n2 0 a 0\n3 0 z 1\n"
RUN = "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 0.5 t\n1 Q0 d 4 0.25 t\n2 Q0 a 1 3 t\n4 Q0 q 1 1 t\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt")


def invoke(*args: str, **kwargs):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["recall", *args], **kwargs)


def test_help_has_an_example() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    assert "Example" in result.output and "--qrels" in result.output


def test_needs_exactly_one_qrels_source(files: tuple[str, str]) -> None:
    run, qrels = files
    assert "give exactly one of --qrels FILE or --version NAME" in invoke(run).output
    both = invoke(run, "--qrels", qrels, "--version", "v1")
    assert both.exit_code == 2 and "exactly one" in both.output


def test_bad_cutoffs(files: tuple[str, str]) -> None:
    run, qrels = files
    result = invoke(run, "--qrels", qrels, "-k", "10,x")
    assert result.exit_code == 2 and "comma-separated integers" in result.output


def test_missing_topics_warned_on_stderr_only(files: tuple[str, str]) -> None:
    run, qrels = files
    result = invoke(run, "--qrels", qrels, "--format", "csv")
    assert result.exit_code == 0
    assert ("warning: run t: 1 qrels topic(s) not in the run, left out of its mean "
            "(use -c to score them 0): 3") in result.stderr
    assert "note: run t: 1 run topic(s) not in the qrels, ignored: 4" in result.stderr
    assert "warning" not in result.stdout
    frame = pd.read_csv(pd.io.common.StringIO(result.stdout))
    assert frame["k"].tolist() == [10, 100, 1000]
    assert frame["num_q"].tolist() == [2, 2, 2]
    complete = invoke(run, "--qrels", qrels, "-c")
    assert "scored 0 and counted (-c): 3" in complete.stderr


def test_trec_format_exact(files: tuple[str, str]) -> None:
    run, qrels = files
    result = invoke(run, "--qrels", qrels, "-k", "10", "-c", "-l", "2", "--format", "trec")
    assert result.exit_code == 0
    assert result.stdout == (
        "num_ret               \tall\t5\n"
        "num_rel               \tall\t3\n"  # -c: grade > 0 lines, whatever -l says
        "num_rel_ret           \tall\t1\n"
        "P_10                  \tall\t0.0333\n"
        "recall_10             \tall\t0.3333\n"
        "unj_10                \tall\t0.0667\n"
    )
    per_topic = invoke(run, "--qrels", qrels, "-k", "10", "-q", "--format", "trec").stdout
    assert per_topic.splitlines()[4] == "recall_10             \t1\t0.5000"


def test_per_topic_csv_and_table(files: tuple[str, str]) -> None:
    run, qrels = files
    csv = invoke(run, "--qrels", qrels, "-q", "-k", "2", "--format", "csv").stdout
    assert csv.splitlines()[0].startswith("run_tag,topic,num_ret,num_rel,num_rel_ret,num_rel_ret@2")
    assert csv.splitlines()[1].startswith("t,1,4,2,1,1,0.5,0.5,1.0,0.0,1.0,0.5")
    table = invoke(run, "--qrels", qrels, "-q").stdout
    assert "per topic" in table and "summary" in table and "recall_upper" in table


def test_json_follows_the_schema(files: tuple[str, str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    run, qrels = files
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for extra in ([], ["-q"], ["-q", "-c", "-M", "2", "-k", "1,3"]):
        result = invoke(run, "--qrels", qrels, "--format", "json", *extra)
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        jsonschema.validate(document, schema)
        assert document["runs"] == [{"run_tag": "t", "missing_topics": ["3"],
                                     "ignored_topics": ["4"]}]
        assert ("per_topic" in document) == ("-q" in extra)


def test_schema_lists_the_summary_columns() -> None:
    """Drift check: the schema's summary row is the code's summary columns, no more, no less."""
    row = json.loads(SCHEMA.read_text())["$defs"]["summary_row"]
    columns = [*SUMMARY_COLUMNS, *[f"recall_nrel_{label}" for label, _, _ in NUM_REL_BINS]]
    assert row["required"] == columns
    assert sorted(row["properties"]) == sorted(columns)


def test_plot(files: tuple[str, str], tmp_path: Path) -> None:
    run, qrels = files
    image = tmp_path / "recall.png"
    result = invoke(run, "--qrels", qrels, "--plot", str(image))
    assert result.exit_code == 0
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written: {image}" in result.stderr


def test_malformed_run_is_a_clean_error(tmp_path: Path, files: tuple[str, str]) -> None:
    _, qrels = files
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 oops t\n")
    result = invoke(str(bad), "--qrels", qrels)
    assert result.exit_code == 1
    assert result.stderr == f"Error: {bad}:2: score 'oops' is not a number\n"


def test_duplicate_docno_and_bad_qrels_are_clean_errors(tmp_path: Path,
                                                       files: tuple[str, str]) -> None:
    run, qrels = files
    dup = tmp_path / "dup.txt"
    dup.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.2 t\n")
    result = invoke(str(dup), "--qrels", qrels)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {dup}:3: docno 'a' appears twice for topic '1' in run 't' (first on line 1)\n")
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 a 1\n1 0 b x\n")
    result = invoke(run, "--qrels", str(bad))
    assert result.exit_code == 1
    assert result.stderr == f"Error: {bad}:2: grade 'x' is not an integer\n"


def test_unknown_run_without_store(tmp_path: Path, files: tuple[str, str]) -> None:
    _, qrels = files
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.db"), "recall", "bm25",
                                      "--qrels", qrels])
    assert result.exit_code == 2  # a missing input is a usage error, as click's exists=True
    assert result.stderr.endswith(
        f"Error: Invalid value for 'RUN...': 'bm25' is not a file, and there is no store at "
        f"{tmp_path / 'none.db'} (set --db or POOLTOOL_DB)\n")


def test_runs_and_qrels_from_the_store(tmp_path: Path, files: tuple[str, str],
                                       new_store: str) -> None:
    run, qrels = files
    db = new_store
    bm25 = tmp_path / "bm25.run"
    bm25.write_text(RUN.replace(" t\n", " bm25\n"))
    with JudgmentStore.open(db) as store:
        store.add_runs([bm25])
        store.import_qrels(qrels, "round1")
    result = CliRunner().invoke(cli, ["--db", db, "recall", run, "bm25", "--version",
                                      "round1", "--format", "csv", "-k", "10"])
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(pd.io.common.StringIO(result.stdout))
    assert frame["run_tag"].tolist() == ["t", "bm25"]
    assert frame["recall"].tolist() == [0.25, 0.25]
    unknown = CliRunner().invoke(cli, ["--db", db, "recall", "nope", "--version", "round1"])
    assert unknown.exit_code == 2 and unknown.stderr.endswith(
        "Error: Invalid value for 'RUN...': 'nope' is neither a file nor a run in the store\n")
    twice = tmp_path / "bm25.txt"
    twice.write_text(RUN.replace(" t\n", " bm25\n"))
    clash = CliRunner().invoke(cli, ["--db", db, "recall", "bm25", str(twice), "--version",
                                     "round1"])
    assert clash.exit_code == 1
    assert clash.stderr == f"Error: run tag 'bm25' is in both the store (bm25) and {twice}\n"


def test_recall_on_a_store_without_judgments_says_so(tmp_path: Path) -> None:
    """A fresh tester was told "Error: the qrels frame has no rows"."""
    db = tmp_path / "empty.db"
    assert CliRunner().invoke(cli, ["--db", str(db), "init"]).exit_code == 0
    run = tmp_path / "r.run"
    run.write_text("1 Q0 d1 1 1.0 r\n")
    result = CliRunner().invoke(cli, ["--db", str(db), "recall", str(run), "--policy", "latest"])
    assert (result.exit_code, result.stderr) == (
        1, "Error: no judgments in the store under policy 'latest': nothing to measure "
           "against (judge, or import-qrels, first)\n")
