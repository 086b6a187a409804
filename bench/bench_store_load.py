"""Benchmark: many assessors judging shared topics on one store at once (issue 15).

Builds a store (deterministic, ``--seed``): ``--topics`` topics of
``--per-topic`` pooled documents each (three synthetic runs, pooled to full
depth; short documents), no assignments, so every topic is shared and every
document shown is claimed (:mod:`pooltool.store.claims`). Then starts
``--assessors`` processes (``multiprocessing`` spawn), which wait at one
barrier and then each record ``--judgments`` judgments the way the judging app
does: the same :class:`~pooltool.judging.session.JudgingSession` over a
:class:`~pooltool.store.journal.WriteQueue` with a journal, the connection's
busy timeout set to :data:`~pooltool.store.journal.BUSY_WAIT_MS`, the topic
picker's numbers (:func:`~pooltool.judging.queue.topic_progress`) to choose the
first topic with documents left, the document's text read as the screen draws
it, a grade key (``session.grade``: commit, then the next unjudged document,
claimed), waiting writes retried as the app's timer does, claims given up on
leaving a topic, and the queue drained on quit. Nothing of the claim or queue
logic is written here. An assessor leaves a topic when the session offers no
document it has not judged, and does not return to it. With ``--read-ms`` each
assessor reads a document (sleeps 0.5 to 1.5 times that) before its grade key; by
default it grades back to back, so that 20 processes on a small machine keep every
core busy and the next-document wait grows with the CPU a judgment costs (client and
server) times the assessors, whatever the locks.

Each process logs, per judgment, the key press, the moment its write was
committed (``WriteQueue._commit`` returned: the transaction is committed), and,
when the session moved on to another document of the topic, the moment that
next document was ready: ``session.grade`` returned (committed, chose the next
unjudged document and claimed it) and what the judging screen reads from the
store to draw it was read (its text, the topic statement, the status line:
``JudgeScreen.show_document``); also when the claims of that move began and
ended, to split the wait into commit, choice (the reads of what others judged
and have on screen), claim and drawing. Per document it logs the interval it
was on screen (from the moment the session moved to it, or its claim held after
waiting, until the grade call returned), and whether it was graded unclaimed (must
not happen: a document whose claim the busy store did not take waits, and is tried
again every ``CLAIM_RETRY_EVERY_S`` as the app's timer does,
:mod:`pooltool.judging.claiming`); how many moves waited so. Checked afterwards:

* **lost**: every committed write's ``judgment_id`` is in the store with its
  topic, docno and assessor, nothing is left waiting after the drain, and the
  store holds exactly the judgments made;
* **double**: no (topic, docno) judged twice (claims keep assessors on
  different documents of a shared topic);
* **overlap**: no document on two assessors' screens at the same time
  (intervals on the machine's monotonic clock, shared by its processes);
* **errors**: exceptions an assessor's session raised, writes the store
  rejected for good, journal failures (all must be 0: a busy store waits).

Prints judgments per second (all judgments / from the barrier to the last
assessor's last commit), the write latency, key press to commit, and the
next-document wait, key press to the next document ready (judgments after which
the topic had a document left for the assessor; the last of a topic sends them
back to the topic picker): median, 95th percentile and maximum of each; the
next-document wait's parts (median and 95th percentile of each, over the moves
whose write committed at once); how many writes had to wait (busy store) and
how many documents were graded unclaimed, how many moves waited for a claim; the
CPU time per judgment of the assessor processes from the barrier until they stop
judging (their drain on quit left out), and on PostgreSQL of the server processes
serving them (``/proc``, when this machine shows it). The
PostgreSQL server is a throwaway one (``tests/postgresql_server.py``) unless
``--url`` names a server (an admin URL whose role may create databases); a new
database per run, dropped afterwards. ``--engine sqlite`` runs the same on a
store file. With ``--repeat N`` each engine runs N times and the medians are
printed too.

Example::

    python bench/bench_store_load.py --engine both --repeat 3
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
import traceback
from collections import defaultdict
from itertools import pairwise
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pooltool.store.journal import BUSY_WAIT_MS, WriteQueue  # noqa: E402
from pooltool.store.journal_files import journal_path, journals  # noqa: E402
from pooltool.store.ui_writes import PendingWrite  # noqa: E402

RETRY_EVERY_S = 0.5  # pooltool.tui.app.RETRY_EVERY_S: the app's timer for waiting writes
CLAIM_RETRY_EVERY_S = 0.1  # pooltool.tui.app.CLAIM_RETRY_EVERY_S: for a claim that waits
QUIT_WAIT_S = 30.0  # pooltool.tui.app.QUIT_WAIT_S
GRADES = (0, 1, 2)


# -- the store ------------------------------------------------------------------------


def build(address: str, topics: int, per_topic: int, seed: int) -> int:
    """Create the store at ``address``: topics ``t1..``, per topic three runs over
    ``per_topic`` documents pooled to full depth; returns the pooled pairs."""
    import pandas as pd

    from pooltool.pooling import pool_runs
    from pooltool.records import Document, Topic
    from pooltool.store import JudgmentStore

    rng = random.Random(seed)
    rows, docs = [], []
    for t in range(1, topics + 1):
        names = [f"t{t}-d{n:04d}" for n in range(per_topic)]
        docs += [Document(d, f"title of {d}", f"text of {d} " * rng.randint(20, 80))
                 for d in names]
        for tag in ("A", "B", "C"):
            order = rng.sample(names, len(names))
            rows += [(tag, f"t{t}", d, r + 1, float(len(order) - r))
                     for r, d in enumerate(order)]
    frame = pd.DataFrame(rows, columns=["run_tag", "topic", "docno", "rank", "score"])
    with JudgmentStore.open(address, create=True) as store:
        store.add_topics([Topic(f"t{t}", f"topic {t}", f"description of topic {t}")
                          for t in range(1, topics + 1)], "bench")
        store.add_documents(docs, "bench")
        store.add_run_frame(frame)
        return int(pool_runs(store, depth=per_topic).pool_size)


# -- one assessor -----------------------------------------------------------------------


class TimedWriteQueue(WriteQueue):
    """The app's write queue, noting when each write's transaction was committed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.committed_at: dict[int, float] = {}

    def _commit(self, write: PendingWrite) -> int | None:
        result = super()._commit(write)
        self.committed_at[id(write)] = time.monotonic()
        return result


