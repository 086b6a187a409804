"""Finding copies among the store's documents: exact duplicates and near-duplicates.

* **Exact copies**: documents whose *normalised* text is the same: title and text
  case-folded (:meth:`str.casefold`), every Unicode punctuation character
  (category ``P*``) dropped, and runs of whitespace made one space. Their key is the
  sha1 of that text.
* **Near copies**: documents whose sets of word shingles (``shingle_words``
  consecutive words of the normalised text; a text shorter than that is one
  shingle) have a Jaccard similarity at or above ``threshold``. Candidates come from
  MinHash signatures banded by locality-sensitive hashing (Broder 1997; the
  values and bands are those of `datasketch <https://ekzhu.com/datasketch/>`_'s
  ``MinHash`` and ``MinHashLSH``, whose bands and rows are chosen for the threshold,
  computed for all documents at once with numpy by :mod:`pooltool.minhash`), and
  each candidate's Jaccard is then computed *exactly* on the two shingle sets, so
  LSH only proposes and never decides.

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
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.errors import InvalidArgument
from pooltool.minhash import band_params, shared_buckets, signatures
from pooltool.records import Document

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


def normalise(text: str) -> str:
    """The text exact copies share: case-folded, punctuation dropped, whitespace one space."""
    # str.split() splits at what str.isspace() calls whitespace, as \s does: the same
    # text as re.sub(r"\s+", " ", ...).strip(), at a third of its cost
    return " ".join(text.casefold().translate(_PUNCTUATION).split())


class _Punctuation(dict[int, int | None]):
    """A :meth:`str.translate` table dropping Unicode punctuation (category ``P*``),
    filled one character at a time as texts meet them."""

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.category(chr(code)).startswith("P") else code
        self[code] = kept
        return kept


_PUNCTUATION = _Punctuation()


def shingles(normalised: str, words: int) -> np.ndarray:
    """The distinct shingles of one normalised text (not empty), as sorted 32-bit
    hashes: an ``uint32`` array (:func:`shingle_sets` of that one text)."""
    values, _ = shingle_sets([normalised], words)
    return values


_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: h * _MIX + word is a bijection of h for each word


def shingle_sets(texts: list[str], words: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct shingles of many normalised texts (none empty), computed together.

    A word's hash is its 8-byte blake2b digest (each distinct word of the batch hashed
    once); a shingle's is the words' hashes folded in order (``h * _MIX + word``,
    modulo 2**64), then mixed by the MurmurHash3 64-bit finalizer and cut to its high
    32 bits. A text shorter than ``words`` is one shingle of all its words.

    :returns: ``(values, counts)``: the texts' sets one after another (each sorted,
        distinct; ``uint32``) and each text's number of shingles (``int64``).
    """
    import pyarrow as pa  # here: only finding copies pays its import
    import pyarrow.compute as pc

    lists = pc.split_pattern(pa.array(texts, pa.string()), " ")  # normalised: one space
    lengths = pc.list_value_length(lists).to_numpy().astype(np.int64)
    encoded = pc.dictionary_encode(lists.flatten())
    word_hash = np.array([int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(),
                                         "little") for w in encoded.dictionary.to_pylist()],
                         dtype=np.uint64)
    flat = word_hash[encoded.indices.to_numpy()]
    ends = np.repeat(np.cumsum(lengths), lengths)  # each token's text's end
    positions = np.arange(len(flat))
    folded = np.zeros(len(flat), dtype=np.uint64)
    for offset in range(words):
        following = np.minimum(positions + offset, len(flat) - 1)
        folded = np.where(positions + offset < ends, folded * _MIX + flat[following], folded)
    starts = ends - np.repeat(lengths, lengths)
    first = (positions + words <= ends) | ((positions == starts) & (ends - starts < words))
    text_of = np.repeat(np.arange(len(texts), dtype=np.uint64), lengths)[first]
    keys = np.sort((text_of << np.uint64(32)) | (_fmix64(folded[first]) >> np.uint64(32)))
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]]  # distinct (np.unique hashes: slower)
    counts = np.bincount((keys >> np.uint64(32)).astype(np.int64), minlength=len(texts))
    return (keys & np.uint64(0xFFFFFFFF)).astype(np.uint32), counts.astype(np.int64)


def _fmix64(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xC4CEB9FE1A85EC53)
    return h ^ (h >> np.uint64(33))


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
    parameters.check()
    classes = _exact_classes(documents, parameters.shingle_words)
    if len(classes.docnos) < 2:
        return _rows(classes, {})
    bands, rows = band_params(parameters.threshold, parameters.num_perm, LSH_WEIGHTS)
    signature = signatures(classes.values, classes.offsets, parameters.num_perm, parameters.seed)
    buckets = shared_buckets(signature, bands, rows)[classes.order]
    del signature  # the largest matrix: not kept while the groups are made
    return _rows(classes, _join_near(classes, buckets, parameters.threshold))


