"""pooltool bias from the command line: table, JSON (schema-valid), plot, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from pooltool.cli import cli

ROOT = Path(__file__).resolve().parents[2]
RUNS = {
    "a.run": "1 Q0 a1 1 9 team1_a\n1 Q0 s 2 8 team1_a\n1 Q0 b1 3 7 team1_a\n",
    "b.run": "1 Q0 b1 1 9 team1_b\n1 Q0 s 2 8 team1_b\n1 Q0 o 3 7 team1_b\n",
    "c.run": "1 Q0 c1 1 9 team2_c\n1 Q0 s 2 8 team2_c\n1 Q0 a1 3 7 team2_c\n",
    "new.run": "1 Q0 x 1 9 new\n1 Q0 y 2 8 new\n1 Q0 s 3 7 new\n",
}
QRELS = "1 0 a1 1\n1 0 b1 1\n1 0 c1 0\n1 0 s 1\n1 0 o 1\n"


@pytest.fixture
def db(tmp_path: Path, store_address: str) -> str:
    """Runs a, b, c pooled to depth 2 and qrels version v1, in a store on each engine."""
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "qrels.txt").write_text(QRELS)
    db = store_address
    for args in (["init"], ["add-runs", *(str(tmp_path / n) for n in ["a.run", "b.run", "c.run"])],
                 ["pool", "--depth", "2"], ["import-qrels", str(tmp_path / "qrels.txt"),
                                                "--version", "v1"]):
        assert CliRunner().invoke(cli, ["--db", db, *args]).exit_code == 0
    return db


def invoke(db: str, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["--db", db, "bias", *args])


def test_json_validates_and_holds_the_new_run(db: str, tmp_path: Path) -> None:
    result = invoke(db, "-k", "3", "--version", "v1", "--new", str(tmp_path / "new.run"),
                    "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    jsonschema.validate(report, json.loads((ROOT / "schemas" / "bias-v1.json").read_text()))
    per_run = {r["run_tag"]: r for r in report["per_run"]}
    # team1_b alone pooled b1 (relevant): 3/4 -> 2/3
    assert per_run["team1_b"]["recall"] == pytest.approx(3 / 4)
    assert per_run["team1_b"]["recall_loo"] == pytest.approx(2 / 3)
    assert [r["run_tag"] for r in report["new_runs"]] == ["new"]
    assert report["new_runs"][0]["unjudged@10"] == pytest.approx(2 / 10)


def test_groups_by_regex_and_plot(db: str, tmp_path: Path) -> None:
    plot = tmp_path / "bias.png"
    result = invoke(db, "-k", "3", "--group", "^(team[0-9])_", "--plot", str(plot),
                    "--format", "json")
    assert result.exit_code == 0, result.output
    per_run = {r["run_tag"]: r for r in json.loads(result.stdout)["per_run"]}
    # team2_c retrieves a1 only at rank 3, below the depth, so team1 alone pooled a1 and b1:
    # team1_a loses both (num_rel 4 -> 2) and keeps s in its top 3 -> 1/2
    assert per_run["team1_a"]["group"] == "team1"
    assert per_run["team1_a"]["recall_loo"] == pytest.approx(1 / 2)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written: {plot}\n" in result.stderr  # as recall and impact say it


def test_table_names_the_summary(db: str) -> None:
    result = invoke(db, "-k", "3")
    assert result.exit_code == 0
    assert "MAE" in result.stdout and "tau_ap" in result.stdout
    # which ranking each figure is: Lipani's for SRE, the plain one for tau and tau_ap
    text = " ".join(result.stdout.split())
    assert ("SRE sums |rank_loo - rank|: each run's leave-out recall ranked alone among the "
            "other runs' full-qrels recall (Lipani et al.; ties take the better rank). Kendall "
            "tau and tau_ap compare the ranking by full-qrels recall with the ranking of every "
            "run by its leave-out recall") in text


def test_bad_groups_file_names_the_line(db: str, tmp_path: Path) -> None:
    groups = tmp_path / "groups.tsv"
    groups.write_text("team1_a\tteam1\nteam1_b team1\n")
    result = invoke(db, "--groups", str(groups))
    assert result.exit_code == 1
    assert result.stderr == f"Error: {groups}:2: expected 'run_tag<TAB>group'\n"


def test_conflicting_options(db: str, tmp_path: Path) -> None:
    result = invoke(db, "--group", "x", "--groups", str(tmp_path / "qrels.txt"))
    assert result.exit_code == 2 and "use just one of --group and --groups" in result.stderr


def test_depth_beyond_the_pool_is_refused(db: str) -> None:
    result = invoke(db, "--depth", "3")
    assert result.exit_code == 2
    assert "pool 'main' was built to depth 2: leave-one-out at depth 3" in result.stderr


def test_corrected_json_validates(db: str, tmp_path: Path) -> None:
    result = invoke(db, "-k", "2", "--version", "v1", "--new", str(tmp_path / "new.run"),
                    "--correct", "webber-park", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    jsonschema.validate(report, json.loads((ROOT / "schemas" /
                                            "bias-correction-v1.json").read_text()))
    assert [r["scored_as"] for r in report["per_run"]].count("new") == 1
    assert report["overall"]["runs"] == 3


def test_runs_pooled_to_different_depths_are_said(db: str) -> None:
    """One run pooled deeper later: leave-one-out takes the largest depth for every run
    unless --depth is given, and says so."""
    deeper = CliRunner().invoke(cli, ["--db", db, "pool", "--depth", "3", "--runs",
                                      "team2_c"])
    assert deeper.exit_code == 0, deeper.output
    note = ("note: the pool's runs were pooled to different depths (2 of 3 to less than 3, "
            "e.g. team1_a to 2); leave-one-out uses depth 3 for every run: give --depth to "
            "choose\n")
    result = invoke(db, "-k", "3", "--version", "v1", "--format", "csv")
    assert result.exit_code == 0 and result.stderr.endswith(note)
    chosen = invoke(db, "-k", "3", "--version", "v1", "--depth", "2", "--format", "csv")
    assert chosen.exit_code == 0 and "different depths" not in chosen.stderr


def test_a_pool_not_made_to_depth_k_is_refused_by_name(db: str) -> None:
    for args in (["pool", "--name", "live", "--strategy", "mtf", "--budget", "2"],
                 ["sample", "--name", "s1", "--budget", "1", "--seed", "1", "--strata", "3-10"]):
        made = CliRunner().invoke(cli, ["--db", db, *args])
        assert made.exit_code == 0, made.output
    live = invoke(db, "-k", "3", "--version", "v1", "--pool", "live")
    assert (live.exit_code, live.stderr) == (1, (
        "Error: pool 'live' is an adaptive pool (strategy mtf): its documents are chosen one "
        "at a time by 'pooltool judge', within its budget; bias leaves runs out of a depth-k "
        "pool (pooltool pool --depth K): name one with --pool\n"))
    sample = invoke(db, "-k", "3", "--version", "v1", "--pool", "s1")
    assert sample.exit_code == 1 and sample.stderr.startswith("Error: pool 's1' is a sample")
