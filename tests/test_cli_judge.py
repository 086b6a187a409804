"""The assessor commands (judge, assign, agreement) through click."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore
from pooltool.tui import serve as serve_module


@pytest.fixture
def db(new_store: str) -> str:
    """A store (once on each engine) pooling topic 1 (d0-d3, judged by ann and ben) and 2."""
    path = new_store
    with JudgmentStore.open(path) as store:
        run = pd.DataFrame([("A", t, f"d{i}", i + 1, 9.0 - i) for t, n in (("1", 4), ("2", 2))
                            for i in range(n)], columns=["run_tag", "topic", "docno", "rank",
                                                         "score"])
        store.add_run_frame(run)
        pool_runs(store, depth=10)
        for docno, a, b in (("d0", 1, 1), ("d1", 0, 1), ("d2", 2, 2), ("d3", 0, 0)):
            store.record_judgment("1", docno, a, "ann")
            store.record_judgment("1", docno, b, "ben")
    return path


def run(db: str | Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["judge", "assign", "agreement", "grades", "judge-settings",
                                     "guidelines"])
def test_help(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0 and "Example:" in result.output


def test_assign(db: str) -> None:
    code, out, err = run(db, "assign", "ann", "ben", "--overlap", "0.5", "--format", "csv")
    assert code == 0 and err == ("assigned 2 topics to 2 assessors\n1 topic(s) stay with the "
                                 "assessor who judged most of them (--rebalance deals them "
                                 "anew)\n4 of the 6 pooled documents of these topics are already "
                                 "judged (imported qrels included); 2 unjudged to judge: ann 2, "
                                 "ben 2 (an overlap topic counts for both its assessors)\n")
    # topic 1 (4 docs, judged 4 times by both: ann is named first) stays with ann, with no
    # work left (unjudged 0), so topic 2's 2 unjudged go to ann too (0 = 0, named first);
    # seed 0 picks topic 2 to overlap, with ben
    assert out == ("topic,assessor,role,pooled,unjudged,judged\n1,ann,primary,4,0,4\n"
                   "2,ann,primary,2,2,0\n2,ben,overlap,2,2,0\n")


def test_assign_names_topics_kept_by_someone_not_named(db: str) -> None:
    """A tester's qrels import had judged every topic under its own assessor name:
    'assign alice bob' said it assigned them all, and kept them with the importer."""
    with JudgmentStore.open(db) as store:
        store.record_judgment("2", "d0", 1, "nist")
    code, out, err = run(db, "assign", "ann", "ben", "--format", "csv")
    assert code == 0 and err == (
        "assigned 2 topics to 2 assessors, of which 1 stays with nist, not named here\n"
        "2 topic(s) stay with the assessor who judged most of them (--rebalance deals them "
        "anew)\n5 of the 6 pooled documents of these topics are already judged (imported qrels "
        "included); 1 unjudged to judge: ann 0, nist 1\n")
    assert out == ("topic,assessor,role,pooled,unjudged,judged\n1,ann,primary,4,0,4\n"
                   "2,nist,primary,2,1,1\n")
    code, out, err = run(db, "assign", "ann", "ben", "--rebalance", "--format", "csv")
    assert err == ("assigned 2 topics to 2 assessors\n5 of the 6 pooled documents of these "
                   "topics are already judged (imported qrels included); 1 unjudged to judge: "
                   "ben 0, ann 1\n")
    assert "2,nist" not in out


def test_imported_qrels_keep_no_topic(demo_store: str) -> None:
    """The demo's qrels are imported under the assessor 'demo': a tester's 'assign alice
    bob' kept all 10 topics with 'demo', who will never judge again."""
    code, out, err = run(demo_store, "assign", "alice", "bob", "--format", "csv")
    plan = pd.read_csv(pd.io.common.StringIO(out))
    assert set(plan["assessor"]) == {"alice", "bob"} and (plan["judged"] == 0).all()
    # the work dealt is what status counts unjudged (the README's order: import-qrels, then
    # assign), topic by topic and in all
    status = pd.read_csv(pd.io.common.StringIO(run(demo_store, "status", "--format",
                                                   "csv")[1]))
    unjudged = status.set_index(status["topic"].astype(str))["unjudged"]
    assert plan.set_index(plan["topic"].astype(str))["unjudged"].to_dict() == unjudged.to_dict()
    shares = plan.groupby("assessor")["unjudged"].sum()
    assert code == 0 and err == (
        f"assigned 10 topics to 2 assessors\n{int(status['pooled'].sum() - unjudged.sum())} of "
        f"the {int(status['pooled'].sum())} pooled documents of these topics are already "
        f"judged (imported qrels included); {int(unjudged.sum())} unjudged to judge: "
        f"bob {shares['bob']}, alice {shares['alice']}\n")
    assert (int(unjudged.sum()), int(status["pooled"].sum())) == (91, 223)


