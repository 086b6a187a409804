"""Derived grades of copies in the qrels (pooltool/store/duplicates.py): computed from
the judgment log and the stored groups, so undo and regrade move them, versions keep
the groups of their time, splits take a copy out; the tables are append-only."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import pytest

from pooltool.duplicates import DEFAULTS, find_groups
from pooltool.errors import InvalidArgument, StoreError
from pooltool.records import Document
from pooltool.store import JudgmentStore

TEXT = " ".join(f"word{i:02d}" for i in range(40))
DOCS = [Document("a", "", TEXT), Document("b", "", TEXT.upper() + "!"),
        Document("c", "", TEXT.replace("word39", "other")),   # near: Jaccard 35/37
        Document("d", "", "nothing in common with the others at all")]


def grades(store: JudgmentStore, **options: str) -> dict[str, int]:
    qrels = store.qrels(**options)
    return {str(d): int(g) for d, g in zip(qrels["docno"], qrels["grade"], strict=True)}


def found(store: JudgmentStore, docs: list[Document] = DOCS) -> None:
    store.add_documents(docs, "<test>")
    store.add_duplicate_finding(find_groups(docs), asdict(DEFAULTS), len(docs))


@pytest.mark.both_engines
def test_exact_copies_take_the_grade_by_default_near_ones_on_request(
        memory_store: JudgmentStore) -> None:
    found(memory_store)
    memory_store.record_judgment("1", "a", 2, "alice")
    assert grades(memory_store) == {"a": 2, "b": 2}
    assert grades(memory_store, propagate="near") == {"a": 2, "b": 2, "c": 2}
    assert grades(memory_store, propagate="none") == {"a": 2}
    with pytest.raises(StoreError, match="append-only"):
        with memory_store.writing() as conn:
            conn.execute("DELETE FROM duplicate_members")


def test_undo_and_regrade_of_the_source_move_its_copies() -> None:
    store = JudgmentStore.memory()
    found(store)
    first = store.record_judgment("1", "a", 2, "alice")
    store.record_judgment("1", "a", 0, "alice")
    assert grades(store) == {"a": 0, "b": 0}
    latest = int(store.judgment_log()["judgment_id"].max())
    store.retract(latest, "alice")
    assert grades(store) == {"a": 2, "b": 2}
    store.retract(first, "alice")
    assert grades(store) == {}


def test_a_copys_own_judgment_wins_and_a_negative_grade_is_never_propagated() -> None:
    store = JudgmentStore.memory()
    found(store)
    store.record_judgment("1", "a", -1, "alice")
    assert grades(store) == {"a": -1}
    store.record_judgment("1", "b", 1, "bob")
    store.record_judgment("2", "b", 0, "bob")
    store.record_judgment("2", "a", 3, "alice")
    one, two = store.qrels(topics=["1"]), store.qrels(topics=["2"])
    assert dict(zip(one["docno"], one["grade"], strict=True)) == {"a": 1, "b": 1}
    assert dict(zip(two["docno"], two["grade"], strict=True)) == {"a": 3, "b": 0}


def test_a_split_copy_neither_gives_nor_takes_a_grade_on_its_topic() -> None:
    store = JudgmentStore.memory()
    found(store)
    store.split_copy("1", "b", "alice")
    store.record_judgment("1", "a", 2, "alice")
    store.record_judgment("2", "a", 1, "alice")
    qrels = store.qrels()
    assert sorted(zip(qrels["topic"], qrels["docno"], qrels["grade"], strict=True)) == [
        ("1", "a", 2), ("2", "a", 1), ("2", "b", 1)]
    with pytest.raises(InvalidArgument, match="in no duplicate group"):
        store.split_copy("1", "d", "alice")


def test_a_version_keeps_the_groups_of_its_time() -> None:
    store = JudgmentStore.memory()
    store.add_documents(DOCS, "<test>")
    store.record_judgment("1", "a", 2, "alice")
    store.tag_version("before")
    found(store, DOCS)
    assert grades(store, version="before") == {"a": 2}
    assert grades(store) == {"a": 2, "b": 2}


def test_derived_rows_name_their_source_judgment() -> None:
    store = JudgmentStore.memory()
    found(store)
    source = store.record_judgment("1", "a", 2, "alice")
    chosen = pd.DataFrame({"judgment_id": [source], "topic": ["1"], "iteration": ["0"],
                           "docno": ["a"], "grade": [2]})
    rows = store.propagated(chosen, "near")
    derived = rows[rows["source_judgment_id"].notna()]
    assert derived[["docno", "source_docno"]].values.tolist() == [["b", "a"], ["c", "a"]]
    assert set(derived["source_judgment_id"]) == {source}
