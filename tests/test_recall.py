"""pooltool.measures.recall on small inline runs whose values are worked out by hand."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pooltool.errors import DuplicateRunTag, FormatError, NothingToScore
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.measures import evaluate_recall, evaluate_recall_files
from pooltool.measures.trec_format import format_trec

# topic 1: relevant a (2), x (1, never retrieved); b judged 0; c pooled but -1.
# topic 2: only a non-relevant judgment. topic 3: one relevant doc, no run lines.
QRELS = read_qrels("1 0 a 2\n1 0 b 0\n1 0 c -1\n1 0 x 1\n2 0 a 0\n3 0 z 1\n")
# a and b tie at 1.0: trec_eval puts docno b first (descending); rank column is ignored.
RUN = read_run(
    "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 0.5 t\n1 Q0 d 4 0.25 t\n"
    "2 Q0 a 1 3 t\n4 Q0 q 1 1 t\n"
)


def row(result, topic: str) -> pd.Series:  # type: ignore[no-untyped-def]
    frame = result.per_topic
    return frame[frame["topic"] == topic].iloc[0]


def test_hand_computed_topic_values() -> None:
    result = evaluate_recall(RUN, QRELS, ks=(1, 2, 10))
    one = row(result, "1")
    assert (one["num_ret"], one["num_rel"], one["num_rel_ret"]) == (4, 2, 1)
    # order: b (0), a (2), c (-1), d (none)
    assert [one["num_rel_ret@1"], one["num_rel_ret@2"], one["num_rel_ret@10"]] == [0, 1, 1]
    assert [one["recall@1"], one["recall@2"], one["recall@10"]] == [0.0, 0.5, 0.5]
    assert [one["P@1"], one["P@2"], one["P@10"]] == [0.0, 0.5, 0.1]
    assert [one["ceiling@1"], one["ceiling@2"], one["ceiling@10"]] == [0.5, 1.0, 1.0]
    # unjudged: c (grade -1) and d (no line) -> 2 of 10; ranks past 4 count as judged
    assert [one["unjudged@1"], one["unjudged@2"], one["unjudged@10"]] == [0.0, 0.0, 0.2]
    # judged (ir_measures): a, b, c have a qrels line -> 3 of min(10, 4)
    assert [one["judged@1"], one["judged@2"], one["judged@10"]] == [1.0, 1.0, 0.75]
    # recall_upper@10 = (1 + 2) / (2 + 2)
    assert one["recall_upper@10"] == 0.75


def test_topic_without_relevant_scores_zero_and_counts() -> None:
    result = evaluate_recall(RUN, QRELS, ks=(10,))
    two = row(result, "2")
    assert (two["num_rel"], two["recall@10"], two["ceiling@10"], two["P@10"]) == (0, 0.0, 0.0, 0.0)
    assert result.summary.loc[0, "num_q"] == 2
    assert result.summary.loc[0, "recall"] == 0.25


def test_missing_and_ignored_topics() -> None:
    result = evaluate_recall(RUN, QRELS)
    assert result.missing_topics == {"t": ["3"]}
    assert result.ignored_topics == {"t": ["4"]}
    assert result.per_topic["topic"].tolist() == ["1", "2"]


def test_complete_scores_missing_topics_zero() -> None:
    result = evaluate_recall(RUN, QRELS, ks=(10,), complete=True)
    three = row(result, "3")
    assert (three["num_ret"], three["num_rel"], three["recall@10"], three["unjudged@10"]) == (
        0, 1, 0.0, 0.0)
    assert three["ceiling@10"] == 1.0
    assert result.summary.loc[0, "num_q"] == 3
    assert result.summary.loc[0, "recall"] == pytest.approx(0.5 / 3)
    assert result.missing_topics == {"t": ["3"]}


def test_level_two_and_negative_grades() -> None:
    result = evaluate_recall(RUN, QRELS, ks=(2,), level=2)
    one = row(result, "1")
    assert (one["num_rel"], one["recall@2"]) == (1, 1.0)
    # level 0: judged 0 counts as relevant, -1 never does
    zero = row(evaluate_recall(RUN, QRELS, ks=(4,), level=0), "1")
    assert (zero["num_rel"], zero["num_rel_ret@4"]) == (3, 2)


def test_max_docs_keeps_the_top_after_ordering() -> None:
    one = row(evaluate_recall(RUN, QRELS, ks=(10,), max_docs=1), "1")
    assert (one["num_ret"], one["num_rel_ret"], one["recall@10"]) == (1, 0, 0.0)
    one = row(evaluate_recall(RUN, QRELS, ks=(10,), max_docs=2), "1")
    assert (one["num_ret"], one["num_rel_ret"], one["unjudged@10"]) == (2, 1, 0.0)


def test_topic_ids_are_strings() -> None:
    qrels = read_qrels("9 0 a 1\n09 0 a 1\n")
    run = read_run("09 Q0 a 1 1 t\n")
    result = evaluate_recall(run, qrels, ks=(1,))
    assert result.per_topic["topic"].tolist() == ["09"]
    assert result.missing_topics == {"t": ["9"]}


def test_several_runs_keep_input_order() -> None:
    runs = pd.concat([read_run("1 Q0 x 1 1 zeta\n"), RUN], ignore_index=True)
    result = evaluate_recall(runs, QRELS, ks=(10,))
    assert result.run_tags == ["zeta", "t"]
    assert result.summary["run_tag"].tolist() == ["zeta", "t"]
    assert row(result, "1")["run_tag"] == "zeta"


def test_summary_statistics() -> None:
    qrels = read_qrels("".join(f"{t} 0 r{i} 1\n" for t, n in (("a", 1), ("b", 4), ("c", 30))
                               for i in range(n)))
    run = read_run("a Q0 r0 1 9 t\nb Q0 r0 1 9 t\nb Q0 r1 2 8 t\nc Q0 z 1 9 t\n")
    summary = evaluate_recall(run, qrels, ks=(10,)).summary.iloc[0]
    assert summary["recall"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert summary["micro_recall"] == pytest.approx(3 / 35)
    assert summary["median_recall"] == 0.5
    assert summary["min_recall"] == 0.0
    assert summary["zero_recall_share"] == pytest.approx(1 / 3)
    assert summary["ceiling"] == pytest.approx((1 + 1 + 10 / 30) / 3)
    assert (summary["recall_nrel_1"], summary["recall_nrel_2_5"]) == (1.0, 0.5)
    assert summary["recall_nrel_21_100"] == 0.0
    assert math.isnan(summary["recall_nrel_6_20"]) and math.isnan(summary["recall_nrel_gt100"])
    assert (summary["num_rel"], summary["rel_ret"]) == (35, 3)


def test_trec_layout() -> None:
    text = format_trec(evaluate_recall(RUN, QRELS, ks=(2, 10)), per_topic=True)
    lines = text.splitlines()
    assert lines[:4] == ["num_ret               \t1\t4", "num_rel               \t1\t2",
                         "num_rel_ret           \t1\t1", "P_2                   \t1\t0.5000"]
    assert "recall_10             \tall\t0.2500" in lines
    assert lines[-1] == "unj_10                \tall\t0.1000"
    assert "runid" not in text


def test_trec_layout_names_runs_when_several() -> None:
    runs = pd.concat([RUN, read_run("1 Q0 a 1 1 u\n")], ignore_index=True)
    lines = format_trec(evaluate_recall(runs, QRELS, ks=(10,))).splitlines()
    assert [line for line in lines if line.startswith("runid")] == [
        "runid                 \tall\tt", "runid                 \tall\tu"]


@pytest.mark.parametrize("kwargs, message", [
    ({"ks": ()}, "at least one cutoff"),
    ({"ks": (0, 10)}, "cutoff k must be an integer >= 1"),
    ({"level": -1}, "relevance level must be an integer >= 0"),
    ({"max_docs": 0}, "max_docs"),
])
def test_bad_options(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_recall(RUN, QRELS, **kwargs)


def test_bad_frames() -> None:
    with pytest.raises(ValueError, match="lacks column"):
        evaluate_recall(RUN.drop(columns="score"), QRELS)
    nan = RUN.assign(score=np.where(RUN["docno"] == "a", np.nan, RUN["score"]))
    with pytest.raises(ValueError, match="without NaN"):
        evaluate_recall(nan, QRELS)
    with pytest.raises(ValueError, match="must hold strings"):
        evaluate_recall(RUN.assign(topic=1), QRELS)
    with pytest.raises(ValueError, match="two different grades"):
        evaluate_recall(RUN, pd.concat([QRELS, QRELS.assign(grade=5)]))
    duplicate = pd.concat([RUN, RUN.iloc[:1]], ignore_index=True)
    with pytest.raises(ValueError, match="docno 'a' appears twice for topic '1'"):
        evaluate_recall(duplicate, QRELS)


def test_run_sharing_no_topic() -> None:
    with pytest.raises(NothingToScore, match="run 'u' has no topic in the qrels"):
        evaluate_recall(read_run("7 Q0 a 1 1 u\n"), QRELS)
    assert evaluate_recall(read_run("7 Q0 a 1 1 u\n"), QRELS, complete=True).summary.loc[
        0, "num_q"] == 3


def test_files_duplicate_docno_names_the_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "dup.txt"
    path.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.2 t\n")
    with pytest.raises(FormatError, match=r"dup.txt:3: docno 'a' appears twice"):
        evaluate_recall_files([path], QRELS)


def test_files_bad_score_names_the_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.txt"
    path.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 NaN t\n")
    with pytest.raises(FormatError, match=r"bad.txt:2: score 'NaN' is not a number"):
        evaluate_recall_files([path], QRELS)


def test_files_same_tag_twice(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("1 Q0 a 1 1.0 t\n")
    with pytest.raises(DuplicateRunTag, match="run tag 't' is in both"):
        evaluate_recall_files([tmp_path / "a.txt", tmp_path / "b.txt"], QRELS)


def test_files_in_worker_threads_equal_one_thread(tmp_path) -> None:  # type: ignore[no-untyped-def]
    paths = []
    for i in range(3):
        path = tmp_path / f"r{i}.txt"
        path.write_text("".join(f"{t} Q0 {d} 1 {s} r{i}\n" for t in "12" for d, s in
                                zip("abcxz", (5, 4, 4 - i, 3, 1), strict=True)))
        paths.append(path)
    one = evaluate_recall_files(paths, QRELS, workers=1)
    two = evaluate_recall_files(paths, QRELS, workers=2)
    pd.testing.assert_frame_equal(one.per_topic, two.per_topic)
    pd.testing.assert_frame_equal(one.summary, two.summary)
    assert two.run_tags == ["r0", "r1", "r2"]
    with pytest.raises(FormatError, match="no such file"):
        evaluate_recall_files([tmp_path / "nope.txt", paths[0]], QRELS, workers=2)


def test_files_duplicate_docno_in_worker_threads_names_the_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    good, dup = tmp_path / "good.txt", tmp_path / "dup.txt"
    good.write_text("1 Q0 a 1 1.0 g\n")
    dup.write_text("".join(f"1 Q0 d{i} {i} {100 - i} t\n" for i in range(50)) + "1 Q0 d3 51 0 t\n")
    with pytest.raises(FormatError, match=r"dup.txt:51: docno 'd3' appears twice"):
        evaluate_recall_files([good, dup], QRELS, workers=2)


def test_topic_with_only_negative_grades() -> None:
    """trec_eval sizes an array by the topic's largest grade + 1 and fails (pytrec_eval
    crashes) when every grade is negative; pooltool gives num_rel 0 and counts them unjudged."""
    qrels = read_qrels("1 0 a -2\n1 0 b -1\n")
    one = row(evaluate_recall(read_run("1 Q0 a 1 2 t\n1 Q0 c 2 1 t\n"), qrels, ks=(2,)), "1")
    assert (one["num_rel"], one["recall@2"], one["unjudged@2"], one["judged@2"]) == (0, 0.0, 1.0, 0.5)


def test_file_paths_agree_with_frame_path(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Plain files take the bytes fast path, others the general one; both equal the frame API."""
    texts = {
        "plain.txt": "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 0.5 t\n2 Q0 a 1 3 t\n4 Q0 q 1 1 t",
        "interleaved.txt": "".join(f"{t} Q0 {d} 1 {s} i\n" for d, s in zip("abcx", (4, 3, 3, 1),
                                   strict=True) for t in "12"),
        "two_tags.txt": "1 Q0 a 1 1 u\n1 Q0 b 1 2 v\n",
        "comment.txt": "# header\n1\tQ0\ta\t1\t  1.0\tw\n1\tQ0\tx\t2\t2.0\tw\n",
        "tab_crlf.txt": "1\tQ0\tb\t1\t2\ty\r\n1\tQ0\ta\t2\t2\ty\r\n",
    }
    for name, text in texts.items():
        path = tmp_path / name
        path.write_text(text)
        by_file = evaluate_recall_files([path], QRELS, ks=(1, 2, 10), complete=True)
        by_frame = evaluate_recall(read_run(path), QRELS, ks=(1, 2, 10), complete=True)
        pd.testing.assert_frame_equal(by_file.per_topic, by_frame.per_topic)
        assert by_file.ignored_topics == by_frame.ignored_topics