def test_assign_errors(db: str) -> None:
    assert run(db, "assign", "ann", "--overlap", "0.5")[2] == (
        "Error: an overlap needs at least two assessors\n")
    assert run(db, "assign", "ann", "--overlap", "2")[0] == 2


@pytest.mark.parametrize("blank", ["", "  "])
def test_assign_refuses_blank_names(db: str, blank: str) -> None:
    assert run(db, "assign", "ann", "ben")[0] == 0
    code, _, err = run(db, "assign", blank)
    assert code == 2 and "an assessor name must not be blank" in err
    code, _, err = run(db, "assign", "ann", blank, "--topic", "1")
    assert code == 2 and "must not be blank" in err
    with JudgmentStore.open(db) as store:  # the earlier assignment is intact
        rows = store.query("SELECT topic, assessor FROM assignments ORDER BY topic")
    # topic 1 is judged through (no work left): topic 2 goes to ann too (0 = 0, named first)
    assert rows.values.tolist() == [["1", "ann"], ["2", "ann"]]


def test_agreement(db: str) -> None:
    code, out, _ = run(db, "agreement", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["topic"] for r in rows] == ["1", "all"]
    assert {k: v for k, v in rows[1].items() if k != "topic"} == {
        k: v for k, v in rows[0].items() if k != "topic"}  # one topic: all = that topic
    row = rows[0]
    assert (row["assessor_a"], row["assessor_b"], row["topic"], row["docs"]) == (
        "ann", "ben", "1", 4)
    assert row["agreement"] == 0.75
    # binary at 1: ann 1010, ben 1110: p_o = .75, p_e = .5 x .75 + .5 x .25 = .5,
    # kappa = (.75 - .5) / .5 = .5
    assert row["binary_agreement"] == 0.75 and row["kappa"] == 0.5


def test_agreement_without_overlap(new_store: str) -> None:
    db = new_store
    code, out, err = run(db, "agreement", "--format", "csv")
    assert code == 0 and err == ("no assessor has judged a document yet: agreement needs "
                                 "documents judged by two\n")


@pytest.mark.parametrize(("args", "message"), [
    (["--topic", "9"], "Error: no pooled documents for topic(s) 9\n"),
    (["--pool", "other"], "Error: no pool 'other' in the store: build one with 'pooltool pool "
                          "--depth K'\n"),
    (["--assessor", " "], "Error: name the assessor with --assessor\n"),
])
def test_judge_errors_before_the_app_starts(db: str, args: list[str], message: str) -> None:
    options = ["--assessor", "ann"] if "--assessor" not in args else []
    assert run(db, "judge", *options, *args)[2] == message


def test_judge_missing_store(tmp_path: Path) -> None:
    code, _, err = run(tmp_path / "none.db", "judge", "-a", "ann")
    assert code == 1 and err.startswith("Error: no store at")


@pytest.fixture
def port_checks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """The ``(host, port)`` pairs judge --serve checks before serving, recorded instead of
    bound: the tests of the default port 8000 failed whenever another process on the
    machine (another checkout's server) listened on it. The check itself is
    test_judge_serve_refuses_a_port_it_cannot_listen_on's."""
    checks: list[tuple[str, int]] = []
    monkeypatch.setattr(serve_module, "refuse_busy_port",
                        lambda host, port: checks.append((host, port)))
    return checks


def test_judge_serve_binds_localhost(db: str, monkeypatch: pytest.MonkeyPatch,
                                     port_checks: list[tuple[str, int]]) -> None:
    calls = []
    monkeypatch.setattr(serve_module, "serve", lambda *a: calls.append(a))
    code, _, err = run(db, "judge", "--topic", "1", "--serve")
    assert code == 0 and "http://127.0.0.1:8000/" in err and "not loopback" not in err
    assert port_checks == [("127.0.0.1", 8000)]
    command_for, host, port, verbose, logins, server_names = calls[0]
    assert (host, port, verbose) == ("127.0.0.1", 8000, False)  # the console: errors only
    assert (logins, server_names) == (None, ())  # no accounts: each tab names itself
    command = command_for("ann")
    assert "-m pooltool.tui" in command and "--topic 1" in command and "--assessor=ann" in command


