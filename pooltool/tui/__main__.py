"""``python -m pooltool.tui``: run one judging app (what ``pooltool judge --serve`` spawns)."""

from __future__ import annotations

import argparse
import sys

from pooltool.errors import PooltoolError
from pooltool.judging.queue import ORDERS
from pooltool.store import DEFAULT_POOL
from pooltool.tui.app import make_app


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, build the app and run it; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m pooltool.tui")
    parser.add_argument("--db", required=True)
    parser.add_argument("--assessor", required=True)
    parser.add_argument("--topic", action="append", default=[])
    parser.add_argument("--order", choices=ORDERS, default="docno")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pool", default=DEFAULT_POOL)
    args = parser.parse_args(argv)
    try:
        app = make_app(args.db, args.assessor, args.topic, args.order, args.seed, args.pool)
    except PooltoolError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    app.run()
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
