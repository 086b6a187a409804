"""``pooltool recall`` on files without pandas (issue 10): the same bytes as before, every format.

The measures give numpy columns and the writers take them; pandas is loaded
only when a DataFrame is asked for (``RecallResult.per_topic``) or a path
needs one (the store, the line reader, several runs in a file).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner
from reader_paths import reader_path  # noqa: F401  (autouse: every test on both reader paths)

import pooltool.cli.recall  # noqa: F401  registers the command on the group
from pooltool.arrow.numbers import arrow_numbers, arrow_strings, numbers
from pooltool.cli.group import cli
from pooltool.errors import FrameError
from pooltool.formats.qrels import read_qrels_table
from pooltool.measures import evaluate_recall_files
from pooltool.measures.qrels_index import index_qrels
from pooltool.report import emit, records

DEMO = Path(__file__).resolve().parents[1] / "demo"

#: sha256 of what ``pooltool recall RUNS --qrels qrels-rnd1.txt OPTIONS`` printed on the
#: 15 TREC-COVID round 1 runs (in name order) before issue 10's pandas-free path
#: (commit d44b9a5, where every format went through DataFrames and pandas' writers).
BEFORE = {
    ("table",): "5d0db382a1493566861b6451a498689672a15dbf9e2047bdbe80550c1cb00900",
    ("csv",): "24510dbe5116659f74b8729726d9cc2c6ceeef9726ebc16e7b3a19924380fc73",
    ("tsv",): "a5da5885149ac07b6a04127a53eb5e3f797556c9b16222c5e39e81faef779acc",
    ("json",): "7cad846b3543b41683f4b4c481ba665df1607f4ac3ee01c0ec27800af2959f26",
    ("jsonl",): "c8c9ce977b7fc1125aa079e69f29ca02f427d9ee220af306dc364985d7196144",
    ("trec",): "b542b76cfed4d18d144e4cdbc914ac85f18dabda3069f072543e2638e5dbd5ac",
    ("table", "-q", "-c"): "c3567e5ad634948d82fcd2f91d326fce36c116bf531dfb0fbc957ec980264fea",
    ("csv", "-q", "-c"): "c300c7d8a00de281f6a4a826dde261e43111308fb9b02db556d3c66d4d508688",
    ("tsv", "-q", "-c"): "49f2442bf1679ee17503b9b785ded673b2403efdebd5398f84b969f20cad33af",
    ("json", "-q", "-c"): "d6672e024831edcc56f7a8f98c0a4aacc8aeac5874cc29987afbcb5d6c015c1e",
    ("jsonl", "-q", "-c"): "97d07f8608870f1a0b62661ae86bf4ebd71f25ed6ba7e0e661990ec9980fc36c",
    ("trec", "-q", "-c"): "97bb926d3c26ff9e57d342a4d86bf13bc50e468164f65266ab475834f81fd92b",
    ("table", *"-q -c -k 5,10,20 -l 2 -M 50".split()):
        "f9cbcab8752c21554d7c19f6c3e43715890d7ad669789dadb9ba0b3d17fe8ced",
    ("csv", *"-q -c -k 5,10,20 -l 2 -M 50".split()):
        "daa00fe57df3061e1637f5f8db5ea809cddda5c4ada4bfe116f9de96cfaea9f5",
    ("json", *"-q -c -k 5,10,20 -l 2 -M 50".split()):
        "d76692f06c68f8b840cc2d394a0c09aa304076e012e9a99311cd76dc8a0f2eea",
    ("trec", *"-q -c -k 5,10,20 -l 2 -M 50".split()):
        "9fa19da509c5275bed901f790e844cc791de0ffbde2489920d0eee3be78095ec",
}


@pytest.mark.parametrize("options", BEFORE, ids=[" ".join(o) for o in BEFORE])
def test_trec_covid_output_is_byte_for_byte_what_it_was(
        shared_data: Path, monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...]) -> None:
    folder = shared_data / "trec_covid_r1"
    monkeypatch.chdir(folder)  # the JSON names the qrels as given: qrels-rnd1.txt
    runs = [f"runs/{path.name}" for path in sorted((folder / "runs").iterdir())]
    fmt, *rest = options
    result = CliRunner(env={"COLUMNS": ""}).invoke(
        cli, ["recall", *runs, "--qrels", "qrels-rnd1.txt", "--format", fmt, *rest])
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(result.stdout.encode("utf-8")).hexdigest() == BEFORE[options]


def test_recall_on_files_never_imports_pandas() -> None:
    """Every format, per topic and not, in a fresh interpreter: pandas (and the store)
    stay unloaded, and numpy.ma (``np.unique`` loads it: 30 ms of start-up), and
    pyarrow.compute (30 ms: :mod:`pooltool.arrow.kernels`)."""
    script = f"""
