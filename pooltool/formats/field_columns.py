"""Run and qrels DataFrames with the column names the field uses, as pooltool's frames.

The Python API (:func:`pooltool.evaluate`) takes a run or qrels as a file path or as a
DataFrame in any of these spellings, one name per column:

============  ====================  ==================  ==========================
pooltool      ir_measures           PyTerrier           meaning
============  ====================  ==================  ==========================
``topic``     ``query_id``          ``qid``             the topic (query) id
``docno``     ``doc_id``            ``docno``           the document id
``score``     ``score``             ``score``           the run's score
``run_tag``   (none)                (none)              the run's name
``grade``     ``relevance``         ``label``           the qrels grade
``iteration`` ``iteration``         (none)              the qrels 2nd column
============  ====================  ==================  ==========================

(ir_measures: ``ir_measures.util.GenericQrel`` / ``GenericScoredDoc``; PyTerrier:
its result and qrels frames; pooltool's are TREC's names, those of
:func:`~pooltool.formats.run.read_run` and :func:`~pooltool.formats.qrels.read_qrels`.)
Other columns (``rank``, ``query``, ...) are dropped; the rank is ignored anyway, as
trec_eval ignores it (:mod:`pooltool.ranking`). Integer topic ids and docnos become
their decimal text (so a topic ``09`` must come as the string ``"09"``); any other
kind of id is refused, as are missing values, by
:func:`~pooltool.formats.frames.check_run_frame` and
:func:`~pooltool.formats.frames.check_qrels_frame`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Union

from pooltool.errors import FrameError, InvalidArgument

if TYPE_CHECKING:
    import pandas as pd

#: Each accepted column name -> pooltool's (ir_measures', PyTerrier's, TREC's).
FIELD_NAMES = {
    "topic": "topic", "query_id": "topic", "qid": "topic",
    "docno": "docno", "doc_id": "docno",
    "score": "score",
    "run_tag": "run_tag",
    "grade": "grade", "relevance": "grade", "label": "grade",
    "iteration": "iteration",
}
#: A run or qrels as the API takes it: a path or a frame.
Table = Union[str, Path, "pd.DataFrame"]
#: Runs as the API takes them: one, several files, or a name per run.
Runs = Union[Table, Sequence[Union[str, Path]], Mapping[str, Table]]
DEFAULT_RUN_TAG = "run"


def qrels_frame(qrels: Table) -> pd.DataFrame:
    """A qrels as pooltool's frame.

    :param qrels: a qrels file path, or a DataFrame named as :data:`FIELD_NAMES` says.
    :returns: columns ``topic, iteration, docno`` (str) and ``grade`` (int64).
    :raises FormatError: a malformed qrels file (file and line named).
    :raises FrameError: a frame without the columns, or with values of the wrong kind.
    """
    import pandas as pd

    if not isinstance(qrels, pd.DataFrame):
        from pooltool.formats.qrels import read_qrels

        return read_qrels(_existing(qrels))
    from pooltool.formats.frames import check_qrels_frame

    frame = _renamed(qrels, "qrels")
    if "iteration" not in frame.columns:
        frame["iteration"] = "0"
    if "grade" in frame.columns:
        frame["grade"] = _whole(frame["grade"])
    check_qrels_frame(frame)
    return frame[["topic", "iteration", "docno", "grade"]]


def run_frame(runs: Runs) -> pd.DataFrame:
    """Runs as pooltool's frame (several runs in one frame, told apart by ``run_tag``).

    :param runs: a run file path, a list of them, a DataFrame (its ``run_tag`` column
        names the runs; without one it is the run ``run``), or a mapping of run names
        to paths or frames (the names replace any ``run_tag`` they hold).
    :returns: columns ``run_tag, topic, docno`` (str) and ``score`` (float64).
    :raises FormatError: a malformed run file (file and line named).
    :raises FrameError: a frame without the columns, or with values of the wrong kind.
    :raises DuplicateRunTag: two inputs hold runs of one tag.
    """
    import pandas as pd

    if isinstance(runs, Mapping):
        parts = [_one_run(table).assign(run_tag=str(name)) for name, table in runs.items()]
    elif isinstance(runs, (str, Path, pd.DataFrame)):
        parts = [_one_run(runs)]
    else:
        parts = [_one_run(path) for path in runs]
    _check_distinct_tags(parts)
    from pooltool.formats.frames import check_run_frame

    return check_run_frame(pd.concat(parts, ignore_index=True))


def _one_run(run: Table) -> pd.DataFrame:
    import pandas as pd

    if not isinstance(run, pd.DataFrame):
        from pooltool.formats.run import read_run

        return read_run(_existing(run))[["run_tag", "topic", "docno", "score"]]
    frame = _renamed(run, "runs")
    if "run_tag" not in frame.columns:
        frame["run_tag"] = DEFAULT_RUN_TAG
    return frame[[c for c in ("run_tag", "topic", "docno", "score") if c in frame.columns]]


def _check_distinct_tags(parts: list[pd.DataFrame]) -> None:
    from pooltool.errors import DuplicateRunTag

    seen: set[str] = set()
    for part in parts:
        tags = set(part["run_tag"].unique())
        if tags & seen:
            raise DuplicateRunTag(f"run tag {sorted(tags & seen)[0]!r} is given twice")
        seen |= tags


def _existing(path: str | Path) -> Path:
    """A path that names a file (a str is never taken for a file's text here)."""
    if not isinstance(path, (str, Path)):
        raise FrameError(f"expected a file path or a pandas DataFrame, not {type(path).__name__}")
    if not Path(path).is_file():
        raise InvalidArgument(f"{path}: no such file")
    return Path(path)


def _renamed(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    """The frame's known columns under pooltool's names, ids as text."""
    known = [column for column in frame.columns if column in FIELD_NAMES]
    targets = [FIELD_NAMES[column] for column in known]
    twice = sorted({t for t in targets if targets.count(t) > 1})
    if twice:
        names = [c for c in known if FIELD_NAMES[c] == twice[0]]
        raise FrameError(f"the {what} frame names {twice[0]!r} twice: columns {names}")
    renamed = frame[known].rename(columns=FIELD_NAMES)
    for column in ("topic", "docno", "run_tag", "iteration"):
        if column in renamed.columns:
            renamed[column] = _text(renamed[column])
    return renamed


def _text(column: pd.Series) -> pd.Series:
    """Integer ids as their decimal text; anything else as it is, for the checks."""
    import pandas as pd

    if pd.api.types.is_integer_dtype(column) and not pd.api.types.is_bool_dtype(column):
        return column.astype(str).astype(object)
    return column


def _whole(values: pd.Series) -> pd.Series:
    """Grades of whole numbers (PyTerrier's labels may come as floats) as int64; any
    other values as they are, for the checks to refuse."""
    import pandas as pd

    if pd.api.types.is_float_dtype(values) and values.notna().all() \
            and (values == values.round()).all():
        return values.astype("int64")
    return values
