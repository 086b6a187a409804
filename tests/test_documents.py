"""Tests of :mod:`pooltool.formats.documents`."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from pooltool.errors import FormatError
from pooltool.formats.documents import (
    detect_document_format,
    iter_cranfield_records,
    iter_documents,
)
from pooltool.records import Document

JSONL = (
    '{"_id": "d1", "title": "Origin", "text": "Bats, probably.", "metadata": {}}\n'
    "\n"
    '{"id": 2, "contents": "pyserini style"}\n'
    '{"docno": "d3", "title": "Only a title"}\n'
)
JSONL_DOCS = [
    Document("d1", "Origin", "Bats, probably."),
    Document("2", "", "pyserini style"),
    Document("d3", "Only a title", ""),
]

TSV = "d1\tfirst passage\nd2\tA title\tsecond passage\n"
TSV_DOCS = [Document("d1", "", "first passage"), Document("d2", "A title", "second passage")]

TREC = """\
<DOC>
<DOCNO> FT911-3 </DOCNO>
<PROFILE>_AN-BEOA7AAIFT</PROFILE>
<HEADLINE>
FT  14 MAY 91 / International Company News: Contigas plans
</HEADLINE>
<TEXT>
Contigas, the German gas group, is planning a DM900m
investment &amp; expansion.

<P>Second   paragraph.</P>
</TEXT>
</DOC>
<DOC><DOCNO>LA010189-0001</DOCNO><TEXT>one line</TEXT></DOC>
"""
TREC_DOCS = [
    Document(
        "FT911-3",
        "FT 14 MAY 91 / International Company News: Contigas plans",
        "_AN-BEOA7AAIFT\n\nContigas, the German gas group, is planning a DM900m\n"
        "investment & expansion.\n\nSecond paragraph.",
    ),
    Document("LA010189-0001", "", "one line"),
]

CRANFIELD = """\
.I 1
.T
experimental investigation of the aerodynamics of a
wing in a slipstream .
.A
brenckman,m.
.B
j. ae. scs. 25, 1958, 324.
.W
experimental investigation of the aerodynamics of a
wing in a slipstream .
  an experimental study of a wing in a propeller slipstream was
