"""Benchmark: how long the judging UI takes to move to the next document.

Builds a store file (deterministic, ``--seed``) with ``--docs`` documents
(20 to 400 words each), ``--topics`` topics and two runs whose depth-300
union pools ``--per-topic`` documents per topic (20,000 pooled pairs with the
defaults), plus judgments of half the pool by two other assessors, and scan
terms for the benchmark's assessor (a word, a prefix ``ab*`` and a phrase, so
that stemmed, prefix and phrase marking all run). The topic is not assigned
to the assessor, so every document shown is claimed in the store and every
next document re-reads the claims and judgments of others. Then runs the app
headless (``App.run_test``) on one topic and times, key press to screen
updated (``await pilot.press``):

* **open**: Enter on the topic picker, which opens the topic's judging
  screen (queue, the assessor's judgments, workspace, first document), then
  Esc back to the picker (not timed);
* **move**: ``right``, the next document (text read from the store, terms
  marked, panes redrawn);
* **grade**: a grade key, which commits a judgment and moves to the next
  unjudged document.

For each it prints the median, 95th percentile and maximum, in
milliseconds, of the CPU time of the whole key press (handler, layout,
rendering) and of the wall time of the handler (see :func:`measure`).
Targets (issues 3 and 9): under 50 ms to move, under 150 ms to open a topic,
with 100,000 documents and 20,000 pooled pairs; the exit status is 1 when a
median misses.

Example::

    python bench/bench_judge.py --docs 100000 --topics 50 --per-topic 400 --workdir /tmp/jb
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
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
from pooltool.store import JudgmentStore, workspace
from pooltool.store.provenance import utc_now
from pooltool.tui.app import make_app

TARGET_MS = {"move": 50.0, "open": 150.0}
ASSESSOR = "bencher"


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
        workspace.set_scan_terms(store, ASSESSOR, "0", [vocab[0], vocab[1][:2] + "*",
                                                        f"{vocab[2]} {vocab[3]}"], utc_now())
    return pooled


def judge_half(store: JudgmentStore, rng: random.Random) -> None:
    """Two other assessors judge every other pooled pair (one transaction)."""
    pairs = store.conn.execute("SELECT topic, docno FROM pool_docs").fetchall()
    with store.writing():
        for n, (topic, docno) in enumerate(pairs[::2]):
            store.record_judgment(topic, docno, rng.randint(0, 3), ("ann", "ben")[n % 2],
                                  ms_spent=rng.randint(2_000, 60_000), origin="bench")


async def measure(path: Path, topic: str, moves: int, opens: int) -> dict[str, list[float]]:
    """Time ``opens`` topic openings, then ``moves`` right-arrow moves, then ``moves``
    grade keys, in milliseconds.

    ``Pilot.press`` sleeps while it waits for the app to go idle (20 ms
    steps), so its wall time says little. Two figures are kept instead: the
    CPU time the process spends on each key press (handler, layout and
    rendering of the updated screen; the waits use none), and the wall time of
    the key's handler alone (reading the store, building the panes).
    """
    app = make_app(path, ASSESSOR, [topic])
    times: dict[str, list[float]] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        _time_handler(app, "open", times)
        open_cpu = times.setdefault("open cpu", [])
        for _ in range(opens):
            await pilot.press("escape")
            started = time.process_time()
            await pilot.press("enter")
            open_cpu.append((time.process_time() - started) * 1000)
        screen = app.screen
        for kind, key in (("move", "right"), ("grade", "1")):
            _time_handler(screen, kind, times)
            cpu = times.setdefault(f"{kind} cpu", [])
            for _ in range(moves):
                started = time.process_time()
                await pilot.press(key)
                cpu.append((time.process_time() - started) * 1000)
    return times


HANDLERS = {"open": "open", "move": "action_move", "grade": "action_grade"}


def _time_handler(owner: Any, kind: str, times: dict[str, list[float]]) -> None:
    """Wrap ``owner``'s handler of ``kind`` (:data:`HANDLERS`) to time it."""
    original: Callable[[Any], None] = getattr(owner, HANDLERS[kind])

    def timed(value: Any) -> None:
        started = time.perf_counter()
        original(value)
        times.setdefault(f"{kind} handler", []).append((time.perf_counter() - started) * 1000)
    setattr(owner, HANDLERS[kind], timed)


def summary(values: list[float]) -> str:
    """``median / p95 / max`` in milliseconds."""
    p95 = statistics.quantiles(values, n=20)[-1]
    return f"median {statistics.median(values):.1f} ms, p95 {p95:.1f} ms, max {max(values):.1f} ms"


def main() -> int:
    """Build the store, measure, print; exit status 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--per-topic", type=int, default=400)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--opens", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path,
                        help="keep the store here and reuse it (a copy is measured)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        kept = None if args.workdir is None else args.workdir / (
            f"judge-{args.docs}-{args.topics}-{args.per_topic}-{args.seed}.db")
        started = time.perf_counter()
        if kept is not None and kept.exists():
            shutil.copy(kept, path)
            print(f"store: {kept} (copied)")
        else:
            pooled = build(path, args)
            print(f"store: {args.docs:,} documents, {pooled:,} pooled pairs, "
                  f"{path.stat().st_size / 1e6:.0f} MB, built in "
                  f"{time.perf_counter() - started:.1f} s")
            if kept is not None:
                kept.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, kept)
        times = asyncio.run(measure(path, "0", args.moves, args.opens))
    met = True
    for kind, what, count in (
            ("open", "open the topic (Enter on the picker)", args.opens),
            ("move", "move to next document (right)", args.moves),
            ("grade", "grade key (commit + move to next unjudged)", args.moves)):
        print(f"{what}, {count} keys:")
        print(f"  whole key press, CPU: {summary(times[kind + ' cpu'])}")
        print(f"  handler, wall:        {summary(times[kind + ' handler'])}")
        if kind in TARGET_MS:
            ok = statistics.median(times[kind + " cpu"]) < TARGET_MS[kind]
            print(f"  target under {TARGET_MS[kind]:.0f} ms: {'met' if ok else 'MISSED'}")
            met = met and ok
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
