"""Reading document collections, one :class:`~pooltool.records.Document` at a time.

Collections can be gigabytes, so :func:`iter_documents` streams: it holds one
document in memory at a time, plus the set of docnos seen so far (to reject
duplicates). Formats (``fmt``):

``jsonl``
    One JSON object per line. The docno is the first of the keys ``docno``,
    ``id``, ``_id``, ``doc_id`` that is present (a number is turned into its
    text); the title is ``title``; the text is the first of ``text``,
    ``contents``, ``body``, ``abstract``. A missing title or text is ``""``,
    but an object with neither is an error (a misspelt key, most likely).
    This covers BEIR ``corpus.jsonl`` and Pyserini's ``{"id", "contents"}``.
``tsv``
    ``docno<TAB>text`` or ``docno<TAB>title<TAB>text`` (MS MARCO
    ``collection.tsv``). A first line whose first column is ``docno``,
    ``id``, ``_id``, ``doc_id`` or ``docid`` is a header and skipped.
``trec``
    TREC SGML: ``<DOC> <DOCNO>..</DOCNO> ... </DOC>``, tags anywhere on a
    line (several documents on one line are fine). The title is the first
    ``<TITLE>``, ``<HEADLINE>`` or ``<HL>`` element; the text is everything
    else except ``<DOCNO>`` and ``<DOCHDR>``, with tags removed, entities
    (``&amp;``) decoded, spaces collapsed within lines and blank-line runs
    collapsed to one. Tag names are matched case-insensitively. Non-blank
    text outside ``<DOC>...</DOC>`` is an error.
``cranfield``
    The Cranfield 1400 layout: ``.I n`` starts a record, then ``.T`` title,
    ``.A`` authors, ``.B`` bibliographic reference and ``.W`` abstract, each
    marker alone on its line. The docno is the ``.I`` number without leading
    zeros (``.I 001`` is ``"1"``), the title is the ``.T`` text on one line,
    the text is the ``.W`` abstract with its line breaks (authors and
    reference are not kept). ``.W`` runs to the next ``.I``: a stray marker
    line inside it is dropped and the lines after it stay in the abstract
    (in ``cran.all.1400`` doc 240's abstract holds a stray ``.A`` and ``.B``,
    and docs 576 and 578 a second ``.W``).

When ``fmt`` is ``None`` the format is told from the first non-blank line
(``{`` is jsonl, ``<DOC`` is trec, ``.I`` is cranfield, a tab is tsv), then
from the file extension (``.jsonl``, ``.tsv``, ``.trec``/``.sgml``; ``.gz`` is
looked through).

A docno with a control character (ESC, a bidi override:
:func:`~pooltool.formats.source.check_identifier`) is refused; titles and texts
are kept as written (whoever shows them shows such characters visibly,
:func:`pooltool.text.visible`).

Every error is a :class:`~pooltool.errors.FormatError` naming file and line.
Because reading is lazy, errors are raised while iterating, after the
documents before the bad line have been yielded.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import IO, Any, NamedTuple

from pooltool.errors import FormatError
from pooltool.formats.source import (
    Source,
    check_identifier,
    extension,
    first_key,
    json_object,
    json_text,
    open_text,
    source_name,
)
from pooltool.records import Document

DOCUMENT_FORMATS = ("jsonl", "tsv", "trec", "cranfield")

_DOCNO_KEYS = ("docno", "id", "_id", "doc_id")
_TEXT_KEYS = ("text", "contents", "body", "abstract")
_TSV_HEADERS = {"docno", "id", "_id", "doc_id", "docid"}
_EXTENSIONS = {".jsonl": "jsonl", ".tsv": "tsv", ".trec": "trec", ".sgml": "trec"}

_DOC_TAG = re.compile(r"<(/?)DOC(?:\s[^>]*)?>", re.IGNORECASE)
_DOCNO = re.compile(r"<DOCNO>(.*?)</DOCNO\s*>", re.IGNORECASE | re.DOTALL)
_TITLE = re.compile(r"<(TITLE|HEADLINE|HL)(?:\s[^>]*)?>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_DOCHDR = re.compile(r"<DOCHDR>.*?</DOCHDR\s*>", re.IGNORECASE | re.DOTALL)
_ANY_TAG = re.compile(r"<[^>]*>")
_BLANK_RUN = re.compile(r"\n{3,}")

_CRAN_ID = re.compile(r"\.I(?:\s+(.*))?$")
_CRAN_FIELD = re.compile(r"\.([A-Z])\s*$")


def iter_documents(source: Source, fmt: str | None = None) -> Iterator[Document]:
    """Stream the documents of a collection file, in file order.

    :param source: a path (``.gz`` accepted), an open text stream, or the
        collection's text itself.
    :param fmt: one of :data:`DOCUMENT_FORMATS` (``jsonl``, ``tsv``,
        ``trec``, ``cranfield``), or ``None`` to detect it (see the module
        docstring).
    :returns: an iterator of :class:`~pooltool.records.Document`; the file is
        open while it is being iterated.
    :raises FormatError: at once for an unknown ``fmt``; while iterating for
        a format that cannot be detected, a malformed line (bad JSON, no
        docno, wrong column count, a ``<DOC>`` without ``<DOCNO>`` or not
        closed), a docno given twice, or a file without documents.
    """
    name = source_name(source)
    if fmt is not None and fmt not in DOCUMENT_FORMATS:
        raise FormatError(
            name,
            0,
            f"unknown document format {fmt!r} (expected one of {', '.join(DOCUMENT_FORMATS)})",
        )
    return _iter_documents(source, fmt, name)


def _iter_documents(source: Source, fmt: str | None, name: str) -> Iterator[Document]:
    with open_text(source) as handle:
        lines, first = _peek(handle)
        if first is None:
            raise FormatError(name, 0, "no documents found")
        fmt = fmt or detect_document_format(first[1], name, first[0])
        numbered = enumerate(lines, start=1)
        yield from _unique(_READERS[fmt](numbered, name), name)


def _peek(handle: IO[str]) -> tuple[Iterator[str], tuple[int, str] | None]:
    """Read up to the first non-blank line and give back all lines, unconsumed."""
    head: list[str] = []
    for line in handle:
        head.append(line)
        if line.strip():
            return chain(head, handle), (len(head), line)
    return iter(head), None


def detect_document_format(first_line: str, name: str, number: int = 1) -> str:
    """Tell a collection's format from its first non-blank line, then its name.

    :param first_line: the first non-blank line of the file.
    :param name: the file name (its extension is the fallback).
    :param number: the line number of ``first_line``, for the error message.
    :returns: one of :data:`DOCUMENT_FORMATS`.
    :raises FormatError: neither the line nor the extension tells.
    """
    line = first_line.strip()
    if line.startswith("{"):
        return "jsonl"
    if _DOC_TAG.match(line):
        return "trec"
    if _CRAN_ID.match(line):
        return "cranfield"
    if "\t" in first_line:
        return "tsv"
    by_extension = _EXTENSIONS.get(extension(name))
    if by_extension is None:
        raise FormatError(
            name,
            number,
            "cannot tell the document format (expected a JSON "
            "object, <DOC>, .I or a tab-separated line); name it with --doc-format "
            "(fmt= in Python)",
        )
    return by_extension


def _unique(pairs: Iterable[tuple[int, Document]], name: str) -> Iterator[Document]:
    """Pass documents through, rejecting a docno seen before or an empty file."""
    seen: set[str] = set()
    for number, document in pairs:
        check_identifier(document.docno, "docno", name, number)
        if document.docno in seen:
            raise FormatError(name, number, f"docno {document.docno!r} appears twice")
        seen.add(document.docno)
        yield document
    if not seen:
        raise FormatError(name, 0, "no documents found")


def _read_jsonl(lines: Iterable[tuple[int, str]], name: str) -> Iterator[tuple[int, Document]]:
    """JSON lines: one object per non-blank line."""
    for number, line in lines:
        if not line.strip():
            continue
        record = json_object(line, name, number)
        docno = _json_docno(record, name, number)
        if "title" not in record and not any(key in record for key in _TEXT_KEYS):
            raise FormatError(
                name,
                number,
                f"no title or text (expected key 'title' or one of {_quoted(_TEXT_KEYS)})",
            )
        title = json_text(record, ("title",), name, number).strip()
        yield number, Document(docno, title, json_text(record, _TEXT_KEYS, name, number).strip())


def _json_docno(record: dict[str, Any], name: str, number: int) -> str:
    key = first_key(record, _DOCNO_KEYS)
    if key is None:
        raise FormatError(name, number, f"no docno (expected one of keys {_quoted(_DOCNO_KEYS)})")
    docno = record[key]
    if isinstance(docno, bool) or not isinstance(docno, (str, int)) or not str(docno).strip():
        raise FormatError(
            name, number, f"docno {docno!r} (key {key!r}) is not a non-empty string or integer"
        )
    return str(docno).strip()


def _quoted(keys: Iterable[str]) -> str:
    return ", ".join(repr(key) for key in keys)


def _read_tsv(lines: Iterable[tuple[int, str]], name: str) -> Iterator[tuple[int, Document]]:
    """``docno<TAB>text`` or ``docno<TAB>title<TAB>text``; a header line is skipped."""
    first = True
    for number, line in lines:
        if not line.strip():
            continue
        fields = line.rstrip("\r\n").split("\t")
        if first and fields[0].strip().lower() in _TSV_HEADERS:
            first = False
            continue
        first = False
        if len(fields) not in (2, 3):
            raise FormatError(
                name,
                number,
                f"expected 2 or 3 tab-separated columns (docno, [title,] text), got {len(fields)}",
            )
        docno = fields[0].strip()
        if not docno:
            raise FormatError(name, number, "empty docno")
        title = fields[1].strip() if len(fields) == 3 else ""
        yield number, Document(docno, title, fields[-1].strip())


def _read_trec(lines: Iterable[tuple[int, str]], name: str) -> Iterator[tuple[int, Document]]:
    """TREC SGML ``<DOC>`` ... ``</DOC>`` blocks; one block is buffered at a time."""
    opened = 0
    body: list[str] = []
    for number, line in lines:
        start = 0
        for tag in _DOC_TAG.finditer(line):
            _keep(line[start : tag.start()], opened, body, name, number)
            start = tag.end()
            if tag.group(1):
                if not opened:
                    raise FormatError(name, number, "</DOC> without an open <DOC>")
                yield _trec_document("".join(body), opened, name)
                opened, body = 0, []
            elif opened:
                raise FormatError(name, number, f"<DOC> inside the <DOC> opened on line {opened}")
            else:
                opened = number
        _keep(line[start:], opened, body, name, number)
    if opened:
        raise FormatError(name, opened, "<DOC> is not closed by </DOC>")


def _keep(segment: str, opened: int, body: list[str], name: str, number: int) -> None:
    """Add text to the open document's body; outside a document only blanks are allowed."""
    if opened:
        body.append(segment)
    elif segment.strip():
        raise FormatError(name, number, "text outside <DOC> ... </DOC>")


