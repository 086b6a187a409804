"""The collection commands, end to end through click, with exact outputs and errors."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.cli.lazy import COMMAND_MODULES, command_entry, command_index

RUN_A = "1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n1 Q0 c 3 1 A\n2 Q0 x 1 1 A\n"
RUN_B = "1 Q0 b 1 9 B\n1 Q0 d 2 9 B\n1 Q0 a 3 1 B\n"
TOPICS = "1\tfirst topic\n2\tsecond topic\n"
QRELS = "1 0 a 1\n1 0 b 0\n"


@pytest.fixture
def work(tmp_path: Path, store_address: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the input files; the test's store (once on each engine, not made
    yet) is ``POOLTOOL_DB``, which :func:`run` and subprocesses use."""
    for name, text in {"a.run": RUN_A, "b.run": RUN_B, "topics.tsv": TOPICS,
                       "qrels.txt": QRELS}.items():
        (tmp_path / name).write_text(text)
    monkeypatch.setenv("POOLTOOL_DB", store_address)
    return tmp_path


def run(work: Path, *args: str) -> tuple[int, str, str]:
    """``pooltool --db $POOLTOOL_DB ARGS`` (the store of :func:`work`)."""
    result = CliRunner().invoke(cli, ["--db", os.environ["POOLTOOL_DB"], *args])
    return result.exit_code, result.stdout, result.stderr


def test_build_pool_judge_export(work: Path) -> None:
    assert run(work, "init")[0] == 0
    assert run(work, "add-topics", str(work / "topics.tsv"))[2] == (
        f"{work / 'topics.tsv'}: 2 topics read, 2 added, 0 already present\n")
    code, out, _ = run(work, "add-runs", str(work / "a.run"), str(work / "b.run"), "--format", "csv")
    assert (code, out) == (0, f"run_tag,source_path,lines,topics\nA,{work / 'a.run'},4,2\n"
                              f"B,{work / 'b.run'},3,1\n")
    code, out, err = run(work, "pool", "--depth", "2", "--format", "json")
    assert code == 0 and err == "4 documents added; the pool now holds 4\n"
    assert json.loads(out) == [{"run_tag": "A", "pooled": 3, "unique": 2, "new": 3},
                               {"run_tag": "B", "pooled": 2, "unique": 1, "new": 2}]
    assert run(work, "export-pool")[1] == "1 a\n1 b\n1 d\n2 x\n"
    assert run(work, "import-qrels", str(work / "qrels.txt"), "--version", "v1")[0] == 0
    assert run(work, "export-pool", "--queue")[1] == "1 d\n2 x\n"
    assert run(work, "export-qrels", "--version", "v1")[1] == QRELS
    assert run(work, "export-qrels", "--unjudged-as", "-1")[1] == QRELS + "1 0 d -1\n2 0 x -1\n"
    code, out, _ = run(work, "status", "--format", "csv")
    assert out == ("topic,pooled,judged,unjudged,relevant,judged_outside,done\n"
                   "1,3,2,1,1,0,0.6666666666666666\n2,1,0,1,0,0,0.0\n")


def test_export_to_file(work: Path) -> None:
    run(work, "init")
    run(work, "import-qrels", str(work / "qrels.txt"), "--version", "v1")
    assert run(work, "export-qrels", "-o", str(work / "out.txt"))[0] == 0
    assert (work / "out.txt").read_text() == QRELS


@pytest.mark.both_engines  # each engine's own 'no store' message
def test_missing_store(work: Path, engine: str) -> None:
    code, _, err = run(work, "status")
    db = os.environ["POOLTOOL_DB"]
    missing = {"sqlite": f"no store at {db}", "postgresql": f"{db} is an empty database, not a "
               "pooltool store"}[engine]
    assert (code, err) == (1, f"Error: {missing}: create one with 'pooltool --db {db} init'\n")


def test_bad_run_is_a_clean_error_and_imports_nothing(work: Path) -> None:
    (work / "bad.run").write_text("1 Q0 a 1 3 C\n1 Q0 a 2 2 C\n")
    run(work, "init")
    code, out, err = run(work, "add-runs", str(work / "a.run"), str(work / "bad.run"))
    assert code == 1
    assert err == (f"Error: {work / 'bad.run'}:2: docno 'a' appears twice for topic '1' "
                   "in run 'C' (first on line 1)\n")
    assert "Traceback" not in out + err
    assert run(work, "pool", "--depth", "1")[2] == (
        "Error: the store has no runs to pool: add some with 'pooltool add-runs'\n")


def test_bad_qrels_is_a_clean_error(work: Path) -> None:
    (work / "bad.txt").write_text("1 0 a 1\n1 0 b 1.5\n")
    run(work, "init")
    code, _, err = run(work, "import-qrels", str(work / "bad.txt"), "--version", "v")
    assert (code, err) == (1, f"Error: {work / 'bad.txt'}:2: grade '1.5' is not an integer\n")
    assert run(work, "export-qrels")[1] == ""


