"""Live adaptive pools: the next document is what the judgment log implies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from pooltool.analysis.simulation import simulate
from pooltool.errors import InvalidArgument, StoreError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.judging.adaptive import (
    AdaptivePicker,
    adaptive_status,
    create_adaptive_pool,
    unfound_estimate,
)
from pooltool.judging.strategies import judge_sequence, next_document, parse_strategy, topic_runs
from pooltool.ranking import order_run
from pooltool.store import JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

# The runs of test_strategies: A: d1 d2 d3, B: d2 d4 d1, C: d5 d3 (one topic, "1")
RUN_LINES = [("A", "d1", 3.0), ("A", "d2", 2.0), ("A", "d3", 1.0),
             ("B", "d2", 1.0), ("B", "d4", 0.75), ("B", "d1", 0.5),
             ("C", "d5", 5.0), ("C", "d3", 4.0)]
RELEVANT = {"d2", "d4"}


def small_store(store: JudgmentStore) -> JudgmentStore:
    frame = pd.DataFrame({"run_tag": [t for t, _, _ in RUN_LINES],
                          "topic": ["1"] * len(RUN_LINES),
                          "docno": [d for _, d, _ in RUN_LINES],
                          "score": [s for _, _, s in RUN_LINES]})
    frame["iteration"] = "Q0"
    frame["rank"] = frame.groupby("run_tag").cumcount() + 1
    store.add_run_frame(frame)
    return store


def expected_next(store: JudgmentStore, strategy: str = "mtf") -> str | None:
    """What the log implies: a fresh chooser replaying the store's log of topic 1."""
    picker = AdaptivePicker(store, "live")
    chooser = parse_strategy(strategy).chooser(picker.runs("1"), "1")
    return next_document(chooser, picker.log("1"))


def judge(store: JudgmentStore, docno: str, assessor: str) -> None:
    store.record_judgment("1", docno, 1 if docno in RELEVANT else 0, assessor)


def test_one_assessor_is_shown_the_strategys_order(memory_store: JudgmentStore) -> None:
    store = small_store(memory_store)
    create_adaptive_pool(store, "live", "mtf", budget=None)
    picker = AdaptivePicker(store, "live")
    shown = []
    while (docno := picker.choose("1", "alice")) is not None:
        shown.append(docno)
        judge(store, docno, "alice")
    # test_strategies: MTF with d2, d4 relevant judges d1, d2, d4, d5, d3
    assert shown == ["d1", "d2", "d4", "d5", "d3"]
    assert sorted(store.pool_docs("live")["docno"]) == sorted(shown)
    assert store.hits_of("1", "d1", "live") == [("A", 1), ("B", 3)]


def test_two_assessors_are_shown_different_documents_as_the_log_implies(
        memory_store: JudgmentStore) -> None:
    store = small_store(memory_store)
    create_adaptive_pool(store, "live", "mtf", budget=None)
    alice, bob = AdaptivePicker(store, "live"), AdaptivePicker(store, "live")
    assert alice.choose("1", "alice") == "d1"
    # d1 is on alice's screen: bob gets MTF's next choice without it, A's d2
    assert bob.choose("1", "bob") == "d2"
    judge(store, "d2", "bob")
    judge(store, "d1", "alice")
    # replay: MTF names d1 (A); d2 is judged first, relevant, and counts for B, whose best
    # unjudged document it is; then d1, named, not relevant: A falls to -1. B (0, first in
    # tag order) is next: d4. With d4 on alice's screen, B (chosen last) has nothing left
    # and C gives bob d5.
    for picker, who in ((alice, "alice"), (bob, "bob")):
        assert picker.next_for("1", who) == expected_next(store)
    assert alice.choose("1", "alice") == expected_next(store) == "d4"
    assert bob.choose("1", "bob") == "d5"


def test_the_budget_counts_judged_and_claimed_choices(memory_store: JudgmentStore) -> None:
    store = small_store(memory_store)
    create_adaptive_pool(store, "live", "mtf", budget=2)
    picker = AdaptivePicker(store, "live")
    # MTF starts on run A (d1 d2 d3): d1 for alice, then d2 for bob (d1 is on her screen)
    assert (picker.choose("1", "alice"), picker.choose("1", "bob")) == ("d1", "d2")
    assert picker.choose("1", "carol") is None  # two chosen, on two screens
    judge(store, "d1", "alice")
    judge(store, "d2", "bob")
    assert picker.choose("1", "alice") is None
    status = adaptive_status(store, "live")
    assert status[["budget", "budget_used", "relevant_found"]].iloc[0].tolist() == [2, 2, 1]


