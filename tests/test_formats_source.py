"""Every reader treats encodings alike: a UTF-8 BOM is dropped, other encodings are refused
with the first bad line named."""

from __future__ import annotations

from pathlib import Path

import pytest

from pooltool.errors import FormatError
from pooltool.formats.documents import iter_documents
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.formats.topics import read_topics

BOM = b"\xef\xbb\xbf"


def first_ids(reader: str, path: Path) -> list[str]:
    if reader == "run":
        return read_run(path)["topic"].tolist()
    if reader == "qrels":
        return read_qrels(path)["topic"].tolist()
    if reader == "topics":
        return [t.topic for t in read_topics(path, "tsv")]
    return [d.docno for d in iter_documents(path, "tsv")]


CASES = {
    "run": b"1 Q0 d1 1 2 t\n2 Q0 d2 1 1 t\n",
    "qrels": b"1 0 d1 1\n2 0 d2 0\n",
    "topics": b"1\tfirst topic\n2\tsecond topic\n",
    "docs": b"1\tsome text\n2\tmore text\n",
}


@pytest.mark.parametrize("reader", ["topics", "docs"])
def test_a_byte_order_mark_is_not_part_of_the_first_id(tmp_path: Path, reader: str) -> None:
    path = tmp_path / f"in.{reader}"
    path.write_bytes(BOM + CASES[reader])
    assert first_ids(reader, path) == ["1", "2"]


@pytest.mark.parametrize("reader", ["run", "qrels"])
def test_a_byte_order_mark_is_refused_in_what_trec_eval_reads(tmp_path: Path, reader: str) -> None:
    path = tmp_path / f"in.{reader}"
    path.write_bytes(BOM + CASES[reader])
    with pytest.raises(FormatError) as info:
        first_ids(reader, path)
    assert str(info.value) == (f"{path}:1: starts with a UTF-8 byte order mark (bytes EF BB BF), "
                               "which trec_eval reads as part of the first topic id, so its "
                               "scores would differ from ours; save the file without it")


@pytest.mark.parametrize("reader", CASES)
def test_latin1_is_refused_naming_the_line(tmp_path: Path, reader: str) -> None:
    path = tmp_path / f"in.{reader}"
    path.write_bytes(CASES[reader].replace(b"d2", b"d\xe92").replace(b"more", b"m\xe9re")
                     .replace(b"second", b"s\xe9cond"))
    with pytest.raises(FormatError) as info:
        first_ids(reader, path)
    assert str(info.value) == (f"{path}:2: is not UTF-8 text (byte 0xE9); "
                               "convert it with iconv first")


def test_a_mistyped_path_is_a_missing_file_not_content() -> None:
    with pytest.raises(FormatError, match=r"^qrels\.tst: no such file$"):
        read_qrels("qrels.tst")
    with pytest.raises(FormatError, match=r"^runs/bm25\.txt: no such file$"):
        read_run("runs/bm25.txt")


def test_only_ascii_white_space_separates_fields() -> None:
    """trec_eval splits with C's isspace: a non-breaking space stays inside the docno."""
    assert read_run("1 Q0 a\u00a0b 1 1 t\n")["docno"].tolist() == ["a\u00a0b"]
    assert read_qrels("1 0 a\u00a0b 1\n")["docno"].tolist() == ["a\u00a0b"]


@pytest.mark.parametrize(("reader", "text"), [("run", "1 Q0 d1 1 2 t\n2 Q0 d\x002 1 1 t\n"),
                                              ("qrels", "1 0 d1 1\n2 0 d\x002 0\n")],
                         ids=["run", "qrels"])
def test_a_nul_byte_in_inline_text_is_refused_as_in_a_file(tmp_path: Path, reader: str,
                                                            text: str) -> None:
    """Inline text was read with the NUL inside docno 'd\\x002' (a file was refused)."""
    read = read_run if reader == "run" else read_qrels
    path = tmp_path / f"in.{reader}"
    path.write_text(text)
    for source, name in ((path, str(path)), (text, "<string>")):
        with pytest.raises(FormatError) as info:
            read(source)
        assert str(info.value) == (f"{name}:2: holds a NUL byte (control character U+0000); "
                                   "only text can be read")