def test_judge_serve_elsewhere_warns(db: str, monkeypatch: pytest.MonkeyPatch,
                                     port_checks: list[tuple[str, int]]) -> None:
    monkeypatch.setattr(serve_module, "serve", lambda *a: None)
    code, _, err = run(db, "judge", "--serve", "--host", "0.0.0.0", "--no-login")
    assert code == 0 and "0.0.0.0 is not loopback: anyone who reaches this port can judge" in err
    assert port_checks == [("0.0.0.0", 8000)]


def test_judge_serve_elsewhere_without_accounts_is_refused(
        db: str, monkeypatch: pytest.MonkeyPatch, port_checks: list[tuple[str, int]]) -> None:
    calls: list[object] = []
    monkeypatch.setattr(serve_module, "serve", lambda *a: calls.append(a))
    code, _, err = run(db, "judge", "--serve", "--host", "0.0.0.0")
    assert (code, calls) == (1, [])
    assert err == ("Error: --host 0.0.0.0 is not loopback and the store has no accounts: anyone "
                   "reaching the port could work under any name; add accounts ('pooltool users "
                   "add NAME'), or give --no-login to serve without\n")


@pytest.mark.parametrize(("args", "message"), [
    (["-a", "ann"], "Error: with --serve each browser tab names its assessor (the first page "
                    "asks, or open /?assessor=NAME): drop --assessor\n"),
    (["--topic", "9"], "Error: no pooled documents for topic(s) 9\n"),
])
def test_judge_serve_errors_before_serving(db: str, monkeypatch: pytest.MonkeyPatch,
                                           args: list[str], message: str) -> None:
    calls: list[object] = []
    monkeypatch.setattr(serve_module, "serve", lambda *a: calls.append(a))
    assert run(db, "judge", "--serve", *args)[1:] == ("", message) and calls == []