def _trec_document(body: str, opened: int, name: str) -> tuple[int, Document]:
    """Turn the text between ``<DOC>`` (on line ``opened``) and ``</DOC>`` into a document."""
    match = _DOCNO.search(body)
    if match is None:
        raise FormatError(name, opened, "<DOC> has no <DOCNO>")
    number = opened + body.count("\n", 0, match.start())
    docno = _plain(match.group(1))
    if not docno or len(docno.split()) > 1:
        raise FormatError(name, number, f"<DOCNO> {docno!r} is not one non-empty word")
    body = body[: match.start()] + body[match.end() :]
    title_match = _TITLE.search(body)
    title = ""
    if title_match is not None:
        title = " ".join(_plain(title_match.group(2)).split())
        body = body[: title_match.start()] + body[title_match.end() :]
    return number, Document(docno, title, _plain(_DOCHDR.sub("", body)))


def _plain(markup: str) -> str:
    """Strip tags, decode entities, collapse spaces in lines and runs of blank lines."""
    text = html.unescape(_ANY_TAG.sub(" ", markup))
    lines = (" ".join(line.split()) for line in text.splitlines())
    return _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip()


class CranfieldRecord(NamedTuple):
    """One ``.I`` record of a Cranfield-layout file.

    ``line`` is the line of the ``.I``, ``number`` the ``.I`` number as
    written (``"001"``), ``fields`` maps a field letter (``"T"``, ``"W"``) to
    its lines joined with newlines (trailing spaces removed).
    """

    line: int
    number: str
    fields: dict[str, str]


