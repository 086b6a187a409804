"""Assessor kinds (person, machine) and the policies that keep machines out of people's qrels."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.errors import InvalidArgument, StoreError
from pooltool.store import JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


@pytest.fixture
def two_kinds(memory_store: JudgmentStore, tmp_path: Path) -> JudgmentStore:
    """alice (person) judged d1 2, d2 0, d3 -1; gpt-judge (machine) judged d1 0, d2 1, d3 1, d4 2."""
    store = memory_store
    people = _write(tmp_path / "alice.qrels", ["1 0 d1 2", "1 0 d2 0", "1 0 d3 -1"])
    machine = _write(tmp_path / "llm.qrels", ["1 0 d1 0", "1 0 d2 1", "1 0 d3 1", "1 0 d4 2"])
    store.import_qrels(people, "people", "alice")
    store.import_qrels(machine, "llm", "gpt-judge", machine=True)
    return store


def _grades(store: JudgmentStore, policy: str) -> dict[str, int]:
    qrels = store.qrels(policy=policy)
    return dict(zip(qrels["docno"], qrels["grade"].astype(int), strict=True))


@pytest.mark.parametrize(("policy", "expected"), [
    ("latest", {"d1": 2, "d2": 0, "d3": -1}),
    ("max", {"d1": 2, "d2": 0, "d3": -1}),
    ("majority", {"d1": 2, "d2": 0, "d3": -1}),
    ("latest:all", {"d1": 0, "d2": 1, "d3": 1, "d4": 2}),
    ("max:all", {"d1": 2, "d2": 1, "d3": 1, "d4": 2}),
    ("assessor:gpt-judge", {"d1": 0, "d2": 1, "d3": 1, "d4": 2}),
    ("prefer:alice,gpt-judge", {"d1": 2, "d2": 0, "d3": 1, "d4": 2}),
    ("prefer:gpt-judge,alice", {"d1": 0, "d2": 1, "d3": 1, "d4": 2}),
])
def test_policies_by_kind(two_kinds: JudgmentStore, policy: str, expected: dict[str, int]) -> None:
    assert _grades(two_kinds, policy) == expected


def test_prefer_falls_back_to_a_negative_grade_only_when_nobody_judged(
        memory_store: JudgmentStore, tmp_path: Path) -> None:
    store = memory_store
    store.import_qrels(_write(tmp_path / "a", ["1 0 d1 -1", "1 0 d2 -1"]), "a", "alice")
    store.import_qrels(_write(tmp_path / "b", ["1 0 d1 0"]), "b", "bob")
    assert _grades(store, "prefer:alice,bob") == {"d1": 0, "d2": -1}


def test_prefer_names_only_known_assessors(two_kinds: JudgmentStore) -> None:
    with pytest.raises(StoreError, match="'bob', who has no live judgment"):
        two_kinds.qrels(policy="prefer:alice,bob")


def test_unknown_policy_lists_the_new_ones(two_kinds: JudgmentStore) -> None:
    with pytest.raises(InvalidArgument, match=r"latest:all.*prefer:A,B"):
        two_kinds.qrels(policy="newest")


def test_kinds_are_a_log_and_a_person_by_default(two_kinds: JudgmentStore) -> None:
    kinds = two_kinds.assessor_kinds()
    assert kinds.to_dict("records") == [
        {"assessor": "alice", "kind": "person", "judged": 2},
        {"assessor": "gpt-judge", "kind": "machine", "judged": 4},
    ]
    assert two_kinds.set_assessor_kind("gpt-judge", "machine") is False
    assert two_kinds.set_assessor_kind("gpt-judge", "person") is True
    assert _grades(two_kinds, "latest") == {"d1": 0, "d2": 1, "d3": 1, "d4": 2}
    rows = two_kinds.conn.execute("SELECT kind FROM assessor_kinds ORDER BY kind_id").fetchall()
    assert [r[0] for r in rows] == ["machine", "person"]
    with pytest.raises(StoreError, match="person or machine, not 'robot'"):
        two_kinds.set_assessor_kind("x", "robot")


def test_policy_note_names_kinds(two_kinds: JudgmentStore) -> None:
    assert two_kinds.policy_note() == "policy latest: people (alice); left out: machine (gpt-judge)"
    assert two_kinds.policy_note(policy="latest:all") == "policy latest:all: machine (gpt-judge)"
    assert two_kinds.policy_note(policy="prefer:alice,gpt-judge") == (
        "policy prefer:alice,gpt-judge: people (alice) and machine (gpt-judge)")


def test_cli_machine_import_stays_out_of_default_export(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "init"]).exit_code == 0
    human = _write(tmp_path / "h.qrels", ["1 0 d1 1", "1 0 d2 0"])
    llm = _write(tmp_path / "m.qrels", ["1 0 d1 0", "1 0 d3 2"])
    assert runner.invoke(cli, ["--db", db, "import-qrels", str(human), "--version", "h",
                               "--assessor", "alice"]).exit_code == 0
    imported = runner.invoke(cli, ["--db", db, "import-qrels", str(llm), "--version", "m",
                                   "--assessor", "gpt-judge", "--machine"])
    assert "assessor 'gpt-judge' is a machine" in imported.stderr
    plain = runner.invoke(cli, ["--db", db, "export-qrels"])
    assert plain.stdout == "1 0 d1 1\n1 0 d2 0\n"
    assert "policy latest: people (alice); left out: machine (gpt-judge)" in plain.stderr
    filled = runner.invoke(cli, ["--db", db, "export-qrels", "--policy", "prefer:alice,gpt-judge"])
    assert filled.stdout == "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n"
    listed = runner.invoke(cli, ["--db", db, "assessors", "--format", "csv"])
    assert listed.stdout.splitlines() == ["assessor,kind,judged", "alice,person,2",
                                          "gpt-judge,machine,2"]
    runner.invoke(cli, ["--db", db, "assessors", "--set-kind", "gpt-judge", "person"])
    assert runner.invoke(cli, ["--db", db, "export-qrels"]).stdout == (
        "1 0 d2 0\n1 0 d1 0\n1 0 d3 2\n")