def timed_session(writes: WriteQueue, topic: str, name: str) -> Any:
    """The app's judging session on ``topic``, noting when each document went on screen
    (the session moved to it; that is when it is claimed) and whether the claim held."""
    from pooltool.judging.session import JudgingSession

    class TimedSession(JudgingSession):
        claims_from: float | None = None  # the first claim of a move (reset before a key)

        def _claim(self, docno: str) -> bool:
            self._claiming()
            held = super()._claim(docno)
            self._claimed(docno if held else None)
            return held

        def _claim_first(self, docnos: list[str]) -> str | None:
            self._claiming()
            docno = super()._claim_first(docnos)
            self._claimed(docno)
            return docno

        def confirm_claim(self) -> bool:
            changed = super().confirm_claim()
            self.claimed_at = time.monotonic()
            if not self.reserving:  # on screen for grading from now
                self.shown_at = self.claimed_at
            return changed

        def _claimed(self, docno: str | None) -> None:
            """Note the claim's end: whether ``docno`` may be put on screen."""
            self.claim_held, self.claimed_at = docno is not None, time.monotonic()

        def _claiming(self) -> None:
            self.shown_at = time.monotonic()
            if self.claims_from is None:
                self.claims_from = self.shown_at

    return TimedSession(writes, topic, name)