def iter_cranfield_records(
    lines: Iterable[str], name: str = "<string>", fields: str = "TABW"
) -> Iterator[CranfieldRecord]:
    """Split a Cranfield-layout file (``cran.all.1400``, ``cran.qry``) into records.

    :param lines: the lines of the file.
    :param name: the file name used in error messages.
    :param fields: the field letters allowed, in order; the last one runs to
        the next ``.I``, and marker lines inside it are dropped.
    :raises FormatError: text before the first ``.I``, a ``.I`` without a
        number, text before a record's first field marker, or a marker not in
        ``fields``.
    """
    record: _CranfieldBuilder | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        match = _CRAN_ID.match(line)
        if match is not None:
            if record is not None:
                yield record.finish()
            record = _CranfieldBuilder(name, number, match.group(1) or "", fields)
        elif record is not None:
            record.add(line, number)
        elif line.strip():
            raise FormatError(name, number, "expected a .I line first")
    if record is not None:
        yield record.finish()


class _CranfieldBuilder:
    """Collects the lines of one Cranfield record."""

    def __init__(self, name: str, line: int, number: str, fields: str) -> None:
        if not number.strip():
            raise FormatError(name, line, ".I has no number")
        self.name, self.line, self.number, self.allowed = name, line, number.strip(), fields
        self.field = ""
        self.parts: dict[str, list[str]] = {}

    def add(self, line: str, number: int) -> None:
        marker = _CRAN_FIELD.match(line)
        if self.field == self.allowed[-1]:
            if marker is None:
                self.parts[self.field].append(line)
        elif marker is not None:
            self._switch(marker.group(1), number)
        elif self.field:
            self.parts[self.field].append(line)
        elif line.strip():
            raise FormatError(
                self.name,
                number,
                "text before the record's first field "
                f"marker (one of {', '.join('.' + f for f in self.allowed)})",
            )

    def _switch(self, letter: str, number: int) -> None:
        if letter not in self.allowed:
            raise FormatError(
                self.name,
                number,
                f"unexpected field marker .{letter} "
                f"(expected one of {', '.join('.' + f for f in self.allowed)})",
            )
        self.field = letter
        self.parts.setdefault(letter, [])

    def finish(self) -> CranfieldRecord:
        fields = {letter: "\n".join(lines).strip() for letter, lines in self.parts.items()}
        return CranfieldRecord(self.line, self.number, fields)


def _read_cranfield(lines: Iterable[tuple[int, str]], name: str) -> Iterator[tuple[int, Document]]:
    """Cranfield ``.I/.T/.A/.B/.W`` records; the docno is the ``.I`` number as an integer."""
    for record in iter_cranfield_records((line for _, line in lines), name):
        if not record.number.isdigit():
            raise FormatError(name, record.line, f".I number {record.number!r} is not a number")
        title = " ".join(record.fields.get("T", "").split())
        yield record.line, Document(str(int(record.number)), title, record.fields.get("W", ""))


_READERS = {
    "jsonl": _read_jsonl,
    "tsv": _read_tsv,
    "trec": _read_trec,
    "cranfield": _read_cranfield,
}
