"""Speed of ``pooltool eval -m all_trec`` as a whole process, back to back with trec_eval.

The runs and qrels are bench_recall.py's generator (``generate``); each contender
runs as its own process, in turn, ``--repeat`` rounds, and the medians of wall
time, CPU time and peak memory are printed, with trec_eval's wall time over
pooltool's taken round by round (issue 25, item 8 asks pooltool for at most 0.25x
trec_eval's time):

* pooltool: ``pooltool eval RUNS --qrels QRELS -m all_trec -c -q --format trec``;
* trec_eval looped: one ``trec_eval -q -c -m all_trec`` process per run from one
  ``sh`` loop (``--trec-eval PATH``, else ``trec_eval`` on PATH; skipped without one);
* with ``--before DIR``: the same pooltool command run from another checkout (say
  ``git archive main | tar -x -C DIR``), for a before/after comparison back to back.

Then the same on the 15 TREC-COVID round-1 runs when ``../shared/data`` is there.
Usage::

    python bench/bench_eval.py --runs 30 --topics 250 --depth 1000 --workdir /tmp/b7 \\
        --trec-eval /tmp/trec_eval/trec_eval
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from bench_recall import SHARED, back_to_back, generate


def contenders(qrels: Path, runs: list[Path], trec_eval: str | None,
               before: Path | None = None) -> dict[str, list[str]]:
    """The command line of each contender."""
    files = [str(p) for p in runs]
    ours = [sys.executable, "-m", "pooltool", "eval", *files, "--qrels", str(qrels),
            "-m", "all_trec", "-c", "-q", "--format", "trec"]
    commands = {"pooltool eval": ours}
    if before:  # python -m pooltool imports the checkout it runs in
        commands[f"pooltool eval ({before})"] = [
            "sh", "-c", f"cd {shlex.quote(str(before))} && exec {shlex.join(ours)}"]
    if trec_eval:
        loop = (f"for run in {' '.join(map(shlex.quote, files))}; do "
                f"{shlex.quote(trec_eval)} -q -c -m all_trec {shlex.quote(str(qrels))} \"$run\" "
                "|| exit 1; done")
        commands["trec_eval looped"] = ["sh", "-c", loop]
    return commands


def compare(label: str, qrels: Path, runs: list[Path], repeat: int, trec_eval: str | None,
            before: Path | None = None) -> None:
    """Run the contenders back to back ``repeat`` times and print medians and ratios."""
    back_to_back(label, contenders(qrels, runs, trec_eval, before), runs, repeat,
                 "pooltool eval", ours_over_theirs=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keep the generated files here and reuse them")
    parser.add_argument("--trec-eval", help="a trec_eval 10.0 binary (default: trec_eval on PATH)")
    parser.add_argument("--before", type=Path, help="another checkout to time the same way")
    parser.add_argument("--skip-synthetic", action="store_true")
    args = parser.parse_args()
    trec_eval = args.trec_eval or shutil.which("trec_eval")
    if not args.skip_synthetic:
        with tempfile.TemporaryDirectory() as tmp:
            folder = args.workdir or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            qrels, runs = generate(folder, args.runs, args.topics, args.depth, args.seed)
            compare("synthetic", qrels, runs, args.repeat, trec_eval, args.before)
    if SHARED.is_dir():
        compare("TREC-COVID round 1", SHARED / "qrels-rnd1.txt",
                sorted((SHARED / "runs").iterdir()), args.repeat, trec_eval, args.before)


if __name__ == "__main__":
    main()