def assessor(address: str, name: str, count: int, seed: int, barrier: Any,
             out: str, read_ms: float = 0.0) -> None:
    """One assessor's process: judge ``count`` documents, reading each about ``read_ms``
    milliseconds (:func:`read_time`), write the log to ``out``."""
    from pooltool.store import JudgmentStore

    log: dict[str, Any] = {"name": name, "judgments": [], "shown": [], "errors": [],
                           "failed": [], "journal_errors": [], "topics": [],
                           "read_ms": read_ms}
    store = JudgmentStore.open(address)
    store.set_busy_timeout(BUSY_WAIT_MS)
    base = store.journal_base
    assert base is not None
    writes = TimedWriteQueue(store, journal_path(base, name))
    writes.recover(journals(base, name))
    backend = server_process(store)
    import pandas  # noqa: F401  # the app imports it at start-up (the topic picker), not on a key
    barrier.wait()
    log["started"] = time.monotonic()
    cpu, server = time.process_time(), process_cpu(backend)
    try:
        judge(writes, name, count, random.Random(f"{seed}-{name}"), log)
    finally:
        log["cpu"] = time.process_time() - cpu
        log["server_cpu"] = process_cpu(backend) - server if backend is not None else None
        log["drained"] = writes.drain(QUIT_WAIT_S)
        log["pending"] = writes.pending
        log["failed"] += [str(error) for _, error in writes.failed]
        for entry in log["judgments"]:
            write = entry.pop("write")
            entry["committed"] = writes.committed_at.get(id(write))
            entry["result"] = write.result
        log["ended"] = time.monotonic()
        store.close()
        Path(out).write_text(json.dumps(log))


def server_process(store: Any) -> int | None:
    """The process id of the PostgreSQL server process serving ``store``'s connection,
    when this machine's ``/proc`` shows its CPU time (``None``: SQLite, or not readable)."""
    if store.engine != "postgresql":
        return None
    pid = int(store.conn.execute("SELECT pg_backend_pid()").fetchone()[0])
    return pid if process_cpu(pid) >= 0 else None


def process_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (-1: unknown)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return -1.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def judge(writes: TimedWriteQueue, name: str, count: int, rng: random.Random,
          log: dict[str, Any]) -> None:
    """Pick topics as the picker lists them and judge until ``count`` judgments."""
    from pooltool.judging.queue import topic_progress

    left: set[str] = set()
    last_retry = time.monotonic()
    while len(log["judgments"]) < count:
        try:
            progress = topic_progress(writes.store, name)
        except Exception as exc:  # an error the app would show
            _error(log, exc)
            continue
        open_topics = [t for t, r in zip(progress["topic"], progress["remaining"], strict=True)
                       if r > 0 and t not in left]
        if not open_topics:
            log["ran_out"] = True
            return
        topic = open_topics[0]
        left.add(topic)
        log["topics"].append(topic)
        last_retry = judge_topic(writes, topic, name, count, rng, log, last_retry)


def read_time(rng: random.Random, read_ms: float) -> float:
    """Seconds an assessor reads a document before the grade key: uniform in 0.5 to 1.5
    times ``read_ms`` (0: none, the rng left untouched, so the grades stay those of a
    run without reading time)."""
    return rng.uniform(0.5, 1.5) * read_ms / 1000 if read_ms > 0 else 0.0


def draw(session: Any) -> None:
    """Read what the judging screen reads from the store to draw the document on
    screen (``JudgeScreen.show_document``: the text, the topic statement, the status
    line without the runs)."""
    from pooltool.tui.widgets.status_line import status_text

    session.document()
    session.topic_statement()
    status_text(session)


def wait_for_claim(session: Any) -> bool:
    """Retry the claim of the document the session waits to show, as the app's timer
    does, until it holds or another document is on screen; returns whether it waited.
    Gives up (the session still waits) when another assessor holds or judged the
    document and the session offers nothing else: the assessor then leaves the topic."""
    waited = session.reserving
    while session.reserving:
        time.sleep(CLAIM_RETRY_EVERY_S)
        if not session.confirm_claim() and session.reserving \
                and session.docno in session.taken_by_others():
            break
    return waited