def test_stopping_estimate_by_hand() -> None:
    # the first two judgments fall out of the window of 10, which holds 3 relevant:
    # 0.3 * 40 unjudged candidates = 12
    recent = [True, True, True, True, True, False, False, False, False, False, False, False]
    assert unfound_estimate(recent, 40) == pytest.approx(12.0)
    assert unfound_estimate([], 40) != unfound_estimate([], 40)  # NaN before any judgment


def test_adaptive_status_counts_found_and_estimate(memory_store: JudgmentStore) -> None:
    store = small_store(memory_store)
    create_adaptive_pool(store, "live", "mtf", budget=None)
    picker = AdaptivePicker(store, "live")
    chosen = []
    for _ in range(3):
        docno = picker.choose("1", "alice")
        assert docno is not None
        chosen.append(docno)
        judge(store, docno, "alice")
    # MTF: A's d1 (not relevant) sends A back, B's d2 (relevant) keeps B, B's d4 (relevant)
    assert chosen == ["d1", "d2", "d4"]
    row = adaptive_status(store, "live").iloc[0]
    assert (row["budget_used"], row["relevant_found"]) == (3, 2)
    # 2 of 3 relevant, 2 candidates left (d3, d5): 2/3 * 2
    assert row["recent_rate"] == pytest.approx(2 / 3)
    assert row["est_unfound"] == pytest.approx(4 / 3)


def test_bad_pools_are_refused(memory_store: JudgmentStore) -> None:
    store = small_store(memory_store)
    create_adaptive_pool(store, "live", "mtf", budget=3)
    with pytest.raises(StoreError, match="exists already"):
        create_adaptive_pool(store, "live", "mtf", budget=3)
    with pytest.raises(InvalidArgument, match="at least 1"):
        create_adaptive_pool(store, "other", "mtf", budget=0)
    with pytest.raises(InvalidArgument, match="not an adaptive pool"):
        store.add_pool_round("depth", 1, ["A"])
        AdaptivePicker(store, "depth")


def test_thompson_takes_the_stored_seed(memory_store: JudgmentStore) -> None:
    store = small_store(memory_store)
    design = create_adaptive_pool(store, "live", "thompson", budget=None, seed=5)
    assert design["params"]["seed"] == 5
    stored = store.adaptive_design("live")
    assert stored is not None and stored["params"] == {"seed": 5.0, "a": 1.0, "b": 1.0}


SCRIPT = textwrap.dedent("""
    import sys, time
    from pooltool.judging.adaptive import AdaptivePicker
    from pooltool.store import JudgmentStore
    store = JudgmentStore.open(sys.argv[1])
    picker = AdaptivePicker(store, "live")
    relevant = set(sys.argv[2].split(","))
    while True:
        docno = picker.choose("1", "bot")
        if docno is None:
            time.sleep(0.05)
            continue
        store.record_judgment("1", docno, int(docno in relevant), "bot")
""")


def test_a_killed_session_restarts_on_what_the_log_implies(new_store: str) -> None:
    db = new_store
    runs = tuple(("R" + tag, [f"{tag}{i}" for i in range(40)]) for tag in "abcd")
    relevant = {f"c{i}" for i in range(0, 40, 2)} | {"a0", "b3"}
    with JudgmentStore.open(db) as store:
        frame = pd.DataFrame([(tag, "1", d, 40.0 - i, "Q0", i + 1) for tag, docs in runs
                              for i, d in enumerate(docs)],
                             columns=["run_tag", "topic", "docno", "score", "iteration", "rank"])
        store.add_run_frame(frame)
        create_adaptive_pool(store, "live", "mmns", budget=None)
    child = subprocess.Popen([sys.executable, "-c", SCRIPT, str(db), ",".join(relevant)])
    deadline = time.monotonic() + 120  # a bound, not a speed target: 15 judgments
    try:
        with JudgmentStore.open(db) as store:
            while len(store.topic_log("1")) < 15 and child.poll() is None:
                assert time.monotonic() < deadline, "the child judged fewer than 15 in 120 s"
                time.sleep(0.01)  # poll the log until the child has judged 15
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    with JudgmentStore.open(db) as store:
        picker = AdaptivePicker(store, "live")
        log = picker.log("1")
        chooser = parse_strategy("mmns").chooser(picker.runs("1"), "1")
        # the log is the strategy's own sequence, and the restart goes on from it
        whole = judge_sequence(parse_strategy("mmns").chooser(picker.runs("1"), "1"),
                               relevant, len(log) + 1)
        assert [d for d, _ in log] == whole[:len(log)]
        assert picker.next_for("1", "bot") == next_document(chooser, log) == whole[len(log)]


