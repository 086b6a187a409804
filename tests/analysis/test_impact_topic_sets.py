"""impact between qrels whose topic sets differ: the topics on one side only are named, and
each run's mean change splits into a judgments part and a topic-set part (issue 24, 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pooltool.analysis.impact import qrels_impact
from pooltool.cli import cli
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run

RUN = "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n2 Q0 c 1 1 r\n3 Q0 d 1 1 r\n"
# A: topic 1 {a, b relevant}, topic 3 {d}; B: topic 1 {a relevant, b not}, topic 2 {c, e}
QRELS_A = "1 0 a 1\n1 0 b 1\n3 0 d 1\n"
QRELS_B = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 e 1\n"


def test_the_parts_sum_to_the_change_by_hand() -> None:
    result = qrels_impact(read_run(RUN), read_qrels(QRELS_A), read_qrels(QRELS_B), k=1)
    row = result.per_run.iloc[0]
    # Recall@1 under A: topic 1 1/2, topic 3 1 -> 3/4; under B: topic 1 1, topic 2 1/2 -> 3/4
    assert (row["recall_a"], row["recall_b"], row["recall_change"]) == (0.75, 0.75, 0.0)
    # judgments: topic 1, the one topic both score, 1 - 1/2; topic set: the rest,
    # (3/4 - 1) - (3/4 - 1/2) = -1/2
    assert row["recall_change_judgments"] == 0.5
    assert row["recall_change_topics"] == -0.5
    assert row["recall_change_judgments"] + row["recall_change_topics"] == row["recall_change"]
    assert (result.topics_only_a, result.topics_only_b) == (["3"], ["2"])


def test_a_topic_added_moves_the_mean_and_no_topic(tmp_path: Path) -> None:
    """The issue's case: B judges a topic A lacks; no shared topic moves, the mean does."""
    (tmp_path / "r.run").write_text(RUN)
    (tmp_path / "a.txt").write_text("1 0 a 1\n")
    (tmp_path / "b.txt").write_text("1 0 a 1\n2 0 c 1\n2 0 e 1\n")
    args = ["impact", "--from", str(tmp_path / "a.txt"), "--to", str(tmp_path / "b.txt"),
            str(tmp_path / "r.run"), "-k", "1"]
    result = CliRunner(env={"COLUMNS": "300"}).invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert ("note: 1 topic(s) only in qrels B: 2 (they change the means, "
            "recall_change_topics, not a topic's recall)\n") in result.stderr
    assert "no topic's recall@1 changed for any run on the topics both qrels hold" in \
        result.stdout
    document = json.loads(CliRunner().invoke(cli, [*args, "--format", "json"]).stdout)
    row = document["runs"][0]
    # A: topic 1 recall 1 -> mean 1; B: topics 1 (1) and 2 (1/2) -> 3/4: all from topic 2
    assert (row["recall_change"], row["recall_change_judgments"],
            row["recall_change_topics"]) == (-0.25, 0.0, -0.25)
    assert document["topics_only"] == {"a": [], "b": ["2"]}
    import jsonschema

    root = Path(__file__).resolve().parents[2]
    jsonschema.validate(document, json.loads((root / "schemas" / "impact-v1.json").read_text()))


def test_help_states_the_decomposition() -> None:
    text = " ".join(CliRunner().invoke(cli, ["impact", "--help"]).output.split())
    assert ("recall_change_topics = recall_change - recall_change_judgments" in text)
    assert pytest.importorskip("pooltool.analysis.impact").__doc__.count("recall_change_topics")