def judge_topic(writes: TimedWriteQueue, topic: str, name: str, count: int,
                rng: random.Random, log: dict[str, Any], last_retry: float) -> float:
    """Open ``topic`` and grade what the session shows until it offers nothing new
    (or ``count`` is reached); returns when the waiting writes were last retried."""
    from pooltool.store.provenance import utc_now

    try:
        session = timed_session(writes, topic, name)
        if session.queue:
            wait_for_claim(session)
            draw(session)
    except Exception as exc:
        _error(log, exc)
        return last_retry
    if not session.queue:
        return last_retry
    while len(log["judgments"]) < count:
        docno = session.docno
        if session.is_judged(docno) or session.reserving:  # nothing left to judge here
            break
        shown, held = session.shown_at, session.claim_held
        unclaimed = session.shared and session.claims.held != docno  # graded so: a fault
        session.claims_from = None
        try:
            time.sleep(read_time(rng, log["read_ms"]))
            key = time.monotonic()
            session.grade(rng.choice(GRADES), int((key - shown) * 1000), utc_now())
            left = time.monotonic()  # the graded document leaves the screen
            waited = wait_for_claim(session)
            moved = session.docno != docno
            if moved:
                draw(session)
        except Exception as exc:
            _error(log, exc)
            break
        write = session.history[-1].write
        log["judgments"].append({
            "topic": topic, "docno": docno, "key": key, "write": write, "busy": not write.done,
            "ready": time.monotonic() if moved else None, "waited": waited,
            "claims": [session.claims_from, session.claimed_at] if moved else None})
        log["shown"].append([topic, docno, shown, left, held, unclaimed])
        if writes.pending and time.monotonic() - last_retry >= RETRY_EVERY_S:
            writes.flush()  # the app's timer
            last_retry = time.monotonic()
        if writes.journal_error:
            log["journal_errors"].append(writes.journal_error)
            writes.journal_error = None
    session.release_claims()
    return last_retry


def _error(log: dict[str, Any], exc: Exception) -> None:
    log["errors"].append("".join(traceback.format_exception_only(exc)).strip())
    if len(log["errors"]) > 50:
        raise RuntimeError(f"{log['name']}: too many errors") from exc


# -- one run -------------------------------------------------------------------------------


