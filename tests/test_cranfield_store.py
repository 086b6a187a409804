"""The Cranfield collection goes into a store whole: documents, queries and qrels agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from pooltool.errors import FormatError
from pooltool.formats.documents import iter_documents
from pooltool.formats.topics import read_topics
from pooltool.store import JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL


def test_cranfield_documents_queries_and_qrels(memory_store: JudgmentStore, shared_data: Path) -> None:
    cran = shared_data / "cranfield"
    store = memory_store
    docs = store.add_documents(iter_documents(cran / "cran.all.1400"), "cran.all.1400")
    topics = store.add_topics(read_topics(cran / "cran.qry", "cranfield"), "cran.qry")
    result = store.import_qrels(cran / "derived" / "cranqrel.trec", "cleverdon")
    assert (docs.added, topics.added, result["added"]) == (1400, 225, 1837)
    qrels = store.qrels("cleverdon")
    # the qrels number queries 1..225 in file order, as the topic reader does
    assert set(qrels["topic"]) == set(store.topics()["topic"])
    docnos = set(store.query("SELECT docno FROM documents")["docno"])
    assert set(qrels["docno"]) <= docnos
    assert qrels["grade"].value_counts().to_dict() == {3: 734, 2: 387, 4: 363, 1: 128, -1: 225}


def test_raw_cranqrel_is_not_trec_qrels(memory_store: JudgmentStore, shared_data: Path) -> None:
    """cranqrel has three columns (qid docid code): a clear error, not a guess."""
    store = memory_store
    with pytest.raises(FormatError, match=r"cranqrel:1: expected 4 columns .* got 3"):
        store.import_qrels(shared_data / "cranfield" / "cranqrel", "raw")
    assert store.versions().empty
