"""Finding copies (pooltool/duplicates.py): checked against truth computed here, with
Python sets of word tuples (tests/planted_copies.py), not with the code's own Jaccard."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from pooltool.duplicates import DEFAULTS, Parameters, find_groups, normalise
from pooltool.errors import InvalidArgument
from pooltool.records import Document
from tests.planted_copies import plant, true_jaccard

WORDS = [f"word{i:03d}" for i in range(100)]


def edited(positions: list[int], words: list[str] = WORDS) -> str:
    """``words`` with each position replaced by a word found nowhere else."""
    out = list(words)
    for p in positions:
        out[p] = f"new{p:03d}"
    return " ".join(out)


def group_of(groups: pd.DataFrame) -> dict[str, int]:
    return dict(zip(groups["docno"], groups["group_no"], strict=True))


def test_normalised_text_ignores_case_whitespace_and_punctuation() -> None:
    assert normalise("  Hello,\tWORLD!  “Naïve” café… ") == "hello world naïve café"
    assert normalise("a-b c") == "ab c"  # a hyphen is punctuation: dropped, not a space


def test_exact_copies_are_grouped_whatever_their_case_and_punctuation() -> None:
    text = " ".join(WORDS)
    docs = [Document("d2", "", text.upper() + "!"), Document("d1", "", text),
            Document("d3", "", "an unrelated text of other words"), Document("d4", "", "  ")]
    groups = find_groups(docs)
    assert groups.to_dict("list") == {"group_no": [1, 1], "docno": ["d1", "d2"],
                                      "exact_class": [0, 0], "how": ["leader", "exact"],
                                      "similarity": [1.0, 1.0]}


def test_a_near_miss_below_the_threshold_is_never_grouped() -> None:
    base = " ".join(WORDS)
    near = edited([20])          # 5 of 96 shingles changed: Jaccard 91/101
    miss = edited([20, 21, 50])  # 11 changed: 85/107, just below 0.8
    assert true_jaccard(base, near) == pytest.approx(91 / 101)
    assert 0.79 < true_jaccard(base, miss) < DEFAULTS.threshold
    groups = find_groups([Document("a", "", base), Document("n", "", near),
                          Document("z", "", miss)])
    assert group_of(groups) == {"a": 1, "n": 1}
    assert groups.loc[groups["docno"] == "n", "similarity"].item() == pytest.approx(91 / 101)


def test_a_chain_of_copies_never_joins_two_documents_that_are_not_copies() -> None:
    a, b, c = " ".join(WORDS), edited([20]), edited([20, 50, 80])
    assert true_jaccard(b, c) >= DEFAULTS.threshold > true_jaccard(a, c)
    groups = find_groups([Document(n, "", t) for n, t in (("a", a), ("b", b), ("c", c))])
    found = group_of(groups)
    assert found.get("a") == found.get("b") and found.get("c") != found["a"]


def test_parameters_out_of_range_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="threshold"):
        find_groups([], Parameters(threshold=1.5))
    with pytest.raises(InvalidArgument, match="shingles"):
        find_groups([], Parameters(shingle_words=0))


def precision_recall(families: int, unrelated: int, rates: tuple[float, ...]
                     ) -> dict[float, tuple[float, float, float]]:
    """Per edit rate: recall of planted copies (found in their base's group), recall of
    the copies whose true Jaccard to the base is >= the threshold, and precision (of
    the copies found with a base, the share truly of that base's family)."""
    planted = plant(families, rates, unrelated)
    text = {d.docno: d.text for d in planted.documents}
    found = group_of(find_groups(planted.documents))
    out = {}
    for rate in rates:
        copies = [d for d, r in planted.rate.items() if r == rate]
        hit = [d for d in copies if d in found and found[d] == found.get(planted.family[d])]
        over = [d for d in copies if true_jaccard(text[d], text[planted.family[d]])
                >= DEFAULTS.threshold]
        out[rate] = (len(hit) / len(copies), len(set(hit) & set(over)) / max(1, len(over)),
                     1.0)
    leaders = {g: d for d, g in sorted(found.items(), reverse=True)}
    wrong = [d for d, g in found.items() if planted.family.get(d, d) !=
             planted.family.get(leaders[g], leaders[g])]
    precision = 1 - len(wrong) / len(found)
    return {rate: (r_all, r_over, precision) for rate, (r_all, r_over, _) in out.items()}


def test_precision_and_recall_of_planted_copies_per_edit_rate() -> None:
    results = precision_recall(80, 200, (0.0, 0.01, 0.03, 0.1))
    assert results[0.0][0] == 1.0                  # every exact copy
    assert results[0.01][1] >= 0.95                # copies within the threshold: nearly all
    assert results[0.1][0] <= 0.05                 # 10% of words edited: J ~0.45, not copies
    assert all(p == 1.0 for _, _, p in results.values())  # nothing unrelated grouped


@pytest.mark.slow
def test_precision_and_recall_on_a_larger_planted_collection() -> None:
    results = precision_recall(2000, 5000, (0.0, 0.005, 0.01, 0.02, 0.03, 0.05))
    assert results[0.0][0] == 1.0
    assert min(results[r][1] for r in (0.005, 0.01, 0.02, 0.03)) >= 0.95
    assert all(p == 1.0 for _, _, p in results.values())


def test_every_unicode_whitespace_separates_words_as_one_space() -> None:
    spaces = "".join(c for c in map(chr, range(0x3001)) if re.fullmatch(r"\s", c))
    assert len(spaces) == 29  # \t \n \v \f \r, \x1c-\x1f, space, \x85, \xa0, \u1680, ...
    assert normalise(f"{spaces}a{spaces}b{spaces}") == "a b"