def run_once(address: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Build the store, run the assessors, check the store; returns the figures."""
    started = time.perf_counter()
    pooled = build(address, args.topics, args.per_topic, args.seed)
    print(f"  store: {pooled:,} pooled pairs, built in {time.perf_counter() - started:.1f} s",
          flush=True)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(args.assessors)
    names = [f"a{n:02d}" for n in range(args.assessors)]
    outs = [folder / f"{name}.json" for name in names]
    processes = [context.Process(target=assessor, args=(
        address, name, args.judgments, args.seed, barrier, str(out), args.read_ms))
        for name, out in zip(names, outs, strict=True)]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    logs = [json.loads(out.read_text()) for out in outs if out.exists()]
    crashed = [p.exitcode for p in processes if p.exitcode != 0]
    return check(address, logs, crashed)


def check(address: str, logs: list[dict[str, Any]], crashed: list[int | None]) -> dict[str, Any]:
    """The figures and the checks of the module docstring."""
    from pooltool.store import JudgmentStore

    with JudgmentStore.open(address) as store:
        rows = store.query("SELECT judgment_id, topic, docno, assessor FROM judgments")
    stored = {int(r.judgment_id): (r.topic, r.docno, r.assessor) for r in rows.itertuples()}
    made = [(log["name"], j) for log in logs for j in log["judgments"]]
    lost = [j for name, j in made if j["committed"] is None
            or stored.get(_result(j)) != (j["topic"], j["docno"], name)]
    per_pair = rows.groupby(["topic", "docno"]).size()
    latencies = sorted((j["committed"] - j["key"]) * 1000 for _, j in made
                       if j["committed"] is not None)
    waits = sorted((j["ready"] - j["key"]) * 1000 for _, j in made if j["ready"] is not None)
    start = min(log["started"] for log in logs)
    end = max(log["ended"] for log in logs)
    last_commit = max((j["committed"] for _, j in made if j["committed"] is not None),
                      default=end)
    return {
        "judgments": len(made),
        "stored": len(stored),
        "lost": len(lost) + sum(log["pending"] for log in logs),
        "double": int((per_pair > 1).sum()),
        "overlaps": overlaps(logs),
        "errors": sum(len(log["errors"]) + len(log["failed"]) + len(log["journal_errors"])
                      for log in logs) + len(crashed),
        "error_texts": sorted({e for log in logs for e in log["errors"] + log["failed"]})[:5],
        "busy": sum(j["busy"] for _, j in made),
        "claims_refused": sum(not held for log in logs for *_, held, _ in log["shown"]),
        "unclaimed": sum(unclaimed for log in logs for *_, unclaimed in log["shown"]),
        "waited_claim": sum(j["waited"] for _, j in made),
        "ran_out": sum(bool(log.get("ran_out")) for log in logs),
        "seconds": last_commit - start,
        "per_second": len(made) / (last_commit - start),
        "p50_ms": statistics.median(latencies),
        "p95_ms": statistics.quantiles(latencies, n=20)[-1],
        "max_ms": latencies[-1],
        "next_p50_ms": statistics.median(waits),
        "next_p95_ms": statistics.quantiles(waits, n=20)[-1],
        "next_max_ms": waits[-1],
        "next_count": len(waits),
        "parts": next_parts([j for _, j in made]),
        "cpu_ms": sum(log["cpu"] for log in logs) * 1000 / max(len(made), 1),
        "server_cpu_ms": None if any(log["server_cpu"] is None for log in logs)
        else sum(log["server_cpu"] for log in logs) * 1000 / max(len(made), 1),
    }


PARTS = ("commit", "choose", "claim", "draw")


def next_parts(judgments: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """The next-document wait split at the commit, the first claim of the move and
    the last claim's return: ``{part: (median ms, 95th percentile ms)}``, over the
    moves whose write committed during the grade call (not waiting for a busy store)."""
    spans: dict[str, list[float]] = {part: [] for part in PARTS}
    for j in judgments:
        if j["ready"] is None or j["committed"] is None or j["claims"][0] is None \
                or j["committed"] > j["claims"][0]:
            continue
        marks = [j["key"], j["committed"], *j["claims"], j["ready"]]
        for part, (start, end) in zip(PARTS, pairwise(marks), strict=True):
            spans[part].append((end - start) * 1000)
    return {part: (statistics.median(values), statistics.quantiles(values, n=20)[-1])
            for part, values in spans.items() if len(values) > 1}


def _result(judgment: dict[str, Any]) -> int:
    return int(judgment["result"]) if judgment["result"] is not None else -1


def overlaps(logs: list[dict[str, Any]]) -> int:
    """Documents that were on two assessors' screens at one time."""
    by_doc: dict[tuple[str, str], list[tuple[float, float, str]]] = defaultdict(list)
    for log in logs:
        for topic, docno, shown, left, *_ in log["shown"]:
            by_doc[(topic, docno)].append((shown, left, log["name"]))
    found = 0
    for intervals in by_doc.values():
        intervals.sort()
        found += any(b[0] < a[1] and b[2] != a[2]
                     for i, a in enumerate(intervals) for b in intervals[i + 1:])
    return found


# -- engines and runs ----------------------------------------------------------------------


def engine_runs(engine: str, args: argparse.Namespace, folder: Path) -> list[dict[str, Any]]:
    """``args.repeat`` runs on ``engine``, each on a new store."""
    results = []
    server = postgresql_server(args) if engine == "postgresql" else None
    try:
        for n in range(args.repeat):
            run_folder = folder / f"{engine}-{n}"
            run_folder.mkdir()
            address = server.create_database() if server is not None \
                else str(run_folder / "store.db")
            print(f"{engine} run {n + 1}/{args.repeat}", flush=True)
            try:
                result = run_once(address, args, run_folder)
            finally:
                if server is not None:
                    server.drop_database(address)
            print("  " + line(result), flush=True)
            results.append(result)
    finally:
        if server is not None and args.url is None:
            server.stop()
    return results


def postgresql_server(args: argparse.Namespace) -> Any:
    """The server of ``--url``, else a throwaway one (``tests/postgresql_server.py``)."""
    import postgresql_server as servers

    if args.url is not None:
        return servers.Server(admin_url=args.url)
    return servers.start()


FIGURES = ("per_second", "p50_ms", "p95_ms", "max_ms", "next_p50_ms", "next_p95_ms",
           "next_max_ms", "seconds")


def line(result: dict[str, Any]) -> str:
    """One run's figures and checks on one line."""
    return (f"{result['judgments']:,} judgments ({result['stored']:,} stored) in "
            f"{result['seconds']:.1f} s: {result['per_second']:.1f}/s; write latency p50 "
            f"{result['p50_ms']:.1f} ms, p95 {result['p95_ms']:.1f} ms, max "
            f"{result['max_ms']:.0f} ms; next document p50 {result['next_p50_ms']:.1f} ms, "
            f"p95 {result['next_p95_ms']:.1f} ms, max {result['next_max_ms']:.0f} ms "
            f"({result['next_count']:,} moves; parts p50/p95: "
            + ", ".join(f"{part} {p50:.1f}/{p95:.1f}"
                        for part, (p50, p95) in result["parts"].items())
            + f" ms); waited (busy) {result['busy']}; lost "
            f"{result['lost']}, double {result['double']}, overlaps {result['overlaps']}, "
            f"errors {result['errors']}, claims refused but shown {result['claims_refused']}, "
            f"graded unclaimed {result['unclaimed']}, moves that waited for a claim "
            f"{result['waited_claim']}, "
            f"ran out {result['ran_out']}; CPU per judgment: assessor {result['cpu_ms']:.2f} ms"
            + (f", its server process {result['server_cpu_ms']:.2f} ms"
               if result["server_cpu_ms"] is not None else "")
            + (f" {result['error_texts']}" if result["error_texts"] else ""))


def passed(result: dict[str, Any]) -> bool:
    """Whether a run kept every judgment once, on one screen at a time, without errors."""
    return not (result["lost"] or result["double"] or result["overlaps"] or result["errors"]
                or result["ran_out"])


def main() -> int:
    """Run, print; exit status 1 when a check fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("postgresql", "sqlite", "both"), default="both")
    parser.add_argument("--url", help="admin URL of a PostgreSQL server (default: start one)")
    parser.add_argument("--assessors", type=int, default=20)
    parser.add_argument("--judgments", type=int, default=500, help="per assessor")
    parser.add_argument("--topics", type=int, default=25)
    parser.add_argument("--per-topic", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--read-ms", type=float, default=0.0,
                        help="milliseconds an assessor reads a document before grading it "
                             "(each uniform in 0.5-1.5 times this; default 0: back to back)")
    args = parser.parse_args()
    engines = ["postgresql", "sqlite"] if args.engine == "both" else [args.engine]
    ok = True
    with tempfile.TemporaryDirectory(prefix="pooltool-load-") as folder:
        os.environ["XDG_STATE_HOME"] = folder  # journals of a PostgreSQL store go here
        for engine in engines:
            results = engine_runs(engine, args, Path(folder))
            ok = ok and all(passed(r) for r in results)
            medians = {k: statistics.median(r[k] for r in results) for k in FIGURES}
            print(f"{engine}, median of {len(results)}: {medians['per_second']:.1f} "
                  f"judgments/s; write latency p50 {medians['p50_ms']:.1f} ms, p95 "
                  f"{medians['p95_ms']:.1f} ms, max {medians['max_ms']:.0f} ms; next document "
                  f"p50 {medians['next_p50_ms']:.1f} ms, p95 {medians['next_p95_ms']:.1f} ms, "
                  f"max {medians['next_max_ms']:.0f} ms", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
