"""Live adaptive pools: the next document is what the judgment log implies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
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
    first = picker.choose("1", "alice")
    assert first is not None
    second = picker.choose("1", "bob")
    assert second is not None and second != first
    assert picker.choose("1", "carol") is None  # two chosen, on two screens
    judge(store, first, "alice")
    judge(store, second, "bob")
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
    for _ in range(3):  # d1 (no), d2 (yes), d4 (yes)
        docno = picker.choose("1", "alice")
        assert docno is not None
        judge(store, docno, "alice")
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


def test_a_killed_session_restarts_on_what_the_log_implies(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    runs = tuple(("R" + tag, [f"{tag}{i}" for i in range(40)]) for tag in "abcd")
    relevant = {f"c{i}" for i in range(0, 40, 2)} | {"a0", "b3"}
    with JudgmentStore.open(db, create=True) as store:
        frame = pd.DataFrame([(tag, "1", d, 40.0 - i, "Q0", i + 1) for tag, docs in runs
                              for i, d in enumerate(docs)],
                             columns=["run_tag", "topic", "docno", "score", "iteration", "rank"])
        store.add_run_frame(frame)
        create_adaptive_pool(store, "live", "mmns", budget=None)
    child = subprocess.Popen([sys.executable, "-c", SCRIPT, str(db), ",".join(relevant)])
    try:
        with JudgmentStore.open(db) as store:
            while len(store.topic_log("1")) < 15 and child.poll() is None:
                store.conn.execute("SELECT 1")  # poll the log until the child has judged 15
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


def test_trec_covid_live_pool_equals_simulate(shared_data: Path, tmp_path: Path) -> None:
    folder = shared_data / "trec_covid_r1"
    files = sorted((folder / "runs").iterdir())
    qrels = read_qrels(folder / "qrels-rnd1.txt")
    grades = {(str(t), str(d)): int(g) for t, d, g in
              zip(qrels["topic"], qrels["docno"], qrels["grade"], strict=True)}
    with JudgmentStore.open(tmp_path / "covid.db", create=True) as store:
        store.add_runs(files)
        create_adaptive_pool(store, "live", "mtf", budget=5)
        picker = AdaptivePicker(store, "live")
        topics = store.run_topics(picker.run_tags)
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