def test_with_sample_needs_one_named_assessor(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mixed queue is shuffled by the assessor's name: not with --serve's many tabs."""
    monkeypatch.setattr(serve_module, "serve", lambda *a: None)
    for args in (["--serve", "--with-sample", "s1"], ["--with-sample", "s1"]):
        code, _, err = run(db, "judge", *args)
        assert code == 2 and err.endswith("Error: --with-sample shuffles the queue for one named "
                                          "assessor: give --assessor (it does not work with "
                                          "--serve)\n"), args


def test_judge_without_assessor(db: str) -> None:
    assert run(db, "judge", "--topic", "1")[2] == "Error: name the assessor with --assessor\n"


def test_judge_serve_without_textual_serve(db: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The check comes first: no "serving on" line, no store opened, one clean error."""
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # import fails as if missing
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    code, out, err = run(db, "judge", "--serve")
    assert (code, out) == (1, "")
    assert err == "Error: --serve needs textual-serve: pip install 'pooltool[serve]'\n"
    code, _, err = run(tmp_path / "none.db", "judge", "--serve")
    assert err.startswith("Error: --serve needs textual-serve")


def test_judge_help_tells_where_waiting_writes_are_kept() -> None:
    text = " ".join(CliRunner().invoke(cli, ["judge", "--help"]).output.split())
    assert "your writes wait in a journal next to the store" in text
    assert "or a PostgreSQL store's server is unreachable" in text
    assert "or by the next pooltool command if the app ends first" in text


def test_grades_show_and_set(db: str) -> None:
    code, out, _ = run(db, "grades", "--format", "csv")
    assert code == 0 and out.splitlines()[1:] == [
        "0,0,not relevant", "1,1,related", "2,2,highly relevant", "3,3,perfectly relevant"]
    # unquoted names: the words after a GRADE:KEY: start belong to its name
    code, _, err = run(db, "grades", "set", "0:x:not", "relevant", "1:r:relevant",
                       "2:-:very relevant")
    assert code == 0 and err == "grade scale set: 3 grades\n"
    assert run(db, "grades", "--format", "csv")[1].splitlines()[1:] == [
        "0,x,not relevant", "1,r,relevant", "2,-,very relevant"]


@pytest.mark.parametrize(("levels", "message"), [
    (["0:n:no", "1:y:yes"], "clash with judging commands (the judging screen uses "
                            "u n s j h / c g ? q"),
    (["0:?:no"], "clash"),
    (["0::no"], "single printable characters, not ''"),
    (["0: :no"], "single printable characters"),
    (["0:ab:no"], "single printable characters"),
    (["0:x:no", "1:x:yes"], "distinct keys"),
    (["0:x:no", "0:y:yes"], "distinct grades"),
    (["-2:k:junk", "0:x:no"], "negative grade(s) -2: trec_eval reads"),
    (["x:k:no"], "is not an integer"),
    (["0:k"], "GRADE:KEY:NAME"),
    (["0:k: "], "name must not be blank"),
])
def test_grades_set_refuses_bad_scales(db: str, levels: list[str], message: str) -> None:
    code, _, err = run(db, "grades", "set", *levels)
    assert code != 0 and message in err
    assert run(db, "grades", "--format", "csv")[1].splitlines()[1] == "0,0,not relevant"


def test_judge_settings_show_runs(db: str) -> None:
    assert run(db, "judge-settings")[1] == ("show runs: no\nrequire end: no\nidle after: 60 s\n"
                                            "claims last: 5 min\n")
    assert run(db, "judge-settings", "--show-runs")[1].startswith("show runs: yes\n")
    with JudgmentStore.open(db) as store:
        assert store.setting("show_runs") is True
    assert run(db, "judge-settings", "--hide-runs")[1].startswith("show runs: no\n")


def test_judge_settings_require_end(db: str) -> None:
    assert run(db, "judge-settings", "--require-end")[1].startswith(
        "show runs: no\nrequire end: yes\n")
    with JudgmentStore.open(db) as store:
        assert store.setting("require_end") is True
    assert "require end: no\n" in run(db, "judge-settings", "--no-require-end")[1]
    with JudgmentStore.open(db) as store:
        assert store.setting("require_end") is False


def test_judge_settings_idle_and_claims(db: str) -> None:
    out = run(db, "judge-settings", "--idle-seconds", "90", "--claim-minutes", "2.5")[1]
    assert out.endswith("idle after: 90 s\nclaims last: 2.5 min\n")
    with JudgmentStore.open(db) as store:
        assert (store.setting("idle_seconds"), store.setting("claim_minutes")) == (90.0, 2.5)
    assert run(db, "judge-settings", "--idle-seconds", "0")[0] == 2


@pytest.mark.parametrize("key", ["", "ab", "n"])
def test_judge_refuses_a_stored_scale_it_cannot_bind(db: str, key: str) -> None:
    """A scale written past the checks (older store, raw setting) stops judge with an
    error and exit 1, never a Textual InvalidBinding crash with exit 0."""
    with JudgmentStore.open(db) as store:
        store.set_setting("grade_scale", [[0, key, "no"], [1, "y", "yes"]])
    code, _, err = run(db, "judge", "-a", "ann")
    assert code == 1 and err.startswith("Error: grade key")


def test_set_grade_scale_validates_as_the_cli_does(db: str) -> None:
    from pooltool.errors import InvalidArgument
    from pooltool.store import GradeLevel

    with JudgmentStore.open(db) as store:
        for scale, message in (([], "at least one"), ([GradeLevel(0, "", "no")], "printable"),
                               ([GradeLevel(-1, "x", "junk")], "negative")):
            with pytest.raises(InvalidArgument, match=message):
                store.set_grade_scale(scale)


def test_judge_without_a_terminal_says_so(db: str) -> None:
    """With input or output not a terminal (a pipe, a file), judge refused to hang."""
    code, _, err = run(db, "judge", "-a", "ann")
    assert code == 1
    assert err == ("Error: judge needs a terminal (its input and output are not one); "
                   "use --serve to judge in a web browser\n")



def test_judge_serve_refuses_a_port_it_cannot_listen_on(db: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Said before "serving on ...": a port out of range, or one already taken."""
    calls: list[object] = []
    monkeypatch.setattr(serve_module, "serve", lambda *a: calls.append(a))
    code, _, err = run(db, "judge", "--serve", "--port", "99999")
    assert code == 2 and "Invalid value for '--port': 99999 is not in the range 1<=x<=65535" in err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = run(db, "judge", "--serve", "--port", str(port))
    assert (code, err) == (1, f"Error: cannot serve on 127.0.0.1:{port}: Address already in use; "
                              "choose another --port or --host\n")
    assert calls == []
