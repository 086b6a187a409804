"""The judgment store: provenance, one-transaction imports, the append-only log, versions."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pooltool.errors import (
    DuplicateRunTag,
    FormatError,
    InvalidArgument,
    StoreError,
    UnknownRun,
    UnknownTopic,
    UnknownVersion,
)
from pooltool.records import Document, Topic
from pooltool.store import GradeLevel, JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

RUN_A = "1 Q0 d1 1 3 A\n1 Q0 d2 2 2 A\n2 Q0 d3 1 1 A\n"


@pytest.fixture
def store(memory_store: JudgmentStore) -> JudgmentStore:
    return memory_store


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_open_refuses_a_missing_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at .*absent.db: create one with"):
        JudgmentStore.open(tmp_path / "absent.db")


def test_open_refuses_a_non_sqlite_file(tmp_path: Path) -> None:
    path = write(tmp_path, "x.db", "not a database" * 100)
    with pytest.raises(StoreError, match="is not a pooltool store"):
        JudgmentStore.open(path)


def test_file_store_uses_wal(tmp_path: Path) -> None:
    with JudgmentStore.open(tmp_path / "s.db", create=True) as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_add_runs_keeps_provenance_and_trec_rank(store: JudgmentStore, tmp_path: Path) -> None:
    path = write(tmp_path, "a.run", RUN_A + "1 Q0 d9 1 5 B\n")
    added = store.add_runs([path])
    assert added.values.tolist() == [["A", str(path), 3, 2], ["B", str(path), 1, 1]]
    runs = store.runs()
    assert runs["sha256"].nunique() == 1 and len(runs["sha256"][0]) == 64
    assert store.run_frame("A")[["topic", "docno", "trec_rank"]].values.tolist() == [
        ["1", "d1", 1], ["1", "d2", 2], ["2", "d3", 1]]


def test_a_bad_file_imports_nothing(store: JudgmentStore, tmp_path: Path) -> None:
    good = write(tmp_path, "good.run", RUN_A)
    bad = write(tmp_path, "bad.run", "1 Q0 x 1 1 C\n1 Q0 y 2 oops C\n")
    with pytest.raises(FormatError, match=r"bad\.run:2: score 'oops' is not a number"):
        store.add_runs([good, bad])
    assert store.run_tags() == []
    assert store.query("SELECT COUNT(*) AS n FROM run_columns")["n"][0] == 0


def test_a_run_tag_cannot_be_imported_twice(store: JudgmentStore, tmp_path: Path) -> None:
    path = write(tmp_path, "a.run", RUN_A)
    store.add_runs([path])
    with pytest.raises(DuplicateRunTag, match="run tag 'A' is already in the store"):
        store.add_runs([write(tmp_path, "again.run", RUN_A)])
    assert len(store.run_frame("A")) == 3


def test_unknown_run_names_the_known_ones(store: JudgmentStore, tmp_path: Path) -> None:
    store.add_runs([write(tmp_path, "a.run", RUN_A)])
    with pytest.raises(UnknownRun, match=r"no run tagged 'Z' in the store \(runs: A\)"):
        store.run_frame("Z")


def test_topics_are_never_overwritten(store: JudgmentStore) -> None:
    first = store.add_topics([Topic("1", "q", "d", "n")], "t.xml")
    again = store.add_topics([Topic("1", "q", "d", "n")], "t.xml")
    assert (first.added, again.added, again.skipped) == (1, 0, 1)
    with pytest.raises(StoreError, match="topic '1' is already stored with a different"):
        store.add_topics([Topic("2", "x"), Topic("1", "other")], "t2.xml")
    assert store.topics()["topic"].tolist() == ["1"]
    assert store.topic("1") == Topic("1", "q", "d", "n")
    with pytest.raises(UnknownTopic):
        store.topic("9")


def test_documents_keep_their_first_text(store: JudgmentStore) -> None:
    store.add_documents([Document("d1", "T", "first")], "a.jsonl")
    summary = store.add_documents([Document("d1", "T", "second"), Document("d2", "", "x")], "b")
    assert (summary.read, summary.added) == (2, 1)
    assert store.document("d1") == Document("d1", "T", "first")
    assert store.document("nope") is None


def test_judgment_log_is_append_only(store: JudgmentStore) -> None:
    jid = store.record_judgment("1", "d1", 2, "ann", ms_spent=1500, note="clear")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.conn.execute("UPDATE judgments SET grade = 0 WHERE judgment_id = ?", [jid])
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.conn.execute("DELETE FROM judgments")
    row = store.judgment_log().iloc[0]
    assert (row.grade, row.assessor, row.ms_spent, row.note, row.origin) == (
        2, "ann", 1500, "clear", "api")


def test_undo_falls_back_to_the_previous_grade(store: JudgmentStore) -> None:
    store.record_judgment("1", "d1", 0, "ann")
    second = store.record_judgment("1", "d1", 2, "ann")
    assert store.qrels()["grade"].tolist() == [2]
    store.retract(second, "ann")
    assert store.qrels()["grade"].tolist() == [0]
    assert len(store.judgment_log()) == 3
    with pytest.raises(StoreError, match="already retracted"):
        store.retract(second, "ann")
    with pytest.raises(StoreError, match="no judgment 99"):
        store.retract(99, "ann")


def test_policies(store: JudgmentStore) -> None:
    store.record_judgment("1", "d", 2, "ann")
    store.record_judgment("1", "d", 0, "bob")
    store.record_judgment("1", "d", 0, "cat")
    store.record_judgment("1", "e", 1, "ann")
    store.record_judgment("1", "e", 3, "bob")

    def grades(policy: str) -> dict[str, int]:
        q = store.qrels(policy=policy)
        return dict(zip(q["docno"], q["grade"], strict=True))

    assert grades("latest") == {"d": 0, "e": 3}
    assert grades("max") == {"d": 2, "e": 3}
    assert grades("majority") == {"d": 0, "e": 3}  # e: a 1-1 tie goes to the later grade
    assert grades("assessor:ann") == {"d": 2, "e": 1}
    with pytest.raises(InvalidArgument, match="unknown policy 'best'"):
        store.qrels(policy="best")


QRELS_V1 = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n"
QRELS_V2 = "1 0 d1 0\n2 0 d3 2\n2 0 d4 1\n"


def test_versions_are_exported_exactly(store: JudgmentStore, tmp_path: Path) -> None:
    v1 = write(tmp_path, "v1.txt", QRELS_V1)
    result = store.import_qrels(v1, "v1")
    assert (result["added"], result["unchanged"]) == (3, 0)
    store.record_judgment("1", "d9", 1, "ann")
    result = store.import_qrels(write(tmp_path, "v2.txt", QRELS_V2), "v2", replace=True)
    # d1 regraded and d4 new are added, d3 unchanged; only the importer's own d2 is
    # retracted: ann's d9 is hers, not the file's to take back
    assert (result["added"], result["unchanged"], result["retracted"]) == (2, 1, 1)

    def lines(version: str, policy: str = "latest") -> list[str]:
        q = store.qrels(version, policy)
        return [" ".join(map(str, row)) for row in q.values.tolist()]

    assert lines("v1") == QRELS_V1.splitlines()
    assert sorted(lines("v2", "assessor:qrels")) == sorted(QRELS_V2.splitlines())
    assert sorted(lines("v2")) == sorted(QRELS_V2.splitlines() + ["1 0 d9 1"])
    with pytest.raises(StoreError, match="qrels version 'v1' already exists"):
        store.import_qrels(v1, "v1")
    with pytest.raises(UnknownVersion, match=r"no qrels version 'v3' .*versions: v1, v2"):
        store.qrels("v3")


def test_an_agreeing_import_is_recorded_as_the_importers(store: JudgmentStore,
                                                         tmp_path: Path) -> None:
    """A TUI assessor's grade does not make an equal imported grade 'unchanged': the
    import is nist's own judgment, and it stays when ann takes hers back."""
    ann = store.record_judgment("1", "d1", 2, "ann", origin="tui")
    path = write(tmp_path, "nist.txt", "1 0 d1 2\n1 0 d2 0\n")
    result = store.import_qrels(path, "nist", assessor="nist")
    assert (result["added"], result["unchanged"]) == (2, 0)
    store.retract(ann, "ann", origin="tui")
    assert store.qrels()[["docno", "grade"]].values.tolist() == [["d1", 2], ["d2", 0]]
    assert store.qrels(policy="assessor:ann").empty
    assert len(store.qrels(policy="assessor:nist")) == 2
    again = store.import_qrels(path, "nist-again", assessor="nist")
    assert (again["added"], again["unchanged"]) == (0, 2)