@dataclass
class _Classes:
    """Exact classes, numbered as first met: ``docnos[c]`` sorted; ``values[offsets[c]:
    offsets[c + 1]]`` its shingle hashes (sorted, distinct); ``order``: the class numbers
    by smallest docno (the order leaders are taken in)."""

    docnos: list[list[str]]
    values: np.ndarray
    offsets: np.ndarray
    order: np.ndarray

    def shingles(self, number: int) -> np.ndarray:
        return self.values[self.offsets[number]:self.offsets[number + 1]]


_BATCH = 20_000
"""New exact classes whose shingles are computed together (their texts are kept until then)."""


def _exact_classes(documents: Iterable[Document], words: int) -> _Classes:
    """The exact classes of the documents with words, each one's shingles hashed once."""
    by_key: dict[bytes, int] = {}
    docnos: list[list[str]] = []
    pending: list[str] = []  # texts of the newest classes, shingled a batch at a time
    values: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for doc in documents:
        normalised = normalise(f"{doc.title} {doc.text}")
        if not normalised:  # no words: nothing to be a copy of
            continue
        key = hashlib.sha1(normalised.encode()).digest()
        number = by_key.setdefault(key, len(docnos))
        if number == len(docnos):
            docnos.append([])
            pending.append(normalised)
            if len(pending) == _BATCH:
                _shingle_batch(pending, words, values, counts)
        docnos[number].append(doc.docno)
    _shingle_batch(pending, words, values, counts)
    for members in docnos:
        members.sort()
    order = sorted(range(len(docnos)), key=lambda c: docnos[c][0])
    offsets = np.zeros(len(docnos) + 1, dtype=np.int64)
    np.cumsum(np.concatenate(counts), out=offsets[1:])
    return _Classes(docnos, np.concatenate(values), offsets, np.array(order, dtype=np.int64))


def _shingle_batch(pending: list[str], words: int, values: list[np.ndarray],
                   counts: list[np.ndarray]) -> None:
    """Append the shingle sets of the ``pending`` texts (then emptied) to ``values`` and
    their sizes to ``counts`` (an empty batch: empty arrays)."""
    if pending:
        batch_values, batch_counts = shingle_sets(pending, words)
    else:
        batch_values, batch_counts = np.zeros(0, np.uint32), np.zeros(0, np.int64)
    values.append(batch_values)
    counts.append(batch_counts)
    pending.clear()


def _join_near(classes: _Classes, buckets: np.ndarray, threshold: float
               ) -> dict[int, list[tuple[int, float]]]:
    """Leader-first near classes: ``{leader: [(class, similarity), ...]}`` in joining order.

    :param buckets: :func:`pooltool.minhash.shared_buckets` of the classes in
        ``classes.order``. A class sharing no bucket is nobody's candidate: a leader of
        its own, left out of the loop.
    """
    tables: list[dict[int, list[int]]] = [{} for _ in range(buckets.shape[1])]
    joined: dict[int, list[tuple[int, float]]] = {}
    for rank in np.flatnonzero((buckets >= 0).any(axis=1)).tolist():
        number = int(classes.order[rank])
        own = [(band, int(b)) for band, b in enumerate(buckets[rank].tolist()) if b >= 0]
        candidates = {leader for band, b in own for leader in tables[band].get(b, ())}
        leader, similarity = _best_leader(classes, sorted(candidates), number, threshold)
        if leader is None:
            for band, b in own:
                tables[band].setdefault(b, []).append(rank)
        else:
            joined.setdefault(int(classes.order[leader]), []).append((number, similarity))
    return joined


def _best_leader(classes: _Classes, candidates: list[int], number: int,
                 threshold: float) -> tuple[int | None, float]:
    """Of the earlier leaders ``candidates`` (ranks, ascending: by docno), the one whose
    exact Jaccard with class ``number`` is highest and >= threshold (ties: the first)."""
    best: tuple[int | None, float] = (None, 0.0)
    own = classes.shingles(number)
    for rank in candidates:
        similarity = jaccard(own, classes.shingles(int(classes.order[rank])))
        if similarity >= threshold and similarity > best[1]:
            best = (rank, similarity)
    return best


def _rows(classes: _Classes, joined: dict[int, list[tuple[int, float]]]) -> pd.DataFrame:
    rows: list[tuple[int, str, int, str, float]] = []
    for first in classes.order.tolist():
        docnos, near = classes.docnos[first], joined.get(first, [])
        if len(docnos) == 1 and not near:
            continue
        group_no = rows[-1][0] + 1 if rows else 1
        rows += [(group_no, d, 0, "leader" if d == docnos[0] else "exact", 1.0) for d in docnos]
        for number, (member, similarity) in enumerate(near, start=1):
            rows += [(group_no, d, number, "near", similarity) for d in classes.docnos[member]]
    frame = pd.DataFrame(rows, columns=MEMBER_COLUMNS)
    return frame.sort_values(["group_no", "docno"], kind="mergesort").reset_index(drop=True)


__all__ = ["DEFAULTS", "MEMBER_COLUMNS", "Parameters", "find_groups", "jaccard", "normalise",
           "shingle_sets", "shingles"]
