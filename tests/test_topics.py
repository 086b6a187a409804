"""Tests of :mod:`pooltool.formats.topics`."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from pooltool.errors import FormatError
from pooltool.formats.topics import detect_topic_format, read_topics
from pooltool.records import Topic

TREC = """\
<top>

<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international
criminal activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.

</top>

<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio
<desc> Description:
Is the disease of Poliomyelitis under control?
<narr> Narrative:
Relevant documents should contain data on outbreaks.
</top>
"""

TREC_TOPICS = [
    Topic(
        "301",
        "International Organized Crime",
        "Identify organizations that participate in international criminal activity.",
        "A relevant document must as a minimum identify the organization.",
    ),
    Topic(
        "302",
        "Poliomyelitis and Post-Polio",
        "Is the disease of Poliomyelitis under control?",
        "Relevant documents should contain data on outbreaks.",
    ),
]

XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<topics task="COVIDSearch 2020" batch="1">
  <topic number="1">
    <query>coronavirus origin</query>
    <question>what is the origin of COVID-19</question>
    <narrative>seeking range of information about the virus's origin</narrative>
  </topic>
  <topic number="2">
    <query>coronavirus response to weather changes</query>
    <question>how does the coronavirus respond to changes in the weather</question>
    <narrative>seeking   range of
      information about viability</narrative>
  </topic>
</topics>
"""

XML_TOPICS = [
    Topic(
        "1",
        "coronavirus origin",
        "what is the origin of COVID-19",
        "seeking range of information about the virus's origin",
    ),
    Topic(
        "2",
        "coronavirus response to weather changes",
        "how does the coronavirus respond to changes in the weather",
        "seeking range of information about viability",
    ),
]

TSV = "1\tcoronavirus origin\n2\tcoronavirus  immunity\n"
TSV_TOPICS = [Topic("1", "coronavirus origin"), Topic("2", "coronavirus immunity")]

JSONL = (
    '{"topic": "1", "title": "coronavirus origin", "description": "what is the origin",'
    ' "narrative": "seeking origin"}\n'
    "\n"
    '{"qid": 2, "query": "coronavirus immunity", "question": "will people develop immunity"}\n'
)
JSONL_TOPICS = [
    Topic("1", "coronavirus origin", "what is the origin", "seeking origin"),
    Topic("2", "coronavirus immunity", "will people develop immunity"),
]

CRANFIELD = """\
.I 001
.W
what similarity laws must be obeyed when constructing aeroelastic models
of heated high speed aircraft .
.I 004
.W
what problems of heat conduction in composite slabs have been solved so
far .
"""
CRANFIELD_TOPICS = [
    Topic(
        "1",
        "what similarity laws must be obeyed when constructing aeroelastic models "
        "of heated high speed aircraft .",
    ),
    Topic("2", "what problems of heat conduction in composite slabs have been solved so far ."),
]

SAMPLES = {
    "trec": (TREC, TREC_TOPICS),
    "xml": (XML, XML_TOPICS),
    "tsv": (TSV, TSV_TOPICS),
    "jsonl": (JSONL, JSONL_TOPICS),
    "cranfield": (CRANFIELD, CRANFIELD_TOPICS),
}


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_each_format_forced(fmt: str) -> None:
    text, expected = SAMPLES[fmt]
    assert read_topics(text, fmt) == expected


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_each_format_detected(fmt: str) -> None:
    text, expected = SAMPLES[fmt]
    assert detect_topic_format(text, "<string>") == fmt
    assert read_topics(text) == expected


def test_reads_a_stream() -> None:
    assert read_topics(io.StringIO(TSV)) == TSV_TOPICS


def test_reads_a_gzipped_path(tmp_path: Path) -> None:
    path = tmp_path / "topics.301-302.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(TREC)
    assert read_topics(path) == TREC_TOPICS
    assert read_topics(str(path)) == TREC_TOPICS


def test_extension_decides_when_the_first_line_does_not(tmp_path: Path) -> None:
    path = tmp_path / "topics.xml"
    path.write_text("<!-- round 1 -->\n" + XML.split("\n", 1)[1], encoding="utf-8")
    assert read_topics(path) == XML_TOPICS


