"""A collection with planted copies, and the truth to check duplicate detection against.

Each *family* is a base document of random words from one shared vocabulary (so
unrelated documents have similar vocabulary), plus copies: exact copies (with case and
punctuation changed, which normalisation ignores) and copies in which each word is
replaced, with probability ``rate``, by a random word of the vocabulary. Unrelated
documents are drawn from the same vocabulary. The truth is computed here, with
Python sets of word tuples, independently of :mod:`pooltool.duplicates`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pooltool.records import Document


@dataclass(frozen=True)
class Planted:
    """The documents, and for each copy its family (base docno) and edit rate."""

    documents: list[Document]
    family: dict[str, str]  # docno -> base docno (bases and copies)
    rate: dict[str, float]  # copy docno -> edit rate (0.0: an exact copy)


def plant(families: int, rates: tuple[float, ...], unrelated: int, words: int = 60,
          vocabulary: int = 3000, seed: int = 7) -> Planted:
    """``families`` bases with one copy per rate each (rate 0: exact copy), and
    ``unrelated`` further documents; docnos ``b00001``, ``b00001-c0``, ``u00001``."""
    rng = random.Random(seed)
    vocab = [f"w{i:05d}" for i in range(vocabulary)]
    weights = [1 / (i + 1) for i in range(vocabulary)]  # Zipf-like, as real text
    documents, family, rate = [], {}, {}
    for f in range(1, families + 1):
        base_words = rng.choices(vocab, weights, k=words)
        base = f"b{f:05d}"
        documents.append(Document(base, "", " ".join(base_words)))
        family[base] = base
        for number, r in enumerate(rates):
            copy = [rng.choice(vocab) if rng.random() < r else w for w in base_words]
            text = " ".join(copy) if r else (" ".join(base_words).upper() + ".")
            docno = f"{base}-c{number}"
            documents.append(Document(docno, "", text))
            family[docno], rate[docno] = base, r
    for u in range(1, unrelated + 1):
        documents.append(Document(f"u{u:05d}", "", " ".join(rng.choices(vocab, weights, k=words))))
    return Planted(documents, family, rate)


def word_shingles(text: str, size: int = 5) -> set[tuple[str, ...]]:
    """The set of ``size``-word tuples of a text, lower-cased, ``.`` dropped (the
    planted texts' only punctuation)."""
    tokens = text.lower().replace(".", "").split()
    return {tuple(tokens[i:i + size]) for i in range(max(1, len(tokens) - size + 1))}


def true_jaccard(a: str, b: str, size: int = 5) -> float:
    """The Jaccard similarity of two texts' word-shingle sets."""
    x, y = word_shingles(a, size), word_shingles(b, size)
    return len(x & y) / len(x | y)