def test_python_dash_m_entry_point() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pooltool", "--help"], capture_output=True,
                          text=True, check=True)
    assert "Build IR test collections the TREC way" in done.stdout


def test_demo_builds_a_store(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", str(tmp_path / "d")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "d" / "pooltool.db").is_file()
    assert "Next:" in result.stdout and "judge --assessor" in result.stdout


DEMO_TOPICS = 10  # demo/topics.xml


@pytest.mark.both_engines  # a PostgreSQL store is never replaced
def test_demo_builds_where_db_says(store_address: str, tmp_path: Path) -> None:
    """A tester's ``pooltool --db URL demo`` built a temporary SQLite store instead."""
    result = CliRunner().invoke(cli, ["--db", store_address, "demo"])
    assert result.exit_code == 0, result.output
    assert f"Demo store: {store_address}\n" in result.stdout
    assert f"--db {store_address} judge --assessor you" in result.stdout
    status = CliRunner().invoke(cli, ["--db", store_address, "status", "--format", "csv"])
    assert status.exit_code == 0 and status.stdout.count("\n") == 1 + DEMO_TOPICS
    again = CliRunner().invoke(cli, ["--db", store_address, "demo"])
    if store_address.startswith("postgresql://"):  # append-only: never replaced
        assert again.exit_code == 1
        assert "already holds a pooltool store: the demo builds into a database" in again.stderr
    else:  # an untouched demo file is rebuilt, as in a FOLDER
        assert again.exit_code == 0, again.output
    both = CliRunner().invoke(cli, ["--db", store_address, "demo", str(tmp_path / "d")])
    assert both.exit_code == 2 and "give FOLDER or --db, not both" in both.stderr


def test_unwritable_output_is_a_clean_error(work: Path) -> None:
    run(work, "init")
    run(work, "import-qrels", str(work / "qrels.txt"), "--version", "v1")
    code, _, err = run(work, "export-qrels", "-o", str(work / "missing" / "q.txt"))
    assert (code, err) == (1, f"Error: {work / 'missing' / 'q.txt'}: No such file or directory\n")


@pytest.mark.both_engines  # the write lock
def test_a_locked_store_is_a_clean_error(work: Path, engine: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import pooltool.store.store as store_module
    from pooltool.store import JudgmentStore

    run(work, "init")
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.05)
    with JudgmentStore.open(os.environ["POOLTOOL_DB"]) as holder, holder.writing():
        code, _, err = run(work, "import-qrels", str(work / "qrels.txt"), "--version", "v1")
    # said before waiting, on either engine
    assert err.startswith("another process is writing to")
    assert code == 1 and err.splitlines()[-1].startswith("Error: the store is busy")
    assert run(work, "qrels", "versions", "--format", "csv")[1].count("\n") == 1


@pytest.mark.sqlite_only  # the demo is a SQLite file
def test_demo_never_overwrites_a_real_store(work: Path) -> None:
    assert CliRunner().invoke(cli, ["--db", str(work / "pooltool.db"), "init"]).exit_code == 0
    result = CliRunner().invoke(cli, ["demo", str(work)])
    assert result.exit_code == 1
    assert "already exists and is not a demo store" in result.stderr


def test_blank_names_are_refused(work: Path) -> None:
    run(work, "init")
    code, _, err = run(work, "import-qrels", str(work / "qrels.txt"), "--version", " ")
    assert code == 2 and "version must not be blank" in err


def test_export_for_an_assessor_who_judged_nothing(work: Path) -> None:
    run(work, "init")
    run(work, "import-qrels", str(work / "qrels.txt"), "--version", "v1", "--assessor", "ann")
    code, _, err = run(work, "export-qrels", "--policy", "assessor:bob")
    assert (code, err) == (1, "Error: no judgments by assessor 'bob' (assessors: ann)\n")
    assert run(work, "export-qrels", "--policy", "assessor:ann")[1] == QRELS


def test_demo_keeps_a_demo_store_you_worked_in(tmp_path: Path) -> None:
    from pooltool.store import JudgmentStore

    assert CliRunner().invoke(cli, ["demo", str(tmp_path)]).exit_code == 0
    assert CliRunner().invoke(cli, ["demo", str(tmp_path)]).exit_code == 0  # untouched: rebuilt
    with JudgmentStore.open(tmp_path / "pooltool.db") as store:
        store.record_judgment("1", "argparse", 2, "me")
    result = CliRunner().invoke(cli, ["demo", str(tmp_path)])
    assert result.exit_code == 1 and "holds judgments or versions you added" in result.stderr


def test_bad_cutoffs_and_blank_pool_names(work: Path) -> None:
    code, _, err = run(work, "recall", str(work / "a.run"), "--qrels", str(work / "qrels.txt"),
                       "-k", "10,,100")
    assert code == 2 and "expected comma-separated integers" in err
    run(work, "init")
    assert run(work, "pool", "--depth", "1", "--pool", " ")[0] == 2


def test_broken_pipe_is_quiet(work: Path) -> None:
    """`pooltool export-qrels | head` must not end in 'Error: Broken pipe'."""
    import subprocess
    import sys

    run(work, "init")
    (work / "big.txt").write_text("".join(f"1 0 d{i} 1\n" for i in range(20000)))
    run(work, "import-qrels", str(work / "big.txt"), "--version", "v")
    shell = f"{sys.executable} -m pooltool export-qrels | head -1"  # --db: $POOLTOOL_DB
    done = subprocess.run(shell, shell=True, capture_output=True, text=True, check=False)
    assert done.stdout == "1 0 d0 1\n" and done.stderr == ""


def test_help_lists_commands_without_importing_pandas() -> None:
    """Start-up: `pooltool --help` imports neither pandas nor the store nor Arrow."""
    code = ("import sys\nfrom pooltool.cli import cli\n"
            "try:\n    cli(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = ('pandas', 'numpy', 'sqlite_utils', 'pyarrow', 'textual', 'rich')\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & set(heavy)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "  recall  " in done.stdout and "  add-runs  " in done.stdout
    assert done.stdout.splitlines()[-1] == "[]"


def test_command_index_matches_the_commands_the_modules_register() -> None:
    group = cli
    for module in COMMAND_MODULES:
        importlib.import_module(f"pooltool.cli.{module}")
    index = command_index()
    assert set(index) == set(group.commands)
    for name, command in group.commands.items():
        listing = index[name].listing
        assert (listing.get_short_help_str(60), listing.hidden) == (
            command.get_short_help_str(60), command.hidden), name
    for name, entry in index.items():  # the one-command look-up the group runs
        found = command_entry(name)
        assert found is not None and found.module == entry.module, name
    assert command_entry("no-such-command") is None


def test_demo_next_steps_call_pooltool_as_it_was_called(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pooltool", "demo", str(tmp_path / "d")],
                          capture_output=True, text=True, check=True)
    steps = done.stdout.split("Next:\n")[1].splitlines()
    assert len(steps) == 4
    assert all(step.startswith(f"  {sys.executable} -m pooltool --db ") for step in steps)


def test_a_pipe_is_refused_naming_it(tmp_path: Path) -> None:
    assert CliRunner().invoke(cli, ["--db", str(tmp_path / "s.db"), "init"]).exit_code == 0
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # what <(zcat run.gz) hands over, as /dev/fd/63
    reason = ("is a pipe or device, not a regular file (pooltool reads an input more than once: "
              "hash, fast reader, strict reader); save it to a file first, gzip files are read "
              "as they are")
    for args in (["add-runs", str(fifo)], ["recall", str(fifo), "--qrels", str(fifo)],
                 ["recall", "--qrels", str(fifo), str(fifo)]):
        result = CliRunner().invoke(cli, ["--db", str(tmp_path / "s.db"), *args])
        assert (result.exit_code, result.stderr) == (1, f"Error: {fifo}: {reason}\n"), args


def test_a_folder_given_as_a_run_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    result = CliRunner().invoke(cli, ["recall", str(folder), "--qrels", str(qrels)])
    assert (result.exit_code, result.stderr) == (
        1, f"Error: {folder}: is a folder, not a file (its files: {folder}/*)\n")


def test_adaptive_pool_status_and_export(work: Path) -> None:
    run(work, "init")
    run(work, "add-runs", str(work / "a.run"), str(work / "b.run"))
    code, _, err = run(work, "pool", "--name", "live", "--strategy", "mtf", "--budget", "2",
                       "--format", "csv")
    assert code == 0 and "adaptive pool 'live' made: strategy mtf, 2 runs, budget 2" in err
    assert run(work, "export-pool", "--pool", "live")[1] == "1 a\n2 x\n"  # first choices
    assert run(work, "import-qrels", str(work / "qrels.txt"), "--version", "v1")[0] == 0
    code, out, _ = run(work, "status", "--pool", "live", "--format", "csv")
    assert out.splitlines()[:2] == [
        "topic,pooled,judged,unjudged,relevant,judged_outside,done,budget,budget_used,"
        "relevant_found,recent_rate,est_unfound",
        # a (relevant) was chosen and judged; b judged outside the pool; of the runs'
        # a, b, c, d, c and d are unjudged: 1/1 * 2
        "1,1,1,0,1,1,1.0,2,1,1,1.0,2.0"]
    assert run(work, "pool", "--name", "x", "--depth", "2", "--strategy", "mtf")[0] == 2
    code, _, err = run(work, "pool", "--name", "live", "--strategy", "nosuch")
    assert code != 0 and "unknown strategy 'nosuch'" in err
