"""Provenance stamps written with every stored row: UTC times and file digests."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path


def utc_now() -> str:
    """The current UTC time as ISO 8601 with milliseconds (``2026-11-29T19:33:59.123+00:00``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def bytes_sha256(data: bytes) -> str:
    """The hex sha256 of ``data`` (a whole file's bytes: its :func:`file_sha256`)."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
