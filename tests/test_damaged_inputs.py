"""Every file reader given a damaged or endless input (issue 23, item 11): a truncated or
corrupt gzip file, a FIFO with no writer, ``/dev/zero``, control characters. Each ends in
one :class:`FormatError` naming the file, never a traceback, never a hang."""

from __future__ import annotations

import gzip
import os
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.errors import FormatError
from pooltool.formats.documents import DOCUMENT_FORMATS, iter_documents
from pooltool.formats.guidelines import read_guidelines
from pooltool.formats.qrels import read_qrels, read_qrels_table
from pooltool.formats.run import read_run
from pooltool.formats.topics import TOPIC_FORMATS, read_topics
from pooltool.store import JudgmentStore

TIMEOUT_S = 20
RUN_LINES = b"".join(b"1 Q0 d%d %d %d.5 tag\n" % (i, i, 1000 - i) for i in range(1, 3000))


def _documents(path: Path, fmt: str) -> list[Any]:
    return list(iter_documents(path, fmt))


def _store_reader(method: str) -> Callable[[Path], Any]:
    def read(path: Path) -> Any:
        with JudgmentStore.open(str(path.parent / "fuzz.db"), create=True) as store:
            return store.add_runs([path]) if method == "runs" else \
                store.import_qrels(path, "v")
    return read


READERS: dict[str, Callable[[Path], Any]] = {
    "read_run": read_run,
    "read_qrels": read_qrels,
    "read_qrels_table": read_qrels_table,
    **{f"read_topics {fmt}": partial(read_topics, fmt=fmt) for fmt in TOPIC_FORMATS},
    **{f"iter_documents {fmt}": partial(_documents, fmt=fmt) for fmt in DOCUMENT_FORMATS},
    "read_guidelines": read_guidelines,
    "store add_runs": _store_reader("runs"),
    "store import_qrels": _store_reader("qrels"),
}


def _damaged(kind: str, tmp_path: Path) -> Path:
    packed = gzip.compress(RUN_LINES)
    if kind == "truncated gzip":
        path = tmp_path / "input.gz"
        path.write_bytes(packed[: len(packed) // 2])
    elif kind == "corrupt gzip":
        path = tmp_path / "input.gz"
        flipped = bytearray(packed)
        flipped[30:60] = bytes(byte ^ 0xFF for byte in flipped[30:60])
        path.write_bytes(bytes(flipped))
    elif kind == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    elif kind == "/dev/zero":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "input.txt"
        path.write_bytes(b"\x1b]2;PWNED\x1b\\ \x00\x9b \xe2\x80\xae\n" * 3)
    return path


KINDS = ["truncated gzip", "corrupt gzip", "fifo", "/dev/zero", "control characters"]


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                    reason="needs FIFOs and /dev/zero")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reader", list(READERS))
def test_a_damaged_input_is_one_format_error(tmp_path: Path, reader: str, kind: str) -> None:
    path = _damaged(kind, tmp_path)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            READERS[reader](path)
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001  judged below
            outcome.append(error)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(TIMEOUT_S)
    if worker.is_alive() and kind == "fifo":  # unblock it before failing
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    assert not worker.is_alive(), f"{reader} hung on {kind}"
    error = outcome[0]
    assert isinstance(error, FormatError), repr(error)
    message = str(error)
    assert message.startswith(f"{path}:") and "\n" not in message, message
    expected = {"truncated gzip": "is a damaged gzip file (truncated or corrupt), it cannot be read",
                "corrupt gzip": "is a damaged gzip file (truncated or corrupt), it cannot be read",
                "fifo": "is a pipe or device, not a regular file",
                "/dev/zero": "is a pipe or device, not a regular file",
                "control characters": "holds a NUL byte"}[kind]
    if kind != "truncated gzip" or "gzip" in message:  # a reader may stop at a bad line first
        assert expected in message, message


def test_guidelines_from_a_fifo_or_dev_zero_is_refused_at_once(new_store: str,
                                                               tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        result = CliRunner().invoke(cli, ["--db", new_store, "guidelines", "--text", path])
        assert (result.exit_code, result.stderr) == (1, f"Error: {path}: is a pipe or device, "
                                                        "not a regular file (pooltool reads an "
                                                        "input more than once: hash, fast reader, "
                                                        "strict reader); save it to a file first, "
                                                        "gzip files are read as they are\n")


def test_a_nul_byte_is_not_stored_in_guidelines(new_store: str) -> None:
    result = CliRunner().invoke(cli, ["--db", new_store, "guidelines", "--text", "-"],
                                input="read\x00 this\n")
    assert (result.exit_code, result.stderr) == (
        1, "Error: <stdin>:1: holds a NUL byte (control character U+0000); only text can be read\n")


@pytest.mark.parametrize("args", [["guidelines", "--text", "missing.txt"],
                                  ["bias", "-k", "10", "--new", "missing.run"],
                                  ["recall", "missing.run", "--qrels", "missing.run"]])
def test_a_missing_input_file_is_a_usage_error(tmp_path: Path, args: list[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """One convention: click's ``exists=True``, exit status 2, the parameter named."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.db"), *args])
    assert result.exit_code == 2, result.output
    assert "Error: Invalid value for " in result.stderr and "missing" in result.stderr


def test_a_libpq_keyword_string_is_refused_without_its_password() -> None:
    result = CliRunner().invoke(cli, ["--db", "host=db.example password=s3cret dbname=pool",
                                      "status"])
    assert result.exit_code == 2
    assert "s3cret" not in result.output and "db.example" not in result.output
    assert result.stderr.endswith(
        "Error: Invalid value for '--db': this is a libpq keyword string (host=... dbname=...), "
        "not a SQLite path: name a PostgreSQL store by a URL, postgresql://USER@HOST:PORT/DBNAME, "
        "with the password in PGPASSWORD or ~/.pgpass\n")
