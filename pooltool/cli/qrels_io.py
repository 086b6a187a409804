"""Commands for qrels in and out of the judgment log, and who judged: import-qrels,
export-qrels, assessors."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd

from pooltool.cli.datasets import qrels_file
from pooltool.cli.duplicates import propagate_option
from pooltool.cli.group import (
    check_assessor,
    cli,
    file_or_dataset,
    non_blank,
    open_output,
    open_store,
    open_store_to_write,
    output_file_option,
    output_option,
    warn,
)
from pooltool.cli.import_checks import (
    strict_docs_option,
    strict_topics_option,
    warn_missing_docnos,
    warn_unknown_topics,
)
from pooltool.errors import StoreError
from pooltool.formats.frames import pair_isin
from pooltool.formats.qrels import write_qrels
from pooltool.formats.source import in_int64
from pooltool.records import QRELS_COLUMNS
from pooltool.report import emit
from pooltool.store import DEFAULT_POOL, JudgmentStore
from pooltool.store.policy import POLICIES


def _int64(_ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """Refuse an integer SQLite cannot store (outside the signed 64-bit range)."""
    if value is not None and not in_int64(value):
        raise click.BadParameter(f"{value} does not fit a 64-bit grade")
    return value



@cli.command("import-qrels")
@click.argument("file", type=file_or_dataset)
@click.option("--version", "version", required=True, callback=non_blank,
              help="Name the resulting qrels version.")
@click.option("--assessor", default="qrels", show_default=True,
              callback=lambda ctx, param, value: check_assessor(ctx, param,
                                                                 non_blank(ctx, param, value)),
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
        with open_output(output) as out:
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
