"""Marking query terms and scan terms in document text, and finding text.

Terms are forgiving. Matching is case-insensitive and on whole words, and
compares Snowball (Porter 2) English stems, so ``laws`` marks "law" and
``heated`` marks "heating"; a word ending in ``*`` is a prefix (``simil*``
marks "similar" and "similarity"); the words of a phrase match across
spaces, line breaks and hyphens (``heat transfer`` marks "heat-transfer"). A
word is a run of letters, digits and underscores, so ``flow`` marks "Flows"
and the "flow" of "boundary-layer flow" but not "overflow" or "flow_rate". A
term with other characters (``c++``, ``(x)``) is matched as written, case
aside. Where two matches overlap, the one that starts first wins, then the
longer.

Query terms are the words of the topic's title (its query), or of the
description when the title is empty, less :data:`STOPWORDS` and one-letter words.

Find (:func:`find_spans`) is plainer: the text typed, case aside, anywhere
(inside words too), spaces matching any run of spaces, line breaks or hyphens.
"""

from __future__ import annotations

import re
import shlex

import Stemmer
from rich.text import Text

from pooltool.records import Topic

QUERY_STYLE = "bold black on yellow"
SCAN_STYLE = "bold white on dark_magenta"
STOPWORDS = frozenset(
    "a about an and are as at be been but by can could do does for from has have how if in "
    "into is it its may must not of on or such than that the their there these this to was "
    "what when where which who whom why will with would".split())
_WORD = re.compile(r"\w+")
_STEMMER = Stemmer.Stemmer("english")
_JOINER = re.compile(r"[\s\-‐‑–]+")  # between the words of a phrase: spaces, breaks, hyphens
_WORD_TERM = re.compile(rf"\w+\*?(?:{_JOINER.pattern}\w+\*?)*")
_TERM_WORD = re.compile(r"\w+\*?")


def query_terms(topic: Topic) -> list[str]:
    """The words of a topic's query worth marking, lower-cased, in first-seen order."""
    source = topic.title or topic.description
    words = [w.lower() for w in _WORD.findall(source)]
    return list(dict.fromkeys(w for w in words if len(w) > 1 and w not in STOPWORDS))


def parse_scan_terms(line: str) -> list[str]:
    """Scan terms typed by an assessor: words separated by spaces or commas,
    "double quotes" around a phrase. Unbalanced quotes fall back to plain words."""
    try:
        parts = shlex.split(line.replace(",", " "))
    except ValueError:
        parts = line.replace(",", " ").replace('"', " ").split()
    return list(dict.fromkeys(p.strip() for p in parts if p.strip()))


def format_scan_terms(terms: list[str]) -> str:
    """Scan terms as an assessor would type them (phrases quoted)."""
    return " ".join(f'"{t}"' if " " in t else t for t in terms)


def term_spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Where ``terms`` occur in ``text``, by the rules of this module.

    :returns: ``(start, end)`` character offsets, in order, none overlapping.
    """
    words, literals = _split_terms(terms)
    spans = _word_spans(text, words) if words else []
    for literal in literals:
        spans += [m.span() for m in literal.finditer(text)]
    return _leftmost_longest(spans)


def find_spans(text: str, query: str) -> list[tuple[int, int]]:
    """Where ``query`` occurs in ``text`` (case aside; a space matches spaces,
    line breaks and hyphens). :returns: ``(start, end)`` offsets, in order,
    none overlapping; none for a blank query."""
    parts = query.split()
    if not parts:
        return []
    pattern = re.compile(_JOINER.pattern.join(map(re.escape, parts)), re.IGNORECASE)
    return [m.span() for m in pattern.finditer(text)]


def highlight(text: str | Text, query: list[str], scan: list[str],
              show_query: bool = True) -> Text:
    """``text`` with query terms (when ``show_query``) and scan terms marked.

    :returns: a new rich :class:`~rich.text.Text`; scan marks are applied
        last, so they show where a word is both.
    """
    result = text.copy() if isinstance(text, Text) else Text(text)
    for terms, style in ((query if show_query else [], QUERY_STYLE), (scan, SCAN_STYLE)):
        for start, end in term_spans(result.plain, terms):
            result.stylize(style, start, end)
    return result


def _split_terms(terms: list[str]) -> tuple[list[list[str]], list[re.Pattern[str]]]:
    """Word terms as lists of stems (a prefix keeps its ``*``), and the other
    terms as literal patterns."""
    words, literals = [], []
    for term in dict.fromkeys(t.strip() for t in terms if t.strip()):
        if _WORD_TERM.fullmatch(term):
            words.append([w.lower() if w.endswith("*") else _STEMMER.stemWord(w.lower())
                          for w in _TERM_WORD.findall(term)])
        else:
            body = r"\s+".join(map(re.escape, term.split()))
            literals.append(re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE))
    return words, literals


def _word_spans(text: str, terms: list[list[str]]) -> list[tuple[int, int]]:
    tokens = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    stems = _STEMMER.stemWords([token for _, _, token in tokens])
    by_stem: dict[str, list[int]] = {}
    for i, stem in enumerate(stems):
        by_stem.setdefault(stem, []).append(i)

    def matches(i: int, word: str) -> bool:
        return tokens[i][2].startswith(word[:-1]) if word.endswith("*") else stems[i] == word

    def joined(i: int) -> bool:  # only spaces, breaks or hyphens between tokens i and i+1
        return _JOINER.fullmatch(text, tokens[i][1], tokens[i + 1][0]) is not None

    spans = []
    for words in terms:
        first = words[0]
        starts = range(len(tokens)) if first.endswith("*") else by_stem.get(first, [])
        for i in starts:
            last = i + len(words) - 1
            if last < len(tokens) and all(
                    matches(i + k, w) for k, w in enumerate(words)) and all(
                    joined(j) for j in range(i, last)):
                spans.append((tokens[i][0], tokens[last][1]))
    return spans


def _leftmost_longest(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda span: (span[0], -span[1])):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept
