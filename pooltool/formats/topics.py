"""Reading topic files into :class:`~pooltool.records.Topic` records.

Formats (``fmt``):

``trec``
    TREC SGML ``<top>`` blocks, tags not closed::

        <top>
        <num> Number: 301
        <title> International Organized Crime
        <desc> Description:
        Identify organizations that participate in ...
        <narr> Narrative:
        A relevant document must ...
        </top>

    The labels ``Number:``, ``Topic:`` (TREC 1-3 titles), ``Description:``
    and ``Narrative:`` are stripped. Closing tags (``</title>``) are accepted;
    other tags (``<con>``, ``<fac>``, ``<smry>``) are skipped with their text,
    and text outside ``<top>`` is ignored.
``xml``
    TREC-COVID style XML: ``<topic number="1">`` with children ``<query>``
    (the title), ``<question>`` (the description) and ``<narrative>``. The
    children ``<title>``, ``<description>``/``<desc>`` and ``<narr>``, and a
    ``<number>``/``<num>`` child or an ``id`` attribute instead of
    ``number=``, are accepted too.
``tsv``
    ``topic<TAB>title``, optionally followed by description and narrative
    columns. Blank lines and lines starting with ``#`` are skipped, and so is
    a first line whose first column is a key name (``topic``, ``qid``, ...).
``jsonl``
    One JSON object per line: the id is the first of the keys ``topic``,
    ``qid``, ``query_id``, ``id``, ``number`` (a number is turned into its
    text), the title the first of ``title``, ``query``, ``text``; optional
    ``description`` (or ``question``) and ``narrative``.
``cranfield``
    The ``cran.qry`` layout: ``.I`` number, then ``.W`` and the query text,
    which becomes the title. **The topic id is the query's 1-based position
    in the file, not its** ``.I`` **number**: ``cranqrel`` numbers the 225
    queries 1..225 in file order while the ``.I`` numbers run 001..365 with
    gaps (ir_datasets numbers them the same way).

When ``fmt`` is ``None`` the format is told from the first non-blank line
(``<top>`` is trec; ``<?xml``, ``<topics`` or ``<topic`` is xml; ``{`` is jsonl;
``.I`` is cranfield; a tab is tsv), then from the extension (``.xml``,
``.tsv``, ``.jsonl``, ``.qry``; ``.gz`` is looked through).

In every format runs of whitespace in the text are collapsed to one space, and
every topic needs a non-empty id and title; an id with a control character
(ESC, a bidi override: :func:`~pooltool.formats.source.check_identifier`) is
refused. Every error is a
:class:`~pooltool.errors.FormatError` naming file and line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from xml.parsers import expat

from pooltool.errors import FormatError
from pooltool.formats.documents import iter_cranfield_records
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
from pooltool.records import Topic

TOPIC_FORMATS = ("trec", "xml", "tsv", "jsonl", "cranfield")

_EXTENSIONS = {".xml": "xml", ".tsv": "tsv", ".jsonl": "jsonl", ".qry": "cranfield"}
_ID_KEYS = ("topic", "qid", "query_id", "id", "number")
_TITLE_KEYS = ("title", "query", "text")
_DESCRIPTION_KEYS = ("description", "question")

_TREC_TAG = re.compile(r"<(/?)([A-Za-z]+)\s*>")
_TREC_FIELDS = {"num": "num", "title": "title", "desc": "description", "narr": "narrative"}
_TREC_LABELS = {
    "num": re.compile(r"number\s*:", re.IGNORECASE),
    "title": re.compile(r"topic\s*:", re.IGNORECASE),
    "description": re.compile(r"description\s*:", re.IGNORECASE),
    "narrative": re.compile(r"narrative\s*:", re.IGNORECASE),
}
_XML_FIELDS = {
    "query": "title",
    "title": "title",
    "question": "description",
    "description": "description",
    "desc": "description",
    "narrative": "narrative",
    "narr": "narrative",
    "number": "num",
    "num": "num",
}

Numbered = Iterator[tuple[int, Topic]]


def read_topics(source: Source, fmt: str | None = None) -> list[Topic]:
    """Read a topic file.

    :param source: a path (``.gz`` accepted), an open text stream, or the
        file's text itself.
    :param fmt: one of :data:`TOPIC_FORMATS` (``trec``, ``xml``, ``tsv``,
        ``jsonl``, ``cranfield``), or ``None`` to detect it (see the module
        docstring).
    :returns: the topics in file order; ids are strings as written (for
        ``cranfield``, the 1-based position in the file).
    :raises FormatError: an unknown or undetectable format, a malformed line
        (a ``<top>`` without ``<num>``, a TSV line without a tab, bad JSON or
        XML), a topic without a title, a topic id given twice, or a file
        without topics; the message names file and line.
    """
    name = source_name(source)
    if fmt is not None and fmt not in TOPIC_FORMATS:
        raise FormatError(
            name, 0, f"unknown topic format {fmt!r} (expected one of {', '.join(TOPIC_FORMATS)})"
        )
    with open_text(source) as handle:
        text = handle.read()
    reader = _READERS[fmt or detect_topic_format(text, name)]
    return _checked(reader(text, name), name)


def detect_topic_format(text: str, name: str) -> str:
    """Tell a topic file's format from its first non-blank line, then its name.

    :param text: the file's text.
    :param name: the file name (its extension is the fallback).
    :returns: one of :data:`TOPIC_FORMATS`.
    :raises FormatError: the file is blank, or neither line nor extension tells.
    """
    number, line = next(
        ((n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()),
        (0, ""),
    )
    if not line:
        raise FormatError(name, 0, "no topics found")
    found = _format_of_line(line)
    if found is None:
        found = _EXTENSIONS.get(extension(name))
    if found is None:
        raise FormatError(
            name,
            number,
            "cannot tell the topic format (expected <top>, XML, "
            "a JSON object, .I or a tab-separated line); name it with --topic-format "
            "(fmt= in Python)",
        )
    return found


def _format_of_line(raw: str) -> str | None:
    line = raw.strip().lower()
    if line.startswith("<top>"):
        return "trec"
    if line.startswith("<?xml") or re.match(r"<topics?[\s>]", line):
        return "xml"
    if line.startswith("{"):
        return "jsonl"
    if re.match(r"\.i(\s|$)", line):
        return "cranfield"
    return "tsv" if "\t" in raw else None


def _checked(pairs: Iterable[tuple[int, Topic]], name: str) -> list[Topic]:
    """Collect ``(line, topic)`` pairs, rejecting empty ids or titles and duplicate ids."""
    first_line: dict[str, int] = {}
    topics: list[Topic] = []
    for number, topic in pairs:
        if not topic.topic:
            raise FormatError(name, number, "empty topic id")
        check_identifier(topic.topic, "topic id", name, number)
        if topic.topic in first_line:
            raise FormatError(
                name,
                number,
                f"topic {topic.topic!r} appears twice (first on line {first_line[topic.topic]})",
            )
        if not topic.title:
            raise FormatError(name, number, f"topic {topic.topic!r} has an empty title")
        first_line[topic.topic] = number
        topics.append(topic)
    if not topics:
        raise FormatError(name, 0, "no topics found")
    return topics


def _clean(text: str) -> str:
    return " ".join(text.split())


class _TopBlock:
    """The parts of one TREC ``<top>`` block being read."""

    def __init__(self, line: int) -> None:
        self.line = line
        self.num_line = 0
        self.field = ""
        self.parts: dict[str, list[str]] = {}

    def tag(self, tag: str, closing: bool, number: int) -> None:
        self.field = "" if closing else _TREC_FIELDS.get(tag, "skip")
        if self.field == "num" and not self.num_line:
            self.num_line = number
        self.parts.setdefault(self.field, [])

    def add(self, text: str) -> None:
        if self.field:
            self.parts[self.field].append(text)

    def text(self, field: str) -> str:
        text = _clean(" ".join(self.parts.get(field, [])))
        label = _TREC_LABELS[field].match(text)
        return text[label.end() :].strip() if label else text

    def topic(self, name: str) -> tuple[int, Topic]:
        if not self.num_line:
            raise FormatError(name, self.line, "<top> has no <num>")
        number = self.text("num")
        if not number or len(number.split()) > 1:
            raise FormatError(name, self.num_line, f"<num> {number!r} is not one topic number")
        fields = (self.text(field) for field in ("title", "description", "narrative"))
        return self.num_line, Topic(number, *fields)


def _read_trec(text: str, name: str) -> Numbered:
    """TREC SGML ``<top>`` blocks."""
    block: _TopBlock | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        start = 0
        for match in _TREC_TAG.finditer(line):
            if block is not None:
                block.add(line[start : match.start()])
            start = match.end()
            closing, tag = bool(match.group(1)), match.group(2).lower()
            if tag == "top":
                block, done = _top_tag(block, closing, name, number)
                if done is not None:
                    yield done
            elif block is not None:
                block.tag(tag, closing, number)
        if block is not None:
            block.add(line[start:])
    if block is not None:
        raise FormatError(name, block.line, "<top> is not closed by </top>")


def _top_tag(
    block: _TopBlock | None, closing: bool, name: str, number: int
) -> tuple[_TopBlock | None, tuple[int, Topic] | None]:
    """Open or close a ``<top>`` block: the new block and the finished topic, if any."""
    if not closing:
        if block is not None:
            raise FormatError(name, number, f"<top> inside the <top> opened on line {block.line}")
        return _TopBlock(number), None
    if block is None:
        raise FormatError(name, number, "</top> without an open <top>")
    return None, block.topic(name)


class _XmlTopics:
    """expat handlers collecting ``<topic>`` elements with the line each starts on."""

    def __init__(self, parser: Any, name: str) -> None:
        self.parser, self.name = parser, name
        self.found: list[tuple[int, Topic]] = []
        self.line = 0
        self.number = ""
        self.field = ""
        self.parts: dict[str, list[str]] = {}

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        tag = tag.lower()
        if tag != "topic":
            self.field = _XML_FIELDS.get(tag, self.field) if self.line else ""
            return
        line = self.parser.CurrentLineNumber
        if self.line:
            raise FormatError(
                self.name, line, f"<topic> inside the <topic> opened on line {self.line}"
            )
        self.line, self.parts = line, {}
        self.number = attributes.get("number", attributes.get("id", ""))

    def end(self, tag: str) -> None:
        tag = tag.lower()
        if tag == "topic":
            self.found.append((self.line, self._topic()))
            self.line = 0
        elif tag in _XML_FIELDS:
            self.field = ""

    def data(self, text: str) -> None:
        if self.field:
            self.parts.setdefault(self.field, []).append(text)

    def _topic(self) -> Topic:
        text = {field: _clean("".join(parts)) for field, parts in self.parts.items()}
        number = _clean(self.number) or text.get("num", "")
        if not number:
            raise FormatError(self.name, self.line, "<topic> has no number attribute")
        fields = ("title", "description", "narrative")
        return Topic(number, *(text.get(field, "") for field in fields))


def _read_xml(text: str, name: str) -> Numbered:
    """TREC-COVID style ``<topic number=..>`` XML, parsed with expat for line numbers."""
    parser = expat.ParserCreate()
    handlers = _XmlTopics(parser, name)
    parser.StartElementHandler = handlers.start
    parser.EndElementHandler = handlers.end
    parser.CharacterDataHandler = handlers.data
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise FormatError(name, exc.lineno, f"bad XML: {expat.ErrorString(exc.code)}") from None
    return iter(handlers.found)


def _read_tsv(text: str, name: str) -> Numbered:
    """``topic<TAB>title[<TAB>description[<TAB>narrative]]`` lines."""
    first = True
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if first and fields[0].strip().lower() in _ID_KEYS:
            first = False
            continue
        first = False
        if len(fields) == 1:
            raise FormatError(name, number, "expected topic<TAB>text, found no tab")
        if len(fields) > 4:
            raise FormatError(
                name,
                number,
                "expected 2 to 4 tab-separated columns (topic, "
                f"title, description, narrative), got {len(fields)}",
            )
        yield number, Topic(*(_clean(field) for field in fields))


def _read_jsonl(text: str, name: str) -> Numbered:
    """One JSON object per line."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        record = json_object(line, name, number)
        topic = _json_id(record, name, number)
        title = _clean(json_text(record, _TITLE_KEYS, name, number))
        description = _clean(json_text(record, _DESCRIPTION_KEYS, name, number))
        narrative = _clean(json_text(record, ("narrative",), name, number))
        yield number, Topic(topic, title, description, narrative)


def _json_id(record: dict[str, Any], name: str, number: int) -> str:
    key = first_key(record, _ID_KEYS)
    if key is None:
        keys = ", ".join(repr(key) for key in _ID_KEYS)
        raise FormatError(name, number, f"no topic id (expected one of keys {keys})")
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise FormatError(
            name, number, f"topic id {value!r} (key {key!r}) is not a string or integer"
        )
    return _clean(str(value))


def _read_cranfield(text: str, name: str) -> Numbered:
    """``cran.qry`` records; the topic id is the 1-based position in the file."""
    records = iter_cranfield_records(text.splitlines(), name, fields="W")
    for position, record in enumerate(records, start=1):
        yield record.line, Topic(str(position), _clean(record.fields.get("W", "")))


_READERS: dict[str, Callable[[str, str], Iterable[tuple[int, Topic]]]] = {
    "trec": _read_trec,
    "xml": _read_xml,
    "tsv": _read_tsv,
    "jsonl": _read_jsonl,
    "cranfield": _read_cranfield,
}
