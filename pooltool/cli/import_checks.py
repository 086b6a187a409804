"""The options and warnings of the imports that check their input against the store:
``--strict-topics`` (topics it does not hold) and ``--strict-docs`` (docnos no stored
document has)."""

from __future__ import annotations

import click

from pooltool.cli.group import F, warn
from pooltool.store.docno_check import MissingDocnos
from pooltool.store.topic_check import UnknownTopics


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
