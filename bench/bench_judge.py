"""Benchmark: how long the judging UI takes to move to the next document.

Builds a store file (deterministic, ``--seed``) with ``--docs`` documents
(20 to 400 words each), ``--topics`` topics and two runs whose depth-300
union pools ``--per-topic`` documents per topic (20,000 pooled pairs with the
defaults), plus judgments of half the pool by two other assessors. Then runs
the app headless (``App.run_test``) on one topic and times, key press to
screen updated (``await pilot.press``):

* **move**: ``right``, the next document (text read from the store, terms
  marked, panes redrawn);
* **grade**: a grade key, which commits a judgment and moves to the next
  unjudged document.

For each it prints the median, 95th percentile and maximum, in
milliseconds, of the CPU time of the whole key press (handler, layout,
rendering) and of the wall time of the handler (see :func:`measure`). The
target (issue 3) is under 50 ms to move with 100,000 documents and 20,000
pooled pairs; the exit status is 1 when the median move misses it.

Example::

    python bench/bench_judge.py --docs 100000 --topics 50 --per-topic 400
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from pooltool.pooling import pool_runs
from pooltool.records import Document, Topic
from pooltool.store import JudgmentStore
from pooltool.tui.app import make_app

TARGET_MS = 50.0


def words(rng: random.Random, size: int) -> list[str]:
    """A vocabulary of ``size`` made-up words."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(size)]


def documents(rng: random.Random, vocab: list[str], count: int) -> Iterator[Document]:
    """``count`` documents d0..d{count-1} of 20-400 words in lines of 12."""
    for i in range(count):
        body = rng.choices(vocab, k=rng.randint(20, 400))
        lines = [" ".join(body[j:j + 12]) for j in range(0, len(body), 12)]
        yield Document(f"d{i}", " ".join(rng.choices(vocab, k=8)), "\n".join(lines))


def runs(rng: random.Random, docs: int, topics: int, per_topic: int) -> pd.DataFrame:
    """Runs A and B: per topic, A ranks the first 3/4 of a sample, B the last 3/4."""
    rows = []
    share = per_topic * 3 // 4
    for t in range(topics):
        sample = [f"d{n}" for n in rng.sample(range(docs), per_topic)]
        for tag, part in (("A", sample[:share]), ("B", sample[-share:])):
            rows += [(tag, str(t), d, r + 1, 1000.0 - r) for r, d in enumerate(part)]
    return pd.DataFrame(rows, columns=["run_tag", "topic", "docno", "rank", "score"])


def build(path: Path, args: argparse.Namespace) -> int:
    """Write the store; returns the number of pooled pairs."""
    rng = random.Random(args.seed)
    vocab = words(rng, 20_000)
    with JudgmentStore.open(path, create=True) as store:
        store.add_documents(documents(rng, vocab, args.docs), "bench")
        store.add_topics([Topic(str(t), " ".join(rng.choices(vocab, k=3)),
                                " ".join(rng.choices(vocab, k=20))) for t in range(args.topics)],
                         "bench")
        store.add_run_frame(runs(rng, args.docs, args.topics, args.per_topic))
        pooled = pool_runs(store, depth=args.per_topic * 3 // 4).pool_size
        judge_half(store, rng)
    return pooled


def judge_half(store: JudgmentStore, rng: random.Random) -> None:
    """Two other assessors judge every other pooled pair (one transaction)."""
    pairs = store.conn.execute("SELECT topic, docno FROM pool_docs").fetchall()
    with store.writing():
        for n, (topic, docno) in enumerate(pairs[::2]):
            store.record_judgment(topic, docno, rng.randint(0, 3), ("ann", "ben")[n % 2],
                                  ms_spent=rng.randint(2_000, 60_000), origin="bench")


async def measure(path: Path, topic: str, moves: int) -> dict[str, list[float]]:
    """Time ``moves`` right-arrow moves, then ``moves`` grade keys, in milliseconds.

    ``Pilot.press`` sleeps while it waits for the app to go idle (20 ms
    steps), so its wall time says little. Two figures are kept instead: the
    CPU time the process spends on each key press (handler, layout and
    rendering of the updated screen; the waits use none), and the wall time of
    the key's handler alone (reading the store, building the panes).
    """
    app = make_app(path, "bencher", [topic])
    times: dict[str, list[float]] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.screen
        handler = _timed(screen, times)
        for kind, key in (("move", "right"), ("grade", "1")):
            cpu = times.setdefault(f"{kind} cpu", [])
            handler.kind = kind
            for _ in range(moves):
                started = time.process_time()
                await pilot.press(key)
                cpu.append((time.process_time() - started) * 1000)
    return times


class _timed:
    """Wraps the screen's ``action_move`` and ``action_grade`` to time them."""

    def __init__(self, screen: Any, times: dict[str, list[float]]) -> None:
        self.kind = "move"
        for name in ("action_move", "action_grade"):
            original = getattr(screen, name)
            setattr(screen, name, self._wrap(original, times))

    def _wrap(self, original: Callable[[int], None],
              times: dict[str, list[float]]) -> Callable[[int], None]:
        def timed(value: int) -> None:
            started = time.perf_counter()
            original(value)
            times.setdefault(f"{self.kind} handler", []).append(
                (time.perf_counter() - started) * 1000)
        return timed


def summary(values: list[float]) -> str:
    """``median / p95 / max`` in milliseconds."""
    p95 = statistics.quantiles(values, n=20)[-1]
    return f"median {statistics.median(values):.1f} ms, p95 {p95:.1f} ms, max {max(values):.1f} ms"


def main() -> int:
    """Build the store, measure, print; exit status 1 when the move target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--per-topic", type=int, default=400)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        started = time.perf_counter()
        pooled = build(path, args)
        print(f"store: {args.docs:,} documents, {pooled:,} pooled pairs, "
              f"{path.stat().st_size / 1e6:.0f} MB, built in {time.perf_counter() - started:.1f} s")
        times = asyncio.run(measure(path, "0", args.moves))
    for kind, what in (("move", "move to next document (right)"),
                       ("grade", "grade key (commit + move to next unjudged)")):
        print(f"{what}, {args.moves} keys:")
        print(f"  whole key press, CPU: {summary(times[kind + ' cpu'])}")
        print(f"  handler, wall:        {summary(times[kind + ' handler'])}")
    met = statistics.median(times["move cpu"]) < TARGET_MS
    print(f"target: move under {TARGET_MS:.0f} ms: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
