"""Marking query terms and scan terms in document text.

Matching is case-insensitive and on whole words: a term matches where it is
neither preceded nor followed by a letter, digit or underscore, so ``flow``
marks "Flow" and "flow," but not "flows" or "overflow". A scan term may be a
phrase ("boundary layer"). Longer terms win where two overlap.

Query terms are the words of the topic's title (its query), or of the
description when the title is empty, less :data:`STOPWORDS` and one-letter words.
"""

from __future__ import annotations

import re
import shlex

from rich.text import Text

from pooltool.records import Topic

QUERY_STYLE = "bold black on yellow"
SCAN_STYLE = "bold white on dark_magenta"
STOPWORDS = frozenset(
    "a about an and are as at be been but by can could do does for from has have how if in "
    "into is it its may must not of on or such than that the their there these this to was "
    "what when where which who whom why will with would".split())
_WORD = re.compile(r"\w+")


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


def term_pattern(terms: list[str]) -> re.Pattern[str] | None:
    """A case-insensitive whole-word pattern matching any of ``terms`` (``None`` if none)."""
    cleaned = sorted({t.strip() for t in terms if t.strip()}, key=lambda t: (-len(t), t))
    if not cleaned:
        return None
    body = "|".join(r"\s+".join(map(re.escape, t.split())) for t in cleaned)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE)


def highlight(text: str | Text, query: list[str], scan: list[str],
              show_query: bool = True) -> Text:
    """``text`` with query terms (when ``show_query``) and scan terms marked.

    :returns: a new rich :class:`~rich.text.Text`; scan marks are applied
        last, so they show where a word is both.
    """
    result = text.copy() if isinstance(text, Text) else Text(text)
    patterns = [(term_pattern(query) if show_query else None, QUERY_STYLE),
                (term_pattern(scan), SCAN_STYLE)]
    for pattern, style in patterns:
        if pattern is not None:
            result.highlight_regex(pattern, style)
    return result
