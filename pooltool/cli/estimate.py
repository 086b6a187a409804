"""``pooltool recall --estimate NAME``: estimates from a judged sample beside Recall@k."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click
import pandas as pd

from pooltool.analysis.sample_design import Design, load_design, outside_note, stale_note
from pooltool.analysis.sample_estimates import (
    ESTIMATE_COLUMNS,
    CannotEstimate,
    Estimates,
    estimate_recall,
)
from pooltool.cli.group import open_store, warn
from pooltool.measures import RecallResult
from pooltool.records import is_judged, topic_order
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
    judged = int(estimates.per_topic.drop_duplicates("topic")["sampled"].sum())
    about = (f"ESTIMATES from sample {name!r} beyond pool {info['base_pool']!r} (frame: "
             f"{design.frame}; {judged} sampled documents judged; 95% intervals)")
    if design.frame == "runs":
        about += "; R is R within the runs' lists"
    if judged < len(design.docs):
        about_unjudged = (
            f"note: {len(design.docs) - judged} of the sample's {len(design.docs)} documents "
            f"are not judged yet (e.g. since 'sample --grow'): the estimate uses the judged "
            f"ones; judge the rest with 'pooltool judge --pool {name}'")
    else:
        about_unjudged = ""
    described = {"sample": name, "base_pool": info["base_pool"], "frame": design.frame,
                 "strata": info["strata"], "allocation": info["allocation"],
                 "budget": info["budget"], "seed": info["seed"], "sampled_judged": judged}
    _write_beside(result, estimates, about, about_unjudged, described, fmt, per_topic, source)


def write_prels_estimates(result: RecallResult, runs: pd.DataFrame, path: Path, layout: str,
                          seed: int, fmt: str, per_topic: bool, source: str) -> None:
    """Estimate from the sampled judgments of file ``path`` (layout ``prels`` or
    ``strata``: :mod:`pooltool.formats.prels`) and write them beside num_rel and
    Recall@k as :func:`write_estimates` does; with ``strata``, the rows also carry
    ``est_infAP`` (xinfAP, :mod:`pooltool.analysis.inferred_ap`; per topic, and its mean
    over the topics in the summary, whatever k).

    :raises FormatError: a bad line of the file.
    :raises click.ClickException: the file cannot be estimated from (why).
    """
    from pooltool.analysis.prels_estimates import estimate_poisson, strata_design
    from pooltool.formats.prels import read_prels

    prels = read_prels(path, layout)
    options = result.options
    try:
        if layout == "strata":
            design, judgments = strata_design(prels, path.name)
            estimates = estimate_recall(runs, judgments, design, options.ks, options.level,
                                        seed=seed, complete=options.complete,
                                        max_docs=options.max_docs)
            estimates = _with_infap(estimates, runs, prels, options.level,
                                    options.max_docs)
        else:
            estimates = estimate_poisson(runs, prels, options.ks, options.level,
                                         complete=options.complete, max_docs=options.max_docs)
    except CannotEstimate as exc:
        raise click.ClickException(f"cannot estimate from {path}: {exc}") from exc
    judged = int(is_judged(prels["grade"]).sum())
    about = (f"ESTIMATES from the sampled judgments in {path.name} (layout {layout}; "
             f"{judged} judged documents; 95% intervals); R is R of the documents "
             + ("the file lists" if layout == "strata" else "the design could sample"))
    described = {"prels": str(path), "layout": layout, "judged": judged,
                 **({"seed": seed} if layout == "strata" else {})}
    _write_beside(result, estimates, about, "", described, fmt, per_topic, source)


def _with_infap(estimates: Estimates, runs: pd.DataFrame, prels: pd.DataFrame,
                level: int, max_docs: int | None) -> Estimates:
    """``estimates`` with ``est_infAP`` per run and topic, and its mean in the summary
    (over the topics each summary row counts: 0 for a topic the run did not retrieve);
    each run's first ``max_docs`` documents count (``None``: sample_eval.pl's 1000)."""
    from pooltool.analysis.inferred_ap import MAX_RESULT_SIZE, xinf_ap

    infap = xinf_ap(runs, prels, level, max_docs or MAX_RESULT_SIZE)[
        ["run_tag", "topic", "xinfAP"]].rename(
        columns={"xinfAP": "est_infAP"})
    per_topic = estimates.per_topic.merge(infap, on=["run_tag", "topic"], how="left")
    sums = infap.groupby("run_tag")["est_infAP"].sum()
    summary = estimates.summary.assign(
        est_infAP=estimates.summary["run_tag"].map(sums).fillna(0.0)
        / estimates.summary["num_q"])
    return replace(estimates, per_topic=per_topic, summary=summary)


def _write_beside(result: RecallResult, estimates: Estimates, about: str, unjudged: str,
                  described: dict[str, Any], fmt: str, per_topic: bool, source: str) -> None:
    """Write ``estimates`` beside num_rel and Recall@k (see :func:`write_estimates`), the
    notes on stderr; ``described`` is what JSON's ``estimate`` object says of the source."""
    summary, topics = _beside(result, estimates)
    warn(f"note: {about}; interval method: {estimates.method}")
    if estimates.caveat:
        warn(f"note: {estimates.caveat}")
    if unjudged:
        warn(unjudged)
    if fmt == "json":
        from pooltool.json_documents import recall_document

        document = recall_document(result, per_topic, source)
        document["estimate"] = {
            **described, "interval": estimates.method,
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
    extra = [c for c in ("est_infAP",) if c in summary.columns]
    summary = summary[["run_tag", "k", "num_q", "recall", "sampled", *ESTIMATE_COLUMNS, *extra]]
    parts = []
    for k in result.options.ks:
        part = result.per_topic[["run_tag", "topic", "num_rel", f"recall@{k}"]].rename(
            columns={f"recall@{k}": "recall"})
        parts.append(part.assign(k=k))
    trec = pd.concat(parts, ignore_index=True)
    topics = estimates.per_topic.merge(trec, on=["run_tag", "topic", "k"], how="left")
    topics = topics[["run_tag", "topic", "k", "num_rel", "recall", "sampled", *ESTIMATE_COLUMNS,
                     *extra]]
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
