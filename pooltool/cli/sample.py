"""``pooltool sample``: a stratified sample of documents beyond a pool, to estimate
what the pool missed (``pooltool recall --estimate NAME``)."""

from __future__ import annotations

import click
import pandas as pd

from pooltool.analysis.sample_design import draw_and_store, grow_and_store
from pooltool.analysis.sampling import ALLOCATIONS, DEFAULT_STRATA
from pooltool.cli.group import cli, open_store_to_write, output_option, warn
from pooltool.report import emit
from pooltool.store import DEFAULT_POOL


@cli.command()
@click.option("--name", required=True, help="Name of the sample (and of the pool that holds it).")
@click.option("--strata", "spec", default=DEFAULT_STRATA, show_default=True,
              help="Strata: best-rank ranges A-B or A+, and 'unretrieved' (no run retrieved it).")
@click.option("--budget", type=click.IntRange(min=1),
              help="Documents to sample per topic (a new sample).")
@click.option("--grow", type=click.IntRange(min=1), metavar="N",
              help="Grow the sample NAME by N documents per topic, keeping its design and "
                   "every earlier draw.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the draw.")
@click.option("--allocation", type=click.Choice(ALLOCATIONS), default="equal", show_default=True,
              help="Share the budget equally over a topic's strata, or in proportion to their sizes.")
@click.option("--pool", "pool_name", default=DEFAULT_POOL, show_default=True,
              help="The pool to sample beyond.")
@output_option()
@click.pass_context
def sample(ctx: click.Context, name: str, spec: str, budget: int | None, grow: int | None,
           seed: int, allocation: str, pool_name: str, fmt: str) -> None:
    """Draw documents the pool did not take, to estimate the relevant documents it missed.

    Per topic, the documents outside the pool are split into strata by their
    best rank over the pool's runs (and 'unretrieved': the store's documents
    no run retrieved, which needs 'pooltool add-docs'); each non-empty stratum
    gets a simple random sample without replacement (--allocation; at least
    one document each). The draw orders a stratum's documents by
    sha256(SEED, topic, docno) and takes the first n: the same seed gives the
    same sample, and a larger budget extends the same order. Each document's
    inclusion probability n/N is stored. Without 'unretrieved' the estimates
    are of R within the runs' lists, not of the collection's R.

    The sample is also a pool named NAME: judge it with 'pooltool judge
    --pool NAME', or mixed with the pool so assessors cannot tell the two
    apart: 'pooltool judge --pool POOL --with-sample NAME'. Then 'pooltool
    recall RUN... --version V --estimate NAME'.

    --grow N raises the budget of sample NAME by N per topic: the same frame,
    strata, allocation and seed, each stratum's documents taken further along
    the same sha256 order, so the grown sample holds every earlier document
    (their judgments count) and is still a stratified simple random sample
    (n_h grows; inclusion n_h/N_h is that of the grown sample). Refused when
    the frame changed since the draw (the pool or the store's documents).

    \b
    Example:
      pooltool sample --name s1 --budget 40 --seed 1
      pooltool sample --name s1 --grow 20
      pooltool sample --name s2 --strata 11-20,21-100,101+ --budget 30 --allocation proportional
    """
    if (budget is None) == (grow is None):
        raise click.UsageError("give --budget N (a new sample) or --grow N (a larger one)")
    if grow is not None:
        options = {"--strata": "spec", "--seed": "seed", "--allocation": "allocation",
                   "--pool": "pool_name"}
        kept = [option for option, param in options.items()
                if ctx.get_parameter_source(param) is not click.core.ParameterSource.DEFAULT]
        if kept:
            raise click.UsageError(f"--grow keeps the sample's design: leave out {', '.join(kept)}")
    with open_store_to_write(ctx) as store:
        try:
            if grow is not None:
                design, sizes = grow_and_store(store, name, grow)
                pool_name = design["base_pool"]
                added = (f"{design['added']} document(s) added, every earlier one kept"
                         if design["added"] else "nothing added: every stratum is sampled "
                         "whole already")
                warn(f"sample {name!r} grown to {design['budget']} per topic: {added}")
            else:
                design, sizes = draw_and_store(store, name, pool_name, spec, int(budget or 0),
                                               seed, allocation)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from exc
    table = sizes.groupby("stratum", sort=False).agg(
        topics=("topic", "size"), population=("population", "sum"),
        sampled=("size", "sum")).reset_index()
    order = {s: i for i, s in enumerate(design["strata"].split(","))}
    table = table.sort_values("stratum", key=lambda c: c.map(order)).reset_index(drop=True)
    total = pd.DataFrame([{"stratum": "all", "topics": sizes["topic"].nunique(),
                           "population": int(sizes["population"].sum()),
                           "sampled": int(sizes["size"].sum())}])
    emit(pd.concat([table, total], ignore_index=True), fmt,
         title=f"sample {name!r} beyond pool {pool_name!r} (frame: {design['frame']})")
    if design["frame"] == "runs":
        warn("note: no 'unretrieved' stratum, so estimates from this sample are of R within "
             "the runs' lists, not of the collection's R")
    warn(f"next: pooltool judge --pool {name} -a NAME; then pooltool recall RUN... "
         f"--version V --estimate {name}")