def test_trec_covid_live_pool_equals_simulate(shared_data: Path, new_store: str) -> None:
    folder = shared_data / "trec_covid_r1"
    files = sorted((folder / "runs").iterdir())
    qrels = read_qrels(folder / "qrels-rnd1.txt")
    grades = {(str(t), str(d)): int(g) for t, d, g in
              zip(qrels["topic"], qrels["docno"], qrels["grade"], strict=True)}
    with JudgmentStore.open(new_store) as store:
        store.add_runs(files)
        create_adaptive_pool(store, "live", "mtf", budget=5)
        picker = AdaptivePicker(store, "live")
        topics = picker.topics()
        for topic in topics:  # a scripted assessor judges from qrels-rnd1 (none: 0)
            while (docno := picker.choose(topic, "script")) is not None:
                store.record_judgment(topic, docno, grades.get((topic, docno), 0), "script")
        pooled = store.pool_docs("live")
    runs = pd.concat([read_run(f) for f in files], ignore_index=True)
    ranked = topic_runs(order_run(runs))
    result = simulate(runs, qrels, [parse_strategy("mtf")], [5])
    found = result.per_topic.set_index("topic")["found"]
    for topic in result.topics:
        relevant = frozenset(d for (t, d), g in grades.items() if t == topic and g >= 1)
        expected = judge_sequence(parse_strategy("mtf").chooser(ranked[topic], topic), relevant, 5)
        live = sorted(pooled.loc[pooled["topic"] == topic, "docno"])
        assert live == sorted(expected)
        assert sum(grades.get((topic, d), 0) >= 1 for d in live) == found[topic]
    assert len(pooled) == 5 * len(topics)


def write_runs(folder: Path, lines: list[tuple[str, str, float]]) -> list[Path]:
    """One run file per tag of ``lines`` (topic 1), as add-runs reads them."""
    paths = []
    for tag in dict.fromkeys(t for t, _, _ in lines):
        path = folder / f"{tag}-{len(list(folder.iterdir()))}.run"
        docs = [(d, s) for t, d, s in lines if t == tag]
        path.write_text("".join(f"1 Q0 {d} {i} {s} {tag}\n" for i, (d, s) in enumerate(docs, 1)))
        paths.append(path)
    return paths


@pytest.fixture
def live_cli(tmp_path: Path, store_address: str) -> tuple[str, Path]:
    """A store (via the CLI) with runs A, B, C and the mtf pool 'live' built from them,
    alice having judged its first choice d1 (not relevant): MTF's next is B's d2."""
    runs = tmp_path / "runs"
    runs.mkdir()
    db = store_address
    assert cli_call(db, "init").exit_code == 0
    assert cli_call(db, "add-runs", *map(str, write_runs(runs, RUN_LINES))).exit_code == 0
    assert cli_call(db, "pool", "--name", "live", "--strategy", "mtf").exit_code == 0
    with JudgmentStore.open(db) as store:
        assert AdaptivePicker(store, "live").choose("1", "alice") == "d1"
        judge(store, "d1", "alice")
    return db, runs


def cli_call(db: str, *args: str):  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from pooltool.cli import cli

    return CliRunner().invoke(cli, ["--db", str(db), *args])


def live_status(db: str) -> str:
    result = cli_call(db, "status", "--pool", "live", "--format", "csv")
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("change", ["replace", "remove"])
def test_the_pool_keeps_drawing_on_the_runs_it_was_built_from(
        live_cli: tuple[str, Path], change: str) -> None:
    db, runs = live_cli
    status = live_status(db)
    assert status.splitlines()[1] == "1,1,1,0,0,0,1.0,,1,0,0.0,0.0"
    if change == "replace":  # A now ranks d3 d5 first: a pool following the tag would show d3
        new_a = write_runs(runs, [("A", "d3", 9.0), ("A", "d5", 8.0), ("A", "d1", 1.0)])
        done = cli_call(db, "add-runs", "--replace", "--force", *map(str, new_a))
    else:
        done = cli_call(db, "remove-run", "--force", "B")
    assert done.exit_code == 0, done.output
    assert live_status(db) == status
    with JudgmentStore.open(db) as store:
        create_adaptive_pool(store, "fresh", "mtf", budget=None)  # on the runs live now
        assert AdaptivePicker(store, "fresh").next_for("1", "alice") == \
            ("d3" if change == "replace" else "d5")
        picker = AdaptivePicker(store, "live")
        assert picker.next_for("1", "alice") == "d2"  # B's d2, as before the change
        assert picker.choose("1", "alice") == "d2"
        assert store.hits_of("1", "d2", "live") == [("B", 1), ("A", 2)]
        assert [run.tag for run in picker.runs("1")] == ["A", "B", "C"]
        assert picker.runs("1")[0].docnos == ("d1", "d2", "d3")
        judge(store, "d2", "alice")
        assert picker.next_for("1", "alice") == "d4"  # B keeps its turn: d4
    assert live_status(db).splitlines()[1] == "1,2,2,0,1,0,1.0,,2,1,0.5,1.5"
    export = cli_call(db, "export-pool", "--pool", "live")
    assert export.exit_code == 0 and export.stdout.split() == ["1", "d1", "1", "d2"]


