"""Commands about how qrels changes move the scores: qrels versions/diff and bias
(``impact`` is in :mod:`pooltool.cli.impact`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click
import pandas as pd

from pooltool.analysis.qrels_diff import diff_qrels, qrels_counts
from pooltool.cli.group import (
    cli,
    level_option,
    open_store,
    open_store_to_write,
    output_option,
    plot_option,
    warn,
)
from pooltool.cli.sources import (
    check_run_specs,
    load_qrels,
    load_runs,
    note_positives_only,
    qrels_name,
)
from pooltool.errors import InvalidArgument
from pooltool.json_documents import (
    bias_correction_document,
    bias_document,
    measure_bias_document,
)
from pooltool.report import emit, emit_json, records

if TYPE_CHECKING:
    import pyarrow as pa

    from pooltool.analysis.bias import BiasResult, NewRunReport

#: --correct methods (pooltool.analysis.bias_correction.METHODS, named here so that
#: --help needs no analysis import).
CORRECTIONS = ("webber-park", "webber-park-similar", "lipani")


@cli.group()
def qrels() -> None:
    """Qrels versions in the store and the differences between qrels.

    \b
    Example:
      pooltool qrels versions
      pooltool qrels diff official round2
    """


@qrels.command("versions")
@level_option
@output_option()
@click.pass_context
def qrels_versions(ctx: click.Context, level: int, fmt: str) -> None:
    """List the named qrels versions with their sizes.

    Columns: name, created_at, source_path (the imported file, if any), note
    (from 'qrels tag --note'), topics, judged (qrels lines), judged_nonneg
    (grade >= 0), relevant (grade >= LEVEL).

    \b
    Example:
      pooltool qrels versions -l 2 --format csv
    """
    with open_store(ctx) as store:
        versions = store.versions()
        counts = [qrels_counts(store.qrels(name), level) for name in versions["name"]]
    sizes = pd.DataFrame(counts, index=versions.index,
                         columns=["topics", "judged", "judged_nonneg", "relevant"])
    table = pd.concat([versions[["name", "created_at", "source_path", "note"]], sizes], axis=1)
    emit(table, fmt, title="qrels versions")


@qrels.command("tag")
@click.argument("name")
@click.option("--note", help="A line saying what this version is.")
@click.pass_context
def qrels_tag(ctx: click.Context, name: str, note: str | None) -> None:
    """Name the judgment log as it is now as qrels version NAME.

    The version can be exported, diffed and scored later whatever is judged
    after it (export-qrels --version NAME).

    \b
    Example:
      pooltool qrels tag round2 --note "after the second judging week"
    """
    if not name.strip():
        raise click.BadParameter("the version name must not be blank", param_hint="NAME")
    with open_store_to_write(ctx) as store:
        point = store.tag_version(name.strip(), note)
    click.echo(f"qrels version {name.strip()!r} = the judgment log up to row {point}", err=True)


@qrels.command("diff")
@click.argument("qrels_a", metavar="A")
@click.argument("qrels_b", metavar="B")
@level_option
@click.option("--changes", "show_changes", is_flag=True,
              help="List every changed judgment instead of the per-topic counts.")
@output_option()
@click.pass_context
def qrels_diff(ctx: click.Context, qrels_a: str, qrels_b: str, level: int,
               show_changes: bool, fmt: str) -> None:
    """Judgments added, removed and regraded from A to B, per topic and in total.

    A and B are qrels files or version names in the store. num_rel counts
    grade >= LEVEL on each side.

    \b
    Example:
      pooltool qrels diff official round2 -l 2
      pooltool qrels diff qrels-v1.txt qrels-v2.txt --changes --format csv
    """
    diff = diff_qrels(load_qrels(ctx, qrels_a), load_qrels(ctx, qrels_b), level)
    if fmt == "json":
        emit_json({"a": qrels_a, "b": qrels_b, "level": level, "totals": diff.totals(),
                   "per_topic": records(diff.per_topic), "changes": records(diff.changes)})
        return
    if show_changes:
        emit(diff.changes, fmt, title=f"changes from {qrels_a} to {qrels_b}")
        return
    totals = pd.DataFrame([{"topic": "all", **diff.totals()}])
    emit(pd.concat([diff.per_topic, totals], ignore_index=True), fmt,
         title=f"qrels diff {qrels_a} -> {qrels_b} (relevant: grade >= {level})")


@cli.command()
@click.option("-k", "k", default=100, show_default=True, type=click.IntRange(min=1),
              help="Cutoff of Recall@k, P@k and unjudged@k.")
@click.option("--depth", type=click.IntRange(min=1),
              help="Pool depth D (default: the pool's largest depth).")
@click.option("--pool", "pool_name", default="main", show_default=True,
              help="The pool whose runs contributed.")
@click.option("--runs", "run_tags", multiple=True, metavar="TAG",
              help="Contributing runs (repeat; default: the runs that built the pool).")
@click.option("--version", "version", help="Qrels version in the store (default: the log now).")
@click.option("--qrels", "qrels_file", type=click.Path(exists=True, dir_okay=False),
              help="Qrels file instead of a store version.")
@click.option("--group", "group_regex", metavar="REGEX",
              help="Group runs by the first capture group of REGEX, or its whole match "
                   "without a group (e.g. '^([^_]+)_' for teams); runs it does not match "
                   "are their own group.")
@click.option("--groups", "groups_file", type=click.Path(exists=True, dir_okay=False),
              help="TSV file 'run_tag<TAB>group' (e.g. run -> team).")
@click.option("--new", "new_runs", multiple=True, metavar="RUN", callback=check_run_specs,
              help="A run that did not contribute (file or stored tag; repeat). Stored runs "
                   "outside the pool are always included.")
@level_option
@click.option("-c", "--complete", is_flag=True,
              help="Score qrels topics missing from a run as 0 and count them (trec_eval -c).")
@click.option("--correct", "method", type=click.Choice(list(CORRECTIONS)),
              help="Report bias-corrected scores by METHOD instead: for each pooled run left "
                   "out (against its full-qrels score: MAE, Kendall tau) and each new run. "
                   "webber-park: any measure (-m); webber-park-similar: P@k and Recall@k; "
                   "lipani: P@k only.")
@click.option("-m", "--measure", "measure", metavar="MEASURE",
              help="The measure: P or recall for P@k / Recall@k at -k (the default, without "
                   "--correct, shows both; with --correct the default is P), or any measure of "
                   "'pooltool eval -m' averaged over topics (map, ndcg_cut.10, 'nDCG@10', P.10, "
                   "bpref), scored whole on the reduced qrels.")
@click.option("--similar", type=click.IntRange(min=1), default=3, show_default=True,
              help="With --correct webber-park-similar: how many most similar pooled runs.")
@output_option(choices=("table", "csv", "json"))
@plot_option("Draw each run's recall with and without its unique documents to FILE "
             "(.png, .svg or .pdf).")
@click.pass_context
def bias(ctx: click.Context, k: int, depth: int | None, pool_name: str, run_tags: tuple[str, ...],
         version: str | None, qrels_file: str | None, group_regex: str | None,
         groups_file: str | None, new_runs: tuple[str, ...], level: int, complete: bool,
         method: str | None, measure: str | None, similar: int, fmt: str,
         plot: str | None) -> None:
    """Pool bias: leave each contributing run (or group) out of the pool and score it again.

    For each run that built the depth-D pool, the judgments of documents only
    it (or only its group) pooled are removed and Recall@k / P@k recomputed
    (Zobel 1998; Buckley et al. 2007). Runs that did not contribute are
    scored too, with a sentence on whether the qrels look reusable for them.

    Below the table: MAE, the mean |recall drop| over runs; SRE, the sum of
    |rank change| on Lipani et al.'s ranking (rank_loo: each run's leave-out
    recall ranked alone among the other runs' full-qrels recall; ranks are
    competition ranks, a tie takes the better one); Kendall's tau-b and
    tau_ap (Yilmaz, Aslam and Robertson 2008: swaps near the top weigh more;
    ties averaged over their orders, Urbano and Marrero 2017) on the plain
    rankings: every run by full-qrels recall against every run by leave-out
    recall. No value depends on run tags or their order. 'pooltool explain
    NAME' defines every column with its source.

    With -m MEASURE (any measure 'pooltool eval -m' takes that is a mean over
    topics: map, ndcg_cut.10, 'nDCG@10', bpref, P.10), each group's runs are
    scored whole on the qrels less the judgments only that group pooled,
    with trec_eval's definition; the columns are score, score_loo, drop,
    and unjudged is the share of unjudged documents in the ranks the
    measure looks at. Runs that did not contribute get the measure, its
    hole (low, high: what judging their unjudged documents could make it)
    and the verdict. -k is then unused.

    With -m MEASURE and --correct webber-park (the one measure-agnostic
    correction), the corrected measure, the drops measured by re-scoring.

    With --correct METHOD, the corrected P@k (or Recall@k, --measure) of each
    pooled run left out in turn (the estimator fitted on the other runs
    alone) beside its plain leave-out score and its full-qrels score, and of
    each run that did not contribute; below: MAE and Kendall's tau-b against
    the full-qrels ranking, plain and corrected. webber-park (Webber and Park
    2009) shifts a score by the pooled runs' mean leave-out drop;
    webber-park-similar by the drop of the --similar pooled runs sharing most
    of its top k; lipani (Lipani, Lupu and Hanbury 2015, as their
    PoolBiasEstimators computes it) adds its unjudged share of the top k times
    the mean share of unjudged documents its ranking brings into the pooled
    runs' top k, when their precision and anti-precision (judged not
    relevant) say so (P@k only). A corrected score outside 0..1 is clipped
    to the bound, with a note on stderr giving the value before (the
    measure lies in 0..1, so the bound is never further from the full-qrels
    score; column clipped).

    \b
    Example:
      pooltool bias -k 100 --depth 7 --version official
      pooltool bias -k 10 --group '^(.*?)[._-]' --new other.run --format json
      pooltool bias -k 10 --depth 7 --correct webber-park --measure recall
    """
    from pooltool import pooling
    from pooltool.analysis.bias import group_runs, leave_one_out, new_run_exposure

    if group_regex and groups_file:
        raise click.UsageError("use just one of --group and --groups")
    if version and qrels_file:
        raise click.UsageError("use just one of --version and --qrels")
    if method and plot:
        raise click.UsageError("--plot draws the leave-one-out drops; it does not go with "
                               "--correct")
    generic = measure is not None and measure not in LEGACY_MEASURES
    if generic:
        from pooltool.measures.topic_scores import one_measure

        one_measure(measure)  # type: ignore[arg-type]
        if method and method != "webber-park":  # the one measure-agnostic correction
            from pooltool.analysis.bias_correction import check_method

            check_method(method, measure)  # type: ignore[arg-type]
        if plot:
            raise click.UsageError("--plot draws Recall@k drops; it does not go with -m MEASURE")
    if method and not generic:
        from pooltool.analysis.bias_correction import check_method

        check_method(method, measure or "P")
    with open_store(ctx) as store:
        not_depth = store.not_depth_pool_reason(pool_name)
        if not_depth is not None:
            raise InvalidArgument(f"pool {pool_name!r} {not_depth}; bias leaves runs out of a "
                                  "depth-k pool (pooltool pool --depth K): name one with --pool")
        pooled, pool_depth = pooling.pool_contributors(store, pool_name)
        tags = list(run_tags) or pooled
        if depth is not None and depth > pool_depth:
            raise click.UsageError(
                f"pool {pool_name!r} was built to depth {pool_depth}: leave-one-out at depth "
                f"{depth} would count documents that were never pooled; use --depth "
                f"{pool_depth} or less")
        if depth is None:
            _say_uneven_depths(pooling.contributor_depths(store, pool_name), pool_depth)
        depth = depth or pool_depth
        # a measure like map looks at every rank: it reads the runs whole; lipani re-ranks
        # the pooled runs by the new one: it codes them whole from the store's tables
        top = store.top_entries(tags, sys.maxsize if generic else max(k, depth))
        whole = None if method != "lipani" or generic else dict(zip(tags, store.run_entries(
            [store.run_id(tag) for tag in tags], None, columns=["docno"]), strict=True))
        qrels = load_qrels(ctx, qrels_file) if qrels_file else store.qrels(version)
        outside = [t for t in store.run_tags() if t not in tags]
    note_positives_only(ctx, qrels, level, qrels_name(qrels_file, version))
    groups = (group_runs(tags, group_regex) if group_regex else
              _read_groups(groups_file) if groups_file else None)
    others = [*outside, *[r for r in new_runs if r not in outside]]
    options = {"k": k, "depth": depth, "level": level, "complete": complete,
               "qrels": qrels_file or version or "", "groups": groups or {}}
    if generic and method:
        _measure_corrected(ctx, top, qrels, others, fmt, measure,  # type: ignore[arg-type]
                           {**options, "similar": similar, "measure": measure})
        return
    if generic:
        _measure_bias(ctx, top, qrels, others, fmt, measure, options)  # type: ignore[arg-type]
        return
    if method is not None:
        _bias_corrected(ctx, top, qrels, others, fmt, method, measure or "P",
                        {"k": k, "depth": depth, "level": level, "complete": complete,
                         "groups": groups or {}, "similar": similar,
                         "qrels": qrels_file or version or ""}, whole)
        return
    result = leave_one_out(top, qrels, depth, k, level, groups, complete)
    report = new_run_exposure(load_runs(ctx, others), qrels, result,
                              complete=complete) if others else None
    if plot:
        from pooltool.analysis.plots import plot_bias

        warn(f"plot written: {plot_bias(result, plot)}")
    _emit_bias(result, report, fmt, options)


def _measure_bias(ctx: click.Context, top: pd.DataFrame, qrels: pd.DataFrame,
                  others: list[str], fmt: str, measure: str, options: dict[str, Any]) -> None:
    from pooltool.analysis.measure_bias import leave_one_out_measure, new_run_scores

    result = leave_one_out_measure(top, qrels, options["depth"], measure, options["level"],
                                   options["groups"] or None, options["complete"])
    new = (new_run_scores(load_runs(ctx, others), qrels, result, options["complete"])
           if others else pd.DataFrame())
    if fmt == "json":
        emit_json(measure_bias_document(result, new, {**options, "measure": measure}))
        return
    if fmt == "csv":
        emit(result.per_run, fmt)
        return
    overall = result.overall()
    grouped = result.per_run["group"].ne(result.per_run["run_tag"]).any()
    shown = [c for c in MEASURE_BIAS_COLUMNS if grouped or c != "group"]
    emit(result.per_run, fmt, shown=shown,
         title=f"leave-one-out at pool depth {result.depth}: {result.measure} "
               "('pooltool explain NAME' defines a column)")
    click.echo(
        f"MAE {overall['mae']:.4f}   largest drop {overall['max_drop']:.4f} "
        f"({overall['max_drop_run']})   SRE {overall['sre']}   "
        f"Kendall tau {overall['kendall_tau']:.4f}   tau_ap {overall['tau_ap']:.4f}")
    click.echo(RANKINGS_NOTE.replace("recall", result.measure))
    if not new.empty:
        emit(new.drop(columns=["sentence"]), fmt, title="runs that did not contribute")
        for sentence in new["sentence"]:
            click.echo(sentence)


def _bias_corrected(ctx: click.Context, top: pd.DataFrame, qrels: pd.DataFrame,
                    others: list[str], fmt: str, method: str, measure: str,
                    options: dict[str, Any], whole: dict[str, pa.Table] | None) -> None:
    from pooltool.analysis.bias_correction import corrected_scores

    new = load_runs(ctx, others) if others else None
    result = corrected_scores(top, qrels, new, options["depth"], options["k"], method, measure,
                              options["level"], options["groups"] or None, options["similar"],
                              options["complete"], whole)
    for (tag, scored_as), value in result.clipped.items():
        bound = 1 if value > 1 else 0
        warn(f"note: run {tag} ({scored_as}): corrected {measure}@{options['k']} {value:.4f} "
             f"clipped to {bound} ({measure}@k lies in 0..1; MAE and tau use the clipped value)")
    if fmt == "json":
        emit_json(bias_correction_document(result, options))
        return
    overall = result.overall()
    emit(result.per_run, fmt, title=f"{method}: corrected {measure}@{options['k']} at pool "
                                    f"depth {options['depth']} ('pooltool explain NAME' "
                                    "defines a column)")
    if fmt == "table":
        click.echo(_correction_line(overall))


def _measure_corrected(ctx: click.Context, top: pd.DataFrame, qrels: pd.DataFrame,
                       others: list[str], fmt: str, measure: str,
                       options: dict[str, Any]) -> None:
    from pooltool.analysis.measure_correction import corrected_measure

    new = load_runs(ctx, others) if others else None
    result = corrected_measure(top, qrels, new, options["depth"], measure, options["level"],
                               options["groups"] or None, options["complete"])
    for (tag, scored_as), value in result.clipped.items():
        warn(f"note: run {tag} ({scored_as}): corrected {measure} {value:.4f} clipped to "
             f"{1 if value > 1 else 0} ({measure} lies in 0..1; MAE and tau use the clipped "
             "value)")
    if fmt == "json":
        emit_json(bias_correction_document(result, options))
        return
    emit(result.per_run, fmt, title=f"webber-park: corrected {measure} at pool depth "
                                    f"{options['depth']} ('pooltool explain NAME' defines a "
                                    "column)")
    if fmt == "table":
        click.echo(_correction_line(result.overall()))


def _correction_line(overall: dict[str, Any]) -> str:
    return (f"{overall['runs']} pooled runs left out, {overall['measure']} against the "
            f"full qrels: MAE {overall['mae_plain']:.4f} plain, {overall['mae_corrected']:.4f} "
            f"corrected; Kendall tau {overall['tau_plain']:.4f} plain, "
            f"{overall['tau_corrected']:.4f} corrected; tau_ap {overall['tau_ap_plain']:.4f} "
            f"plain, {overall['tau_ap_corrected']:.4f} corrected")


def _read_groups(path: str) -> dict[str, str]:
    import pathlib

    from pooltool.errors import FormatError
    from pooltool.formats.source import check_identifier, open_text

    groups = {}
    with open_text(pathlib.Path(path)) as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.rstrip("\n").split("\t")
            if not line.strip() or line.startswith("#"):
                continue
            if len(fields) != 2 or not all(f.strip() for f in fields):
                raise FormatError(path, number, "expected 'run_tag<TAB>group'")
            groups[check_identifier(fields[0].strip(), "run tag", path, number)] = fields[1].strip()
    return groups


#: What each ranking below the bias table is (the two differ: see BiasResult).
RANKINGS_NOTE = (
    "SRE sums |rank_loo - rank|: each run's leave-out recall ranked alone among the other "
    "runs' full-qrels recall (Lipani et al.; ties take the better rank). Kendall tau and "
    "tau_ap compare the ranking by full-qrels recall with the ranking of every run by its "
    "leave-out recall (tau_ap: ties in the latter averaged over their orders).")
BIAS_TABLE_COLUMNS = ["run_tag", "group", "recall", "recall_loo", "recall_drop",
                      "recall_drop_rel", "P", "P_loo", "unique_relevant", "unjudged_loo",
                      "rank", "rank_loo"]
MEASURE_BIAS_COLUMNS = ["run_tag", "group", "score", "score_loo", "drop", "drop_rel",
                        "unique_relevant", "unjudged", "unjudged_loo", "rank", "rank_loo"]
#: The --measure values that keep the P@k / Recall@k report at -k.
LEGACY_MEASURES = ("P", "recall")
BIAS_COMPACT = ["run_tag", "recall", "recall_loo", "recall_drop", "unjudged_loo", "rank_loo"]


def _say_uneven_depths(depths: dict[str, int], pool_depth: int) -> None:
    """Warn when the pool's runs were pooled to different depths: leave-one-out then
    takes the largest for every run unless --depth says otherwise."""
    shallower = sorted(tag for tag, depth in depths.items() if depth < pool_depth)
    if shallower:
        warn(f"note: the pool's runs were pooled to different depths ({len(shallower)} of "
             f"{len(depths)} to less than {pool_depth}, e.g. {shallower[0]} to "
             f"{depths[shallower[0]]}); leave-one-out uses depth {pool_depth} for every run: "
             "give --depth to choose")


def _emit_bias(result: BiasResult, report: NewRunReport | None, fmt: str,
               options: dict[str, Any]) -> None:
    if fmt == "json":
        emit_json(bias_document(result, report, options))
        return
    overall = result.overall()
    new = report.per_run if report is not None else pd.DataFrame()
    if fmt == "csv":
        emit(result.per_run, fmt)
        return
    grouped = result.per_run["group"].ne(result.per_run["run_tag"]).any()
    shown = [c for c in BIAS_TABLE_COLUMNS if grouped or c != "group"]
    emit(result.per_run, fmt, shown=shown, compact=BIAS_COMPACT,
         title=f"leave-one-out at pool depth {result.depth}: Recall@{result.k} and "
               f"P@{result.k} ('pooltool explain NAME' defines a column)")
    click.echo(
        f"MAE {overall['mae']:.4f}   largest drop {overall['max_drop']:.4f} "
        f"({overall['max_drop_run']})   SRE {overall['sre']}   "
        f"Kendall tau {overall['kendall_tau']:.4f}   tau_ap {overall['tau_ap']:.4f}")
    click.echo(RANKINGS_NOTE)
    if not new.empty:
        emit(new.drop(columns=["sentence"]), fmt, title="runs that did not contribute")
        for sentence in new["sentence"]:
            click.echo(sentence)