def test_replace_retracts_only_the_importers_judgments(store: JudgmentStore,
                                                       tmp_path: Path) -> None:
    store.import_qrels(write(tmp_path, "a.txt", "1 0 d1 1\n1 0 d2 1\n"), "a1", assessor="al")
    store.record_judgment("1", "d2", 0, "al")  # al's correction: two live rows of d2
    store.record_judgment("1", "d2", 1, "bo")
    result = store.import_qrels(write(tmp_path, "a2.txt", "1 0 d1 1\n"), "a2", assessor="al",
                                replace=True)
    assert (result["added"], result["unchanged"], result["retracted"]) == (0, 1, 2)
    assert store.qrels("a2", "assessor:al")[["docno", "grade"]].values.tolist() == [["d1", 1]]
    assert store.qrels("a2", "assessor:bo")[["docno", "grade"]].values.tolist() == [["d2", 1]]


def test_bad_qrels_import_nothing(store: JudgmentStore, tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.txt", "1 0 d1 1\n1 0 d2 x\n")
    with pytest.raises(FormatError, match=r"bad\.txt:2: grade 'x' is not an integer"):
        store.import_qrels(bad, "v1")
    assert store.judgment_log().empty and store.versions().empty


def test_grade_scale(store: JudgmentStore) -> None:
    assert [g.grade for g in store.grade_scale()] == [0, 1, 2, 3]
    store.set_grade_scale([GradeLevel(0, "n", "no"), GradeLevel(1, "y", "yes")])
    assert store.grade_scale() == [GradeLevel(0, "n", "no"), GradeLevel(1, "y", "yes")]
    with pytest.raises(InvalidArgument, match="distinct"):
        store.set_grade_scale([GradeLevel(0, "n", "no"), GradeLevel(1, "n", "yes")])


def test_schema_file_matches_migrations() -> None:
    """schemas/store.sql is the schema a new SQLite store gets; regenerate it when
    migrations change (PostgreSQL's: tests/test_store_postgresql.py)."""
    store = JudgmentStore.memory()
    rows = store.conn.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY type DESC, name").fetchall()
    actual = ";\n\n".join(r[0] for r in rows) + ";\n"
    expected = (Path(__file__).resolve().parents[1] / "schemas" / "store.sql").read_text()
    assert actual == expected


def test_another_applications_database_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    for create in (False, True):
        with pytest.raises(StoreError, match=r"database of something else \(tables: t\)"):
            JudgmentStore.open(path, create=create)
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("t",)]


