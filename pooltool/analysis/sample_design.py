"""A stored sample as the estimates need it (:class:`Design`), what the estimate says of
a pool grown since the draw or of relevant documents outside the design, and drawing
or growing a sample into the store (``pooltool sample``; the design is
:mod:`pooltool.analysis.sampling`, the estimates :mod:`pooltool.analysis.sample_estimates`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from pooltool.analysis.sampling import Stratum, build_frame, draw_sample, parse_strata
from pooltool.errors import StoreError
from pooltool.records import is_relevant
from pooltool.store import JudgmentStore


@dataclass(frozen=True)
class Design:
    """A stored sample, as the estimator needs it.

    :ivar name: the sample's name.
    :ivar strata: its strata (:func:`~pooltool.analysis.sampling.parse_strata`).
    :ivar frame: ``collection`` (with the unretrieved stratum) or ``runs``.
    :ivar pooled: ``topic, docno`` of the pool the sample lies beyond, as it was when
        the sample was drawn.
    :ivar docs: ``topic, docno, stratum, inclusion`` of the sampled documents.
    :ivar sizes: ``topic, stratum, population, size`` (N_h and n_h drawn).
    :ivar best_ranks: ``topic, docno, best_rank`` over the sample's runs.
    :ivar base_pool: the name of that pool.
    :ivar pooled_later: ``topic, docno`` the base pool took after the draw (not part
        of the design: they lie in its strata; see :func:`stale_note`).
    """

    name: str
    strata: list[Stratum]
    frame: str
    pooled: pd.DataFrame
    docs: pd.DataFrame
    sizes: pd.DataFrame
    best_ranks: pd.DataFrame
    base_pool: str = ""
    pooled_later: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame({"topic": [], "docno": []}))


def stale_note(design: Design) -> str | None:
    """What it means for the estimate that the base pool grew after the sample was
    drawn (``None`` when it did not).

    The sample is a stratified simple random sample of the documents beyond the pool
    *as it was drawn*; documents pooled later lie in its strata, some of them in the
    sample. Counting them as pooled would count them twice (as pooled relevant, and
    through the strata's N_h / n_h weights) and bias R and Recall@k upward, so the
    estimate keeps the design: the pool as drawn, the later documents as stratum
    documents (their judgments count only where they are in the sample).
    """
    later = design.pooled_later
    if not len(later):
        return None
    keys = ["topic", "docno"]
    sampled = len(later.merge(design.docs[keys], on=keys))
    return (f"warning: pool {design.base_pool!r} took {len(later)} document(s) after sample "
            f"{design.name!r} was drawn, {sampled} of them sampled documents. The estimate "
            f"uses the pool as it was then ({len(design.pooled)} documents), as the sample's "
            "design requires: the later documents lie in its strata, and counting them as "
            "pooled would count them twice and bias R upward. Their judgments count only "
            "where they are in the sample, so the intervals are as wide as before the pool "
            "grew; for estimates beyond the grown pool, draw a new sample.")


def outside_note(design: Design, qrels: pd.DataFrame, level: int) -> str | None:
    """What it means for the estimate that the qrels hold relevant documents the design
    does not know (``None`` when they hold none): judged relevant (grade >= ``level``)
    in the design's topics, but neither in the pool the sample was drawn beyond (as
    drawn, or grown since: :func:`stale_note`) nor in the sample, e.g. another
    sample's documents or imported judgments. num_rel counts them; the estimate counts
    them only through its strata's N_h / n_h weights, as it would any unsampled
    document, so est_R and its interval may lie below num_rel. Using them would need
    a design that holds them (one sample, grown: ``sample --grow``).

    :param qrels: ``topic, docno, grade``.
    """
    keys = ["topic", "docno"]
    topics = set(design.sizes["topic"]) | set(design.pooled["topic"])
    relevant = qrels.loc[is_relevant(qrels["grade"], level).to_numpy(dtype=bool)
                         & qrels["topic"].isin(topics).to_numpy(dtype=bool), keys]
    known = pd.concat([design.pooled[keys], design.pooled_later[keys], design.docs[keys]])
    outside = relevant.drop_duplicates().merge(known.drop_duplicates(), on=keys, how="left",
                                               indicator=True)
    count = int((outside["_merge"] == "left_only").sum())
    if not count:
        return None
    return (f"note: {count} relevant document(s) in these qrels lie outside sample "
            f"{design.name!r}'s design (neither in the pool it was drawn beyond nor in the "
            "sample: another sample's, or imported judgments). num_rel counts them; the "
            "estimate counts them only as its strata's weights count any unsampled "
            "document, so est_R and its interval may lie below num_rel. For one estimate "
            "that uses them, grow one sample ('sample --grow') instead of drawing another.")


def first_few(items: object, limit: int = 10) -> str:
    """The first ``limit`` of ``items`` joined by commas, and how many more."""
    listed = list(items)  # type: ignore[call-overload]
    shown = ", ".join(str(i) for i in listed[:limit])
    return shown + (f" and {len(listed) - limit} more" if len(listed) > limit else "")


def load_design(store: JudgmentStore, name: str) -> Design:
    """Read a stored sample (``pooltool sample``) as a :class:`Design`, with its base
    pool as it was when the sample was drawn (:func:`stale_note`).

    :raises StoreError: no such sample (or its base pool is gone).
    """
    design = store.sample_design(name)
    sizes = store.sample_strata(name)
    base = store.sample_base_pool(name)
    later = base["drawn_after"].to_numpy(dtype=bool)
    return Design(
        name=name, strata=parse_strata(design["strata"]), frame=design["frame"],
        pooled=base.loc[~later, ["topic", "docno"]].reset_index(drop=True),
        docs=store.sample_docs(name), sizes=sizes,
        best_ranks=store.best_ranks(design["run_ids"], sorted(set(sizes["topic"]))),
        base_pool=str(design["base_pool"]),
        pooled_later=base.loc[later, ["topic", "docno"]].reset_index(drop=True))


def draw_and_store(store: JudgmentStore, name: str, base_pool: str, spec: str, budget: int,
                   seed: int, allocation: str) -> tuple[dict[str, Any], pd.DataFrame]:
    """Draw a stratified sample beyond ``base_pool`` (:mod:`pooltool.analysis.sampling`)
    and store it as sample and pool ``name``.

    :returns: the design (``strata, frame, allocation, budget, seed``) and the
        strata table (``topic, stratum, population, size``).
    :raises ValueError: a bad spec, budget or allocation, or the unretrieved
        stratum without the collection's documents in the store.
    :raises StoreError: no such pool, a pool without documents, or the name taken.
    """
    strata = parse_strata(spec)
    if store.has_pool(name) or store.has_sample(name):
        raise StoreError(f"a pool or sample named {name!r} exists already; choose another name")
    run_ids = store.pool_run_ids(base_pool)
    topics = store.pooled_topics(base_pool)
    if not topics or not run_ids:
        raise StoreError(f"pool {base_pool!r} has no pooled documents from runs: pool first "
                         "('pooltool pool --depth K')")
    frame = _frame(store, base_pool, run_ids, topics, strata)
    docs, sizes = draw_sample(frame, budget, seed, allocation)
    design = {"strata": ",".join(s.name for s in strata),
              "frame": "collection" if any(s.low is None for s in strata) else "runs",
              "allocation": allocation, "budget": budget, "seed": seed}
    store.add_sample(name, base_pool, design, run_ids, docs, sizes)
    return design, sizes


def _frame(store: JudgmentStore, base_pool: str, run_ids: list[int], topics: list[str],
           strata: list[Stratum]) -> pd.DataFrame:
    """The sampling frame of :func:`~pooltool.analysis.sampling.build_frame` from the store."""
    collection = store.docnos() if any(s.low is None for s in strata) else None
    return build_frame(topics, store.pool_docs(base_pool), store.best_ranks(run_ids, topics),
                       strata, collection)


def grow_and_store(store: JudgmentStore, name: str, more: int) -> tuple[dict[str, Any],
                                                                          pd.DataFrame]:
    """Grow sample ``name`` by ``more`` documents per topic, keeping every earlier draw.

    The design stays: the same frame, strata, allocation and seed, with the budget
    raised to ``budget + more``. Each stratum's documents are drawn in one fixed
    order (sha256 of seed, topic and docno; :mod:`pooltool.analysis.sampling`), so
    the grown sample is a longer prefix of each stratum's order: it holds every
    document drawn before and is itself a stratified simple random sample, of
    sizes n_h' >= n_h (inclusion n_h' / N_h). Judgments of the earlier documents
    stay valid; the new documents need judging.

    :returns: the design (budget raised) and the strata table after the growth
        (``topic, stratum, population, size``).
    :raises StoreError: no such sample, or its frame changed since it was drawn (the
        pool or the store's documents changed: draw a new sample), or a stratum the
        new allocation would shrink.
    """
    design = store.sample_design(name)
    strata = parse_strata(design["strata"])
    before = store.sample_strata(name)
    topics = sorted(set(before["topic"]))
    frame = _frame(store, design["base_pool"], design["run_ids"], topics, strata)
    budget = int(design["budget"]) + more
    docs, sizes = draw_sample(frame, budget, int(design["seed"]), design["allocation"])
    merged = before.merge(sizes, on=["topic", "stratum"], how="outer",
                          suffixes=("_before", ""))
    changed = merged[merged["population_before"] != merged["population"]]
    if len(changed):
        where = first_few(changed["topic"].astype(str) + ":" + changed["stratum"].astype(str))
        raise StoreError(
            f"the frame of sample {name!r} changed since it was drawn (strata sizes differ "
            f"in {where}): "
            "the pool or the store's documents changed, so earlier draws would not be a "
            "simple random sample of it; draw a new sample")
    shrunk = merged[merged["size"] < merged["size_before"]]
    if len(shrunk):
        raise StoreError(f"growing sample {name!r} to {budget} per topic would take documents "
                         f"from stratum(s) {first_few(set(shrunk['stratum']))} "
                         f"({design['allocation']} allocation); grow by more")
    added = docs[~docs.set_index(["topic", "docno"]).index.isin(
        store.sample_docs(name).set_index(["topic", "docno"]).index)]
    store.grow_sample(name, budget, added, sizes)
    return {**design, "budget": budget, "added": len(added)}, sizes
