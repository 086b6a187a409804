"""Tables never cut a value: narrow terminals get a compact column set or split tables,
files get full width, and every value the table shows is the csv value whole."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.report import COLUMN_CHOICE, ColumnChoice, write_table


def parse_tables(text: str) -> list[list[dict[str, str]]]:
    """The rows of every table in ``text`` (a header line holds ┃, a row │)."""
    tables: list[list[dict[str, str]]] = []
    header: list[str] = []
    for line in text.splitlines():
        if "┃" in line:
            header = [cell.strip() for cell in line.split("┃")]
            tables.append([])
        elif "│" in line and header:
            cells = [cell.strip() for cell in line.split("│")]
            tables[-1].append(dict(zip(header, cells, strict=True)))
    return tables


def cells_by_row(text: str, keys: tuple[str, ...]) -> dict[tuple[str, ...], dict[str, str]]:
    """Every table's cells merged by the key columns (split tables repeat them)."""
    merged: dict[tuple[str, ...], dict[str, str]] = {}
    for table in parse_tables(text):
        for row in table:
            merged.setdefault(tuple(row[k] for k in keys), {}).update(row)
    return merged


def shown(value: object) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.4f}"
    return str(value)


@pytest.fixture
def covid(shared_data: Path) -> list[str]:
    data = shared_data / "trec_covid_r1"
    runs = sorted(str(p) for p in (data / "runs").iterdir())
    return [*runs, "--qrels", str(data / "qrels-rnd1.txt"), "-k", "10,100"]


def recall(args: list[str], columns: int | None) -> tuple[str, str]:
    env = {"COLUMNS": str(columns) if columns else ""}
    result = CliRunner().invoke(cli, ["recall", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("extra", [[], ["--all-columns"], ["-q"]])
def test_recall_tables_show_every_value_whole(covid: list[str], width: int,
                                              extra: list[str]) -> None:
    csv_out, _ = recall([*covid, "--format", "csv", *[e for e in extra if e == "-q"]], None)
    expected = pd.read_csv(io.StringIO(csv_out), dtype={"topic": str})
    table, err = recall([*covid, *extra], width)
    assert "…" not in table
    assert max(len(line) for line in table.splitlines()) <= width
    if "-q" in extra:  # per-topic rows, one per k: check recall@k and P@k of every row
        rows = cells_by_row(table.split("summary (means")[0], ("run_tag", "topic", "k"))
        for record in expected.to_dict("records"):
            for k in (10, 100):
                row = rows[(record["run_tag"], record["topic"], str(k))]
                assert row["recall"] == shown(record[f"recall@{k}"])
                assert row["P"] == shown(record[f"P@{k}"])
        return
    rows = cells_by_row(table, ("run_tag", "k"))
    assert len(rows) == len(expected) == 30
    for record in expected.to_dict("records"):
        row = rows[(record["run_tag"], str(record["k"]))]
        columns = set(row)
        assert {"run_tag", "k", "num_q", "recall", "P", "unjudged"} <= columns
        if extra:
            assert columns == set(expected.columns)
        for column in columns:
            assert row[column] == shown(record[column]), (record["run_tag"], column)
    assert ("hidden to fit 80" in err) == (width == 80 and not extra)


def test_recall_table_on_a_file_is_full_width(covid: list[str]) -> None:
    table, err = recall(covid, None)
    header = next(line for line in table.splitlines() if "┃" in line)
    assert "zero_recall_share" in header and "recall_upper" in header
    assert "ixa-ir-filter-query" in table and "hidden" not in err
    assert len(parse_tables(table)) == 1


def test_columns_picks_columns_after_the_keys(covid: list[str]) -> None:
    table, err = recall([*covid, "--columns", "ceiling,recall_nrel_gt100,nope"], 80)
    (rows,) = parse_tables(table)
    assert list(rows[0]) == ["run_tag", "k", "ceiling", "recall_nrel_gt100"]
    assert "no column nope in this table" in err


@pytest.fixture
def reset_choice() -> object:
    token = COLUMN_CHOICE.set(ColumnChoice())
    yield
    COLUMN_CHOICE.reset(token)


def test_write_table_splits_and_repeats_the_keys(reset_choice: object) -> None:
    frame = pd.DataFrame({"run_tag": ["[bold]x[/bold]", "a" * 30], "k": [10, 10],
                          **{f"long_column_name_{i}": [0.123456, math.nan] for i in range(6)}})
    out = io.StringIO()
    write_table(frame, out, "t", width=60)
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 60
    rows = cells_by_row(text, ("run_tag", "k"))
    assert rows[("[bold]x[/bold]", "10")]["long_column_name_5"] == "0.1235"  # markup as text
    assert rows[("a" * 30, "10")]["long_column_name_0"] == "-"
    assert len(parse_tables(text)) > 1 and "t (continued)" in text


DEMO = Path(__file__).resolve().parents[1] / "demo"


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    assert CliRunner().invoke(cli, ["demo", str(folder)]).exit_code == 0
    return folder / "pooltool.db"


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("args", [
    ["bias", "-k", "5"],
    ["impact", "--from", "demo-partial", "--to", str(DEMO / "qrels.txt"),
     *sorted(str(p) for p in (DEMO / "runs").glob("*.run")), "-k", "5"],
    ["status"],
    ["qrels", "diff", "demo-partial", str(DEMO / "qrels.txt")],
], ids=lambda a: a[0] if isinstance(a, list) else str(a))
def test_every_command_table_holds_its_csv_values_whole(demo_store: Path, args: list[str],
                                                        width: int) -> None:
    def invoke(*extra: str, columns: str = "") -> str:
        result = CliRunner().invoke(cli, ["--db", str(demo_store), *args, *extra],
                                    env={"COLUMNS": columns})
        assert result.exit_code == 0, result.output
        return result.stdout

    expected = pd.read_csv(io.StringIO(invoke("--format", "csv")), dtype=str,
                           keep_default_na=False)
    table = invoke("--all-columns", columns=str(width))
    assert "…" not in table
    assert max(len(line) for line in table.splitlines() if "│" in line or "┃" in line) <= width
    tables = parse_tables(table)
    cells = {cell for rows in tables for row in rows for cell in row.values()}
    headers = {column for rows in tables for row in rows for column in row}
    # impact states one topic count for all runs in its title instead of two columns
    assert set(expected.columns) - headers <= {"num_q_a", "num_q_b"}
    for column in headers & set(expected.columns):
        for value in expected[column]:
            assert _as_shown(value) in cells, (column, value)


def _as_shown(csv_value: str) -> str:
    """A csv cell as a table shows it (floats to 4 places, empty as '-')."""
    if csv_value == "":
        return "-"
    if any(c in csv_value for c in ".eE") and csv_value.replace(".", "").lstrip("-").isdigit():
        return f"{float(csv_value):.4f}"
    return csv_value
