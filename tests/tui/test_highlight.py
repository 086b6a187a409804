"""Query and scan terms: which words are marked."""

from __future__ import annotations

import pytest

from pooltool.records import Topic
from pooltool.tui.widgets.highlight import (
    QUERY_STYLE,
    SCAN_STYLE,
    format_scan_terms,
    highlight,
    parse_scan_terms,
    query_terms,
    term_pattern,
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
    ("flows overflow flow_rate reflow", []),
    ("boundary-layer flow", ["flow"]),
])
def test_whole_words_case_insensitive(text: str, expected: list[str]) -> None:
    assert [w for w, _ in marked(text, ["flow"])] == expected


def test_phrases_and_longest_first() -> None:
    pattern = term_pattern(["edge", "trailing edge"])
    assert pattern is not None
    assert pattern.findall("the Trailing  edge and an edge") == ["Trailing  edge", "edge"]
    assert term_pattern([" ", ""]) is None


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