def test_the_judging_session_draws_on_a_removed_run(live_cli: tuple[str, Path]) -> None:
    from pooltool.judging.session import JudgingSession
    from pooltool.store.journal import WriteQueue

    db, _ = live_cli
    assert cli_call(db, "remove-run", "--force", "B").exit_code == 0
    with JudgmentStore.open(db) as store:
        session = JudgingSession(WriteQueue(store), "1", "alice", pool="live")
        assert session.docno == "d2"


def test_depth_pooling_refuses_pools_made_otherwise(memory_store: JudgmentStore) -> None:
    from pooltool.analysis.sample_design import draw_and_store
    from pooltool.pooling import pool_runs

    store = small_store(memory_store)
    create_adaptive_pool(store, "live", "mtf", budget=2)
    with pytest.raises(InvalidArgument, match=r"^pool 'live' is an adaptive pool "
                                              r"\(strategy mtf\): .*choose another --name"):
        pool_runs(store, 3, pool="live")
    create_adaptive_pool(store, "static", "depth", budget=2)  # an adaptive 'depth' pool
    with pytest.raises(InvalidArgument, match=r"'static' is an adaptive pool \(strategy depth\)"):
        pool_runs(store, 3, pool="static")
    pool_runs(store, 1, pool="main")
    draw_and_store(store, "s", "main", "2-3", budget=2, seed=0, allocation="equal")
    sampled = sorted(store.pool_docs("s")["docno"])
    with pytest.raises(InvalidArgument, match=r"^pool 's' is a sample .*sample --grow"):
        pool_runs(store, 3, pool="s")
    mixed, _ = store.mix_sample("main", "s")
    with pytest.raises(InvalidArgument, match=r"^pool 'main\+s' is a mixed pool"):
        pool_runs(store, 3, pool=mixed)
    assert sorted(store.pool_docs("s")["docno"]) == sampled and len(sampled) == 2
    assert len(store.pool_docs("live")) == 1 and len(store.pool_docs(mixed)) == 3 + 2
    assert pool_runs(store, 2, pool="main").docs_added == 2  # a depth pool still grows


def test_the_cli_refuses_depth_pooling_into_an_adaptive_pool(
        live_cli: tuple[str, Path]) -> None:
    db, _ = live_cli
    result = cli_call(db, "pool", "--depth", "3", "--name", "live")
    assert result.exit_code == 1
    assert "Error: pool 'live' is an adaptive pool (strategy mtf): " in result.stderr
    with JudgmentStore.open(db) as store:
        assert sorted(store.pool_docs("live")["docno"]) == ["d1"]


def test_rundepth_refuses_parameters_naming_unknown_runs(memory_store: JudgmentStore) -> None:
    store = small_store(memory_store)
    with pytest.raises(InvalidArgument, match=r"no run tagged 'NOPE' among the runs it draws "
                                              r"on \(runs: A, B, C\)"):
        create_adaptive_pool(store, "live", "rundepth:k.NOPE=3", budget=None)
    assert not store.has_pool("live")
    with pytest.raises(InvalidArgument, match=r"'C' among .*\(runs: A, B\)"):
        create_adaptive_pool(store, "live", "rundepth:k.C=3", budget=None, run_tags=["A", "B"])
    create_adaptive_pool(store, "live", "rundepth:k.A=1,k.B=0,k.C=0", budget=None)
    assert AdaptivePicker(store, "live").choose("1", "alice") == "d1"
    runs = pd.concat([store.run_frame(t) for t in "ABC"], ignore_index=True)
    qrels = pd.DataFrame({"topic": ["1", "1"], "docno": ["d2", "d4"], "grade": [1, 1]})
    with pytest.raises(InvalidArgument, match=r"no run tagged 'NOPE', 'ZZZ' among .*"
                                              r"\(runs: A, B, C\)"):
        simulate(runs, qrels, [parse_strategy("rundepth:k.NOPE=3,first.ZZZ=1")], [2])
