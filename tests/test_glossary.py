"""Every column any command writes is defined by ``pooltool explain`` (and on docs/glossary.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.glossary import GLOSSARY, glossary_markdown, lookup

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "demo"


def columns_written(output: str) -> set[str]:
    """Column names in csv headers, JSON records and table headers of ``output``."""
    names: set[str] = set()
    lines = output.splitlines()
    if output.lstrip().startswith("{"):
        document = json.loads(output)
        for value in document.values():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                names |= set(value[0])
        return names
    if lines and "," in lines[0] and "┃" not in output:
        return set(lines[0].split(","))
    for line in lines:
        if "┃" in line:
            names |= {cell.strip() for cell in line.split("┃")}
    return names


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    assert CliRunner().invoke(cli, ["demo", str(folder)]).exit_code == 0
    (folder / "extra.run").write_text("1 Q0 d1 1 1.0 extra\n")
    return folder / "pooltool.db"


RUNS = sorted(str(p) for p in (DEMO / "runs").glob("*.run"))
QRELS = str(DEMO / "qrels.txt")
COMMANDS = [
    ["recall", *RUNS, "--version", "demo-partial", "-k", "5,10", "-q", "--format", "csv"],
    ["eval", *RUNS, "--version", "demo-partial", "-m", "P.5", "-m", "nDCG@5", "-q",
     "--format", "csv"],
    ["recall", *RUNS, "--version", "demo-partial", "-k", "5,10", "--format", "csv"],
    ["recall", *RUNS, "--version", "demo-partial", "-k", "5", "-q", "--all-columns"],
    ["qrels", "versions", "--format", "csv"],
    ["qrels", "diff", "demo-partial", QRELS, "--format", "json"],
    ["status", "--format", "json"],
    ["status", "--all-columns"],
    ["bias", "-k", "5", "--format", "json"],
    ["bias", "-k", "5", "--all-columns"],
    ["bias", "-k", "5", "--correct", "webber-park", "--measure", "recall", "--all-columns"],
    ["bias", "-k", "5", "--correct", "lipani", "--format", "csv"],
    ["bias", "-m", "nDCG@5", "--new", RUNS[0], "--format", "json"],
    ["bias", "-m", "map", "--all-columns"],
    ["compare", *RUNS, "--version", "demo-partial", "-m", "nDCG@5", "--format", "json"],
    ["compare", *RUNS, "--version", "demo-partial", "-m", "AP", "--all-columns"],
    ["impact", "--from", "demo-partial", "--to", QRELS, *RUNS, "--format", "json"],
    ["impact", "--from", "demo-partial", "--to", QRELS, *RUNS, "-m", "map", "--format", "json"],
    ["impact", "--from", "demo-partial", "--to", QRELS, *RUNS, "--all-columns"],
    ["pool", "--depth", "3", "--format", "csv"],
    ["assign", "ann", "bob", "--overlap", "0.5", "--format", "csv"],
    ["agreement", "--format", "csv"],
    ["assessors", "--format", "csv"],
    ["grades", "--format", "csv"],
    ["runs", "--all", "--format", "csv"],
    ["simulate", *RUNS, "--qrels", QRELS, "--budget", "2,5", "-q", "--format", "json"],
    ["simulate", *RUNS, "--qrels", QRELS, "--strategy", "mtf", "--budget", "2", "-m", "map",
     "--format", "json"],
    ["simulate", *RUNS, "--qrels", QRELS, "--strategy", "mtf", "--budget", "2", "-q",
     "--format", "csv"],
    ["simulate", *RUNS, "--qrels", QRELS, "--strategy", "depth", "--budget", "2", "-q",
     "--all-columns"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_written_column_is_explained(store: Path, args: list[str]) -> None:
    result = CliRunner().invoke(cli, ["--db", str(store), *args])
    assert result.exit_code == 0, result.output
    written = columns_written(result.stdout) - {""}
    assert written, result.stdout
    assert {c for c in written if lookup(c) is None} == set()


def test_add_runs_columns_are_explained(store: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(store), "add-runs",
                                      str(store.parent / "extra.run"), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert all(lookup(c) for c in columns_written(result.stdout))


def test_explain_prints_definition_and_source() -> None:
    result = CliRunner().invoke(cli, ["explain", "recall_upper", "recall@10", "unjudged_b"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0:3] == [
        "recall_upper",
        "  " + GLOSSARY["recall_upper"].definition,
        "  Source: " + GLOSSARY["recall_upper"].source,
    ]
    assert "(under qrels B (--to, or B))" in result.stdout
    unknown = CliRunner().invoke(cli, ["explain", "celing"])
    assert unknown.exit_code == 1 and "did you mean ceiling" in unknown.stderr


def test_the_glossary_page_is_the_glossary() -> None:
    assert glossary_markdown() in (ROOT / "docs" / "glossary.md").read_text()


@pytest.mark.parametrize("name", ["ceiling", "micro_recall", "zero_recall_share",
                                  "recall_upper", "judged", "recall_nrel_2_5", "rel_ret",
                                  "SRE", "MAE", "tau_ap"])
def test_the_terms_users_asked_about_have_sources(name: str) -> None:
    term = lookup(name)
    assert term is not None and term.source and term.definition.endswith((".", ")"))
