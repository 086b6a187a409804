"""Pooling strategies: which document of a topic to judge next.

A strategy sees one topic's runs, each ranked in trec_eval order
(:func:`pooltool.ranking.order_run`: score descending, docno descending), and
the judgments made so far, and names the next document to judge, or ``None``
when it has nothing left. Every strategy is a :class:`Chooser`:
:meth:`Chooser.next` names the document, :meth:`Chooser.observe` records a
judgment. A chooser's state is a pure function of the runs, the strategy's
parameters (the seed included) and the judgments in the order they were made:
:func:`next_document` rebuilds it from such a log, so nothing has to be kept in
memory between judgments.

Runs are taken in run-tag order (string order) wherever an order of runs
matters. Documents tied on a fused score are taken in docno order (ascending,
string order).

Static orders (the order never depends on the judgments):

* ``depth`` (k, default 7): the union of every run's first k documents, judged
  in docno order, as NIST judges a depth-k pool (Sparck Jones and van
  Rijsbergen 1975; TREC). Nothing beyond the pool: ``None`` once it is judged.
* ``rundepth`` (k, default 7; ``k.TAG=N`` a run's own depth; ``first.TAG=1``
  a priority run): the union of every run's first k documents, each run to
  its own depth where ``k.TAG`` gives one (0 leaves the run out); the
  documents a priority run put in come first, then the others, each part in
  docno order (TREC's per-run pool depths and judging priorities, e.g. the
  priority runs participants name; Voorhees and Harman 2005, 'TREC:
  Experiment and Evaluation in Information Retrieval', ch. 2). With no
  ``k.TAG`` and no priority run it is ``depth``. A tag with ``,`` or ``=``
  in it cannot be named.
* ``roundrobin``: Take@N: every run's rank-1 document, then every run's rank-2
  document, and so on, each document once (Lipani et al. 2017, 'Fixed-cost
  pooling strategies based on IR evaluation measures').
* ``rrf`` (k, default 60): reciprocal rank fusion, score(d) = sum over the runs
  that retrieve d of 1 / (k + rank) (Cormack, Clarke and Buettcher 2009).
* ``borda``: Borda count (Aslam and Montague 2001, 'Models for metasearch'):
  with c the documents any run retrieves, a run gives c - rank + 1 points to
  its document at ``rank`` and shares what is left evenly among the documents
  it does not retrieve, (c - n + 1) / 2 each for a run of n documents.
* ``combsum``: CombSUM (Fox and Shaw 1994) of min-max normalised scores (Lee
  1997): (s - min) / (max - min) per run and topic; 1 for every document of a
  run whose scores are all equal; 0 for a document the run lacks.
* ``rbp`` (p, default 0.8): the sum over runs of the rank-biased precision
  weight (1 - p) p^(rank - 1) of the document's rank (Moffat, Webber and Zobel
  2007, 'Strategic system comparisons via targeted relevance judgments').

Adaptive (each run is an arm; the document judged next comes from the chosen
run: its best-ranked document not judged yet; a judgment of the document a
chooser named counts for the run it came from; any other judgment (another
assessor's, in a live pool) counts for the first run, in tag order, whose
best-ranked unjudged document it is, and otherwise only makes that document
judged; a run with nothing left unjudged drops out):

* ``mtf``: Move-to-Front (Cormack, Palmer and Clarke 1998, 'Efficient
  construction of large test collections'): every run starts with priority
  0; a non-relevant document lowers its run's priority by 1. The next run is
  the last chosen one while its priority is still the highest, else the first
  run (tag order) with the highest priority.
* ``maxmean``: MaxMean (Losada, Parapar and Barreiro 2016, 'Feeling lucky?
  Multi-armed bandits for ordering judgements in pooling-based evaluation';
  IPM 2017): the run with the largest posterior mean (rel + 1) / (rel + nonrel
  + 2) of a Beta(1, 1) prior, rel and nonrel its relevant and non-relevant
  judgments; ties to the first run (tag order).
* ``mmns`` (gamma, default 0.9): MaxMean, non-stationary (Losada, Parapar and
  Barreiro 2017): as ``maxmean`` with discounted counts: each judgment of a run
  first multiplies its rel and nonrel by gamma, then adds 1 to one of them, so
  the latest judgments weigh most (a run's documents grow less likely to be
  relevant deeper down).
* ``thompson`` (seed, default 0; a, b, default 1): Thompson sampling (Thompson
  1933): draw from Beta(a + rel, b + nonrel) for every run, in tag order, with
  numpy's PCG64 generator seeded by (seed, CRC-32 of the topic id); the largest
  draw wins (ties to the first run).

Adaptive over documents:

* ``hedge`` (beta, default 0.1): Hedge (Freund and Schapire 1997) as Aslam,
  Pavlu and Savell 2003 use it for pooling ('A unified model for metasearch,
  pooling, and system evaluation'): every run is an expert with weight 1 at
  first. Run s of Z documents values its document at rank r by the
  average-precision prior a_s(r) = (H_Z - H_(r-1)) / H_Z (H_n the n-th
  harmonic number: 1 at rank 1, falling with rank), 0 for a document it
  lacks. The next document is the unjudged one with the largest
  sum_s w_s a_s(d) (ties in docno order). A judgment of d costs run s the
  loss 1 - a_s(d) when d is relevant, a_s(d) when not, and w_s becomes
  w_s * beta^loss. Every judgment counts, named or not. The loss's form
  (the AP prior in [0, 1]) and beta's default are pooltool's reading of the
  paper, which could not be checked against its text here.

Where a paper leaves a choice open (tie rules, MTF's step of 1, the form and
default of MM-NS's discount), the rule above is pooltool's; the definitions
were written from the papers as cited, not checked line by line against
their text (only the abstracts could be read). The one public MTF found,
Li and Kanoulas' ``activesampling`` (``acsp/models/mtf.py``, not the
authors'), starts on a random run and always leaves a run after a
non-relevant document, for the best other run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pooltool.errors import InvalidArgument, PooltoolError
from pooltool.judging.choosers import (
    ArmChooser,
    Chooser,
    Hedge,
    MaxMean,
    MaxMeanNonStationary,
    MoveToFront,
    OrderChooser,
    RankedRun,
    Thompson,
    ap_prior,
    hedge_table,
    topic_runs,
)
from pooltool.judging.static_orders import (
    borda_order,
    depth_order,
    fused_order,
    min_max,
    rbp_weights,
    round_robin_order,
    rrf_weights,
    run_depth_order,
)

__all__ = [
    "RankedRun",
    "topic_runs",
    "Chooser",
    "OrderChooser",
    "ArmChooser",
    "MoveToFront",
    "MaxMean",
    "MaxMeanNonStationary",
    "Thompson",
    "Hedge",
    "hedge_table",
    "ap_prior",
    "depth_order",
    "run_depth_order",
    "round_robin_order",
    "fused_order",
    "borda_order",
    "min_max",
    "rrf_weights",
    "rbp_weights",
    "Parameter",
    "RunParameter",
    "StrategyKind",
    "register",
    "Strategy",
    "parse_strategy",
    "next_document",
    "judge_sequence",
    "STRATEGIES",
    "StaticOrder",
    "ChooserBuilder",
]


# --- names and parameters: the registry ---------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """A strategy's parameter: its default, the check a value must pass, and the check
    in words for the error (``"a whole number >= 1"``)."""

    default: float
    valid: Callable[[float], bool]
    wanted: str


@dataclass(frozen=True)
class RunParameter:
    """A parameter named per run (``KEY.TAG``), with its check; no default."""

    valid: Callable[[float], bool]
    wanted: str


StaticOrder = Callable[[Sequence[RankedRun], dict[str, float], int | None], list[str]]
ChooserBuilder = Callable[[Sequence[RankedRun], str, dict[str, float]], Chooser]


@dataclass(frozen=True)
class StrategyKind:
    """A strategy declared once: its name, its parameters, and either its static order
    (it never depends on the judgments) or its chooser builder (adaptive).

    :ivar order: ``(runs, params, limit) -> docnos``, for a static strategy: with a
        ``limit``, at least the first ``limit`` documents of the order (the caller takes
        no more), else all of them.
    :ivar build: ``(runs, topic, params) -> Chooser``, for an adaptive one.
    :ivar run_parameters: parameters named per run (``KEY.TAG``).
    """

    name: str
    parameters: dict[str, Parameter] = field(default_factory=dict)
    order: StaticOrder | None = None
    build: ChooserBuilder | None = None
    run_parameters: dict[str, RunParameter] = field(default_factory=dict)


STRATEGIES: dict[str, StrategyKind] = {}
"""Every strategy by name (:func:`register`), in the order they were registered."""


def register(kind: StrategyKind) -> StrategyKind:
    """Add a strategy to :data:`STRATEGIES`.

    :raises ValueError: the name is taken, or the kind has not exactly one of
        ``order`` and ``build``.
    """
    if kind.name in STRATEGIES:
        raise ValueError(f"strategy {kind.name!r} is registered twice")
    if (kind.order is None) == (kind.build is None):
        raise ValueError(f"strategy {kind.name!r} needs exactly one of a static order and a "
                         "chooser builder")
    STRATEGIES[kind.name] = kind
    return kind


def _whole(least: int, default: float) -> Parameter:
    return Parameter(default, lambda v: v >= least and v == int(v), f"a whole number >= {least}")


def _open_unit(default: float) -> Parameter:
    return Parameter(default, lambda v: 0 < v < 1, "between 0 and 1 (exclusive)")


register(StrategyKind("depth", {"k": _whole(1, 7)},
                      order=lambda runs, p, limit: depth_order(runs, int(p["k"]))))
register(StrategyKind(
    "rundepth", {"k": _whole(1, 7)},
    order=lambda runs, p, limit: run_depth_order(runs, p),
    run_parameters={"k": RunParameter(_whole(0, 0).valid, _whole(0, 0).wanted),
                    "first": RunParameter(lambda v: v in (0, 1), "0 or 1")}))
register(StrategyKind("roundrobin", order=lambda runs, p, limit: round_robin_order(runs, limit)))
register(StrategyKind("rrf", {"k": Parameter(60, lambda v: v >= 0, ">= 0")},
                      order=lambda runs, p, limit: fused_order(runs, rrf_weights(p["k"]), limit)))
register(StrategyKind("borda", order=lambda runs, p, limit: borda_order(runs, limit)))
register(StrategyKind("combsum", order=lambda runs, p, limit: fused_order(runs, min_max, limit)))
register(StrategyKind("rbp", {"p": _open_unit(0.8)},
                      order=lambda runs, p, limit: fused_order(runs, rbp_weights(p["p"]),
                                                               limit)))
register(StrategyKind("mtf", build=lambda runs, topic, p: MoveToFront(runs)))
register(StrategyKind("maxmean", build=lambda runs, topic, p: MaxMean(runs)))
register(StrategyKind("mmns", {"gamma": Parameter(0.9, lambda v: 0 < v <= 1, "in (0, 1]")},
                      build=lambda runs, topic, p: MaxMeanNonStationary(runs, p["gamma"])))
register(StrategyKind(
    "thompson", {"seed": _whole(0, 0),
                 "a": Parameter(1, lambda v: v > 0, "> 0"),
                 "b": Parameter(1, lambda v: v > 0, "> 0")},
    build=lambda runs, topic, p: Thompson(runs, topic, int(p["seed"]), p["a"], p["b"])))
register(StrategyKind("hedge", {"beta": _open_unit(0.1)},
                      build=lambda runs, topic, p: Hedge(runs, p["beta"])))


@dataclass(frozen=True)
class Strategy:
    """A named strategy with its parameters, as written ``NAME`` or ``NAME:KEY=VALUE,...``.

    :ivar name: one of :data:`STRATEGIES`.
    :ivar params: the parameters, defaults filled in.
    """

    name: str
    params: dict[str, float] = field(default_factory=dict)

    @property
    def kind(self) -> StrategyKind:
        """The registered strategy of this name (:data:`STRATEGIES`)."""
        return STRATEGIES[self.name]

    @property
    def label(self) -> str:
        """``name`` with its parameters, e.g. ``depth:k=7`` or ``mtf``."""
        shown = ",".join(f"{key}={_number(value)}" for key, value in self.params.items())
        return f"{self.name}:{shown}" if shown else self.name

    def check_run_tags(self, run_tags: Iterable[str]) -> None:
        """Refuse per-run parameters (``KEY.TAG``, :attr:`StrategyKind.run_parameters`)
        naming a run not among ``run_tags`` (the runs the strategy is to draw on).

        :raises InvalidArgument: naming the unknown tags and the known ones.
        """
        known = list(dict.fromkeys(run_tags))
        named = {key.partition(".")[2] for key in self.params if "." in key}
        unknown = sorted(named - set(known))
        if unknown:
            raise InvalidArgument(
                f"strategy {self.name}: no run tagged {', '.join(map(repr, unknown))} among "
                f"the runs it draws on (runs: {', '.join(known) or 'none'})")

    def chooser(self, runs: Sequence[RankedRun], topic: str,
                limit: int | None = None) -> Chooser:
        """A new chooser for one topic's runs (in run-tag order), nothing judged yet.

        :param limit: the caller asks for at most ``limit`` documents and judges no
            others (a simulation), so a static order may stop after its first
            ``limit``; ``None`` (a live pool): the whole order.
        """
        order = self.static_order(runs, limit)
        if order is not None:
            return OrderChooser(order)
        build = self.kind.build
        if build is None:  # register() gives every kind an order or a builder
            raise RuntimeError(f"strategy {self.name} has neither an order nor a chooser")
        return build(runs, topic, self.params)

    def static_order(self, runs: Sequence[RankedRun],
                     limit: int | None = None) -> list[str] | None:
        """A static strategy's order of the topic's documents (it never depends on the
        judgments, so a caller may keep it); ``None`` for an adaptive strategy. With a
        ``limit``, at least the order's first ``limit`` documents, maybe no more."""
        order = self.kind.order
        return None if order is None else order(runs, self.params, limit)


