"""Commands about copies of one text: duplicates find, list, impact (and the qrels
option ``--propagate`` they share with export-qrels)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from time import perf_counter

import click

from pooltool.analysis.duplicate_impact import duplicate_impact
from pooltool.cli.group import (
    F,
    cli,
    level_option,
    open_store,
    open_store_to_write,
    output_option,
    warn,
)
from pooltool.duplicates import DEFAULTS, Parameters, find_groups
from pooltool.records import Document
from pooltool.report import emit
from pooltool.store import JudgmentStore
from pooltool.store.duplicates import DEFAULT_PROPAGATE, PROPAGATE


def propagate_option(f: F) -> F:
    """Add ``--propagate`` (which copies take a judged copy's grade in the qrels)."""
    return click.option(
        "--propagate", type=click.Choice(PROPAGATE), default=DEFAULT_PROPAGATE,
        show_default=True, metavar="HOW",
        help="Copies that take a judged copy's grade: exact (same normalised text), near "
             "(near copies too: opt-in) or none (see pooltool duplicates).")(f)


def parameter_options(f: F) -> F:
    """Add the options of :class:`~pooltool.duplicates.Parameters`."""
    for name, value, text in reversed([
            ("threshold", DEFAULTS.threshold, "Lowest Jaccard similarity of word shingles of "
             "a near copy (0.8: Lee et al. 2022, NearDup)."),
            ("shingle-words", DEFAULTS.shingle_words, "Words per shingle (5: Lee et al. 2022)."),
            ("num-perm", DEFAULTS.num_perm, "MinHash permutations (datasketch's default)."),
            ("seed", DEFAULTS.seed, "Seed of the MinHash permutations (datasketch's default).")]):
        f = click.option(f"--{name}", type=type(value), default=value, show_default=True,
                         help=text)(f)
    return f


def find_and_store(store: JudgmentStore, parameters: Parameters) -> None:
    """Group the copies among every stored document, store the finding, and say what was
    found on stderr (used by ``duplicates find`` and ``add-docs --duplicates``)."""
    start = perf_counter()
    documents = _Counted(store.all_documents())
    groups = find_groups(documents, parameters)
    store.add_duplicate_finding(groups, asdict(parameters), documents.count)
    copies = groups[groups["how"] != "leader"]
    warn(f"{documents.count} documents read: {groups['group_no'].nunique()} groups, "
         f"{int((copies['how'] == 'exact').sum())} exact copies, "
         f"{int((copies['how'] == 'near').sum())} near copies "
         f"(Jaccard >= {parameters.threshold}; {perf_counter() - start:.1f} s)")


class _Counted:
    """Documents passed through, counted."""

    def __init__(self, documents: Iterator[Document]) -> None:
        self.documents, self.count = documents, 0

    def __iter__(self) -> Iterator[Document]:
        for document in self.documents:
            self.count += 1
            yield document


@cli.group("duplicates")
def duplicates_group() -> None:
    """Copies of one text among the documents: find them, list them, see their effect.

    Exact copies share a normalised text (case, whitespace and punctuation ignored);
    near copies have word shingles of Jaccard >= --threshold to their group's leader
    (MinHash and LSH propose, the exact Jaccard decides). A judgment of one copy
    reaches the others in the qrels as the policy --propagate says.

    \b
    Example:
      pooltool duplicates find
      pooltool duplicates list --format csv
      pooltool duplicates impact -k 10
    """


@duplicates_group.command("find")
@parameter_options
@click.pass_context
def find_command(ctx: click.Context, threshold: float, shingle_words: int, num_perm: int,
                 seed: int) -> None:
    """Group the copies among every stored document (a new finding: older ones are kept).

    \b
    Example:
      pooltool duplicates find --threshold 0.9
    """
    with open_store_to_write(ctx) as store:
        find_and_store(store, Parameters(threshold, shingle_words, num_perm, seed).check())


@duplicates_group.command("list")
@output_option()
@click.pass_context
def list_command(ctx: click.Context, fmt: str) -> None:
    """List the groups of the newest finding: one row per document in a group.

    \b
    Example:
      pooltool duplicates list --format csv
    """
    with open_store(ctx) as store:
        finding = store.duplicate_finding()
        if finding is None:
            warn("no duplicates found yet: run pooltool duplicates find")
            return
        groups = store.duplicate_groups()
        warn(f"finding {finding['finding_id']} of {finding['found_at']}: "
             f"{finding['documents']} documents, Jaccard >= {finding['threshold']}, "
             f"{finding['shingle_words']}-word shingles, {finding['num_perm']} permutations, "
             f"seed {finding['seed']}")
        emit(groups.rename(columns={"group_no": "group"}), fmt, decimals={"similarity": 3})




@duplicates_group.command("impact")
@click.option("-k", "k", type=click.IntRange(min=1), default=10, show_default=True,
              help="The cutoff of Recall@k, P@k, unjudged@k and copies_at_k.")
@click.option("--propagate", type=click.Choice(["exact", "near"]), default=DEFAULT_PROPAGATE,
              show_default=True, help="The propagation the scores with it use.")
@level_option
@output_option()
@click.pass_context
def impact_command(ctx: click.Context, k: int, propagate: str, level: int, fmt: str) -> None:
    """Each stored run's Recall@k, P@k and unjudged@k without and with propagation, and
    copies_at_k: its top-k documents that copy one it ranked higher (summed over topics).

    \b
    Example:
      pooltool duplicates impact -k 10 --propagate near
    """
    with open_store(ctx) as store:
        emit(duplicate_impact(store, k, propagate, level), fmt)


__all__ = ["find_and_store", "parameter_options", "propagate_option"]
