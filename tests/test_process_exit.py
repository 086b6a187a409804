"""The ``pooltool`` process ends with its command's status and all its output, also when
``recall`` skips the native teardown at exit (pooltool/cli/exit.py; issue 24, 14)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RUN = "1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n"
QRELS = "1 0 d1 1\n1 0 d2 0\n"


def pooltool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pooltool", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, check=False)


def test_recall_ends_with_its_output_and_status(tmp_path: Path) -> None:
    (tmp_path / "r.run").write_text(RUN)
    (tmp_path / "q.txt").write_text(QRELS)
    done = pooltool("recall", "r.run", "--qrels", "q.txt", "-k", "1", "--format", "csv",
                    cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    row = dict(zip(lines[0].split(","), lines[1].split(","), strict=True))
    # d1 relevant at rank 1 of 1 relevant: Recall@1 1, P@1 1
    assert (len(lines), row["run_tag"], float(row["recall"]), float(row["P"])) == (2, "r", 1, 1)
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1\n")
    failed = pooltool("recall", "bad.run", "--qrels", "q.txt", cwd=tmp_path)
    assert failed.returncode == 1 and failed.stderr.startswith(f"Error: {bad.name}:1: ")
    usage = pooltool("recall", "r.run", cwd=tmp_path)
    assert usage.returncode == 2 and "give exactly one of --qrels" in usage.stderr
