"""Query and scan terms: which words are marked (stems, prefixes, phrases across
hyphens and line breaks), and what find finds."""

from __future__ import annotations

import pytest

from pooltool.records import Topic
from pooltool.tui.widgets.highlight import (
    QUERY_STYLE,
    SCAN_STYLE,
    find_spans,
    format_scan_terms,
    highlight,
    parse_scan_terms,
    query_terms,
    term_spans,
)


def marked(text: str, query: list[str], scan: tuple[str, ...] | list[str] = (),
           show: bool = True) -> list[tuple[str, str]]:
    rich = highlight(text, query, list(scan), show)
    return [(text[s.start:s.end], str(s.style)) for s in rich.spans]


def test_query_terms_drop_stopwords_and_repeats() -> None:
    topic = Topic("1", "What is the Flow of a boundary layer flow?", "ignored")
    assert query_terms(topic) == ["flow", "boundary", "layer"]
    assert query_terms(Topic("2", "", "heat in slabs")) == ["heat", "slabs"]


@pytest.mark.parametrize(("text", "expected"), [
    ("Flow, flow. FLOW", ["Flow", "flow", "FLOW"]),
    ("flows overflow flow_rate reflow", ["flows"]),
    ("boundary-layer flow", ["flow"]),
])
def test_whole_words_case_insensitive(text: str, expected: list[str]) -> None:
    assert [w for w, _ in marked(text, ["flow"])] == expected


def spans(text: str, terms: list[str]) -> list[str]:
    return [text[start:end] for start, end in term_spans(text, terms)]


@pytest.mark.parametrize(("term", "text", "expected"), [
    ("laws", "The law of similar laws", ["law", "laws"]),
    ("law", "LAWS and a lawyer", ["LAWS"]),
    ("heated", "heating, Heated, heat and preheated", ["heating", "Heated", "heat"]),
    ("heating", "the plate was heated", ["heated"]),
    ("simil*", "similar, Similarity, simil; dissimilar", ["similar", "Similarity", "simil"]),
    ("heat transfer", "heat-transfer, Heat\ntransfer, heat  transfers", [
        "heat-transfer", "Heat\ntransfer", "heat  transfers"]),
    ("heat transfer", "heat, then transfer; heat. transfer", []),
    ("heat-transfer", "heat transfer", ["heat transfer"]),
    ("simil* law", "similarity laws and similar flows", ["similarity laws"]),
])
def test_forgiving_terms(term: str, text: str, expected: list[str]) -> None:
    assert spans(text, [term]) == expected


def test_phrases_and_longest_first() -> None:
    assert spans("the Trailing  edge and an edge", ["edge", "trailing edge"]) == [
        "Trailing  edge", "edge"]
    assert term_spans("an edge", [" ", ""]) == []


@pytest.mark.parametrize(("query", "text", "expected"), [
    ("heat", "Heat and reheat", ["Heat", "heat"]),
    ("heat transfer", "heat-transfer; Heat\ntransfer", ["heat-transfer", "Heat\ntransfer"]),
    ("c++", "c++ and (c++)", ["c++", "c++"]),
    ("  ", "anything", []),
])
def test_find_spans(query: str, text: str, expected: list[str]) -> None:
    assert [text[s:e] for s, e in find_spans(text, query)] == expected


def test_h_off_keeps_scan_terms() -> None:
    text = "layer on a plate"
    assert marked(text, ["layer"], ["plate"]) == [("layer", QUERY_STYLE), ("plate", SCAN_STYLE)]
    assert marked(text, ["layer"], ["plate"], show=False) == [("plate", SCAN_STYLE)]


def test_regex_characters_are_literal() -> None:
    assert [w for w, _ in marked("c++ and c and (x)", ["c++", "(x)"])] == ["c++", "(x)"]


@pytest.mark.parametrize(("line", "terms"), [
    ('plate "trailing edge", slab', ["plate", "trailing edge", "slab"]),
    ('plate "unbalanced', ["plate", "unbalanced"]),
    ("", []),
    ("a a", ["a"]),
])
def test_parse_scan_terms(line: str, terms: list[str]) -> None:
    assert parse_scan_terms(line) == terms


def test_format_round_trips() -> None:
    terms = ["plate", "trailing edge"]
    assert parse_scan_terms(format_scan_terms(terms)) == terms
