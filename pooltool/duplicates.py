"""Finding copies among the store's documents: exact duplicates and near-duplicates.

* **Exact copies**: documents whose *normalised* text is the same: title and text
  case-folded (:meth:`str.casefold`), every Unicode punctuation character
  (category ``P*``) dropped, and runs of whitespace made one space. Their key is the
  sha1 of that text.
* **Near copies**: documents whose sets of word shingles (``shingle_words``
  consecutive words of the normalised text; a text shorter than that is one
  shingle) have a Jaccard similarity at or above ``threshold``. Candidates come from
  MinHash signatures banded by locality-sensitive hashing (Broder 1997; the
  library is `datasketch <https://ekzhu.com/datasketch/>`_, whose ``MinHashLSH``
  chooses the bands and rows for the threshold), and each candidate's Jaccard is
  then computed *exactly* on the two shingle sets, so LSH only proposes and never
  decides.

Groups are made leader-first, so that a copy never hides a document that is not
one: exact classes are taken in order of their smallest docno; a class joins the
group of the earlier leader it is most similar to (exact Jaccard >= ``threshold``;
ties: the smaller docno), else it leads a group of its own. Every member is thus
within the threshold *of its leader*; chains (A like B, B like C, A unlike C) never
merge A and C.

Defaults (:data:`DEFAULTS`) and where they come from: Jaccard threshold 0.8 and
5-word shingles as in Lee et al. (2022), "Deduplicating Training Data Makes Language
Models Better" (ACL), whose NearDup used MinHash on 5-grams with that threshold;
128 permutations and seed 1 are datasketch's ``MinHash`` defaults.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pooltool.errors import InvalidArgument
from pooltool.records import Document

if TYPE_CHECKING:
    from datasketch import MinHash, MinHashLSH

LSH_WEIGHTS = (0.05, 0.95)
"""datasketch's weights of false positives and false negatives when it picks the bands:
a candidate is checked by its exact Jaccard, so a false one costs a computation, while a
missed copy costs an assessor a judgment (with 128 permutations: 16 bands of 8 rows, a
pair at the threshold 0.8 is a candidate with probability 0.95, at 0.5 with 0.06)."""

MEMBER_COLUMNS = ["group_no", "docno", "exact_class", "how", "similarity"]


@dataclass(frozen=True)
class Parameters:
    """How near copies are found (see the module docstring for each default's source).

    :ivar threshold: the lowest Jaccard similarity of shingle sets of a near copy
        (0 < threshold <= 1).
    :ivar shingle_words: words per shingle (>= 1).
    :ivar num_perm: MinHash permutations (>= 2; more: fewer missed candidates, slower).
    :ivar seed: the seed of MinHash's permutations.
    """

    threshold: float = 0.8
    shingle_words: int = 5
    num_perm: int = 128
    seed: int = 1

    def check(self) -> Parameters:
        """:returns: itself. :raises InvalidArgument: a value out of its range."""
        if not 0 < self.threshold <= 1:
            raise InvalidArgument(f"the Jaccard threshold must be in (0, 1], got {self.threshold}")
        if self.shingle_words < 1 or self.num_perm < 2:
            raise InvalidArgument("shingles need >= 1 word and MinHash >= 2 permutations")
        return self


DEFAULTS = Parameters()

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """The text exact copies share: case-folded, punctuation dropped, whitespace one space."""
    return _SPACE.sub(" ", text.casefold().translate(_PUNCTUATION)).strip()


class _Punctuation(dict[int, int | None]):
    """A :meth:`str.translate` table dropping Unicode punctuation (category ``P*``),
    filled one character at a time as texts meet them."""

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.category(chr(code)).startswith("P") else code
        self[code] = kept
        return kept


_PUNCTUATION = _Punctuation()


def shingles(normalised: str, words: int) -> np.ndarray:
    """The distinct shingles of a normalised text (not empty), as sorted 32-bit hashes
    (each shingle's 4-byte blake2b digest): an ``uint32`` array."""
    tokens = normalised.split(" ")
    spans = [" ".join(tokens[i:i + words]) for i in range(max(1, len(tokens) - words + 1))]
    hashes = [int.from_bytes(hashlib.blake2b(s.encode(), digest_size=4).digest(), "little")
              for s in spans]
    return np.unique(np.array(hashes, dtype=np.uint32))


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """The Jaccard similarity of two sorted distinct hash arrays (non-empty)."""
    common = len(np.intersect1d(a, b, assume_unique=True))
    return common / (len(a) + len(b) - common)


def find_groups(documents: Iterable[Document],
                parameters: Parameters = DEFAULTS) -> pd.DataFrame:
    """Group the copies among ``documents`` (module docstring).

    :param documents: each document once (docno, title, text).
    :returns: one row per document (with words) in a group of two or more: ``group_no`` (1, 2, ...
        in order of the leader's docno), ``docno``, ``exact_class`` (0 for the leader's
        exact copies, 1, 2, ... for the near classes in order of joining), ``how``
        (``leader``, ``exact``: the same normalised text as the leader, ``near``),
        ``similarity`` (exact Jaccard of shingle sets to the leader; 1.0 for exact
        copies); ordered by group and docno. Documents with no copy are left out.
    :raises InvalidArgument: parameters out of range.
    """
    # imported here: datasketch loads scipy (over a second), which commands that only
    # read copies (status, export-qrels) should not pay
    from datasketch import MinHash, MinHashLSH

    parameters.check()
    classes = _exact_classes(documents)
    lsh = MinHashLSH(threshold=parameters.threshold, num_perm=parameters.num_perm,
                     weights=LSH_WEIGHTS)
    template = MinHash(num_perm=parameters.num_perm, seed=parameters.seed)
    permutations, scheme = template.permutations, template.scheme  # made once, not per text
    leaders: dict[str, np.ndarray] = {}
    joined: dict[str, list[tuple[str, float]]] = {}
    for first, (normalised, _) in sorted(classes.items()):
        own = shingles(normalised, parameters.shingle_words)
        signature = MinHash(num_perm=parameters.num_perm, seed=parameters.seed, hashfunc=int,
                            permutations=permutations, scheme=scheme)
        signature.update_batch(own.tolist())  # already hashed: int() passes them through
        leader, similarity = _best_leader(lsh, leaders, own, signature, parameters.threshold)
        if leader is None:
            leaders[first] = own
            lsh.insert(first, signature, check_duplication=False)
        else:
            joined.setdefault(leader, []).append((first, similarity))
    return _rows(classes, joined)


def _exact_classes(documents: Iterable[Document]) -> dict[str, tuple[str, list[str]]]:
    """Exact classes by their smallest docno: ``{first: (normalised text, docnos)}``."""
    by_key: dict[bytes, tuple[str, list[str]]] = {}
    for doc in documents:
        normalised = normalise(f"{doc.title} {doc.text}")
        if not normalised:  # no words: nothing to be a copy of
            continue
        key = hashlib.sha1(normalised.encode()).digest()
        by_key.setdefault(key, (normalised, []))[1].append(doc.docno)
    return {min(docnos): (normalised, sorted(docnos)) for normalised, docnos in by_key.values()}


def _best_leader(lsh: MinHashLSH, leaders: dict[str, np.ndarray], own: np.ndarray,
                 signature: MinHash, threshold: float) -> tuple[str | None, float]:
    """The earlier leader whose exact Jaccard with ``own`` is highest and >= threshold."""
    if not leaders:
        return None, 0.0
    best: tuple[str | None, float] = (None, 0.0)
    for candidate in sorted(lsh.query(signature)):
        similarity = jaccard(own, leaders[candidate])
        if similarity >= threshold and similarity > best[1]:
            best = (candidate, similarity)
    return best


def _rows(classes: dict[str, tuple[str, list[str]]],
          joined: dict[str, list[tuple[str, float]]]) -> pd.DataFrame:
    rows: list[tuple[int, str, int, str, float]] = []
    for first, (_, docnos) in sorted(classes.items()):
        near = joined.get(first, [])
        if len(docnos) == 1 and not near:
            continue
        group_no = rows[-1][0] + 1 if rows else 1
        rows += [(group_no, d, 0, "leader" if d == first else "exact", 1.0) for d in docnos]
        for number, (member, similarity) in enumerate(near, start=1):
            rows += [(group_no, d, number, "near", similarity) for d in classes[member][1]]
    frame = pd.DataFrame(rows, columns=MEMBER_COLUMNS)
    return frame.sort_values(["group_no", "docno"], kind="mergesort").reset_index(drop=True)


__all__ = ["DEFAULTS", "MEMBER_COLUMNS", "Parameters", "find_groups", "jaccard", "normalise",
           "shingles"]