import contextlib, io, sys
from pooltool.cli import cli
for fmt in ("table", "csv", "tsv", "json", "jsonl", "trec"):
    for extra in ([], ["-q", "-c"]):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            cli.main(["recall", {str(DEMO / "runs" / "bm25.run")!r}, "--qrels",
                      {str(DEMO / "qrels.txt")!r}, "--format", fmt, *extra],
                     standalone_mode=False)
        assert out.getvalue(), fmt
print(sorted(name for name in ("pandas", "sqlite_utils", "pooltool.store", "numpy.ma",
                                    "pyarrow.compute")
             if name in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]", done.stderr


@pytest.mark.parametrize("preset", [None, "2"])
def test_recall_and_eval_start_no_blas_threads(preset: str | None) -> None:
    """In a fresh interpreter, ``recall`` and ``eval`` import numpy with OpenBLAS told to
    start no threads, unless the user's environment already says how many."""
    script = f"""
import contextlib, io, os
from pooltool.cli import cli
for command in (["recall"], ["eval", "-m", "P@10"]):
    with contextlib.redirect_stdout(io.StringIO()):
        cli.main([*command, {str(DEMO / "runs" / "bm25.run")!r}, "--qrels",
                  {str(DEMO / "qrels.txt")!r}, "--format", "csv"], standalone_mode=False)
    print(os.environ.get("OPENBLAS_NUM_THREADS"))
"""
    env = {name: value for name, value in os.environ.items() if name != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, env=env)
    assert done.stdout.split() == [preset or "1"] * 2, done.stderr


QRELS = "1 0 a 2\n1 0 b 0\n1 0 c -1\n1 0 x 1\n2 0 a 0\n3 0 z 1\n"
RUN = "1 Q0 a 1 1.0 t,\"q\n1 Q0 b 2 1.0 t,\"q\n1 Q0 c 3 0.5 t,\"q\n2 Q0 a 1 3 t,\"q\n"


@pytest.mark.parametrize("fmt", ["table", "csv", "tsv", "json", "jsonl"])
def test_columns_are_written_as_pandas_writes_the_frame(tmp_path: Path, fmt: str) -> None:
    """NaN (a num_rel bin with no topic, micro_recall of a run without relevant
    documents), a tag that CSV must quote, counts and fractions."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    result = evaluate_recall_files([tmp_path / "run.txt"], read_qrels_table(tmp_path / "qrels.txt"),
                                   ks=(1, 3), complete=True)
    for frame, columns in ((result.summary, result.summary_columns),
                           (result.per_topic, result.per_topic_columns)):
        from_frame, from_columns = io.StringIO(), io.StringIO()
        emit(frame, fmt, stream=from_frame)
        emit(columns, fmt, stream=from_columns)
        assert from_columns.getvalue() == from_frame.getvalue()
    assert records(result.summary_columns)[0]["recall_nrel_gt100"] is None


def test_a_result_gives_frames_with_the_columns_values(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    result = evaluate_recall_files([tmp_path / "run.txt"], read_qrels_table(tmp_path / "qrels.txt"),
                                   ks=(1, 3))
    assert list(result.per_topic.columns) == list(result.per_topic_columns)
    assert result.per_topic["recall@3"].tolist() == [0.5, 0.0]  # topic 1: a of a, x; 2: none
    assert result.summary["k"].tolist() == [1, 3]
    assert str(result.summary["num_q"].dtype) == "int64"
    assert json.dumps(records(result.summary)) == json.dumps(records(result.summary_columns))


def test_qrels_as_arrow_are_checked_like_a_frame() -> None:
    table = pa.table({"topic": ["1", "1", "2", "1"], "docno": ["a", "b", "a", "a"],
                      "grade": pa.array([1, 0, 2, 1], pa.int64())})
    index = index_qrels(table)  # the repeated (1, a) with one grade counts once
    assert index.topics.tolist() == ["1", "2"] and index.num_rel.tolist() == [1, 1]
    assert len(index.keys) == 3
    clash = table.set_column(2, "grade", pa.array([1, 0, 2, 3], pa.int64()))
    with pytest.raises(FrameError, match="docno 'a' of topic '1' has two different grades"):
        index_qrels(clash)
    with pytest.raises(FrameError, match="must hold integers"):
        index_qrels(table.set_column(2, "grade", pa.array(["1", "0", "2", "1"])))


def test_arrow_numbers_round_trip_without_copies() -> None:
    values = np.arange(10, dtype=np.int64)
    arrow = arrow_numbers(values)
    assert arrow.to_pylist() == list(range(10))
    assert numbers(arrow.slice(3, 4)).tolist() == [3, 4, 5, 6]
    chunked = pa.chunked_array([pa.array([1.5, 2.5]), pa.array([3.5])])
    assert numbers(chunked).tolist() == [1.5, 2.5, 3.5]
    assert numbers(pa.chunked_array([], pa.int32())).dtype == np.int32
    with pytest.raises(ValueError, match="null"):
        numbers(pa.array([1, None]))
    strings = arrow_strings(["", "é", "a b", "\U0001f600"])
    assert strings.type == pa.string() and strings.to_pylist() == ["", "é", "a b", "\U0001f600"]
