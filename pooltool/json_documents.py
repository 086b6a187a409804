"""JSON documents of the commands' results (``schemas/*.json``): the report layer, above measures."""

from __future__ import annotations

from typing import Any

from pooltool.measures.recall import RecallResult
from pooltool.report import records

SCHEMA_ID = "recall-v1"


def recall_document(
    result: RecallResult, per_topic: bool = False, qrels_source: str | None = None
) -> dict[str, Any]:
    """The JSON-ready document ``pooltool recall --format json`` writes.

    :param result: what :func:`~pooltool.measures.recall.evaluate_recall` returned.
    :param per_topic: include the ``per_topic`` rows (``-q``).
    :param qrels_source: where the qrels came from (a path or ``version:NAME``).
    :returns: a dict with ``schema``, ``options``, ``qrels``, ``runs`` (tags
        with their missing and ignored topics), ``summary`` (one object per
        run x k, the columns of :attr:`RecallResult.summary`) and, with
        ``per_topic``, ``per_topic`` (one object per run x topic, the columns
        of :attr:`RecallResult.per_topic`). NaN becomes ``null``.
    """
    options = result.options
    document: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "options": {
            "ks": list(options.ks),
            "level": options.level,
            "complete": options.complete,
            "max_docs": options.max_docs,
        },
        "qrels": {
            "source": qrels_source,
            "topics": result.qrels_topics,
            "positive_lines": result.positive_lines,
        },
        "runs": [
            {
                "run_tag": tag,
                "missing_topics": result.missing_topics[tag],
                "ignored_topics": result.ignored_topics[tag],
            }
            for tag in result.run_tags
        ],
        "summary": records(result.summary_columns),
    }
    if per_topic:
        document["per_topic"] = records(result.per_topic_columns)
    return document
