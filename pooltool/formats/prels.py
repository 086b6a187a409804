"""Reading sampled judgments drawn outside pooltool: NIST's two layouts.

``prels`` (TREC Million Query 2008 and 2009, the layout ir_datasets' ``TrecPrels``
reads): five whitespace-separated columns ::

    topic docno grade method inclusion

one line per judged document; ``method`` (which selection method took the document:
MTC, statAP or both) is read as an integer and not used; ``inclusion`` is the
document's inclusion probability, in (0, 1] (1: judged with certainty, e.g. a depth-k
pool). The design behind it is given per document only, so pooltool estimates from it
as from a Poisson sample (:mod:`pooltool.analysis.prels_estimates`).

``strata`` (NIST's ``sample_eval.pl``, TREC Terabyte 2006, Clinical Decision Support,
Precision Medicine, TRECVID xinfAP; Yilmaz, Kanoulas & Aslam 2008, 'A simple and
efficient sampling method for estimating AP and NDCG', SIGIR): five columns ::

    topic iteration docno stratum grade

one line per document of the sampling frame; ``stratum`` labels the stratum the
document belongs to (any text), grade -1 marks a document of the stratum that was not
sampled (trec_eval's and sample_eval.pl's "pooled but not judged"), a grade >= 0 a
sampled and judged one. Each stratum of a topic is a simple random sample, so each of
its documents has inclusion probability ``judged / listed`` of that topic and stratum
(sample_eval.pl's ``sampled_docs / docs_per_category``).

Both layouts skip blank lines and lines starting with ``#`` and refuse, naming file and
line, a wrong column count, a grade that is not an integer, an inclusion probability
that is not a number in (0, 1], a (topic, docno) given twice, and (``strata``) a topic
and stratum of which no document is judged (its inclusion probability would be 0).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pooltool.errors import FormatError
from pooltool.formats.source import (
    INTEGER,
    NUMBER,
    Source,
    check_identifier,
    in_int64,
    is_skipped,
    open_text,
    refuse_byte_order_mark,
    source_name,
    split_fields,
)
from pooltool.records import is_judged

if TYPE_CHECKING:
    import pandas as pd

#: The layouts :func:`read_prels` reads, by name.
LAYOUTS = ("prels", "strata")

_COLUMNS = {"prels": "topic docno grade method inclusion",
            "strata": "topic iteration docno stratum grade"}


def read_prels(source: Source, layout: str = "prels") -> pd.DataFrame:
    """Read a file of sampled judgments (see the module for the layouts).

    :param source: a path (``.gz`` accepted), an open text stream, or the text.
    :param layout: ``prels`` or ``strata``.
    :returns: one row per line, in file order: ``topic, docno`` (str), ``grade``
        (int64; -1 in ``strata`` for a listed document not sampled), ``inclusion``
        (float64, the document's inclusion probability, in (0, 1]) and, for ``strata``,
        ``stratum`` (str).
    :raises FormatError: an empty file, a bad line (see the module), naming file and
        line.
    :raises ValueError: an unknown layout.
    """
    import pandas as pd

    if layout not in LAYOUTS:
        raise ValueError(f"unknown prels layout {layout!r}: choose {' or '.join(LAYOUTS)}")
    refuse_byte_order_mark(source)
    name = source_name(source)
    with open_text(source) as handle:
        rows = list(_rows(handle, name, layout))
    if not rows:
        raise FormatError(name, 0, "holds no sampled judgments")
    if layout == "prels":
        frame = pd.DataFrame([row[:3] + row[4:] for row in rows],
                             columns=["topic", "docno", "grade", "inclusion"])
        return frame.astype({"grade": "int64", "inclusion": "float64"})
    frame = pd.DataFrame(rows, columns=["topic", "docno", "grade", "stratum", "line"])
    frame = frame.astype({"grade": "int64"})
    return _stratum_inclusion(frame, name)


def _rows(lines: Iterable[str], name: str, layout: str) -> Iterable[tuple[object, ...]]:
    """One tuple per line: ``(topic, docno, grade, method, inclusion)`` (``prels``) or
    ``(topic, docno, grade, stratum, line)`` (``strata``)."""
    seen: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines, start=1):
        fields = split_fields(line)
        if is_skipped(fields):
            continue
        if len(fields) != 5:
            raise FormatError(name, number, f"expected 5 columns ({_COLUMNS[layout]}), "
                                            f"got {len(fields)}")
        if layout == "prels":
            topic, docno, grade_text, method, inclusion_text = fields
        else:
            topic, _iteration, docno, stratum, grade_text = fields
        check_identifier(topic, "topic id", name, number)
        check_identifier(docno, "docno", name, number)
        grade = _grade(grade_text, name, number)
        first = seen.setdefault((topic, docno), number)
        if first != number:
            raise FormatError(name, number, f"docno {docno!r} for topic {topic!r} is given "
                                            f"again (first on line {first})")
        if layout == "prels":
            if not INTEGER.fullmatch(method):
                raise FormatError(name, number, f"method {method!r} is not an integer")
            yield topic, docno, grade, int(method), _inclusion(inclusion_text, name, number)
        else:
            check_identifier(stratum, "stratum", name, number)
            yield topic, docno, grade, stratum, number


def _grade(text: str, name: str, number: int) -> int:
    if not INTEGER.fullmatch(text) or not in_int64(int(text)):
        raise FormatError(name, number, f"grade {text!r} is not an integer")
    return int(text)


def _inclusion(text: str, name: str, number: int) -> float:
    """An inclusion probability in (0, 1]: 0 would mean the document could not have been
    sampled (no Horvitz-Thompson weight), above 1 is no probability."""
    value = float(text) if NUMBER.fullmatch(text) else float("nan")
    if not 0.0 < value <= 1.0:  # NaN fails too
        raise FormatError(name, number, f"inclusion probability {text!r} is not a number "
                                        "in (0, 1]")
    return value


def _stratum_inclusion(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """``frame`` with ``inclusion`` = judged / listed per topic and stratum (each a simple
    random sample), in place of the line numbers.

    :raises FormatError: a topic and stratum with no judged document (named with the
        line of its first document).
    """
    judged = is_judged(frame["grade"])
    groups = frame.assign(judged=judged).groupby(["topic", "stratum"], sort=False)
    counts = groups.agg(listed=("grade", "size"), judged=("judged", "sum"),
                        line=("line", "min"))
    empty = counts[counts["judged"] == 0]
    if len(empty):
        (topic, stratum), row = next(iter(empty.iterrows()))
        raise FormatError(name, int(row["line"]), (
            f"stratum {stratum!r} of topic {topic!r} has no judged document ({row['listed']} "
            "listed, every grade -1): its inclusion probability would be 0"))
    share = (counts["judged"] / counts["listed"]).rename("inclusion")
    out = frame.drop(columns="line").join(share, on=["topic", "stratum"])
    return out[["topic", "docno", "grade", "inclusion", "stratum"]]
