"""The Arrow read floor of bench_recall.py, as a whole process.

Usage: ``python bench/arrow_floor.py RUN...``. Reads the topic, docno and
score columns of every run file with Apache Arrow's multi-threaded CSV
reader (typed columns, space-separated, nothing checked, nothing measured)
and prints the number of lines: no reader of these files can do less.
"""

from __future__ import annotations

import sys

import pyarrow as pa
from pyarrow import csv

NAMES = ["topic", "q0", "docno", "rank", "score", "run_tag"]
TYPES = {"topic": pa.string(), "docno": pa.string(), "score": pa.float64()}


def main(paths: list[str]) -> None:
    lines = 0
    for path in paths:
        with open(path, "rb") as handle:
            delimiter = "\t" if b"\t" in handle.read(4096) else " "
        table = csv.read_csv(path, read_options=csv.ReadOptions(column_names=NAMES),
                             parse_options=csv.ParseOptions(delimiter=delimiter, quote_char=False),
                             convert_options=csv.ConvertOptions(column_types=TYPES,
                                                                include_columns=list(TYPES)))
        lines += table.num_rows
    print(lines)


if __name__ == "__main__":
    main(sys.argv[1:])
