# Types of the compiled module (pooltool/native/_runpass.c); see its docstrings.
from typing_extensions import Buffer  # collections.abc.Buffer is Python 3.12's

# (n, topic_codes, topics, docno_offsets, docno_text, ranks, scores, tag_codes, tags)
Read = tuple[int, bytes, list[str], bytes, bytes, bytes, bytes, bytes, list[str]]

INTERFACE: int  # pooltool/native/__init__.py's INTERFACE when built from these sources

def read_run(data: Buffer, /) -> Read | None: ...
def judged_index(topic: Buffer, offsets: Buffer, text: Buffer, topics: int, /) -> bytes: ...
# (grade, order, rank, ties); the last three None when a topic is not written in score order
Joined = tuple[bytes, bytes | None, bytes | None, bytes | None]

def join_grades(offsets: Buffer, text: Buffer, topic_key: Buffer, score: Buffer, index: Buffer, topics: int,
                judged_offsets: Buffer, judged_text: Buffer, judged_grade: Buffer, unjudged: int, /
                ) -> Joined | None: ...
# the rows in trec_eval's order; b"" when a topic is not written best score first
def trec_order(offsets: Buffer, text: Buffer, topic_code: Buffer, score: Buffer, /) -> bytes | None: ...

# runpass_pairs.c: run lines' (topic, docno) pairs among known pairs
def pair_table(topic: Buffer, docnos: list[object], topics: int, /) -> bytes | None: ...
def find_pairs(table: Buffer, topic: Buffer, docnos: list[object], /) -> bytes | None: ...