def test_trec_closing_tags_old_labels_and_other_fields() -> None:
    text = (
        "<top>\n<head> Tipster Topic Description\n<num> Number: 051\n"
        "<dom> Domain: International Economics\n"
        "<title> Topic: Airbus Subsidies </title>\n"
        "<desc> Description: Document will discuss government assistance.\n"
        "<con> Concept(s): 1. Airbus Industrie\n</top>\n"
    )
    assert read_topics(text) == [
        Topic("051", "Airbus Subsidies", "Document will discuss government assistance.")
    ]


def test_xml_alternative_names() -> None:
    text = (
        '<topics><topic id="7"><title>a  b</title><description>c</description>'
        "<narr>d</narr></topic>\n"
        "<topic><number>8</number><query>e</query></topic></topics>"
    )
    assert read_topics(text, "xml") == [Topic("7", "a b", "c", "d"), Topic("8", "e")]


def test_tsv_header_comments_and_extra_columns() -> None:
    text = "qid\tquery\n# a comment\n\n1\tt\td\tn\n2\tt2\n"
    assert read_topics(text, "tsv") == [Topic("1", "t", "d", "n"), Topic("2", "t2")]


@pytest.mark.parametrize(
    ("text", "fmt", "message"),
    [
        # TREC <top>
        ("<top>\n<title> x\n</top>\n", "trec", "<string>:1: <top> has no <num>"),
        (
            "\n<top>\n<num> Number: 1\n<title> x\n",
            "trec",
            "<string>:2: <top> is not closed by </top>",
        ),
        ("</top>\n", "trec", "<string>:1: </top> without an open <top>"),
        (
            "<top>\n<num> 1\n<top>\n",
            "trec",
            "<string>:3: <top> inside the <top> opened on line 1",
        ),
        (
            "<top>\n<num> Number: 1 2\n<title> x\n</top>\n",
            "trec",
            "<string>:2: <num> '1 2' is not one topic number",
        ),
        ("<top>\n<num> Number:\n</top>\n", "trec", "<string>:2: <num> '' is not one topic number"),
        (
            "<top>\n<num> 1\n<title> x\n</top>\n<top>\n<num> 1\n<title> y\n</top>\n",
            "trec",
            "<string>:6: topic '1' appears twice (first on line 2)",
        ),
        (
            "<top>\n<num> 1\n<desc> only a description\n</top>\n",
            "trec",
            "<string>:2: topic '1' has an empty title",
        ),
        # XML
        (
            "<topics>\n<topic number='1'>\n<query>x</quer>\n</topic>\n</topics>\n",
            "xml",
            "<string>:3: bad XML: mismatched tag",
        ),
        (
            "<topics>\n<topic>\n<query>x</query>\n</topic>\n</topics>\n",
            "xml",
            "<string>:2: <topic> has no number attribute",
        ),
        (
            "<topics>\n<topic number='1'><query>x</query></topic>\n"
            "<topic number='1'><query>y</query></topic>\n</topics>",
            "xml",
            "<string>:3: topic '1' appears twice (first on line 2)",
        ),
        (
            "<topics>\n<topic number='1'>\n<topic number='2'>\n",
            "xml",
            "<string>:3: <topic> inside the <topic> opened on line 2",
        ),
        ("<topics>\n</topics>\n", "xml", "<string>: no topics found"),
        # TSV
        ("1\tx\n2 y\n", "tsv", "<string>:2: expected topic<TAB>text, found no tab"),
        (
            "1\ta\tb\tc\td\n",
            "tsv",
            "<string>:1: expected 2 to 4 tab-separated columns (topic, title, description, "
            "narrative), got 5",
        ),
        ("1\tx\n1\ty\n", "tsv", "<string>:2: topic '1' appears twice (first on line 1)"),
        ("1\tx\n\t y\n", "tsv", "<string>:2: empty topic id"),
        ("1\tx\n2\t \n", "tsv", "<string>:2: topic '2' has an empty title"),
        # JSONL
        (
            '{"topic": "1", "title": "x"}\n{"topic": "2", "title": }\n',
            "jsonl",
            "<string>:2: bad JSON: Expecting value (column 25)",
        ),
        ('["1", "x"]\n', "jsonl", "<string>:1: expected a JSON object, got list"),
        (
            '{"title": "x"}\n',
            "jsonl",
            "<string>:1: no topic id (expected one of keys 'topic', 'qid', 'query_id', 'id', "
            "'number')",
        ),
        (
            '{"id": 1.5, "title": "x"}\n',
            "jsonl",
            "<string>:1: topic id 1.5 (key 'id') is not a string or integer",
        ),
        ('{"id": 1, "title": ["x"]}\n', "jsonl", "<string>:1: key 'title' is not a string"),
        (
            '{"id": 1, "text": "x"}\n{"qid": "1", "query": "y"}\n',
            "jsonl",
            "<string>:2: topic '1' appears twice (first on line 1)",
        ),
        # Cranfield
        ("what\n.I 1\n.W\nx\n", "cranfield", "<string>:1: expected a .I line first"),
        (
            ".I 1\nx\n",
            "cranfield",
            "<string>:2: text before the record's first field marker (one of .W)",
        ),
        (
            ".I 1\n.T\nx\n",
            "cranfield",
            "<string>:2: unexpected field marker .T (expected one of .W)",
        ),
        (".I\n.W\nx\n", "cranfield", "<string>:1: .I has no number"),
        (".I 1\n.W\nx\n.I 2\n.W\n", "cranfield", "<string>:4: topic '2' has an empty title"),
        # any format
        ("\n  \n", None, "<string>: no topics found"),
        ("", "tsv", "<string>: no topics found"),
        (
            "hello\n",
            None,
            "<string>:1: cannot tell the topic format (expected <top>, XML, a "
            "JSON object, .I or a tab-separated line); name it with --topic-format "
            "(fmt= in Python)",
        ),
        (
            "1\tx\n",
            "csv",
            "<string>: unknown topic format 'csv' (expected one of trec, xml, "
            "tsv, jsonl, cranfield)",
        ),
    ],
)
def test_errors_name_the_line(text: str, fmt: str | None, message: str) -> None:
    with pytest.raises(FormatError) as caught:
        read_topics(text, fmt)
    assert str(caught.value) == message


