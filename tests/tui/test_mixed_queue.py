"""A pool and a sample beyond it judged in one shuffled queue (judge --with-sample), and the
runs line of a sample's documents."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.judging.queue import assessor_seed, order_queue
from pooltool.store import JudgmentStore
from pooltool.tui.app import make_app
from pooltool.tui.screens.judge import JudgeScreen

SIZE = (110, 30)


@pytest.fixture
def demo(demo_store: str) -> str:
    """The demo store (pool 'main') with sample 's1' of 8 documents per topic beyond it."""
    result = CliRunner().invoke(cli, ["--db", demo_store, "sample", "--name", "s1", "--budget", "8"])
    assert result.exit_code == 0, result.stderr
    return demo_store


def _judge_cli(db: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", str(db), "judge", *args])
    return result.exit_code, result.stderr


def test_the_mixed_pool_holds_both_and_grows(demo: str) -> None:
    code, err = _judge_cli(demo, "-a", "alice", "--with-sample", "s1")
    assert code == 1 and "needs a terminal" in err  # the pool is made before that check
    assert "pool 'main+s1'" in err
    with JudgmentStore.open(demo) as store:
        mixed = store.pool_docs("main+s1")[["topic", "docno"]]
        pooled, sampled = store.pool_docs("main"), store.sample_docs("s1")
        assert len(mixed) == len(pooled) + len(sampled) == len(pooled) + 80
        assert store.pool_strategy("main+s1") == "mixed"
        assert store.pool_hits("main+s1").empty  # nothing to tell the two apart
        assert store.mix_sample("main", "s1") == ("main+s1", 0)  # up to date: adds nothing
    code, err = _judge_cli(demo, "-a", "alice", "--with-sample", "s1", "--order", "rank")
    assert code == 2 and "--order random" in err
    code, err = _judge_cli(demo, "-a", "alice", "--with-sample", "nosuch")
    assert code == 1 and "no sample 'nosuch'" in err


async def test_one_shuffled_queue_per_assessor(demo: str) -> None:
    with JudgmentStore.open(demo) as store:
        store.mix_sample("main", "s1")
        store.set_setting("show_runs", True)
        sampled = set(store.sample_docs("s1").query("topic == '1'")["docno"])
        pooled = set(store.pool_docs("main").query("topic == '1'")["docno"])
        rows = store.topic_pool_docs("1", "main+s1")
    queues = {}
    for assessor in ("alice", "bob"):
        seed = assessor_seed(0, assessor)
        app = make_app(demo, assessor, ["1"], "random", seed, "main+s1")
        async with app.run_test(size=SIZE) as pilot:
            assert isinstance(app.screen, JudgeScreen)
            session = app.screen.session
            queues[assessor] = list(session.queue)
            # the documents nobody judged yet (the demo judged part of the pool), shuffled
            shuffled = order_queue(rows, "random", seed, "1")
            assert session.queue == [d for d in shuffled if d in set(session.queue)]
            assert "runs: hidden (pool and sample mixed)" in app.screen.status_text().plain
            if assessor == "alice":
                first = session.docno
                await pilot.press("1")
    for queue in queues.values():
        assert sampled <= set(queue) <= sampled | pooled and set(queue) & pooled
        # sampled documents are spread through the queue, not gathered at one end
        places = [i for i, docno in enumerate(queue) if docno in sampled]
        assert places[0] < len(queue) / 4 and places[-1] > 3 * len(queue) / 4
    assert queues["alice"] != queues["bob"]
    with JudgmentStore.open(demo) as store:  # a grade in the mixed queue is the pair's grade
        qrels = store.qrels()
        assert qrels[(qrels["topic"] == "1") & (qrels["docno"] == first)]["grade"].tolist() == [1]


async def test_a_samples_runs_line_names_its_stratum(demo: str) -> None:
    with JudgmentStore.open(demo) as store:
        store.set_setting("show_runs", True)
    app = make_app(demo, "alice", ["1"], "docno", 0, "s1")
    async with app.run_test(size=SIZE):
        assert isinstance(app.screen, JudgeScreen)
        session = app.screen.session
        with JudgmentStore.open(demo) as store:
            stratum = store.sample_stratum("s1", "1", session.docno)
        assert stratum is not None
        assert f"runs: sample, stratum {stratum}" in app.screen.status_text().plain
