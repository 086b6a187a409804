"""Runs and qrels for topics the store does not hold are named, or refused with --strict-topics."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.errors import UnknownTopic
from pooltool.records import Topic
from pooltool.store import JudgmentStore
from pooltool.store.topic_check import UnknownTopics

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

RUN = "7 Q0 a 1 3 A\n07 Q0 b 1 2 A\n999 Q0 c 1 1 A\n"
QRELS = "7 0 a 1\n999 0 c 0\n"


@pytest.fixture
def store(memory_store: JudgmentStore) -> JudgmentStore:
    store = memory_store
    store.add_topics([Topic(str(t), f"topic {t}") for t in range(1, 11)], "topics.tsv")
    return store


def test_unknown_topics_are_reported_after_the_import(store: JudgmentStore,
                                                      tmp_path: Path) -> None:
    run = tmp_path / "a.run"
    run.write_text(RUN)
    found: list[UnknownTopics] = []
    store.add_runs([run], on_unknown_topics=found.append)
    assert found == [UnknownTopics(str(run), ["07", "999"], {"07": "7"})]
    assert found[0].message() == f"{run}: 2 topic(s) not in the store: 07 (likely 7), 999"
    assert store.run_tags() == ["A"]


def test_strict_topics_refuse_the_whole_import(store: JudgmentStore, tmp_path: Path) -> None:
    good, bad = tmp_path / "good.run", tmp_path / "bad.run"
    good.write_text("1 Q0 a 1 1 G\n")
    bad.write_text(RUN)
    with pytest.raises(UnknownTopic, match=r"^.*bad\.run: 2 topic\(s\) not in the store: "
                                           r"07 \(likely 7\), 999; nothing was imported$"):
        store.add_runs([good, bad], strict_topics=True)
    assert store.run_tags() == []
    qrels = tmp_path / "q.txt"
    qrels.write_text(QRELS)
    with pytest.raises(UnknownTopic, match=r"q\.txt: 1 topic\(s\) not in the store: 999; "):
        store.import_qrels(qrels, "v1", strict_topics=True)
    assert store.judgment_log().empty and store.versions().empty


def test_a_store_without_topics_checks_nothing(memory_store: JudgmentStore,
                                               tmp_path: Path) -> None:
    run = tmp_path / "a.run"
    run.write_text(RUN)
    found: list[UnknownTopics] = []
    store = memory_store
    store.add_runs([run], strict_topics=True, on_unknown_topics=found.append)
    assert found == [] and store.run_tags() == ["A"]


def test_a_long_list_names_the_first_five(store: JudgmentStore, tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{t} 0 d 1\n" for t in (1, 11, 12, 13, 14, 15, 16, 17, 0o10)))
    found: list[UnknownTopics] = []
    store.import_qrels(qrels, "v1", on_unknown_topics=found.append)
    assert found[0].message() == (f"{qrels}: 7 topic(s) not in the store: 11, 12, 13, 14, "
                                  "15, ... (2 more)")


def test_the_cli_names_unknown_topics_or_refuses_them(tmp_path: Path) -> None:
    (tmp_path / "topics.tsv").write_text("".join(f"{t}\ttopic {t}\n" for t in range(1, 11)))
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "q.txt").write_text(QRELS)
    db = str(tmp_path / "s.db")

    def call(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(cli, ["--db", db, *args])

    assert call("init").exit_code == 0
    assert call("add-topics", str(tmp_path / "topics.tsv")).exit_code == 0
    refused = call("import-qrels", str(tmp_path / "q.txt"), "--version", "v1", "--strict-topics")
    assert (refused.exit_code, refused.stderr) == (
        1, f"Error: {tmp_path / 'q.txt'}: 1 topic(s) not in the store: 999; "
           "nothing was imported\n")
    added = call("add-runs", str(tmp_path / "a.run"), "--format", "csv")
    assert added.exit_code == 0
    assert added.stderr == (f"warning: {tmp_path / 'a.run'}: 2 topic(s) not in the store: "
                            "07 (likely 7), 999; imported anyway (--strict-topics refuses "
                            "them)\n")
    assert call("qrels", "versions", "--format", "csv").stdout.count("\n") == 1