def test_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "topics.tsv"
    path.write_text("1\tx\n2\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_topics(path)
    assert str(caught.value) == f"{path}:2: expected topic<TAB>text, found no tab"
    assert (caught.value.path, caught.value.line) == (str(path), 2)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "topics.txt"
    path.write_text("", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_topics(path)
    assert str(caught.value) == f"{path}: no topics found"


def test_trec_covid_round_1_topics(shared_data: Path) -> None:
    topics = read_topics(shared_data / "trec_covid_r1" / "topics-rnd1.xml")
    assert [topic.topic for topic in topics] == [str(n) for n in range(1, 31)]
    assert topics[0].title == "coronavirus origin"
    assert topics[0].description == "what is the origin of COVID-19"
    assert topics[0].narrative.startswith("seeking range of information about the SARS-CoV-2")
    assert all(topic.title and topic.description and topic.narrative for topic in topics)


def _qry_texts_by_i(path: Path) -> dict[str, str]:
    """The query text of each ``.I`` number of ``cran.qry``, parsed independently."""
    texts: dict[str, list[str]] = {}
    current = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(".I "):
            current = line.split()[1]
            texts[current] = []
        elif line != ".W":
            texts[current].append(line)
    return {number: " ".join(" ".join(lines).split()) for number, lines in texts.items()}


def test_cranfield_queries_are_numbered_by_position(shared_data: Path) -> None:
    cranfield = shared_data / "cranfield"
    topics = read_topics(cranfield / "cran.qry")
    assert [topic.topic for topic in topics] == [str(n) for n in range(1, 226)]
    assert topics[-1].title == (
        "what design factors can be used to control lift-drag ratios at mach numbers above 5 ."
    )
    by_i = _qry_texts_by_i(cranfield / "cran.qry")
    idmap = (cranfield / "derived" / "cran.qry.idmap.tsv").read_text(encoding="utf-8")
    rows = [line.split("\t") for line in idmap.splitlines()[1:]]
    assert len(rows) == 225
    titles = {topic.topic: topic.title for topic in topics}
    for qrels_qid, cran_i in rows:
        assert titles[qrels_qid] == by_i[cran_i]


def test_cranfield_qrels_topics_are_all_known(shared_data: Path) -> None:
    cranfield = shared_data / "cranfield"
    topics = {topic.topic for topic in read_topics(cranfield / "cran.qry")}
    qrels = (cranfield / "cranqrel").read_text(encoding="utf-8").split("\n")
    assert {line.split()[0] for line in qrels if line.strip()} == topics