def parse_strategy(text: str, defaults: dict[str, float] | None = None) -> Strategy:
    """Read ``NAME`` or ``NAME:KEY=VALUE,...`` (e.g. ``rrf:k=60``, ``thompson:seed=3``).

    :param defaults: parameter values that replace the built-in defaults
        (e.g. ``{"k": 7}`` for ``depth``), where the strategy has that parameter.
    :raises PooltoolError: an unknown name or parameter, or a bad value.
    """
    name, _, listed = text.strip().partition(":")
    if name not in STRATEGIES:
        raise PooltoolError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")
    known = STRATEGIES[name].parameters
    params = {key: float((defaults or {}).get(key, spec.default)) for key, spec in known.items()}
    per_run = STRATEGIES[name].run_parameters
    for item in filter(None, (part.strip() for part in listed.split(","))):
        key, _, value = item.partition("=")
        stem, dot, tag = key.partition(".")
        if dot and stem in per_run and tag:
            params[key] = _parameter(name, key, value)
            if not per_run[stem].valid(params[key]):
                raise PooltoolError(f"strategy {name}: {key} must be {per_run[stem].wanted}, "
                                    f"got {_number(params[key])}")
            continue
        if key not in known:
            takes = [*known, *(f"{stem}.TAG" for stem in per_run)]
            raise PooltoolError(f"strategy {name} has no parameter {key!r}"
                                + (f"; it takes {', '.join(takes)}" if takes else ""))
        params[key] = _parameter(name, key, value)
    for key, spec in known.items():
        if not spec.valid(params[key]):
            raise PooltoolError(f"strategy {name}: {key} must be {spec.wanted}, "
                                f"got {_number(params[key])}")
    return Strategy(name, params)


