"""pooltool.cli.sources: the one place commands load runs and qrels, from files or the store."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.cli.sources import load_qrels, load_runs, load_runs_after, stored_qrels
from pooltool.errors import DuplicateRunTag, FormatError, StoreError, UnknownRun
from pooltool.records import RUN_COLUMNS


@pytest.fixture
def folder(tmp_path: Path, store_address: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store holding run ``r1`` and qrels version ``v1`` (``POOLTOOL_DB``, once on each
    engine: see :func:`stored`), beside files r1.txt, r2.txt, qrels.txt."""
    (tmp_path / "r1.txt").write_text("1 Q0 a 1 2 r1\n1 Q0 b 2 1 r1\n")
    (tmp_path / "r2.txt").write_text("1 Q0 b 1 2 r2\n2 Q0 c 1 1 r2\n")
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n1 0 b 0\n")
    db = store_address
    monkeypatch.setenv("POOLTOOL_DB", db)
    for args in (["init"], ["add-runs", str(tmp_path / "r1.txt")],
                 ["import-qrels", str(tmp_path / "qrels.txt"), "--version", "v1"]):
        assert CliRunner().invoke(cli, ["--db", db, *args]).exit_code == 0
    return tmp_path


def context(db: str | Path) -> click.Context:
    return click.Context(cli, obj=db)


def stored() -> click.Context:
    """The context of a command on :func:`folder`'s store."""
    return context(os.environ["POOLTOOL_DB"])


def test_runs_from_files_and_the_store_in_the_order_given(folder: Path) -> None:
    runs = load_runs(stored(), [str(folder / "r2.txt"), "r1"])
    assert list(runs.columns) == RUN_COLUMNS
    assert runs["run_tag"].tolist() == ["r2", "r2", "r1", "r1"]
    assert runs["docno"].tolist() == ["b", "c", "a", "b"]


def test_files_alone_need_no_store(folder: Path) -> None:
    runs = load_runs(context(folder / "absent.db"), [str(folder / "r1.txt")])
    assert runs["run_tag"].unique().tolist() == ["r1"]
    assert not (folder / "absent.db").exists()


def test_no_spec_gives_an_empty_frame(folder: Path) -> None:
    runs = load_runs(context(folder / "absent.db"), [])
    assert runs.empty and list(runs.columns) == RUN_COLUMNS


def test_a_tag_held_twice_is_refused(folder: Path) -> None:
    with pytest.raises(DuplicateRunTag) as caught:
        load_runs(stored(), ["r1", str(folder / "r1.txt")])
    assert str(caught.value) == f"run tag 'r1' is in both the store (r1) and {folder / 'r1.txt'}"
    with pytest.raises(DuplicateRunTag) as caught:
        load_runs(stored(), [str(folder / "r2.txt"), str(folder / "r2.txt")])
    assert str(caught.value) == f"run tag 'r2' is in both {folder / 'r2.txt'} and {folder / 'r2.txt'}"


def test_unknown_names_say_what_was_tried(folder: Path) -> None:
    absent = folder / "absent.db"
    with pytest.raises(UnknownRun) as caught:
        load_runs(context(absent), [str(folder / "r1.txt"), "bm25"])
    assert str(caught.value) == (
        f"'bm25' is not a file, and there is no store at {absent} (set --db or POOLTOOL_DB)")
    with pytest.raises(UnknownRun) as caught:
        load_runs(stored(), ["bm25"])
    assert str(caught.value) == "'bm25' is neither a file nor a run in the store"



def test_runs_after_first_ranked_and_in_the_order_given(folder: Path) -> None:
    """Files read in threads while ``first`` runs: its value, then load_runs' frame, with
    each line's trec_eval rank (a tie on score broken by docno descending)."""
    (folder / "r3.txt").write_text("2 Q0 x 1 5 r3\n1 Q0 a 1 1 r3\n1 Q0 b 2 1 r3\n1 Q0 c 3 2 r3\n")
    specs = [str(folder / "r3.txt"), "r1", str(folder / "r2.txt")]
    calls: list[str] = []

    def first() -> int:
        calls.append("first")
        return 7

    value, runs = load_runs_after(stored(), specs, first, ranked=True)
    assert value == 7 and calls == ["first"]
    assert runs["run_tag"].tolist() == ["r3"] * 4 + ["r1", "r1", "r2", "r2"]
    assert runs["docno"].tolist() == ["x", "a", "b", "c", "a", "b", "b", "c"]
    assert runs["trec_rank"].tolist() == [1, 3, 2, 1, 1, 2, 1, 1]
    plain = load_runs(stored(), specs)
    assert runs[RUN_COLUMNS].equals(plain)


def test_runs_after_first_raise_what_first_raises_before_a_bad_file(folder: Path) -> None:
    (folder / "bad.txt").write_text("1 Q0 a 1 x bad\n")

    def first() -> None:
        raise StoreError("no qrels")

    with pytest.raises(StoreError, match="no qrels"):
        load_runs_after(stored(), [str(folder / "bad.txt"), str(folder / "r2.txt")], first)
    with pytest.raises(FormatError, match=r"bad\.txt:1: score 'x' is not a number"):
        load_runs_after(stored(), [str(folder / "r2.txt"), str(folder / "bad.txt"), "nosuch"],
                        lambda: None)

def test_qrels_from_a_file_or_a_version(folder: Path) -> None:
    ctx = stored()
    from_file = load_qrels(ctx, str(folder / "qrels.txt"))
    from_store = load_qrels(ctx, "v1")
    assert from_file[["topic", "docno", "grade"]].values.tolist() == [["1", "a", 1], ["1", "b", 0]]
    assert from_store[["topic", "docno", "grade"]].values.tolist() == [["1", "a", 1], ["1", "b", 0]]
    assert stored_qrels(ctx, None)["docno"].tolist() == ["a", "b"]


def test_qrels_without_a_store(folder: Path) -> None:
    with pytest.raises(StoreError, match="^'v1' is neither a qrels file nor a stored version "
                                         "\\(no store at .*absent.db: create"):
        load_qrels(context(folder / "absent.db"), "v1")
