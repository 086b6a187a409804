"""The sampling design beyond a pool: strata, allocation and a reproducible draw (pure).

The **frame** of a topic is the documents that could be relevant and that the
pool did not take: those the sample's runs retrieved (any rank) and, with the
``unretrieved`` stratum, every other document of the collection the store
holds. A design without ``unretrieved`` estimates R *within the runs' lists*
(the frame ``runs``), not the collection's R (the frame ``collection``).

**Strata** (:func:`parse_strata`): ranges of a document's *best rank*, the
best trec_eval rank any of the sample's runs gave it (``8-20``, ``21-100``,
``1001+``), and ``unretrieved`` (no run retrieved it). A pooled document is in
no stratum; an unpooled one whose best rank is in no range is outside the frame.

**Allocation** (:func:`allocate`): a budget of n documents per topic is
shared over the topic's non-empty strata, ``equal`` (the same number each,
what a small stratum cannot take going to the others) or ``proportional``
(to the stratum sizes, largest remainders, at least one each). Every
non-empty stratum gets at least one document, so the budget must be at
least the number of non-empty strata.

**Draw** (:func:`draw_sample`): within each stratum, a simple random sample
without replacement of its allocated size: the stratum's documents ordered by
``sha256("<seed>\\t<topic>\\t<docno>")`` (hex, ties by docno), the first n_h
taken. The same seed gives the same sample on any machine, and a larger n_h
with the same seed and frame takes a longer prefix of the same order, so a
grown sample keeps every earlier draw and is still a simple random sample.
Each sampled document's inclusion probability is ``n_h / N_h`` (Cochran 1977,
'Sampling Techniques', ch. 5, stratified simple random sampling).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.errors import InvalidArgument

UNRETRIEVED = "unretrieved"
DEFAULT_STRATA = "1-20,21-100,101-1000,1001+,unretrieved"
ALLOCATIONS = ("equal", "proportional")
_RANGE = re.compile(r"^(\d+)(?:-(\d+)|(\+))$")


@dataclass(frozen=True)
class Stratum:
    """A stratum of the design: a best-rank range ``[low, high]`` (``high`` None: no
    upper end), or the unretrieved documents (``low`` and ``high`` None)."""

    name: str
    low: int | None
    high: int | None

    def holds(self, best_rank: np.ndarray) -> np.ndarray:
        """Which best ranks (float, NaN: not retrieved) fall in this stratum."""
        if self.low is None:
            return np.isnan(best_rank)
        upper = np.inf if self.high is None else self.high
        with np.errstate(invalid="ignore"):
            return (best_rank >= self.low) & (best_rank <= upper)


def parse_strata(spec: str) -> list[Stratum]:
    """Parse a strata spec: comma-separated ``A-B`` (best rank A to B), ``A+`` (A or
    worse) and ``unretrieved``; ranges must not overlap.

    :raises InvalidArgument: a malformed or overlapping part, or an empty spec.
    """
    strata: list[Stratum] = []
    for part in (p.strip() for p in spec.split(",")):
        if part == UNRETRIEVED:
            strata.append(Stratum(part, None, None))
            continue
        match = _RANGE.match(part)
        if not match:
            raise InvalidArgument(f"bad stratum {part!r} in {spec!r}: write A-B, A+ or "
                             f"{UNRETRIEVED} (e.g. {DEFAULT_STRATA})")
        low = int(match.group(1))
        high = None if match.group(3) else int(match.group(2))
        if low < 1 or (high is not None and high < low):
            raise InvalidArgument(f"bad stratum {part!r}: ranks start at 1 and A <= B")
        strata.append(Stratum(part, low, high))
    names = [s.name for s in strata]
    if len(set(names)) != len(names):
        raise InvalidArgument(f"a stratum is named twice in {spec!r}")
    ranges = sorted((float(s.low), np.inf if s.high is None else float(s.high))
                    for s in strata if s.low is not None)
    for (_, end), (start, _) in zip(ranges, ranges[1:], strict=False):
        if start <= end:
            raise InvalidArgument(f"strata overlap in {spec!r}")
    return strata


def build_frame(topics: list[str], pooled: pd.DataFrame, best_ranks: pd.DataFrame,
                strata: list[Stratum], collection: list[str] | None) -> pd.DataFrame:
    """The frame: each topic's unpooled documents that fall in a stratum.

    :param topics: the topics to sample (those of the pool).
    :param pooled: ``topic, docno`` of the pool's documents.
    :param best_ranks: ``topic, docno, best_rank`` over the sample's runs.
    :param strata: from :func:`parse_strata`.
    :param collection: every docno the store holds (needed for ``unretrieved``).
    :returns: ``topic, docno, stratum, best_rank`` (best_rank NaN when unretrieved),
        one row per frame document, sorted by topic and docno.
    :raises InvalidArgument: ``unretrieved`` asked for but no collection given, or
        unpooled documents that runs retrieved lie in no stratum (the strata leave a
        gap in the best ranks: the frame would have holes, and R would miss them).
    """
    wanted = set(topics)
    ranks = best_ranks[best_ranks["topic"].isin(wanted)][["topic", "docno", "best_rank"]]
    ranks = ranks.assign(best_rank=ranks["best_rank"].astype(float))
    if any(s.low is None for s in strata):
        if not collection:
            raise InvalidArgument("the unretrieved stratum needs the collection's documents in the "
                             "store (pooltool add-docs); leave it out to estimate R within the "
                             "runs' lists only")
        everything = pd.DataFrame({"topic": np.repeat(topics, len(collection)),
                                   "docno": np.tile(np.asarray(collection, dtype=object),
                                                    len(topics))})
        ranks = everything.merge(ranks, on=["topic", "docno"], how="left")
    keys = pd.MultiIndex.from_frame(ranks[["topic", "docno"]])
    in_pool = keys.isin(pd.MultiIndex.from_frame(pooled[["topic", "docno"]]))
    ranks = ranks[~in_pool]
    best = ranks["best_rank"].to_numpy(dtype=float)
    stratum = np.full(len(ranks), None, dtype=object)
    for s in strata:
        stratum[s.holds(best) & (stratum == None)] = s.name  # noqa: E711  (elementwise)
    _check_covered(best[(stratum == None) & ~np.isnan(best)], strata)  # noqa: E711
    frame = ranks.assign(stratum=stratum)
    frame = frame[frame["stratum"].notna()]
    return frame.sort_values(["topic", "docno"]).reset_index(drop=True)[
        ["topic", "docno", "stratum", "best_rank"]]


def _check_covered(uncovered: np.ndarray, strata: list[Stratum]) -> None:
    """Refuse strata that leave retrieved, unpooled documents outside every stratum.

    :param uncovered: the best ranks of such documents.
    :raises InvalidArgument: there are any (how many in each gap of the strata's ranks).
    """
    if not len(uncovered):
        return
    held = []
    for gap in _gaps(strata):
        inside = Stratum(*gap).holds(uncovered)
        if inside.any():
            held.append(f"{gap[0]} ({int(inside.sum())})")
    raise InvalidArgument(
        f"{len(uncovered)} unpooled document(s) that runs retrieved lie in no stratum of "
        f"{','.join(s.name for s in strata)!r}: best ranks {', '.join(held)} (documents); the "
        "frame would have holes there and R would miss them: add strata for them")


def _gaps(strata: list[Stratum]) -> list[tuple[str, int, int | None]]:
    """The best ranks no rank stratum holds: ``(name, low, high)`` (``high`` None: no
    upper end), e.g. ``21-100`` and ``1001+`` for ``1-20,101-1000``."""
    gaps: list[tuple[str, int, int | None]] = []
    start: float = 1
    for low, high in sorted((s.low, s.high) for s in strata if s.low is not None):
        if low > start:
            gaps.append((f"{int(start)}-{low - 1}", int(start), low - 1))
        start = max(start, np.inf if high is None else high + 1)
    if start != np.inf:
        gaps.append((f"{int(start)}+", int(start), None))
    return gaps


def allocate(sizes: dict[str, int], budget: int, allocation: str = "equal") -> dict[str, int]:
    """Share one topic's budget over its strata.

    :param sizes: N_h per stratum name (strata of size 0 get 0).
    :param budget: documents to sample for the topic, >= 1.
    :param allocation: ``equal`` or ``proportional`` (module docstring).
    :returns: n_h per stratum name, 1 <= n_h <= N_h for every non-empty stratum,
        summing to min(budget, sum N_h).
    :raises InvalidArgument: unknown allocation, or a budget below the number of non-empty strata.
    """
    if allocation not in ALLOCATIONS:
        raise InvalidArgument(f"unknown allocation {allocation!r}; choose {' or '.join(ALLOCATIONS)}")
    filled = {name: size for name, size in sizes.items() if size > 0}
    if budget < len(filled):
        raise InvalidArgument(f"a budget of {budget} cannot give each of {len(filled)} non-empty "
                         "strata one document")
    target = min(budget, sum(filled.values()))
    if allocation == "proportional":
        total = sum(filled.values())
        share = {name: max(1.0, target * size / total) for name, size in filled.items()}
        out = {name: min(filled[name], int(share[name])) for name in filled}
        by_remainder = sorted(filled, key=lambda n: (-(share[n] - int(share[n])), n))
        while sum(out.values()) < target:
            for name in by_remainder:
                if out[name] < filled[name] and sum(out.values()) < target:
                    out[name] += 1
        while sum(out.values()) > target:  # the minimum of one pushed it over
            name = max((n for n in out if out[n] > 1), key=lambda n: (out[n], n))
            out[name] -= 1
    else:
        out = dict.fromkeys(filled, 0)
        left = target
        while left > 0:
            open_ = [n for n in filled if out[n] < filled[n]]
            each = max(1, left // len(open_))
            for name in open_:
                give = min(each, filled[name] - out[name], left)
                out[name] += give
                left -= give
                if left == 0:
                    break
    return {name: out.get(name, 0) for name in sizes}


def draw_sample(frame: pd.DataFrame, budget: int, seed: int,
                allocation: str = "equal") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Draw the stratified sample (module docstring) from a frame.

    :param frame: from :func:`build_frame`.
    :returns: ``docs`` (``topic, docno, stratum, inclusion``: one row per sampled
        document, inclusion = n_h / N_h in 0..1) and ``strata`` (``topic, stratum,
        population, size``: N_h and n_h of each non-empty stratum of each topic).
    :raises InvalidArgument: as :func:`allocate`.
    """
    keys = sample_keys(frame, seed)
    ordered = frame.assign(key=keys).sort_values(["topic", "stratum", "key", "docno"])
    ordered["position"] = ordered.groupby(["topic", "stratum"], sort=False).cumcount()
    population = ordered.groupby(["topic", "stratum"], sort=True).size()
    rows = []
    for topic, sizes in population.groupby(level=0, sort=True):
        by_name = {str(name): int(size) for (_, name), size in sizes.items()}
        try:
            n = allocate(by_name, budget, allocation)
        except ValueError as exc:
            raise InvalidArgument(f"topic {topic}: {exc}") from None
        rows += [(str(topic), name, by_name[name], n[name]) for name in sorted(by_name)]
    strata = pd.DataFrame(rows, columns=["topic", "stratum", "population", "size"])
    ordered = ordered.merge(strata, on=["topic", "stratum"])
    docs = ordered[ordered["position"] < ordered["size"]]
    docs = docs.assign(inclusion=docs["size"] / docs["population"])
    docs = docs[["topic", "docno", "stratum", "inclusion"]]
    return docs.sort_values(["topic", "docno"]).reset_index(drop=True), strata


def sample_keys(frame: pd.DataFrame, seed: int) -> np.ndarray:
    """``sha256("<seed>\\t<topic>\\t<docno>")`` in hex for each row of ``frame``."""
    keys = np.empty(len(frame), dtype=object)
    prefixes: dict[str, hashlib._Hash] = {}
    for i, (topic, docno) in enumerate(zip(frame["topic"], frame["docno"], strict=True)):
        prefix = prefixes.get(topic)
        if prefix is None:
            prefix = prefixes[topic] = hashlib.sha256(f"{seed}\t{topic}\t".encode())
        digest = prefix.copy()
        digest.update(docno.encode())
        keys[i] = digest.hexdigest()
    return keys