def _parameter(name: str, key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise PooltoolError(f"strategy {name}: {key}={value!r} is not a number") from None
    if not math.isfinite(number):
        raise PooltoolError(f"strategy {name}: {key}={value!r} is not a finite number")
    return number


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


# --- driving a chooser ---------------------------------------------------------------


def next_document(chooser: Chooser, log: Iterable[tuple[str, bool]]) -> str | None:
    """Rebuild a new chooser's state from a judgment log and name the next document.

    :param chooser: a chooser nothing has been judged with yet
        (:meth:`Strategy.chooser`).
    :param log: (docno, relevant) in the order the judgments were made.
    :returns: the document to judge next, or ``None``.
    """
    for docno, relevant in log:
        if not chooser.learns_from_any:
            chooser.next()
        chooser.observe(docno, relevant)
    return chooser.next()


def judge_sequence(chooser: Chooser, relevant: set[str] | frozenset[str],
                   budget: int) -> list[str]:
    """Let a chooser pick up to ``budget`` documents, judging each against ``relevant``.

    :param relevant: the documents that are relevant; any other is not.
    :returns: the documents in the order picked (shorter than ``budget`` when
        the strategy runs out).
    """
    picked: list[str] = []
    while len(picked) < budget:
        docno = chooser.next()
        if docno is None:
            break
        chooser.observe(docno, docno in relevant)
        picked.append(docno)
    return picked