made .
.I 002
.T
.A
.B
.W
.I 3
.T
a theoretical analysis .
.W
the flow field
.A
application to turbulent separations
.W
is analyzed .
"""
CRANFIELD_DOCS = [
    Document(
        "1",
        "experimental investigation of the aerodynamics of a wing in a slipstream .",
        "experimental investigation of the aerodynamics of a\nwing in a slipstream .\n"
        "  an experimental study of a wing in a propeller slipstream was\nmade .",
    ),
    Document("2", "", ""),
    Document(
        "3",
        "a theoretical analysis .",
        "the flow field\napplication to turbulent separations\nis analyzed .",
    ),
]

SAMPLES = {
    "jsonl": (JSONL, JSONL_DOCS),
    "tsv": (TSV, TSV_DOCS),
    "trec": (TREC, TREC_DOCS),
    "cranfield": (CRANFIELD, CRANFIELD_DOCS),
}


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_each_format_forced(fmt: str) -> None:
    text, expected = SAMPLES[fmt]
    assert list(iter_documents(text, fmt)) == expected


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_each_format_detected(fmt: str) -> None:
    text, expected = SAMPLES[fmt]
    first = next(line for line in text.splitlines() if line.strip())
    assert detect_document_format(first, "<string>") == fmt
    assert list(iter_documents(text)) == expected


def test_reads_a_gzipped_path(tmp_path: Path) -> None:
    path = tmp_path / "docs.trec.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n\n" + TREC)
    assert list(iter_documents(path)) == TREC_DOCS


def test_extension_decides_when_the_first_line_does_not(tmp_path: Path) -> None:
    path = tmp_path / "passages.tsv"
    path.write_text("d1\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        list(iter_documents(path))
    assert str(caught.value) == (
        f"{path}:1: expected 2 or 3 tab-separated columns (docno, [title,] text), got 1"
    )


def test_tsv_header_is_skipped() -> None:
    text = "docid\ttext\nd1\tx\n"
    assert list(iter_documents(text, "tsv")) == [Document("d1", "", "x")]


def test_trec_title_element_and_dochdr() -> None:
    text = (
        "<DOC>\n<DOCNO>GX000-00-0000000</DOCNO>\n<DOCHDR>\nhttp://example.gov/\n"
        "HTTP/1.1 200 OK\n</DOCHDR>\n<html><head><title>Example &lt;Gov&gt;</title></head>\n"
        "<body><p>Hello</p>\n</body></html>\n</DOC>\n"
    )
    assert list(iter_documents(text)) == [Document("GX000-00-0000000", "Example <Gov>", "Hello")]


def test_reading_streams_one_document_at_a_time() -> None:
    text = "".join(f'{{"id": "d{n}", "text": "t"}}\n' for n in range(1000))
    stream = io.StringIO(text)
    documents = iter_documents(stream)
    assert next(documents) == Document("d0", "", "t")
    assert stream.tell() == len('{"id": "d0", "text": "t"}\n')


def test_unknown_format_fails_before_iterating() -> None:
    with pytest.raises(FormatError) as caught:
        iter_documents("d1\tx\n", "csv")
    assert str(caught.value) == (
        "<string>: unknown document format 'csv' (expected one of jsonl, tsv, trec, cranfield)"
    )


@pytest.mark.parametrize(
    ("text", "fmt", "message"),
    [
        # TREC SGML
        ("<DOC>\n<TEXT>x</TEXT>\n</DOC>\n", "trec", "<string>:1: <DOC> has no <DOCNO>"),
        (
            "<DOC>\n<DOCNO>a</DOCNO>\n</DOC>\n\n<DOC>\n<DOCNO>b</DOCNO>\n",
            "trec",
            "<string>:5: <DOC> is not closed by </DOC>",
        ),
        (
            "<DOC>\n<DOCNO>a</DOCNO>\n</DOC>\n<DOC>\n\n<DOCNO>\na\n</DOCNO>\n</DOC>\n",
            "trec",
            "<string>:6: docno 'a' appears twice",
        ),
        (
            "<DOC>\n<DOCNO>a</DOCNO>\n<DOC>\n",
            "trec",
            "<string>:3: <DOC> inside the <DOC> opened on line 1",
        ),
        (
            "<DOC><DOCNO>a</DOCNO></DOC>\n</DOC>\n",
            "trec",
            "<string>:2: </DOC> without an open <DOC>",
        ),
        (
            "<DOC><DOCNO>a</DOCNO></DOC>\nstray\n",
            "trec",
            "<string>:2: text outside <DOC> ... </DOC>",
        ),
        (
            "<DOC><DOCNO>a b</DOCNO></DOC>\n",
            "trec",
            "<string>:1: <DOCNO> 'a b' is not one non-empty word",
        ),
        # JSONL
        (
            '{"id": "a", "text": "x"}\n{"id": "b", "text": "y"\n',
            "jsonl",
            "<string>:2: bad JSON: Expecting ',' delimiter (column 24)",
        ),
        ('"a"\n', "jsonl", "<string>:1: expected a JSON object, got str"),
        (
            '{"doc": "a", "text": "x"}\n',
            "jsonl",
            "<string>:1: no docno (expected one of keys 'docno', 'id', '_id', 'doc_id')",
        ),
        (
            '{"id": "a", "passage": "x"}\n',
            "jsonl",
            "<string>:1: no title or text (expected key 'title' or one of 'text', 'contents', "
            "'body', 'abstract')",
        ),
        (
            '{"id": null, "text": "x"}\n',
            "jsonl",
            "<string>:1: docno None (key 'id') is not a non-empty string or integer",
        ),
        ('{"id": "a", "text": 3}\n', "jsonl", "<string>:1: key 'text' is not a string"),
        (
            '{"id": "a", "text": "x"}\n{"_id": "a", "text": "y"}\n',
            "jsonl",
            "<string>:2: docno 'a' appears twice",
        ),
        # TSV
        (
            "a\tx\nb\tt\tx\ty\n",
            "tsv",
            "<string>:2: expected 2 or 3 tab-separated columns (docno, [title,] text), got 4",
        ),
        ("a\tx\n\ty\n", "tsv", "<string>:2: empty docno"),
        ("a\tx\n\na\ty\n", "tsv", "<string>:3: docno 'a' appears twice"),
        # Cranfield
        ("x\n.I 1\n", "cranfield", "<string>:1: expected a .I line first"),
        (
            ".I 1\n.T\nt\n.X\n",
            "cranfield",
            "<string>:4: unexpected field marker .X (expected one of .T, .A, .B, .W)",
        ),
        (
            ".I 1\nt\n",
            "cranfield",
            "<string>:2: text before the record's first field marker (one of .T, .A, .B, .W)",
        ),
        (".I one\n.W\nx\n", "cranfield", "<string>:1: .I number 'one' is not a number"),
        (".I 1\n.W\nx\n.I 01\n.W\ny\n", "cranfield", "<string>:4: docno '1' appears twice"),
        # any format
        ("\n\n", None, "<string>: no documents found"),
        ("", "trec", "<string>: no documents found"),
        (
            "just words\n",
            None,
            "<string>:1: cannot tell the document format (expected a JSON "
            "object, <DOC>, .I or a tab-separated line); name it with --doc-format "
            "(fmt= in Python)",
        ),
    ],
)
def test_errors_name_the_line(text: str, fmt: str | None, message: str) -> None:
    with pytest.raises(FormatError) as caught:
        list(iter_documents(text, fmt))
    assert str(caught.value) == message


def test_documents_before_an_error_are_yielded() -> None:
    documents = iter_documents('{"id": "a", "text": "x"}\n{"id": "b"\n')
    assert next(documents) == Document("a", "", "x")
    with pytest.raises(FormatError):
        next(documents)


def test_cranfield_records_keep_the_number_as_written() -> None:
    records = list(iter_cranfield_records(".I 001\n.W\nwhat\n".splitlines(), fields="W"))
    assert [(r.line, r.number, r.fields) for r in records] == [(1, "001", {"W": "what"})]


def test_cranfield_documents(shared_data: Path) -> None:
    cranfield = shared_data / "cranfield"
    documents = list(iter_documents(cranfield / "cran.all.1400"))
    assert [document.docno for document in documents] == [str(n) for n in range(1, 1401)]
    assert documents[0].title.startswith("experimental investigation of the aerodynamics of a")
    assert documents[0].text.endswith("the specific configuration of the experiment .")
    qrels = (cranfield / "cranqrel").read_text(encoding="utf-8").splitlines()
    judged = {line.split()[1] for line in qrels if line.strip()}
    assert judged <= {document.docno for document in documents}


def test_cranfield_document_quirks(shared_data: Path) -> None:
    """Doc 240's abstract holds stray .A/.B lines; docs 471 and 995 are empty."""
    documents = {d.docno: d for d in iter_documents(shared_data / "cranfield" / "cran.all.1400")}
    text = documents["240"].text
    assert "application to turbulent separations" in text
    assert text.endswith("transfer in a laminar separated flow .")
    assert documents["471"] == Document("471", "", "")
    assert documents["995"] == Document("995", "", "")
