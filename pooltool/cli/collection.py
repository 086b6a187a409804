"""Commands that build the collection: init, add-topics, add-docs, add-runs, pool,
remove-run, runs, export-pool, import-qrels, export-qrels, status."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
import pandas as pd
from click.core import ParameterSource

from pooltool import pooling
from pooltool.cli.datasets import add_dataset_runs, qrels_file
from pooltool.cli.duplicates import find_and_store, propagate_option
from pooltool.cli.group import (
    F,
    check_assessor,
    cli,
    db_path,
    file_or_dataset,
    level_option,
    open_store,
    open_store_to_write,
    output_option,
    progress,
    warn,
)
from pooltool.cli.sources import say_runs_per_file
from pooltool.duplicates import DEFAULTS
from pooltool.errors import RunInPool, StoreError
from pooltool.formats.documents import iter_documents
from pooltool.formats.frames import pair_isin
from pooltool.formats.qrels import write_qrels
from pooltool.formats.source import in_int64
from pooltool.formats.topics import read_topics
from pooltool.judging.copies import saved_judgments
from pooltool.judging.pace import judging_stats
from pooltool.judging.queue import judging_queue, pool_status
from pooltool.records import QRELS_COLUMNS
from pooltool.report import emit, emit_json, records
from pooltool.store import DEFAULT_POOL, JudgmentStore
from pooltool.store.docno_check import MissingDocnos
from pooltool.store.journal import waiting_writes
from pooltool.store.policy import POLICIES
from pooltool.store.topic_check import UnknownTopics

existing_file = click.Path(exists=True, dir_okay=False, path_type=Path)


def output_file_option(f: F) -> F:
    """Add ``-o/--output FILE`` (default: stdout)."""
    return click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                        help="Write to FILE instead of stdout.")(f)


def _int64(_ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """Refuse an integer SQLite cannot store (outside the signed 64-bit range)."""
    if value is not None and not in_int64(value):
        raise click.BadParameter(f"{value} does not fit a 64-bit grade")
    return value


def _non_blank(_ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not value.strip():
        raise click.BadParameter(f"{param.name} must not be blank")
    return value.strip()


@cli.command()
@click.option("--roles", type=click.Choice(["print", "apply"]),
              help="PostgreSQL store: print, or apply, the SQL that creates the "
                   "administrators' and assessors' group roles and their grants.")
@click.option("--admin-role", default="pooltool_admin", show_default=True, metavar="NAME",
              help="The administrators' group role (with --roles).")
@click.option("--assessor-role", default="pooltool_assessor", show_default=True,
              metavar="NAME", help="The assessors' group role (with --roles).")
@click.option("--admin", "admins", multiple=True, metavar="LOGIN",
              help="Make this existing login role an administrator (with --roles; repeat it).")
@click.option("--assessor", "assessors", multiple=True, metavar="LOGIN",
              help="Make this existing login role an assessor (with --roles; repeat it).")
@click.pass_context
def init(ctx: click.Context, roles: str | None, admin_role: str, assessor_role: str,
         admins: tuple[str, ...], assessors: tuple[str, ...]) -> None:
    """Create an empty judgment store (or bring an old one's schema up to date).

    On a PostgreSQL store, --roles print shows, and --roles apply runs (as the
    store's owner, a role that may create roles), the SQL of two group roles:
    administrators import runs, qrels, topics and documents, pool and change
    settings; assessors only judge (judgments, claims, notes) and read. Login
    roles named by --admin and --assessor become members.

    \b
    Example:
      pooltool --db covid.db init
      pooltool --db postgresql://owner@db.example:5432/covid init --roles apply \\
          --admin carol --assessor alice --assessor bob
    """
    from pooltool.store.roles import NO_ROLES, apply_roles, roles_sql

    path = db_path(ctx)
    if roles is not None and not isinstance(path, str):
        raise StoreError(NO_ROLES.format(path))
    if (admins or assessors) and roles is None:
        raise click.UsageError("--admin and --assessor go with --roles print or --roles apply")
    if roles == "print":  # psql then stops at the first error (e.g. no store yet)
        click.echo("\\set ON_ERROR_STOP on\n"
                   + roles_sql(admin_role, assessor_role, admins, assessors), nl=False)
        return
    with JudgmentStore.open(path, create=True) as store:
        if roles == "apply":
            apply_roles(store, admin_role, assessor_role, admins, assessors)
            warn(f"roles {admin_role} (administrators) and {assessor_role} (assessors) "
                 f"granted on {store.address}")
    warn(f"store ready: {path}")


@cli.command("add-topics")
@click.argument("file", type=file_or_dataset)
@click.option("--topic-format", "fmt", type=click.Choice(["trec", "xml", "tsv", "jsonl",
              "cranfield"]), help="Input format (default: detected).")
@click.pass_context
def add_topics(ctx: click.Context, file: Path | str, fmt: str | None) -> None:
    """Add topic statements (TREC <top>, TREC-COVID XML, TSV, JSONL, Cranfield .qry),
    or an ir_datasets dataset's queries (irds:NAME; the irds extra; which query field
    becomes title, description and narrative: docs/campaign.md).

    \b
    Example:
      pooltool add-topics topics-rnd1.xml
      pooltool add-topics irds:cranfield
    """
    if isinstance(file, str):
        from pooltool.formats.irds import dataset_name, irds_topics

        topics = irds_topics(str(dataset_name(file)))
    else:
        topics = read_topics(file, fmt)
    with open_store_to_write(ctx) as store:
        summary = store.add_topics(topics, str(file))
    warn(f"{file}: {summary.read} topics read, {summary.added} added, "
         f"{summary.skipped} already present")


@cli.command("add-docs")
@click.argument("files", nargs=-1, required=True, type=file_or_dataset)
@click.option("--doc-format", "fmt", type=click.Choice(["jsonl", "tsv", "trec", "cranfield"]),
              help="Input format (default: detected).")
@click.option("--duplicates", is_flag=True,
              help="Then group the copies among all stored documents, with the defaults of "
                   "pooltool duplicates find.")
@click.pass_context
def add_docs(ctx: click.Context, files: tuple[Path | str, ...], fmt: str | None,
             duplicates: bool) -> None:
    """Add document texts for the judging UI (JSONL, TSV, TREC <DOC> SGML, Cranfield),
    or an ir_datasets dataset's documents (irds:NAME, streamed; the irds extra).

    A docno already stored keeps its first text.

    \b
    Example:
      pooltool add-docs corpus.jsonl.gz
      pooltool add-docs irds:cranfield
    """
    with open_store_to_write(ctx) as store:
        for file in files:
            if isinstance(file, str):
                from pooltool.formats.irds import dataset_name, irds_documents

                stream, count = irds_documents(str(dataset_name(file)))
                documents = progress(stream, f"reading {file}", total=count)
            else:
                documents = progress(iter_documents(file, fmt), f"reading {file}")
            summary = store.add_documents(documents, str(file))
            warn(f"{file}: {summary.read} documents read, {summary.added} added, "
                 f"{summary.skipped} already present")
        if duplicates:
            find_and_store(store, DEFAULTS)


def strict_topics_option(f: F) -> F:
    """Add ``--strict-topics`` (refuse input for topics the store does not hold)."""
    return click.option(
        "--strict-topics", is_flag=True,
        help="Refuse a file with topics the store does not hold (nothing is imported); "
             "without it they are imported and named on stderr. No check when the "
             "store has no topics.")(f)


def warn_unknown_topics(found: UnknownTopics) -> None:
    """Name an input's unknown topics on stderr (the import went on)."""
    warn(f"warning: {found.message()}; imported anyway (--strict-topics refuses them)")


def strict_docs_option(f: F) -> F:
    """Add ``--strict-docs`` (refuse input naming docnos the store's documents lack)."""
    return click.option(
        "--strict-docs", is_flag=True,
        help="Refuse the input if it names docnos no stored document has (when the store "
             "holds documents); default: name them on stderr and import.")(f)


def warn_missing_docnos(found: MissingDocnos) -> None:
    """Name an input's docnos the collection lacks on stderr (the import went on)."""
    warn(f"warning: {found.message()}; imported anyway (--strict-docs refuses them)")


FORCE_HINT = ("; --force does it anyway: the pool keeps its documents, and its rounds "
              "still name the old run and its file's sha256")


def force_option(help_text: str) -> Callable[[F], F]:
    """Add ``--force`` (replace or remove a run even though it built a pool)."""
    return click.option("--force", is_flag=True, help=help_text)


@cli.command("add-runs")
@click.argument("files", nargs=-1, required=True, type=file_or_dataset)
@click.option("--replace", is_flag=True,
              help="A tag already in the store gets the new run; the old run stays in "
                   "'pooltool runs --all' as replaced.")
@force_option("With --replace: also replace runs that built a pool.")
@strict_topics_option
@strict_docs_option
@output_option()
@click.pass_context
def add_runs(ctx: click.Context, files: tuple[Path | str, ...], replace: bool, force: bool,
             strict_topics: bool, strict_docs: bool, fmt: str) -> None:
    """Import TREC run files (several tags in a file are several runs); one transaction.

    irds:NAME imports an ir_datasets dataset's scoreddocs as the run tagged NAME (the
    irds extra; not with files or the options in the same call).

    \b
    Example:
      pooltool add-runs runs/*.txt
      pooltool add-runs --replace runs/bm25-fixed.txt   # correct a run
      pooltool add-runs irds:msmarco-passage/dev/small
    """
    if any(isinstance(file, str) for file in files):
        add_dataset_runs(ctx, files, replace or force or strict_topics or strict_docs, fmt)
        return
    with open_store_to_write(ctx) as store, _force_hint():
        added = store.add_runs(progress(files, "reading runs", total=len(files)),
                               replace=replace, force=force, strict_topics=strict_topics,
                               on_unknown_topics=warn_unknown_topics, strict_docs=strict_docs,
                               on_missing_docnos=warn_missing_docnos)
    say_runs_per_file(zip(added["source_path"], added["run_tag"], strict=True))
    emit(added, fmt, title="runs added")


@cli.command("remove-run")
@click.argument("tag")
@force_option("Also remove a run that built a pool.")
@click.pass_context
def remove_run(ctx: click.Context, tag: str, force: bool) -> None:
    """Remove the run TAG from the runs pooling and measuring use.

    Nothing is deleted: the run, its entries and its provenance stay in
    'pooltool runs --all' as removed, and pools it built keep their documents.

    \b
    Example:
      pooltool remove-run bm25-broken
    """
    with open_store_to_write(ctx) as store, _force_hint():
        removed = store.remove_run(tag, force=force)
    warn(f"run {tag!r} removed (imported from {removed['source_path']} at "
         f"{removed['imported_at']}, sha256 {removed['sha256'] or 'none'})")


@cli.command("runs")
@click.option("--all", "show_all", is_flag=True,
              help="Also replaced and removed runs, with the pooling rounds each run built.")
@output_option()
@click.pass_context
def runs(ctx: click.Context, show_all: bool, fmt: str) -> None:
    """List the stored runs with their provenance (source file, sha256, import time).

    \b
    Example:
      pooltool runs --all --format csv
    """
    with open_store(ctx) as store:
        table = store.run_history() if show_all else store.runs()
    emit(table, fmt, title="runs (all, by import)" if show_all else "runs")


@contextmanager
def _force_hint() -> Iterator[None]:
    """Add how to go ahead to the refusal to retire a run that built a pool."""
    try:
        yield
    except RunInPool as exc:
        raise RunInPool(f"{exc}{FORCE_HINT}") from exc


@cli.command()
@click.option("--depth", "-d", type=click.IntRange(min=1),
              help="Pool depth: each run's first DEPTH documents per topic are pooled.")
@click.option("--strategy", metavar="NAME[:KEY=VALUE,...]",
              help="Make an adaptive pool instead: the strategy (e.g. mtf, mmns:gamma=0.9, "
                   "thompson) chooses each topic's next document from the judgments so far, "
                   "as assessors judge ('pooltool simulate --help' lists the strategies).")
@click.option("--budget", type=click.IntRange(min=1),
              help="With --strategy: documents chosen per topic at most (default: no limit).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="With --strategy: the seed of a randomised strategy (thompson).")
@click.option("--runs", "run_tags", multiple=True, metavar="TAG",
              help="Pool only these runs (repeat the option); default: every stored run.")
@click.option("--pool", "--name", "pool_name", default=DEFAULT_POOL, show_default=True,
              callback=_non_blank, help="Name of the pool to build or grow.")
@output_option()
@click.pass_context
def pool(ctx: click.Context, depth: int | None, strategy: str | None, budget: int | None,
         seed: int, run_tags: tuple[str, ...], pool_name: str, fmt: str) -> None:
    """Pool the top DEPTH documents of each run (trec_eval order) into the store,
    or make an adaptive pool (--strategy).

    Pools only grow: pooling again with more runs or a larger DEPTH adds just
    the new documents. Prints what each run contributed: pooled (its
    top-DEPTH pairs), unique (no other pooled run has them) and new (not
    pooled before).

    An adaptive pool is made once. 'pooltool judge --pool NAME' shows each
    assessor the document the strategy chooses next from every assessor's
    judgments so far (rebuilt from the log and the stored seed each time, so
    a restarted app or a second one on the topic sees what the log implies;
    two assessors are never shown the same document). 'export-pool' writes
    the documents chosen so far; 'status --pool NAME' the budget used and
    the estimated relevant documents not found yet per topic.

    \b
    Example:
      pooltool pool --depth 7 --runs BBGhelani2 --runs T5R1
      pooltool pool --name adaptive --strategy mtf --budget 20
    """
    if (depth is None) == (strategy is None):
        raise click.UsageError("give --depth (a depth-k pool) or --strategy (an adaptive "
                               "pool), not both")
    if strategy is None and budget is not None:
        raise click.UsageError("--budget goes with --strategy")
    if strategy is not None:
        _adaptive_pool(ctx, pool_name, strategy, budget, seed, list(run_tags), fmt)
        return
    assert depth is not None
    with open_store_to_write(ctx) as store:
        result = pooling.pool_runs(store, depth, list(run_tags) or None, pool_name)
    emit(result.contributions, fmt, title=f"pool {result.pool!r} at depth {depth}")
    warn(f"{result.docs_added} documents added; the pool now holds {result.pool_size}")


def _adaptive_pool(ctx: click.Context, pool_name: str, strategy: str, budget: int | None,
                   seed: int, run_tags: list[str], fmt: str) -> None:
    from pooltool.judging.adaptive import adaptive_status, create_adaptive_pool

    with open_store_to_write(ctx) as store:
        design = create_adaptive_pool(store, pool_name, strategy, budget, seed,
                                      run_tags or None)
        table = adaptive_status(store, pool_name)
    emit(table, fmt, title=f"adaptive pool {pool_name!r}: {design['strategy']}")
    warn(f"adaptive pool {pool_name!r} made: strategy {design['strategy']}, "
         f"{len(design['run_tags'])} runs, budget "
         f"{budget if budget is not None else 'unlimited'} per topic, seed {seed}; "
         f"judge it with 'pooltool judge --pool {pool_name}'")


@cli.command("export-pool")
@click.option("--pool", "pool_name", default=DEFAULT_POOL, show_default=True,
              help="The pool to write (as named by 'pool --pool').")
@click.option("--queue", is_flag=True,
              help="Only documents still to judge (a judging queue), judged ones left out.")
@output_file_option
@click.pass_context
def export_pool(ctx: click.Context, pool_name: str, queue: bool, output: Path | None) -> None:
    """Write the pool as 'topic docno' lines (a NIST pool file).

    \b
    Example:
      pooltool export-pool --queue -o to-judge.txt
    """
    with open_store(ctx) as store:
        docs = judging_queue(store, pool_name) if queue else store.pool_docs(pool_name)
    with _output(output) as out:
        for topic, docno in zip(docs["topic"], docs["docno"], strict=True):
            out.write(f"{topic} {docno}\n")


@cli.command("import-qrels")
@click.argument("file", type=file_or_dataset)
@click.option("--version", "version", required=True, callback=_non_blank,
              help="Name the resulting qrels version.")
@click.option("--assessor", default="qrels", show_default=True,
              callback=lambda ctx, param, value: check_assessor(ctx, param,
                                                                 _non_blank(ctx, param, value)),
              help="Assessor recorded on the imported judgments.")
@click.option("--replace", is_flag=True,
              help="Retract the assessor's judgments of pairs absent from FILE, so "
                   "'export-qrels --version V --policy assessor:NAME' equals FILE.")
@click.option("--machine", is_flag=True,
              help="The assessor is a machine (an LLM judge, a classifier): the default "
                   "policies leave its judgments out.")
@strict_topics_option
@strict_docs_option
@click.pass_context
def import_qrels(ctx: click.Context, file: Path | str, version: str, assessor: str,
                 replace: bool, machine: bool, strict_topics: bool, strict_docs: bool) -> None:
    """Append a qrels file to the judgment log and name the result as a version.

    Each line is recorded as the --assessor's judgment unless that assessor's
    own live grade of the document already equals it ('unchanged'); another
    assessor's equal grade does not count. A line repeated word for word is
    kept once (and counted); a (topic, docno) given again with another grade,
    or under another iteration (diversity qrels: one line per subtopic), is
    refused, naming the line. With --machine the assessor is
    marked a machine, so its grades reach qrels only through a policy that
    names it (assessor:NAME, prefer:A,B) or takes all (latest:all).

    \b
    Example:
      pooltool import-qrels qrels-rnd1.txt --version official
      pooltool import-qrels llm.qrels --version llm --assessor gpt-judge --machine
      pooltool import-qrels irds:cranfield --version official

    FILE may be an ir_datasets id, irds:NAME (the irds extra): its qrels are read
    through ir_datasets, from its local cache (pooltool never downloads).
    """
    with qrels_file(file) as path, open_store_to_write(ctx) as store:
        result = store.import_qrels(path, version, assessor, replace=replace, machine=machine,
                                    strict_topics=strict_topics,
                                    on_unknown_topics=warn_unknown_topics,
                                    strict_docs=strict_docs,
                                    on_missing_docnos=warn_missing_docnos, source=str(file))
        kind = "machine" if assessor in store.machines() else "person"
    folded = result["folded"]
    warn(f"{file}: {result['read']} judgments read, {result['added']} added, "
         f"{result['unchanged']} unchanged, {result['retracted']} retracted; "
         f"version {version!r}; assessor {assessor!r} is a {kind}"
         + (f"; {folded} repeated line{'s' if folded != 1 else ''} (the same words as an "
            "earlier line) kept once" if folded else ""))


@cli.command("export-qrels")
@click.option("--version", "version", help="A named qrels version (default: the log now).")
@click.option("--policy", default="latest", show_default=True, metavar="POLICY",
              help=f"How several judgments of a pair become one grade: {', '.join(POLICIES)}.")
@click.option("--unjudged-as", type=int, callback=_int64, metavar="GRADE",
              help="Also write pooled but unjudged documents with this grade (e.g. -1).")
@click.option("--pool", "pool_name", default=DEFAULT_POOL, show_default=True,
              help="The pool whose unjudged documents --unjudged-as writes.")
@propagate_option
@output_file_option
@click.option("--format", "fmt", type=click.Choice(("trec", "jsonl", "parquet", "json")),
              default="trec", show_default=True, metavar="FORMAT",
              help="trec: qrels lines; jsonl, parquet: the same rows with column names (for "
                   "pandas, polars, DuckDB); json: {topic: {docno: grade}} (ranx, ir_measures).")
@click.pass_context
def export_qrels(ctx: click.Context, version: str | None, policy: str,
                 unjudged_as: int | None, pool_name: str, propagate: str,
                 output: Path | None, fmt: str) -> None:
    """Write qrels (topic iteration docno grade) derived from the judgment log.

    \b
    Policies (people only, unless :all; each person's latest grade counts):
      latest       the most recent grade of the pair
      max          the highest grade
      majority     the most frequent grade; a tie: the tied grade given last
      assessor:A   A's latest grade (a person or a machine)
      prefer:A,B   A's grade where A judged the pair, else B's, ...
    A negative grade (-1, "pooled, not judged") is no judgment under every
    policy: it never replaces, outvotes or outranks a grade >= 0; a pair whose
    every grade is negative is written with it (unjudged to trec_eval).

    \b
    Example:
      pooltool export-qrels --version official -o qrels.txt
      pooltool export-qrels --unjudged-as -1 --policy majority
      pooltool export-qrels --policy prefer:alice,gpt-judge -o filled.qrels
      pooltool export-qrels --version official --format parquet -o official.parquet

    The default policies (latest, max, majority) take people's judgments
    only; when the store has a machine assessor, stderr says whose
    judgments, by kind, the qrels took.
    """
    with open_store(ctx) as store:
        if policy.startswith("assessor:"):
            _check_assessor(store, policy.split(":", 1)[1])
        # an empty export is an error, but a pool written as unjudged lines is not
        qrels = (store.qrels(version, policy, propagate=propagate) if unjudged_as is not None
                 else store.nonempty_qrels(version, policy, propagate))
        note = store.policy_note(version, policy) if store.machines() else ""
        if unjudged_as is not None:
            qrels = _with_unjudged(qrels, store.pool_docs(pool_name), unjudged_as)
    if fmt == "trec":
        with _output(output) as out:
            write_qrels(qrels, out)
    else:
        from pooltool.cli.exports import write_export

        write_export(qrels, fmt, output, "grade")
    if note:
        warn(note)


@cli.command("assessors")
@click.option("--set-kind", "set_kind", nargs=2, metavar="NAME KIND",
              help="Mark assessor NAME a person or a machine (recorded, never overwritten).")
@output_option()
@click.pass_context
def assessors(ctx: click.Context, set_kind: tuple[str, str] | None, fmt: str) -> None:
    """List the assessors: kind (person or machine) and pairs judged (grade >= 0).

    The default qrels policies (latest, max, majority) use people's
    judgments only; a machine's grades reach qrels through assessor:NAME,
    prefer:A,B or latest:all.

    \b
    Example:
      pooltool assessors
      pooltool assessors --set-kind gpt-judge machine
    """
    if set_kind is not None:
        name, kind = set_kind
        with open_store_to_write(ctx) as store:
            changed = store.set_assessor_kind(name, kind, "assessors --set-kind")
        warn(f"assessor {name!r} is {'now' if changed else 'already'} a {kind}")
    with open_store(ctx) as store:
        emit(store.assessor_kinds(), fmt, title="assessors")


def _check_assessor(store: JudgmentStore, name: str) -> None:
    known = sorted(set(store.live_judgments()["assessor"]))
    if name not in known:
        raise StoreError(f"no judgments by assessor {name!r} (assessors: "
                         f"{', '.join(known) or 'none yet'})")


def _with_unjudged(qrels: pd.DataFrame, docs: pd.DataFrame, grade: int) -> pd.DataFrame:
    missing = docs[~pair_isin(docs, qrels)]
    extra = missing.assign(iteration="0", grade=grade)[QRELS_COLUMNS]
    return pd.concat([qrels, extra], ignore_index=True)


#: Decimal places of the judging pace for people (csv/json keep every digit).
PACE_DECIMALS = {"judgments_per_hour": 0, "median_seconds": 1, "eta_hours": 1}


@cli.command()
@click.option("--pool", "pool_name", default=DEFAULT_POOL, show_default=True,
              help="The pool whose progress to show (as named by 'pool --pool').")
@level_option
@click.option("--estimate", "sample_name", metavar="NAME",
              help="Add the relevant documents the pool missed, estimated from the judged "
                   "sample NAME (est_missed, with a 95% interval).")
@output_option()
@click.pass_context
def status(ctx: click.Context, pool_name: str, level: int, fmt: str,
           sample_name: str | None) -> None:
    """Judging progress per topic (pooled, judged, unjudged, relevant) and per assessor
    (judgments per hour, median seconds per document, remaining, ETA in hours).

    CSV, TSV and JSONL give the per-topic rows; JSON gives both tables,
    the writes waiting in judging apps' journals (the store was busy when they
    were made; stderr names them in the other formats) and, as "qrels", whose
    judgments by kind the counts use (people's only, by the default policy;
    a table says so on stderr when the store has a machine assessor).

    An adaptive pool (pool --strategy) adds per topic its budget,
    budget_used (chosen documents judged), relevant_found, recent_rate and
    est_unfound: the relevant documents not found yet, estimated as the
    share relevant among the last 10 judgments times the documents the runs
    retrieved that nobody has judged (errs high; near 0: stop).

    A store with duplicate groups (pooltool duplicates find) adds saved per
    topic: pooled documents judged through a judged copy (--propagate exact),
    judgments nobody had to make.

    --estimate NAME adds est_missed per topic: the estimated relevant
    documents outside the pool (est_R of 'recall --estimate' minus the pooled
    relevant ones), with its 95% interval; csv/tsv/jsonl rows name the
    interval method, and JSON says in "estimate" the sample, its frame, its
    judged sampled documents and the method.

    \b
    Example:
      pooltool status --format csv
      pooltool status --estimate s1
    """

    with open_store(ctx) as store:
        topics = pool_status(store, pool_name, level)
        if store.adaptive_design(pool_name) is not None:
            from pooltool.judging.adaptive import adaptive_status

            topics = topics.merge(adaptive_status(store, pool_name), on="topic", how="left")
        if store.duplicate_finding() is not None:  # judged once for several copies
            topics = topics.merge(saved_judgments(store, pool_name), on="topic", how="left")
        pace = judging_stats(store, pool=pool_name)
        note, machines = store.policy_note(), bool(store.machines())
        estimate: dict[str, Any] = {}
        if sample_name is not None:
            from pooltool.cli.estimate import with_missed

            topics, estimate, interval = with_missed(store, topics, sample_name, level,
                                                     pool_name)
            if fmt in ("csv", "tsv", "jsonl"):  # rows travel alone: each names its method
                topics = topics.assign(interval=interval)
    base = store.journal_base
    waiting = {} if base is None else {str(path): count for path, count
                                       in waiting_writes(base).items()}
    if fmt == "json":
        emit_json({"topics": records(topics), "assessors": records(pace),
                   "waiting_writes": waiting, "qrels": note,
                   **({"estimate": estimate} if estimate else {})})
        return
    emit(topics, fmt, title=f"pool {pool_name!r}")
    if fmt == "table":
        if machines:
            warn(f"judged and relevant count the qrels of {note}")
        emit(pace, fmt, title="judging pace", decimals=PACE_DECIMALS)
    for path, count in waiting.items():
        warn(f"{count} judging write(s) wait in {path} (a judging app still retrying "
             "while the store is busy)")


class _output:
    """A context manager yielding the output stream: FILE (written whole) or stdout."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.handle = open(self.path, "w", encoding="utf-8") if self.path else sys.stdout
        return self.handle

    def __exit__(self, *exc: object) -> None:
        if self.path:
            self.handle.close()


@cli.command()
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.pass_context
def demo(ctx: click.Context, folder: Path | None) -> None:
    """Build a demo store from the bundled collection, pool it, and show what to do next.

    FOLDER receives pooltool.db (default: a new temporary folder). With --db on
    the command line the demo is built there instead: a SQLite file (an earlier
    demo store is replaced, any other file refused) or a PostgreSQL database
    without a store (POOLTOOL_DB is not used: the demo never builds into your
    campaign's store). Works offline.

    \b
    Example:
      pooltool demo ./demo-store
      pooltool --db postgresql://me@localhost/demo demo
    """
    from pooltool.demo import DEMO_DEPTH, DEMO_VERSION, build_demo, build_demo_at

    if ctx.find_root().get_parameter_source("db") is not ParameterSource.COMMANDLINE:
        result = build_demo(folder or Path(tempfile.mkdtemp(prefix="pooltool-demo-")))
    elif folder is not None:
        raise click.UsageError("give FOLDER or --db, not both: the demo builds one store")
    else:
        result = build_demo_at(db_path(ctx))
    with JudgmentStore.open(result.store_path) as store:
        emit(pool_status(store), "table",
             title=f"demo pool (depth {DEMO_DEPTH}) against qrels {DEMO_VERSION!r}")
    db, runs, me = result.store_path, result.files / "runs", _invoked_as()
    click.echo(
        f"\nDemo store: {db}\nNext:\n"
        f"  {me} --db {db} judge --assessor you      # grade the unjudged pooled documents\n"
        f"  {me} --db {db} recall {runs}/*.run --version {DEMO_VERSION} -k 5,10,50\n"
        f"  {me} --db {db} export-qrels -o qrels.txt\n"
        f"  {me} --db {db} bias -k 10 --depth {DEMO_DEPTH}"
    )


def _invoked_as() -> str:
    """How to call pooltool again as this process was called: ``pooltool`` when that
    name on PATH is this program, else the path typed (``.venv/bin/pooltool``), else
    ``PYTHON -m pooltool``."""
    typed = Path(sys.argv[0])
    on_path = shutil.which("pooltool")
    if on_path is not None and Path(on_path).resolve() == typed.resolve():
        return "pooltool"
    if typed.name == "pooltool":
        return str(typed)
    return f"{sys.executable} -m pooltool"
