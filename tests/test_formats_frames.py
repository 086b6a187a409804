"""DataFrames given to the Python API are checked: wrong kinds of values never score silently."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooltool.analysis.bias import leave_one_out
from pooltool.analysis.qrels_diff import diff_qrels
from pooltool.analysis.stability import compare_rankings
from pooltool.errors import FrameError
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.measures import evaluate_recall
from pooltool.store import JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL

RUN = read_run("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n")
QRELS = read_qrels("1 0 a 1\n2 0 c 0\n")


def with_value(frame: pd.DataFrame, column: str, value: object) -> pd.DataFrame:
    changed = frame.copy()
    changed[column] = changed[column].astype(object)
    changed.loc[1, column] = value
    return changed


@pytest.mark.parametrize(("column", "value", "message"), [
    ("topic", np.nan, "runs column 'topic' must hold strings with no missing values, found mixed"),
    ("run_tag", None, "runs column 'run_tag' must hold strings with no missing values"),
    ("docno", 7, "runs column 'docno' must hold strings"),
    ("score", np.nan, "runs column 'score' must hold numbers, without NaN"),
])
def test_runs_with_wrong_values(column: str, value: object, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        evaluate_recall(with_value(RUN, column, value), QRELS)


def test_int_topics_and_missing_columns() -> None:
    with pytest.raises(FrameError, match="runs column 'topic' must hold strings .* found integer"):
        evaluate_recall(RUN.assign(topic=[1, 1, 2]), QRELS)
    with pytest.raises(FrameError, match="runs frame lacks column.s. score"):
        evaluate_recall(RUN.drop(columns="score"), QRELS)
    with pytest.raises(FrameError, match="qrels column 'topic' must hold strings"):
        evaluate_recall(RUN, with_value(QRELS, "topic", None))


def test_stored_runs_meet_the_same_contract(memory_store: JudgmentStore) -> None:
    store = memory_store
    twice = pd.concat([RUN, RUN.iloc[:1]], ignore_index=True)
    with pytest.raises(FrameError, match="docno 'a' appears twice for topic '1' in run 't'"):
        store.add_run_frame(twice)
    with pytest.raises(FrameError, match="runs frame lacks column.s. rank"):
        store.add_run_frame(RUN.drop(columns="rank"))
    assert store.run_tags() == []


def test_analysis_functions_check_their_input() -> None:
    with pytest.raises(FrameError, match="qrels column 'topic' must hold strings"):
        diff_qrels(QRELS, QRELS.assign(topic=[1, 2]))
    with pytest.raises(FrameError, match="qrels column 'grade' must hold integers"):
        diff_qrels(QRELS, QRELS.assign(grade=[1.5, 0.0]))
    with pytest.raises(FrameError, match="level must be at least 0"):
        diff_qrels(QRELS, QRELS, level=-1)
    with pytest.raises(FrameError, match="runs frame lacks column.s. score"):
        leave_one_out(RUN.drop(columns="score"), QRELS, depth=1)
    with pytest.raises(ValueError, match="score is NaN"):
        compare_rankings(pd.Series({"a": np.nan, "b": 1.0}), pd.Series({"a": 1.0, "b": 2.0}))
