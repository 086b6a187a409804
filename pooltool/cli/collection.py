"""Commands that start a collection: init (the store), add-topics, add-docs."""

from __future__ import annotations

from pathlib import Path

import click

from pooltool.cli.group import cli, db_path, file_or_dataset, open_store_to_write, progress, warn
from pooltool.errors import StoreError
from pooltool.formats.documents import iter_documents
from pooltool.formats.topics import read_topics
from pooltool.store import JudgmentStore


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
            # imported here: the duplicate finder loads pandas, which init and add-topics
            # never need
            from pooltool.cli.duplicates import find_and_store
            from pooltool.duplicates import DEFAULTS

            find_and_store(store, DEFAULTS)
