"""The numpy MinHash and bands (pooltool/minhash.py) against datasketch itself: the same
signatures, the same bands, the same candidates, and so the same groups as a grouping
made with datasketch's MinHash and MinHashLSH one document at a time."""

from __future__ import annotations

from collections import Counter

import numpy as np
from datasketch import MinHash, MinHashLSH
from datasketch.lsh import _optimal_param

from pooltool.duplicates import (
    DEFAULTS,
    LSH_WEIGHTS,
    find_groups,
    jaccard,
    normalise,
    shingle_sets,
    shingles,
)
from pooltool.minhash import KNOWN_BANDS, band_params, shared_buckets, signatures
from pooltool.records import Document
from tests.planted_copies import plant, true_jaccard, word_shingles


def datasketch_signature(values: np.ndarray, num_perm: int = 128, seed: int = 1) -> MinHash:
    signature = MinHash(num_perm=num_perm, seed=seed, hashfunc=int)
    signature.update_batch(values.tolist())
    return signature


def test_signatures_are_datasketch_minhash_values() -> None:
    rng = np.random.default_rng(7)
    sets = [np.unique(rng.integers(0, 1 << 32, size, dtype=np.uint32)) for size in
            (1, 2, 30, 500, 3)]
    offsets = np.cumsum([0] + [len(s) for s in sets])
    for num_perm, seed in ((128, 1), (16, 42)):
        got = signatures(np.concatenate(sets), offsets, num_perm, seed)
        for row, values in zip(got, sets, strict=True):
            assert row.tolist() == datasketch_signature(values, num_perm, seed).hashvalues.tolist()


def test_signatures_over_many_chunks_are_each_sets_own(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("pooltool.minhash._CHUNK_VALUES", 7)
    sets = [np.arange(i, i + 1 + i % 9, dtype=np.uint32) for i in range(40)]
    offsets = np.cumsum([0] + [len(s) for s in sets])
    got = signatures(np.concatenate(sets), offsets, 32, 1)
    assert [r.tolist() for r in got] == [datasketch_signature(s, 32).hashvalues.tolist()
                                         for s in sets]


def test_known_bands_are_datasketchs_optimal_parameters() -> None:
    for (threshold, num_perm, weights), bands in KNOWN_BANDS.items():
        assert _optimal_param(threshold, num_perm, *weights) == bands
    assert band_params(0.7, 64, (0.5, 0.5)) == _optimal_param(0.7, 64, 0.5, 0.5)


def test_sets_share_a_bucket_exactly_when_datasketch_makes_them_candidates() -> None:
    planted = plant(30, (0.0, 0.02, 0.1, 0.3), 60, words=12, seed=3)
    sets = [shingles(normalise(d.text), 5) for d in planted.documents]
    offsets = np.cumsum([0] + [len(s) for s in sets])
    bands, rows = band_params(0.8, 128, LSH_WEIGHTS)
    buckets = shared_buckets(signatures(np.concatenate(sets), offsets, 128, 1), bands, rows)
    lsh = MinHashLSH(threshold=0.8, num_perm=128, weights=LSH_WEIGHTS)
    for number, values in enumerate(sets):
        lsh.insert(number, datasketch_signature(values), check_duplication=False)
    for number, values in enumerate(sets):
        ours = {other for other in range(len(sets)) if other != number
                and ((buckets[number] == buckets[other]) & (buckets[number] >= 0)).any()}
        assert ours == set(lsh.query(datasketch_signature(values))) - {number}


def datasketch_groups(documents: list[Document]) -> dict[str, tuple[str, float]]:
    """``{docno: (leader, similarity)}`` as pooltool grouped before its numpy MinHash:
    exact classes by smallest docno, each queried against the earlier leaders in a
    datasketch MinHashLSH and joined to the most similar by exact Jaccard."""
    classes: dict[str, list[str]] = {}
    for doc in documents:
        classes.setdefault(normalise(f"{doc.title} {doc.text}"), []).append(doc.docno)
    lsh = MinHashLSH(threshold=DEFAULTS.threshold, num_perm=128, weights=LSH_WEIGHTS)
    leaders: dict[str, np.ndarray] = {}
    out: dict[str, tuple[str, float]] = {}
    for first, text in sorted((min(d), t) for t, d in classes.items() if t):
        own = shingles(text, DEFAULTS.shingle_words)
        signature = datasketch_signature(own)
        best: tuple[str | None, float] = (None, 0.0)
        for candidate in sorted(lsh.query(signature)):
            similarity = jaccard(own, leaders[candidate])
            if similarity >= DEFAULTS.threshold and similarity > best[1]:
                best = (candidate, similarity)
        if best[0] is None:
            leaders[first] = own
            lsh.insert(first, signature, check_duplication=False)
        out.update({d: (best[0] or first, best[1] or 1.0) for d in classes[text]})
    members = Counter(lead for lead, _ in out.values())
    return {d: (lead, s) for d, (lead, s) in out.items() if members[lead] > 1}


def test_groups_are_those_datasketch_finds_one_document_at_a_time() -> None:
    planted = plant(150, (0.0, 0.01, 0.03, 0.05, 0.08), 400, words=30, seed=5)
    groups = find_groups(planted.documents)
    leaders_of = {g: groups.loc[(groups["group_no"] == g) & (groups["how"] == "leader"),
                                "docno"].item() for g in set(groups["group_no"])}
    ours = {d: (leaders_of[g], s) for d, g, s in
            zip(groups["docno"], groups["group_no"], groups["similarity"], strict=True)}
    assert {s for _, s in ours.values()} > {1.0}  # near copies among them
    assert ours == datasketch_groups(planted.documents)


def test_shingle_sets_hold_each_texts_distinct_word_tuples() -> None:
    planted = plant(20, (0.0, 0.05), 40, words=25, seed=9)
    texts = [d.text for d in planted.documents] + ["one two three", "solo", "a b a b a b a b"]
    values, counts = shingle_sets([normalise(t) for t in texts], 5)
    offsets = np.cumsum([0, *counts.tolist()])
    sets = [values[offsets[i]:offsets[i + 1]] for i in range(len(texts))]
    assert counts.tolist() == [len(word_shingles(t)) for t in texts]  # no hash collisions
    assert all((np.diff(s.astype(np.int64)) > 0).all() for s in sets)  # sorted, distinct
    for i in range(0, len(texts), 7):  # the same tuples, the same hashes
        for j in range(i + 1, len(texts), 5):
            assert jaccard(sets[i], sets[j]) == true_jaccard(texts[i], texts[j])
    assert shingles(normalise(texts[3]), 5).tolist() == sets[3].tolist()
