"""The journal files of judging processes, next to the store: their names
(:func:`journal_path`), finding them (:func:`journals`), reading their writes
(:func:`pending_writes`), and whether the process that wrote one still runs.
What a journal is for: :mod:`pooltool.store.journal`."""

from __future__ import annotations

import glob
import json
import os
import re
from pathlib import Path

from pooltool.store.ui_writes import OPERATIONS, PendingWrite


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]", "_", name) or "_"


def journal_path(db: str | Path, assessor: str, pid: int | None = None) -> Path:
    """The journal of one judging process: ``<db>.pending-<assessor>-<pid>.jsonl``
    (characters other than letters, digits, ``_`` and ``.`` in the name become ``_``)."""
    pid = os.getpid() if pid is None else pid
    return Path(f"{db}.pending-{_safe(assessor)}-{pid}.jsonl")


def journals(db: str | Path, assessor: str | None = None) -> list[Path]:
    """Journal files left next to the store by judging processes of ``assessor``
    (default: of every assessor), oldest first."""
    db = Path(db)
    who = "*" if assessor is None else _safe(assessor)
    found = db.parent.glob(f"{glob.escape(db.name)}.pending-{who}-*.jsonl")
    dated = []
    for path in found:
        if not re.fullmatch(r"\d+", path.stem.rsplit("-", 1)[1]):
            continue
        try:
            dated.append((path.stat().st_mtime, path.name, path))
        except FileNotFoundError:  # committed and removed by its process meanwhile
            continue
    return [path for *_, path in sorted(dated)]


def parse_journal_line(line: str) -> PendingWrite | None:
    """The write one journal line holds (``None``: a line cut short, or not a write
    this pooltool knows)."""
    try:
        record = json.loads(line)
        kind, args, token = record["kind"], record["args"], record["token"]
    except (ValueError, KeyError, TypeError):
        return None
    if kind not in OPERATIONS or not isinstance(args, dict) or not isinstance(token, str):
        return None
    return PendingWrite(kind, args, token=token)


def journal_pid(path: Path) -> int:
    """The process id a journal file is named after (``...-<pid>.jsonl``)."""
    return int(path.stem.rsplit("-", 1)[1])


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (signal 0 probes it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, under another user
        return True
    return True


def pending_writes(path: Path) -> list[PendingWrite]:
    """The writes a journal file holds (lines cut short are skipped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    writes = [w for w in map(parse_journal_line, text.splitlines()) if w is not None]
    for write in writes:
        write.journaled = True
    return writes
