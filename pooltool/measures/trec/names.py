"""ir_measures' spellings of the measures (placeholder, filled below)."""

from __future__ import annotations

from pooltool.errors import InvalidArgument


def from_ir_measures(spec: str) -> list:  # type: ignore[type-arg]
    raise InvalidArgument(f"unknown measure {spec!r}")
