"""``pooltool recall --estimate NAME``: estimates from a judged sample beside Recall@k."""

from __future__ import annotations

from typing import Any

import click
import pandas as pd

from pooltool.analysis.sample_estimates import (
    ESTIMATE_COLUMNS,
    CannotEstimate,
    Design,
    Estimates,
    estimate_recall,
    load_design,
    outside_note,
    stale_note,
)
from pooltool.cli.group import open_store, warn
from pooltool.measures import RecallResult
from pooltool.records import topic_order
from pooltool.report import emit, emit_json, records
from pooltool.store import JudgmentStore


def check_sample(ctx: click.Context, name: str) -> None:
    """Refuse a sample the store does not hold (the error lists those it does).

    :raises StoreError: no such sample.
    """
    with open_store(ctx) as store:
        store.sample_design(name)


def write_estimates(ctx: click.Context, result: RecallResult, runs: pd.DataFrame,
                    qrels: pd.DataFrame, name: str, fmt: str, per_topic: bool,
                    source: str) -> None:
    """Estimate from sample ``name`` and write it beside num_rel and Recall@k.

    Table: the summary (and with -q the per-topic rows) with recall and the
    estimate columns, titled with the sample, its frame, its judged documents
    and the interval method. csv/tsv/jsonl: the same rows. json: the recall
    document with an ``estimate`` object.
    """
    with open_store(ctx) as store:
        design = load_design(store, name)
        info = store.sample_design(name)
    _warn_design(design, qrels, result.options.level)
    try:
        estimates = estimate_recall(runs, qrels, design, result.options.ks,
                                    result.options.level, seed=int(info["seed"]),
                                    complete=result.options.complete,
                                    max_docs=result.options.max_docs)
    except CannotEstimate as exc:
        raise click.ClickException(f"cannot estimate from sample {name!r}: {exc}") from exc
    summary, topics = _beside(result, estimates)
    judged = int(estimates.per_topic.drop_duplicates("topic")["sampled"].sum())
    about = (f"ESTIMATES from sample {name!r} beyond pool {info['base_pool']!r} (frame: "
             f"{design.frame}; {judged} sampled documents judged; 95% intervals)")
    if design.frame == "runs":
        about += "; R is R within the runs' lists"
    warn(f"note: {about}; interval method: {estimates.method}")
    if estimates.caveat:
        warn(f"note: {estimates.caveat}")
    if judged < len(design.docs):
        warn(f"note: {len(design.docs) - judged} of the sample's {len(design.docs)} documents "
             f"are not judged yet (e.g. since 'sample --grow'): the estimate uses the judged "
             f"ones; judge the rest with 'pooltool judge --pool {name}'")
    if fmt == "json":
        from pooltool.json_documents import recall_document

        document = recall_document(result, per_topic, source)
        document["estimate"] = {
            "sample": name, "base_pool": info["base_pool"], "frame": design.frame,
            "strata": info["strata"], "allocation": info["allocation"],
            "budget": info["budget"], "seed": info["seed"], "sampled_judged": judged,
            "interval": estimates.method,
            **({"caveat": estimates.caveat} if estimates.caveat else {}),
            "summary": records(summary),
            **({"per_topic": records(topics)} if per_topic else {})}
        emit_json(document)
        return
    if fmt == "table":
        if per_topic:
            emit(topics, fmt, title=f"per topic; {about}")
        emit(summary, fmt, title=f"summary (means over topics); {about}")
        return
    # rows travel alone (csv, tsv, jsonl): each names its interval method
    emit((topics if per_topic else summary).assign(interval=estimates.interval), fmt)


def _warn_design(design: Design, qrels: pd.DataFrame, level: int) -> None:
    """Say on stderr what the estimate does with what lies outside the sample's design:
    documents the base pool took after the draw, relevant documents judged elsewhere."""
    for note in (stale_note(design), outside_note(design, qrels, level)):
        if note:
            warn(note)


def _beside(result: RecallResult, estimates: Estimates) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The estimate rows with num_rel (per topic) and recall from the trec_eval result."""
    summary = estimates.summary.merge(
        result.summary[["run_tag", "k", "recall"]], on=["run_tag", "k"], how="left")
    summary = summary[["run_tag", "k", "num_q", "recall", "sampled", *ESTIMATE_COLUMNS]]
    parts = []
    for k in result.options.ks:
        part = result.per_topic[["run_tag", "topic", "num_rel", f"recall@{k}"]].rename(
            columns={f"recall@{k}": "recall"})
        parts.append(part.assign(k=k))
    trec = pd.concat(parts, ignore_index=True)
    topics = estimates.per_topic.merge(trec, on=["run_tag", "topic", "k"], how="left")
    topics = topics[["run_tag", "topic", "k", "num_rel", "recall", "sampled", *ESTIMATE_COLUMNS]]
    topics = topics.iloc[topic_order(list(topics["topic"]), list(topics["run_tag"]))]
    return summary, topics.reset_index(drop=True)


def with_missed(store: JudgmentStore, topics: pd.DataFrame, name: str, level: int,
                pool: str) -> tuple[pd.DataFrame, dict[str, Any], str]:
    """``status`` rows of ``pool`` with ``est_missed, est_missed_low, est_missed_high``:
    est_R and its interval minus the pooled relevant documents (documents), from sample
    ``name`` under the current qrels; a note on stderr names the sample and the method
    (and the caveat, if any).

    :returns: the rows; what JSON says of the estimate (``sample, base_pool, frame,
        sampled_judged, interval`` and ``caveat`` when there is one); the interval
        method's name (``beta``), for the ``interval`` column of row formats.

    :raises click.ClickException: the sample was drawn beyond another pool (its
        est_missed is about that pool), or cannot be estimated from (why).
    """
    design = load_design(store, name)
    if design.base_pool != pool:
        raise click.ClickException(
            f"sample {name!r} was drawn beyond pool {design.base_pool!r}, not {pool!r}: its "
            f"est_missed is what {design.base_pool!r} missed; use --pool {design.base_pool}")
    qrels = store.qrels()
    _warn_design(design, qrels, level)
    try:
        estimates = estimate_recall(pd.DataFrame(columns=["run_tag", "topic", "docno", "score"]),
                                    qrels, design, [1], level,
                                    seed=int(store.sample_design(name)["seed"]))
    except CannotEstimate as exc:
        raise click.ClickException(f"cannot estimate from sample {name!r}: {exc}") from exc
    per = estimates.topics.set_index("topic")
    known = per["pooled_relevant"]
    out = topics.copy()
    for column, source in (("est_missed", "est_R"), ("est_missed_low", "est_R_low"),
                           ("est_missed_high", "est_R_high")):
        out[column] = out["topic"].map(per[source] - known)
    judged = int(per["sampled"].sum())
    warn(f"note: est_missed are ESTIMATES from sample {name!r} (frame: {design.frame}; "
         f"{judged} sampled documents judged; 95% intervals: {estimates.method})")
    if estimates.caveat:
        warn(f"note: {estimates.caveat}")
    about = {"sample": name, "base_pool": design.base_pool, "frame": design.frame,
             "sampled_judged": judged, "interval": estimates.method,
             **({"caveat": estimates.caveat} if estimates.caveat else {})}
    return out, about, estimates.interval
