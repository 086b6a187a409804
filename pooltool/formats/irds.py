"""Topics, documents and qrels from an ir_datasets id (``irds:NAME``), read through the
ir_datasets package (the optional extra ``irds``: ``pip install 'pooltool[irds]'``).

pooltool never downloads: a dataset whose files are not in ir_datasets' local cache
(``~/.ir_datasets``, or ``IR_DATASETS_HOME``) is refused in one line saying so and how
to fetch it, before any connection is tried (:func:`_no_downloads`), so nothing hangs
on a network that is not there.

Which field becomes what, by the fields of the dataset's query and document types
(ir_datasets names them; the families below are ir_datasets'):

================================  ===============================  ===================
family (query type)               title / description / narrative  documents: title, text
================================  ===============================  ===================
TREC ad hoc, TREC-COVID/CORD-19   ``title`` / ``description`` /    ``title`` (if any),
(``TrecQuery``, its kin)          ``narrative``                    ``text`` or
                                                                   ``abstract``
MS MARCO, Cranfield, BEIR,        ``text`` / (none) / (none)       ``title`` (if any),
most others (``GenericQuery``)                                     ``text``
a query type with ``query``       ``query`` / ``description`` /    as above
(TREC-COVID rounds' ``query``)    ``narrative``
================================  ===============================  ===================

Precisely: title is the first of ``title``, ``query``, ``text`` the query has;
description ``description`` (else ``question``), narrative ``narrative``, each empty
when absent. A document's title is its ``title`` (else empty), its text the first of
``text``, ``abstract``, ``body``, else its other text fields joined by blank lines.
A qrels line's grade is ``relevance``, its iteration ``iteration`` (else ``0``).
Scoreddocs, where a dataset has them, are a run tagged with the dataset's id.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pooltool.errors import InvalidArgument, NotCached
from pooltool.records import Document, Topic

if TYPE_CHECKING:
    import pandas as pd

PREFIX = "irds:"


def dataset_name(source: str) -> str | None:
    """``NAME`` of ``irds:NAME``, or ``None`` for anything else (a file path)."""
    return source[len(PREFIX):] if source.startswith(PREFIX) else None


def irds_topics(name: str) -> list[Topic]:
    """The dataset's queries as topics (fields as the module docstring says).

    :raises InvalidArgument: ir_datasets is not installed, no such dataset, or it has no
        queries.
    :raises NotCached: its queries are not in the local cache.
    """
    dataset = _load(name, "queries")
    with _no_downloads(name, "queries"):
        return [Topic(str(query.query_id), _first(query, ("title", "query", "text")),
                      _first(query, ("description", "question")), _first(query, ("narrative",)))
                for query in dataset.queries_iter()]


def irds_documents(name: str) -> tuple[Iterator[Document], int | None]:
    """The dataset's documents, streamed, and how many there are (``None``: unknown).

    :raises InvalidArgument: as :func:`irds_topics` (no documents).
    :raises NotCached: its documents are not in the local cache (raised while iterating
        for datasets that open their files lazily).
    """
    dataset = _load(name, "docs")
    count = dataset.docs_count() if hasattr(dataset, "docs_count") else None

    def stream() -> Iterator[Document]:
        with _no_downloads(name, "docs"):
            for doc in dataset.docs_iter():
                yield Document(str(doc.doc_id), _first(doc, ("title",)), _text(doc))

    return stream(), count


def irds_qrels(name: str) -> pd.DataFrame:
    """The dataset's qrels as :func:`~pooltool.formats.qrels.read_qrels` returns them.

    :raises InvalidArgument: as :func:`irds_topics` (no qrels).
    :raises NotCached: its qrels are not in the local cache.
    """
    import pandas as pd

    dataset = _load(name, "qrels")
    with _no_downloads(name, "qrels"):
        rows = [(str(q.query_id), str(getattr(q, "iteration", "0")), str(q.doc_id),
                 int(q.relevance)) for q in dataset.qrels_iter()]
    return pd.DataFrame(rows, columns=["topic", "iteration", "docno", "grade"])


def irds_run(name: str) -> pd.DataFrame:
    """The dataset's scoreddocs (a baseline's ranking, e.g. BM25's) as one run tagged
    ``name``, columns as :func:`~pooltool.formats.run.read_run` returns them; the rank
    is each document's place in its topic as ir_datasets lists them (pooltool orders by
    score anyway).

    :raises InvalidArgument: as :func:`irds_topics` (no scoreddocs).
    :raises NotCached: its scoreddocs are not in the local cache.
    """
    import pandas as pd

    dataset = _load(name, "scoreddocs")
    places: dict[str, int] = {}
    rows = []
    with _no_downloads(name, "scoreddocs"):
        for scored in dataset.scoreddocs_iter():
            topic = str(scored.query_id)
            places[topic] = places.get(topic, 0) + 1
            rows.append((name, topic, str(scored.doc_id), places[topic], float(scored.score)))
    return pd.DataFrame(rows, columns=["run_tag", "topic", "docno", "rank", "score"])


def _load(name: str, part: str) -> Any:
    try:
        import ir_datasets
    except ImportError:
        raise InvalidArgument(f"{PREFIX}{name}: reading ir_datasets needs the irds extra: "
                              "pip install 'pooltool[irds]'") from None
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        raise InvalidArgument(f"{PREFIX}{name}: ir_datasets has no dataset {name!r} (see "
                              "https://ir-datasets.com for the ids)") from None
    if not getattr(dataset, f"has_{part}")():
        raise InvalidArgument(f"{PREFIX}{name}: the dataset has no {part}")
    return dataset


@contextlib.contextmanager
def _no_downloads(name: str, part: str) -> Iterator[None]:
    """Refuse, as :class:`NotCached`, any download ir_datasets starts meanwhile.

    ir_datasets fetches a missing file on first use, through its download classes'
    ``stream``; this swaps in one that raises before connecting, and restores it."""
    from ir_datasets.util import download

    tried: list[str] = []

    def refuse(mirror: Any) -> Any:
        tried.append(str(getattr(mirror, "url", mirror)))
        raise NotCached(tried[-1])

    kept = download.RequestsDownload.stream
    download.RequestsDownload.stream = refuse
    try:
        yield
    except Exception as exc:
        if not tried:
            raise
        raise NotCached(
            f"{PREFIX}{name}: its {part} are not in ir_datasets' local cache (pooltool does "
            f"not download; it would fetch {tried[0]}): fetch them first, e.g. python -c "
            f"\"import ir_datasets; ir_datasets.load('{name}').{part}_iter().__next__()\"") from exc
    finally:
        download.RequestsDownload.stream = kept


def _first(record: Any, fields: tuple[str, ...]) -> str:
    """The first of ``fields`` the record has, as text ('' when it has none)."""
    for field in fields:
        if field in getattr(record, "_fields", ()):
            value = getattr(record, field)
            return "" if value is None else str(value)
    return ""


def _text(doc: Any) -> str:
    """A document's text: ``text``, ``abstract`` or ``body``, else its text fields."""
    text = _first(doc, ("text", "abstract", "body"))
    if text:
        return text
    return "\n\n".join(str(getattr(doc, field)) for field in doc._fields
                       if field not in ("doc_id", "title")
                       and isinstance(getattr(doc, field), str) and getattr(doc, field))
