"""``pooltool eval``: trec_eval's layout, the long machine shape, the wide table, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pooltool.cli import cli

SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "eval-v1.json"
# topic 1: d1 relevant (2), d2 non-relevant, d3 unjudged (no qrels line); topic 2 judged
# but not in the run; topic 9 in the run only
RUN = "1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t\n1 Q0 d3 3 1.0 t\n9 Q0 x 1 1.0 t\n"
QRELS = "1 0 d1 2\n1 0 d2 0\n1 0 d4 1\n2 0 e1 1\n"


@pytest.fixture()
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "q.txt").write_text(QRELS)
    return str(tmp_path / "a.run"), str(tmp_path / "q.txt")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, ["eval", *args])


def test_trec_layout_by_hand(files: tuple[str, str]) -> None:
    """Topic 1: R = 2 (d1, d4), d1 at rank 1: P_1 = 1, recall_1 = 1/2, map = (1/1)/2,
    recip_rank 1; topic 2 missing: left out without -c, scored 0 and counted with -c."""
    run, qrels = files
    out = invoke(run, "--qrels", qrels, "-m", "P.1", "-m", "recall.1", "-m", "map",
                 "-m", "recip_rank")
    assert out.exit_code == 0, out.output
    assert out.stdout == ("map                   \tall\t0.5000\n"
                          "recip_rank            \tall\t1.0000\n"
                          "P_1                   \tall\t1.0000\n"
                          "recall_1              \tall\t0.5000\n")
    assert "1 qrels topic(s) not in the run" in out.stderr and "run topic(s) not in" in out.stderr
    complete = invoke(run, "--qrels", qrels, "-m", "map", "-m", "num_q", "-c").stdout
    assert complete == "num_q                 \tall\t2\nmap                   \tall\t0.2500\n"


def test_long_shape_csv_and_json(files: tuple[str, str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    run, qrels = files
    csv = invoke(run, "--qrels", qrels, "-m", "P.2", "-m", "nDCG@2", "-q", "--format", "csv")
    assert csv.exit_code == 0, csv.output
    # P_2 = 1/2; unjudged in the top 2: none, so each hole is [value, value];
    # nDCG@2 = (2/log2 2) / (2/log2 2 + 1/log2 3)
    ndcg = 2.0 / (2.0 + 1.0 / 1.584962500721156)
    assert csv.stdout.splitlines() == [
        "run,topic,measure,value,unjudged,low,high",
        "t,1,P_2,0.5,0.0,0.5,0.5", "t,all,P_2,0.5,0.0,0.5,0.5",
        f"t,1,nDCG@2,{ndcg!r},0.0,{ndcg!r},{ndcg!r}", f"t,all,nDCG@2,{ndcg!r},0.0,{ndcg!r},{ndcg!r}"]
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for extra in ([], ["-q"], ["-q", "-c", "-J", "-M", "2", "-m", "all_trec"], ["-q", "-n"]):
        result = invoke(run, "--qrels", qrels, "--format", "json", "-m", "P.3", *extra)
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        jsonschema.validate(document, schema)
        assert document["runs"] == [{"run_tag": "t", "missing_topics": ["2"],
                                     "ignored_topics": ["9"]}]
    rows = json.loads(invoke(run, "--qrels", qrels, "--format", "json", "-m", "P.3").stdout)
    # P_3: d3 (rank 3) unjudged, so judging it relevant gives 2/3
    assert rows["rows"] == [{"run": "t", "topic": "all", "measure": "P_3", "value": 1 / 3,
                             "unjudged": 1 / 3, "low": 1 / 3, "high": 2 / 3}]
    rows = json.loads(invoke(run, "--qrels", qrels, "--format", "json", "-m", "num_ret").stdout)
    assert rows["rows"][0]["low"] is None and rows["rows"][0]["high"] is None  # no hole


def test_table_has_a_column_per_measure(files: tuple[str, str]) -> None:
    run, qrels = files
    table = invoke(run, "--qrels", qrels, "-m", "AP", "-m", "P.1,2", "--format", "table").stdout
    header = next(line for line in table.splitlines() if "run_tag" in line)
    assert [cell.strip() for cell in header.split("┃")] == ["run_tag", "P_1", "P_2", "AP"]
    assert "0.5000" in table


def test_bad_measure_is_one_line(files: tuple[str, str]) -> None:
    run, qrels = files
    for measure, says in (("ERR@10", "ERR has no trec_eval definition"),
                          ("P.0", "cutoffs must be positive"), ("nosuch", "unknown measure")):
        result = invoke(run, "--qrels", qrels, "-m", measure)
        assert result.exit_code == 1 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and says in result.stderr
        assert result.stderr.startswith("Error: ")


def test_stored_tags_and_frames_score_as_files(files: tuple[str, str], tmp_path: Path) -> None:
    """A stored run (evaluate_tables) and a mix of a file and a tag (evaluate, one frame)
    print what the file itself prints."""
    run, qrels = files
    other = tmp_path / "b.run"
    other.write_text(RUN.replace(" t\n", " u\n"))
    db = str(tmp_path / "s.db")
    for args in (["init"], ["add-runs", run]):
        assert CliRunner().invoke(cli, ["--db", db, *args]).exit_code == 0
    measures = ["-m", "all_trec", "-q", "-c", "--qrels", qrels]
    from_file = invoke(run, *measures).stdout
    stored = CliRunner().invoke(cli, ["--db", db, "eval", "t", *measures])
    assert stored.exit_code == 0, stored.output
    assert stored.stdout == from_file and from_file.count("\n") > 150
    mixed = CliRunner().invoke(cli, ["--db", db, "eval", "t", str(other), *measures])
    assert mixed.exit_code == 0, mixed.output
    assert mixed.stdout == from_file + from_file.replace("\tt\n", "\tu\n")


def test_file_errors_come_in_file_order(tmp_path: Path) -> None:
    """Each file is read and scored in one task, yet the errors are raised as when every
    file was read before any was scored: a malformed line or a repeated tag (file order)
    before a run with no qrels topic, whichever file that run is in; the run with no qrels
    topic named when it is the only error."""
    from pooltool.errors import DuplicateRunTag, FormatError, NothingToScore
    from pooltool.formats.qrels import read_qrels_table
    from pooltool.measures.trec import evaluate_files, format_trec

    (tmp_path / "q.txt").write_text(QRELS)
    qrels = read_qrels_table(tmp_path / "q.txt")
    names = {"good": RUN, "none": "7 Q0 x 1 1.0 n\n", "bad": "1 Q0 d1 1\n",
             "twin": RUN, "other": RUN.replace(" t\n", " o\n")}
    for name, text in names.items():
        (tmp_path / name).write_text(text)

    def run(*files: str) -> None:
        evaluate_files([tmp_path / name for name in files], qrels, ["P.1"], workers=2)

    with pytest.raises(FormatError, match="bad"):
        run("none", "good", "bad")
    with pytest.raises(DuplicateRunTag, match="run tag 't' is in both"):
        run("none", "good", "twin", "bad")
    with pytest.raises(NothingToScore, match="run 'n' has no topic in the qrels"):
        run("good", "none", "other")
    result, sources = evaluate_files([tmp_path / "good", tmp_path / "other"], qrels, ["P.1"],
                                     workers=2)
    assert [r.run_tag for r in result.runs] == ["t", "o"] and list(sources) == ["t", "o"]
    # qrels given as a function are read while the first files are parsed; their error first
    (tmp_path / "badq").write_text("1 0 d1\n")
    for workers in (1, 2):
        with pytest.raises(FormatError, match="badq"):
            evaluate_files([tmp_path / "bad", tmp_path / "good"],
                           lambda: read_qrels_table(tmp_path / "badq"), ["P.1"], workers=workers)
        late, _ = evaluate_files([tmp_path / "good", tmp_path / "other"],
                                 lambda: read_qrels_table(tmp_path / "q.txt"), ["P.1"],
                                 workers=workers)
        assert format_trec(late, per_topic=True) == format_trec(result, per_topic=True)
    bad_both = invoke(str(tmp_path / "bad"), "--qrels", str(tmp_path / "badq"))
    assert bad_both.exit_code != 0 and "badq" in bad_both.stderr and "bad:" not in bad_both.stderr


@pytest.mark.parametrize("flags", [[], ["-q"], ["-q", "-n"], ["-c", "-q"], ["-c"]])
def test_runs_formatted_as_scored_print_format_trec(files: tuple[str, str], tmp_path: Path,
                                                    flags: list[str]) -> None:
    """The CLI formats each run file's runs in the thread that scored them; what it prints
    is format_trec of the whole result, runs in the order given."""
    from pooltool.formats.qrels import read_qrels_table
    from pooltool.measures.trec import Options, evaluate_files, format_trec

    run, qrels = files
    other = tmp_path / "b.run"
    other.write_text(RUN.replace(" t\n", " u\n").replace("3.0", "0.5"))
    out = invoke(str(other), run, "--qrels", qrels, "-m", "all_trec", *flags)
    assert out.exit_code == 0, out.output
    result, _ = evaluate_files([other, Path(run)], read_qrels_table(Path(qrels)), ["all_trec"],
                               Options(complete="-c" in flags))
    assert out.stdout == format_trec(result, "-q" in flags, summary="-n" not in flags)
    assert [line.split("\t")[2] for line in out.stdout.splitlines()
            if line.startswith("runid ")] == ([] if "-n" in flags else ["u", "t"])
