"""``pooltool.evaluate``: trec_eval 10.0's measures as a tidy DataFrame, for notebooks.

The values are ``pooltool eval``'s (:func:`pooltool.measures.trec.evaluate`, each
measure's ``m_*.c`` named in its module), in the long shape of its csv and json
output (``schemas/eval-v1.json``, :mod:`pooltool.measures.trec.shapes`): one row per
run, topic and measure value, the ``all`` rows trec_eval's summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pooltool.formats.field_columns import Runs, Table, qrels_frame, run_frame

if TYPE_CHECKING:
    import pandas as pd


def evaluate(run: Runs, qrels: Table, measures: Sequence[str] | str = (), *,
             per_topic: bool = True, level: int = 1, complete: bool = False,
             max_docs: int | None = None, judged_only: bool = False,
             num_docs: int = 0) -> pd.DataFrame:
    """Measure runs against qrels exactly as ``trec_eval`` 10.0 does.

    :param run: a run file path, a list of them, a DataFrame or a mapping of run names to
        either, in TREC's, ir_measures' or PyTerrier's column names
        (:mod:`pooltool.formats.field_columns`; a frame without ``run_tag`` is the run
        ``run``). Documents are ranked by score, ties by docno descending.
    :param qrels: a qrels file path or a DataFrame, named likewise.
    :param measures: ``-m`` values in trec_eval's spelling (``ndcg_cut.10``,
        ``all_trec``) or ir_measures' (``nDCG@10``, ``AP``, ``P(rel=2)@10``); empty:
        trec_eval's ``official`` set.
    :param per_topic: also every topic's rows (trec_eval ``-q``), not only ``all``.
    :param level: trec_eval ``-l``: the lowest grade that counts as relevant.
    :param complete: trec_eval ``-c``: a qrels topic a run lacks scores 0 and counts in
        its mean (otherwise it is left out of that run's mean).
    :param max_docs: trec_eval ``-M``: only each topic's first N documents.
    :param judged_only: trec_eval ``-J``: drop unjudged documents from each ranking.
    :param num_docs: trec_eval ``-N``: documents in the collection (for ``utility``).
    :returns: columns ``run, topic, measure`` (str; ``topic`` is ``all`` on summary
        rows), ``value`` (float64; object when ``relstring`` is asked for), ``unjudged``
        (float64, 0..1: the share of the ranks the value looks at whose document has no
        qrels line or a negative grade), ``low, high`` (float64: the lowest and highest
        value judging those documents could give; NaN for a measure without a hole,
        see :mod:`pooltool.measures.trec.hole_columns`). Runs in input order, then the
        per-topic rows of each measure (qrels topic order) and its ``all`` row.
    :raises InvalidArgument: an unknown measure or bad parameters.
    :raises FormatError: a malformed run or qrels file (file and line named).
    :raises FrameError: a frame without the needed columns or with values of the wrong
        kind (:class:`~pooltool.errors.InvalidArgument`).
    :raises NothingToScore: a run has no topic in the qrels (and not ``complete``).
    """
    import pandas as pd

    from pooltool.measures.trec import Options
    from pooltool.measures.trec import evaluate as evaluate_frame
    from pooltool.measures.trec.shapes import LONG_COLUMNS, long_rows

    asked = [measures] if isinstance(measures, str) else list(measures)
    options = Options(level, complete, max_docs, judged_only, num_docs, holes=True)
    result = evaluate_frame(run_frame(run), qrels_frame(qrels), asked, options)
    frame = pd.DataFrame(long_rows(result, per_topic))[list(LONG_COLUMNS)]
    for column in ("run", "topic", "measure"):
        frame[column] = frame[column].astype(str)
    for column in ("unjudged", "low", "high"):
        frame[column] = pd.to_numeric(frame[column]).astype("float64")
    if not frame["value"].map(lambda value: isinstance(value, str)).any():
        frame["value"] = frame["value"].astype("float64")
    return frame
