"""trec_eval's measure parameters (``meas_init.c``): parsing ``-m NAME.PARAMS`` and
the names each measure prints.

Kinds of parameters:

* ``cut_long``: integer cutoffs (``P.5,10``), read with ``atol``, sorted; each must be
  positive and none repeated; names ``P_5``, ``P_10``;
* ``cut_double``: fractions (``iprec_at_recall.0.1,.5``), read with ``atof``, sorted,
  none repeated; names ``NAME_%3.2f``;
* ``double``: numbers (``utility.1,-1,0,0``, ``relstring.20``); the name is
  ``NAME_PARAMS`` as written;
* ``pair``: ``NAME=VALUE`` pairs (``ndcg.1=3,2=9``, ``rbp.p=0.8``); the name is
  ``NAME_PARAMS`` as written;
* ``none``: no parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from pooltool.errors import InvalidArgument
from pooltool.measures.trec.c_arith import c_atof, c_atol, name_with_double

KINDS = ("cut_long", "cut_double", "double", "pair", "none")


@dataclass(frozen=True)
class Params:
    """One measure's parameters.

    :ivar values: ints (``cut_long``), floats (``cut_double``, ``double``) or
        ``(name, float)`` pairs (``pair``); empty for ``none``.
    :ivar written: the parameter text as given on the command line, ``None`` for
        the defaults (then single-valued measures print their bare name).
    """

    values: tuple[object, ...]
    written: str | None = None


def parse(name: str, kind: str, text: str) -> Params:
    """Read the parameters of ``-m NAME.TEXT``.

    :raises InvalidArgument: empty text, a cutoff <= 0, a repeated cutoff, a
        malformed pair list, or parameters given to a measure that takes none.
    """
    if not text:
        raise InvalidArgument(f"measure {name}: empty parameters after '.'")
    parts = text.split(",")
    if kind == "cut_long":
        cutoffs = sorted(c_atol(part) for part in parts)
        if cutoffs[0] <= 0:
            raise InvalidArgument(f"measure {name}: cutoffs must be positive, got {text!r}")
        _no_repeats(name, cutoffs, text)
        return Params(tuple(cutoffs), text)
    if kind == "cut_double":
        fractions = sorted(c_atof(part) for part in parts)
        _no_repeats(name, fractions, text)
        return Params(tuple(fractions), text)
    if kind == "double":
        return Params(tuple(c_atof(part) for part in parts), text)
    if kind == "pair":
        pairs = []
        for part in parts:
            key, equals, value = part.partition("=")
            if not equals or not key or "=" in value:
                raise InvalidArgument(f"measure {name}: expected NAME=VALUE pairs, got {text!r}")
            pairs.append((key, c_atof(value)))
        return Params(tuple(pairs), text)
    raise InvalidArgument(f"measure {name} takes no parameters, got {text!r}")


def _no_repeats(name: str, values: list[int] | list[float], text: str) -> None:
    if any(a == b for a, b in zip(values, values[1:], strict=False)):
        raise InvalidArgument(f"measure {name}: a cutoff is repeated in {text!r}")


def printed_names(name: str, kind: str, params: Params) -> list[str]:
    """The names trec_eval prints for a measure, in order (``append_long``,
    ``append_double``, ``append_string`` of ``meas_init.c``)."""
    if kind == "cut_long":
        return [f"{name}_{value}" for value in params.values]
    if kind == "cut_double":
        return [name_with_double(name, float(value)) for value in params.values]  # type: ignore[arg-type]
    if kind in ("double", "pair") and params.written is not None:
        return [f"{name}_{params.written}"]
    return [name]