@pytest.mark.parametrize("line", [
    "1 Q0 a 1 1_000 t\n",
    "1 Q0 a 99999999999999999999 1 t\n",
    "1 Q0 a 1 0x10 t\n",
    "1 Q0 a 1 nan t\n",
])
def test_file_scoring_refuses_what_read_run_refuses(tmp_path: Path, line: str) -> None:
    """evaluate_recall_files' byte shortcut must never accept a line read_run refuses."""
    path = tmp_path / "r.txt"
    path.write_text(line + "1 Q0 b 2 2 t\n")
    with pytest.raises(FormatError) as expected:
        read_run(path)
    with pytest.raises(FormatError) as got:
        evaluate_recall_files([path], read_qrels("1 0 b 1\n"), ks=[1])
    assert str(got.value) == str(expected.value)


def test_files_fast_path_values_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Arrow path alone (read_run switched off): ties by docno descending, comments,
    tabs and spaces mixed, an exponent score, a topic without qrels."""
    from pooltool.measures import recall as recall_module

    monkeypatch.setattr(recall_module, "read_run", mock_strict)
    path = tmp_path / "run.txt"
    path.write_text("# ties: b before a\n1\tQ0\ta\t1\t1e0\tt\n1 Q0 b 2 1.0 t\n"
                    "1  Q0 c 3 5E-1 t\n1 Q0 d 4 0.25 t\n2 Q0 a 1 3 t\n4 Q0 q 1 1 t\n")
    result = evaluate_recall_files([path], QRELS, ks=(1, 2, 3))
    one = row(result, "1")
    assert (one["num_ret"], one["num_rel"], one["num_rel_ret"]) == (4, 2, 1)
    assert (one["recall@1"], one["recall@2"], one["P@2"]) == (0.0, 0.5, 0.5)
    assert (one["unjudged@3"], one["judged@3"]) == (1 / 3, 1.0)
    assert result.ignored_topics == {"t": ["4"]}
    assert result.missing_topics == {"t": ["3"]}


def mock_strict(*_args: Any, **_kwargs: Any) -> None:
    raise AssertionError("the line reader was used")


def test_files_bad_line_deep_in_a_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    lines = [f"1 Q0 d{i} {i} {5000 - i} t" for i in range(5000)]
    lines[2999] = "1 Q0 d2999 2999 NaN t"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=r"big\.txt:3000: score 'NaN' is not a number \(NaN\)"):
        evaluate_recall_files([path], QRELS)
