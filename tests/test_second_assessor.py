"""A second assessor (a machine) against the people on TREC-COVID round 1: agreement
checked against scikit-learn and the krippendorff package, and the ranking impact."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.metrics import cohen_kappa_score

from pooltool.analysis.impact import qrels_impact
from pooltool.cli import cli
from pooltool.formats.qrels import read_qrels, write_qrels
from pooltool.formats.run import read_run

FLIP_RATE = 0.2   # the machine's grade differs from the official one on ~20% of pairs
KEEP_RATE = 0.7   # alice judged ~70% of the official pairs


def _perturbed(qrels: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """qrels with the grade of a seeded random ~FLIP_RATE of lines moved to another grade."""
    rng = np.random.default_rng(seed)
    flip = rng.random(len(qrels)) < FLIP_RATE
    shift = rng.integers(1, 3, size=len(qrels))
    grades = qrels["grade"].to_numpy()
    return qrels.assign(grade=np.where(flip, (grades + shift) % 3, grades)), flip


@dataclass(frozen=True)
class Campaign:
    """A store where alice (a person) judged ~70% of qrels-rnd1 and gpt-judge (a
    machine) all of it with ~20% of grades moved."""

    db: str
    official: pd.DataFrame
    alice: pd.DataFrame
    machine: pd.DataFrame
    flip: np.ndarray
    keep: np.ndarray
    runs: list[Path]


@pytest.fixture(scope="module")
def campaign(shared_data: Path, tmp_path_factory: pytest.TempPathFactory,
             module_store: str) -> Campaign:
    """alice (people) and gpt-judge (a machine) judged TREC-COVID round 1 apart, in a
    store on each engine."""
    folder = tmp_path_factory.mktemp("second")
    official = read_qrels(shared_data / "trec_covid_r1" / "qrels-rnd1.txt")
    machine, flip = _perturbed(official, seed=14)
    keep = np.random.default_rng(15).random(len(official)) < KEEP_RATE
    alice = official[keep]
    for name, frame in (("alice", alice), ("machine", machine)):
        with open(folder / f"{name}.qrels", "w", encoding="utf-8") as out:
            write_qrels(frame, out)
    db = module_store
    runner = CliRunner()
    for args in (["import-qrels", str(folder / "alice.qrels"), "--version", "people",
                  "--assessor", "alice"],
                 ["import-qrels", str(folder / "machine.qrels"), "--version", "llm",
                  "--assessor", "gpt-judge", "--machine"]):
        assert runner.invoke(cli, ["--db", db, *args]).exit_code == 0
    return Campaign(db, official, alice, machine, flip, keep,
                    sorted((shared_data / "trec_covid_r1" / "runs").iterdir()))


def _agreement(db: str, a: str, b: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["--db", db, "agreement", "--a", a, "--b", b,
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _oracle(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    return {
        "kappa": cohen_kappa_score(a >= 1, b >= 1),
        "kappa_linear": cohen_kappa_score(a, b, labels=[0, 1, 2], weights="linear"),
        "kappa_quadratic": cohen_kappa_score(a, b, labels=[0, 1, 2], weights="quadratic"),
        "alpha_ordinal": krippendorff.alpha(reliability_data=[a, b], level_of_measurement="ordinal",
                                    value_domain=[0, 1, 2]),
    }


def test_agreement_matches_sklearn_and_krippendorff(campaign: Campaign) -> None:
    rows = _agreement(str(campaign.db), "alice", "gpt-judge")
    both = campaign.alice.merge(campaign.machine, on=["topic", "docno"])
    flipped = int(campaign.flip[campaign.keep].sum())
    overall = rows[-1]
    assert (overall["topic"], overall["docs"], overall["kind_a"], overall["kind_b"]) == (
        "all", 6011, "person", "machine")
    assert int(campaign.keep.sum()) == 6011 and flipped == 1232
    assert overall["agreement"] == pytest.approx(1 - 1232 / 6011)
    for row in rows:
        part = both if row["topic"] == "all" else both[both["topic"] == row["topic"]]
        expected = _oracle(part["grade_x"].to_numpy(), part["grade_y"].to_numpy())
        for name, value in expected.items():
            assert row[name] == pytest.approx(value, abs=1e-12), (row["topic"], name)
    assert len(rows) == 31
    assert (overall["kappa"], overall["kappa_linear"], overall["kappa_quadratic"],
            overall["alpha_ordinal"]) == pytest.approx((0.60896, 0.60216, 0.60789, 0.60379), abs=1e-5)


def test_groups_are_the_same_sides_here(campaign: Campaign) -> None:
    by_name = _agreement(str(campaign.db), "alice", "gpt-judge")
    by_kind = _agreement(str(campaign.db), "@people", "@machines")
    assert [r["kappa_linear"] for r in by_kind] == pytest.approx(
        [r["kappa_linear"] for r in by_name], abs=1e-12)
    assert by_kind[-1]["assessor_a"] == "@people" and by_kind[-1]["kind_b"] == "machine"
    swapped = _agreement(str(campaign.db), "gpt-judge", "alice")
    assert (swapped[-1]["assessor_a"], swapped[-1]["kind_a"]) == ("gpt-judge", "machine")


def test_a_side_that_judged_nothing_is_refused(campaign: Campaign) -> None:
    result = CliRunner().invoke(cli, ["--db", str(campaign.db), "agreement", "--a", "bob",
                                      "--b", "alice"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no judgments by assessor 'bob' (assessors: alice, "
                                    "gpt-judge; groups: @people, @machines)")


@pytest.mark.slow  # impact over 15 real runs at k 100
def test_impact_of_the_machine_on_the_ranking(campaign: Campaign) -> None:
    runs = [str(p) for p in campaign.runs]
    result = CliRunner().invoke(cli, ["--db", str(campaign.db), "impact", "--from",
                                      "assessor:alice", "--to", "assessor:gpt-judge", *runs,
                                      "-k", "100", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "policy assessor:gpt-judge: machine (gpt-judge)" in result.stderr
    document = json.loads(result.stdout)
    frame = pd.concat([read_run(Path(p)) for p in runs], ignore_index=True)
    alice, machine = campaign.alice, campaign.machine
    direct = qrels_impact(frame, alice, machine, k=100)
    assert document["ranking"]["kendall_tau"] == pytest.approx(direct.kendall_tau)
    keys = alice.merge(machine, on=["topic", "docno"])[["topic", "docno"]]
    shared = qrels_impact(frame, alice.merge(keys), machine.merge(keys), k=100)
    assert document["ranking_both_judged"]["kendall_tau"] == pytest.approx(shared.kendall_tau)
    assert document["ranking_both_judged"]["tau_ap"] == pytest.approx(shared.tau_ap)
    assert (document["ranking"]["kendall_tau"], document["ranking"]["largest_rank_change"]) == (
        pytest.approx(0.904762, abs=1e-6), 2)
    assert (document["ranking_both_judged"]["kendall_tau"],
            document["ranking_both_judged"]["largest_rank_change_runs"]) == (
        pytest.approx(0.885714, abs=1e-6), ["BBGhelani2"])


def test_recall_takes_a_policy(campaign: Campaign, tmp_path: Path) -> None:
    run = str(campaign.runs[0])
    result = CliRunner().invoke(cli, ["--db", str(campaign.db), "recall", run, "--policy",
                                      "prefer:alice,gpt-judge", "-k", "10", "--format", "csv"])
    assert result.exit_code == 0, result.output
    filled = pd.concat([campaign.alice, campaign.machine[~campaign.keep]])
    with open(tmp_path / "filled.qrels", "w", encoding="utf-8") as out:
        write_qrels(filled, out)
    direct = CliRunner().invoke(cli, ["recall", run, "--qrels", str(tmp_path / "filled.qrels"),
                                      "-k", "10", "--format", "csv"])
    assert result.stdout == direct.stdout
    assert "people (alice) and machine (gpt-judge)" in result.stderr

