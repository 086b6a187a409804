"""Commands that build and write pools: pool (depth-k or adaptive), export-pool."""

from __future__ import annotations

from pathlib import Path

import click

from pooltool import pooling
from pooltool.cli.group import (
    cli,
    non_blank,
    open_output,
    open_store,
    open_store_to_write,
    output_file_option,
    output_option,
    warn,
)
from pooltool.report import emit
from pooltool.store import DEFAULT_POOL


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
              callback=non_blank, help="Name of the pool to build or grow.")
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
    emit(result.contribution_columns, fmt, title=f"pool {result.pool!r} at depth {depth}")
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
    from pooltool.judging.queue import judging_queue  # here: it loads pandas, which pool never needs

    with open_store(ctx) as store:
        docs = judging_queue(store, pool_name) if queue else store.pool_docs(pool_name)
    with open_output(output) as out:
        for topic, docno in zip(docs["topic"], docs["docno"], strict=True):
            out.write(f"{topic} {docno}\n")
