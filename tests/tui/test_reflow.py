"""Hard-wrapped text reflowed into paragraphs (pooltool.tui.reflow, no Textual)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pooltool.formats.documents import iter_documents
from pooltool.formats.topics import read_topics
from pooltool.tui.reflow import reflow

BROKEN_WORD = re.compile(r"(\w)-\n")
HARD_WRAPPED = "a hard-\nwrapped line\n  indented start\n\n\nnext"


@pytest.fixture(scope="module")
def cranfield(shared_data: Path) -> dict[str, str]:
    """Cranfield document texts by docno, as the store holds them."""
    return {d.docno: d.text for d in iter_documents(shared_data / "cranfield" / "cran.all.1400",
                                                    "cranfield")}


def test_cranfield_document_1_becomes_its_title_and_three_paragraphs(
        cranfield: dict[str, str]) -> None:
    text = cranfield["1"]
    assert text.count("\n") == 15  # 16 lines of about 70 characters in the source
    lines = reflow(text).split("\n")
    assert lines == [
        "experimental investigation of the aerodynamics of a wing in a slipstream .",
        "  an experimental study of a wing in a propeller slipstream was made in order to "
        "determine the spanwise distribution of the lift increase due to slipstream at "
        "different angles of attack of the wing and at different free stream to slipstream "
        "velocity ratios .  the results were intended in part as an evaluation basis for "
        "different theoretical treatments of this problem .",
        "  the comparative span loading curves, together with supporting evidence, showed "
        "that a substantial part of the lift increment produced by the slipstream was due "
        "to a /destalling/ or boundary-layer-control effect .  the integrated remaining "
        "lift increment, after subtracting this destalling lift, was found to agree well "
        "with a potential flow theory .",
        "  an empirical evaluation of the destalling effects was made for the specific "
        "configuration of the experiment .",
    ]


def test_a_word_broken_at_its_hyphen_is_joined(cranfield: dict[str, str]) -> None:
    """Document 4 breaks ``boundary-`` / ``layer`` across lines."""
    assert "boundary-\n" in cranfield["4"]
    assert "boundary-layer" in reflow(cranfield["4"])
    assert "boundary- " not in reflow(cranfield["4"])


def test_no_word_is_lost_in_any_cranfield_document(cranfield: dict[str, str]) -> None:
    """Reflowing changes only line ends: the words, hyphen-joined ones aside, stay."""
    for docno, text in cranfield.items():
        flowed = reflow(text)
        assert flowed.split() == BROKEN_WORD.sub(r"\1-", text).split(), docno
        assert flowed.count("\n") <= text.count("\n"), docno


def test_text_already_in_paragraphs_is_unchanged(shared_data: Path) -> None:
    """The Cranfield query reader joins a query's lines: reflowing them changes nothing."""
    topics = read_topics(shared_data / "cranfield" / "cran.qry", "cranfield")
    assert len(topics) == 225
    assert all(reflow(t.title) == t.title for t in topics)
    assert reflow(reflow(HARD_WRAPPED)) == reflow(HARD_WRAPPED)


@pytest.mark.parametrize(("text", "expected"), [
    ("one\ntwo\n\nthree\nfour", "one two\n\nthree four"),
    ("one\n\n\n  \nthree\n\n", "one\n\nthree"),
    ("intro:\n- first\ncontinued\n* second\n1. third\n2) fourth", "intro:\n- first continued\n"
     "* second\n1. third\n2) fourth"),
    ("a\r\nb\rc", "a b c"),
    ("keep  two  spaces\nand this", "keep  two  spaces and this"),
    ("table\n  col1  col2\n  1     2", "table\n  col1  col2\n  1     2"),
    ("", ""),
])
def test_reflow_rules(text: str, expected: str) -> None:
    assert reflow(text) == expected