def test_an_empty_file_is_a_store_only_when_created(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with pytest.raises(StoreError, match="is empty, not a pooltool store"):
        JudgmentStore.open(path)
    assert path.stat().st_size == 0
    JudgmentStore.open(path, create=True).close()
    JudgmentStore.open(path).close()


def test_an_unopenable_path_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open a store at"):
        JudgmentStore.open(tmp_path / "no" / "such" / "dir.db", create=True)


def test_a_tag_in_two_files_names_both(store: JudgmentStore, tmp_path: Path) -> None:
    a = write(tmp_path, "a.run", RUN_A)
    b = write(tmp_path, "b.run", RUN_A)
    with pytest.raises(DuplicateRunTag, match=r"b\.run: run tag 'A' is also in .*a\.run; nothing"):
        store.add_runs([a, b])
    assert store.run_tags() == []


@pytest.mark.parametrize(("args", "message"), [
    (("1", "d", 1.5, "ann"), "a grade must be an integer, got 1.5"),
    (("1", "d", True, "ann"), "a grade must be an integer, got True"),
    (("1", "d", 2**70, "ann"), "out of range"),
    (("1", "d", 1, " "), "the judgment's assessor must be a non-blank string"),
    (("", "d", 1, "ann"), "the judgment's topic must be a non-blank string"),
])
def test_bad_judgments_are_refused(store: JudgmentStore, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        store.record_judgment(*args)
    assert store.judgment_log().empty
    with pytest.raises(InvalidArgument, match="not blank"):
        store.tag_version(" ")


def test_one_path_is_one_run_file(store: JudgmentStore, tmp_path: Path) -> None:
    assert store.add_runs(write(tmp_path, "a.run", RUN_A))["run_tag"].tolist() == ["A"]
