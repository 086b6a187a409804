"""Adjudication in the store and the judging core: the log rows, policy ``adjudicated``,
which disagreements are open, and agreement before and after."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.errors import InvalidArgument, StoreError
from pooltool.judging.adjudication import adjudication_agreement, disagreements, pair_judgments
from pooltool.store import JudgmentStore
from pooltool.store.policy import is_policy


@pytest.fixture
def store() -> JudgmentStore:
    """alice and bob judged topic 1: they disagree on d1 (0 vs 2) and d3 (1 vs 0),
    agree on d2 (1); carol is the adjudicator; gpt a machine that disagrees with all."""
    store = JudgmentStore.memory()
    for docno, a, b in (("d1", 0, 2), ("d2", 1, 1), ("d3", 1, 0)):
        store.record_judgment("1", docno, a, "alice")
        store.record_judgment("1", docno, b, "bob", note="off topic" if docno == "d3" else None)
    store.record_judgment("1", "d2", 3, "gpt")
    store.set_assessor_kind("gpt", "machine")
    return store


def _grades(store: JudgmentStore, policy: str) -> dict[str, int]:
    qrels = store.qrels(policy=policy)
    return dict(zip(qrels["docno"], qrels["grade"].astype(int), strict=True))


def test_an_adjudication_is_a_judgment_that_names_what_it_resolves(store: JudgmentStore) -> None:
    open_ = disagreements(store)
    assert open_[["docno", "distance"]].values.tolist() == [["d1", 2], ["d3", 1]]
    d1 = open_["judgment_ids"].iat[0]
    assert d1 == [1, 2]
    adjudication = store.record_adjudication("1", "d1", 1, "carol", d1, note="partly")
    row = store.judgment_log().set_index("judgment_id").loc[adjudication]
    assert (row["assessor"], row["grade"], row["origin"], row["note"]) == (
        "carol", 1, "adjudicate", "partly")
    assert sorted(store.live_adjudications()["resolves"]) == [1, 2]
    assert disagreements(store)["docno"].tolist() == ["d3"]
    resolved = disagreements(store, include_resolved=True)
    assert resolved[["docno", "resolved"]].values.tolist() == [["d1", True], ["d3", False]]
    assert resolved["adjudicated"].iat[0] == 1 and resolved["adjudicated"].isna().iat[1]


def test_policy_adjudicated_takes_the_adjudicated_grade_else_its_fallback(
        store: JudgmentStore) -> None:
    store.record_adjudication("1", "d1", 1, "carol", [1, 2])
    # latest (the fallback): d2 bob's 1 (gpt is a machine), d3 bob's 0
    assert _grades(store, "adjudicated") == {"d1": 1, "d2": 1, "d3": 0}
    # max: d3 alice's 1
    assert _grades(store, "adjudicated:max") == {"d1": 1, "d2": 1, "d3": 1}
    # max:all counts gpt's 3 on d2; the adjudication still decides d1
    assert _grades(store, "adjudicated:max:all") == {"d1": 1, "d2": 3, "d3": 1}
    # majority counts carol's adjudication as one vote among alice 0, bob 2, carol 1:
    # a three-way tie goes to the latest, carol's
    assert _grades(store, "majority")["d1"] == 1


def test_undoing_an_adjudication_reopens_the_disagreement(store: JudgmentStore) -> None:
    adjudication = store.record_adjudication("1", "d1", 1, "carol", [1, 2])
    store.retract(adjudication, "carol")
    assert _grades(store, "adjudicated")["d1"] == 2  # bob's, the latest
    assert disagreements(store)["docno"].tolist() == ["d1", "d3"]
    assert store.live_adjudications().empty


def test_a_grade_changed_after_adjudication_is_a_new_disagreement(store: JudgmentStore) -> None:
    store.record_adjudication("1", "d1", 1, "carol", [1, 2])
    store.record_judgment("1", "d1", 3, "bob")
    assert disagreements(store)["docno"].tolist() == ["d1", "d3"]
    assert _grades(store, "adjudicated")["d1"] == 1  # the adjudication stands until redone


def test_filters_by_pair_and_distance(store: JudgmentStore) -> None:
    store.record_judgment("1", "d3", 3, "dan")
    assert disagreements(store, min_distance=2)["docno"].tolist() == ["d1", "d3"]  # d3: 0..3
    assert disagreements(store, pair=("alice", "bob"), min_distance=2)["docno"].tolist() == ["d1"]
    assert disagreements(store, pair=("alice", "dan"))["docno"].tolist() == ["d3"]
    with pytest.raises(InvalidArgument):
        disagreements(store, min_distance=0)


def test_machines_do_not_make_disagreements(store: JudgmentStore) -> None:
    assert "d2" not in disagreements(store)["docno"].tolist()


def test_refusals(store: JudgmentStore) -> None:
    with pytest.raises(InvalidArgument, match=">= 0"):
        store.record_adjudication("1", "d1", -1, "carol", [1])
    with pytest.raises(StoreError, match="not a live judgment of topic 1 docno d3"):
        store.record_adjudication("1", "d3", 1, "carol", [1])  # judgment 1 is of d1
    assert store.live_adjudications().empty


def test_pair_judgments_give_grade_note_and_time(store: JudgmentStore) -> None:
    rows = pair_judgments(store, "1", "d3")
    assert rows[["assessor", "grade", "note"]].values.tolist() == [
        ["alice", 1, None], ["bob", 0, "off topic"]]
    assert rows["judged_at"].str.match(r"\d{4}-\d\d-\d\dT").all()


def test_agreement_before_after_and_with_the_adjudicator(store: JudgmentStore) -> None:
    store.record_adjudication("1", "d1", 2, "carol", [1, 2])
    table = adjudication_agreement(store).set_index(["stage", "assessor_a", "topic"])
    # before: alice (0,1,1) vs bob (2,1,0): one of three documents the same
    assert table.loc[("before", "alice", "all"), "agreement"] == pytest.approx(1 / 3)
    # after: d1 becomes 2 for both: d1 and d2 the same
    assert table.loc[("after", "alice", "all"), "agreement"] == pytest.approx(2 / 3)
    # with the adjudicator, on d1 only: alice 0 vs 2, bob 2 vs 2
    assert table.loc[("adjudicator", "alice", "all"), "agreement"] == 0.0
    assert table.loc[("adjudicator", "bob", "all"), "agreement"] == 1.0
    assert table.loc[("adjudicator", "bob", "all"), "assessor_b"] == "@adjudicated"
    assert table.loc[("adjudicator", "bob", "all"), "docs"] == 1
    assert math.isnan(table.loc[("adjudicator", "bob", "all"), "kappa"])  # one label


def test_adjudicated_is_a_policy_name() -> None:
    assert is_policy("adjudicated") and is_policy("adjudicated:max:all")
    assert is_policy("adjudicated:prefer:alice,bob")
    assert not is_policy("adjudicated:adjudicated") and not is_policy("adjudicated:nope")


def test_the_agreement_command_shows_the_stages(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    with JudgmentStore.open(db, create=True) as store:
        first = store.record_judgment("1", "d1", 0, "alice")
        second = store.record_judgment("1", "d1", 2, "bob")
        store.record_judgment("1", "d2", 1, "alice")
        store.record_judgment("1", "d2", 1, "bob")
        store.record_adjudication("1", "d1", 2, "carol", [first, second])
    result = CliRunner().invoke(cli, ["--db", db, "agreement", "--adjudication", "--format",
                                      "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    got = {(r["stage"], r["assessor_a"], r["assessor_b"], r["topic"]): r["agreement"]
           for r in rows}
    assert got[("before", "alice", "bob", "all")] == "0.5"
    assert got[("after", "alice", "bob", "all")] == "1.0"
    assert got[("adjudicator", "alice", "@adjudicated", "all")] == "0.0"
    assert got[("adjudicator", "bob", "@adjudicated", "all")] == "1.0"


def test_adjudicate_without_a_terminal_says_so(tmp_path: Path) -> None:
    """With input or output not a terminal, adjudicate refuses to start instead of hanging."""
    db = str(tmp_path / "a.db")
    with JudgmentStore.open(db, create=True) as new:
        new.record_judgment("1", "d1", 0, "alice")
    result = CliRunner().invoke(cli, ["--db", db, "adjudicate", "--adjudicator", "carol"])
    assert (result.exit_code, result.stderr) == (
        1, "Error: adjudicate needs a terminal (its input and output are not one); use --serve "
           "to adjudicate in a web browser\n")


@pytest.mark.both_engines  # the table, its triggers and the queries of each engine's SQL
def test_adjudication_on_each_engine(new_store: str) -> None:
    with JudgmentStore.open(new_store, create=True) as store:
        first = store.record_judgment("1", "d1", 0, "alice")
        second = store.record_judgment("1", "d1", 2, "bob")
        adjudication = store.record_adjudication("1", "d1", 1, "carol", [first, second])
        assert _grades(store, "adjudicated") == {"d1": 1}
        assert disagreements(store).empty
        with pytest.raises(StoreError, match="append-only"), store.writing() as conn:
            conn.execute("DELETE FROM adjudications")
        store.retract(adjudication, "carol")
        assert disagreements(store)["docno"].tolist() == ["d1"]
        assert _grades(store, "adjudicated") == {"d1": 2}
