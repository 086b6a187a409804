"""pooltool sample and recall --estimate: the design, the store, the command line."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
from click.testing import CliRunner

from pooltool.analysis.sample_design import load_design
from pooltool.analysis.sample_estimates import estimate_recall
from pooltool.analysis.sampling import allocate, build_frame, draw_sample, parse_strata
from pooltool.cli import cli
from pooltool.errors import InvalidArgument
from pooltool.formats.qrels import read_qrels
from pooltool.formats.run import read_run
from pooltool.glossary import lookup
from pooltool.records import RUN_COLUMNS
from pooltool.store import JudgmentStore

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "schemas" / "recall-v1.json").read_text())


def test_parse_strata() -> None:
    strata = parse_strata("8-20,21+,unretrieved")
    assert [(s.name, s.low, s.high) for s in strata] == [
        ("8-20", 8, 20), ("21+", 21, None), ("unretrieved", None, None)]
    for bad, message in [("1-20,15-30", "overlap"), ("x", "bad stratum"), ("0-5", "start at 1"),
                         ("5-3", "A <= B"), ("1-2,1-2", "twice")]:
        with pytest.raises(ValueError, match=message):
            parse_strata(bad)


def test_allocate() -> None:
    assert allocate({"a": 10, "b": 100, "c": 0}, 20, "equal") == {"a": 10, "b": 10, "c": 0}
    assert allocate({"a": 3, "b": 100}, 20, "equal") == {"a": 3, "b": 17}
    assert allocate({"a": 10, "b": 90}, 20, "proportional") == {"a": 2, "b": 18}
    assert allocate({"a": 1, "b": 999}, 10, "proportional") == {"a": 1, "b": 9}
    assert allocate({"a": 2, "b": 3}, 50, "equal") == {"a": 2, "b": 3}  # all of it
    with pytest.raises(ValueError, match="cannot give each of 3"):
        allocate({"a": 5, "b": 5, "c": 5}, 2)


def _frame() -> pd.DataFrame:
    best = pd.DataFrame({"topic": ["1"] * 30, "docno": [f"d{i:02}" for i in range(30)],
                         "best_rank": list(range(1, 31))})
    pooled = best[best["best_rank"] <= 5][["topic", "docno"]]
    collection = [f"d{i:02}" for i in range(50)]
    return build_frame(["1"], pooled, best, parse_strata("6-10,11+,unretrieved"), collection)


def test_frame_and_draw() -> None:
    frame = _frame()
    assert frame.groupby("stratum").size().to_dict() == {"11+": 20, "6-10": 5, "unretrieved": 20}
    docs, strata = draw_sample(frame, 9, seed=3)
    assert strata.to_dict("list") == {"topic": ["1"] * 3, "stratum": ["11+", "6-10", "unretrieved"],
                                      "population": [20, 5, 20], "size": [3, 3, 3]}
    assert docs.groupby("stratum")["inclusion"].first().to_dict() == {
        "11+": 3 / 20, "6-10": 3 / 5, "unretrieved": 3 / 20}
    # the same seed draws the same documents; a larger budget keeps them (a longer prefix)
    again, _ = draw_sample(frame, 9, seed=3)
    assert again.equals(docs)
    grown, _ = draw_sample(frame, 15, seed=3)
    assert set(docs["docno"]) < set(grown["docno"])
    other, _ = draw_sample(frame, 9, seed=4)
    assert set(other["docno"]) != set(docs["docno"])


def test_strata_with_a_gap_in_the_ranks_are_refused() -> None:
    # ranks 11-20 in no stratum: their 10 documents would be outside the frame, and R too
    best = pd.DataFrame({"topic": ["1"] * 30, "docno": [f"d{i:02}" for i in range(30)],
                         "best_rank": list(range(1, 31))})
    pooled = best[best["best_rank"] <= 5][["topic", "docno"]]
    with pytest.raises(InvalidArgument, match=(
            r"^10 unpooled document\(s\) that runs retrieved lie in no stratum of "
            r"'6-10,21\+': best ranks 11-20 \(10\) \(documents\); the frame would have "
            r"holes there")):
        build_frame(["1"], pooled, best, parse_strata("6-10,21+"), None)


@pytest.mark.slow  # 3000 draws
def test_the_draw_is_a_simple_random_sample() -> None:
    """Over 3000 draws each document of a stratum of 20 is drawn (n = 3) about 3/20 of
    the time. Each topic is drawn with keys of its own (sha256 of seed, topic, docno),
    so 3000 topics holding the same stratum are 3000 draws in one call (3000 calls, one
    per seed, took 30-160 s); another seed draws them anew."""
    stratum = _frame().query("stratum == '11+'")
    frame = pd.concat([stratum.assign(topic=f"t{i}") for i in range(3000)], ignore_index=True)
    docs = draw_sample(frame, 3, 0)[0]
    assert docs.groupby("topic").size().eq(3).all() and docs["topic"].nunique() == 3000
    share = docs.groupby("docno").size() / 3000
    assert len(share) == 20
    assert share.between(0.15 - 0.035, 0.15 + 0.035).all()  # about 5 standard errors
    first = frame[frame["topic"].isin([f"t{i}" for i in range(300)])]
    drawn = {seed: draw_sample(first, 3, seed)[0].groupby("topic")["docno"].apply(frozenset)
             for seed in (0, 1)}
    assert drawn[0].equals(docs[docs["topic"].isin(first["topic"])]
                           .groupby("topic")["docno"].apply(frozenset))  # a topic's own draw
    # the same 3 of 20 by chance for 1 topic in C(20, 3) = 1140: hardly any of 300
    assert (drawn[0] == drawn[1]).sum() < 5


@pytest.fixture
def demo(demo_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The demo store, once on each engine; the current folder is the test's own."""
    monkeypatch.chdir(tmp_path)
    return demo_store


def _run(db: str | Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def _judge_from_truth(db: str, version: str, *pools: str) -> None:
    """Judge every document of the pools as the demo's full qrels say (0 when absent)."""
    truth = read_qrels(ROOT / "demo" / "qrels.txt")[["topic", "docno", "grade"]]
    with JudgmentStore.open(db) as store:
        pairs = pd.concat([store.pool_docs(p)[["topic", "docno"]] for p in pools])
        qrels = pairs.merge(truth, how="left").fillna({"grade": 0})
        lines = [f"{t} 0 {d} {int(g)}\n" for t, d, g in qrels.itertuples(index=False)]
    path = Path("judged.txt").resolve()  # in the test's folder (see demo)
    path.write_text("".join(lines))
    assert _run(db, "import-qrels", str(path), "--version", version)[0] == 0


def test_sample_then_estimate_end_to_end(demo: str) -> None:
    code, out, err = _run(demo, "sample", "--name", "s1", "--budget", "8", "--seed", "1",
                          "--format", "csv")
    assert code == 0, err
    rows = pd.read_csv(pd.io.common.StringIO(out))
    assert list(rows.columns) == ["stratum", "topics", "population", "sampled"]
    assert rows.set_index("stratum")["sampled"].to_dict() == {
        "1-20": 30, "21-100": 30, "unretrieved": 20, "all": 80}
    assert "judge --pool s1" in err
    with JudgmentStore.open(demo) as store:
        docs = store.sample_docs("s1")
        strata = store.sample_strata("s1")
        assert len(docs) == 80 and len(store.pool_docs("s1")) == 80
        assert store.sample_design("s1")["frame"] == "collection"
        merged = docs.merge(strata, on=["topic", "stratum"])
        assert (merged["inclusion"] == merged["size"] / merged["population"]).all()
        assert not docs.merge(store.pool_docs("main"), on=["topic", "docno"]).shape[0]
    runs = ["bm25", "qld"]
    # the pool is not judged whole yet: refused, saying why
    code, _, err = _run(demo, "recall", *runs, "--version", "demo-partial", "--estimate", "s1")
    assert code == 1 and "have no judgment yet (or a negative grade" in err and "judge the pool first" in err
    _judge_from_truth(demo, "pool-judged", "main")
    code, _, err = _run(demo, "recall", *runs, "--version", "pool-judged", "--estimate", "s1")
    assert code == 1 and "no judged sampled document" in err and "--pool s1" in err
    _judge_from_truth(demo, "judged", "main", "s1")
    code, out, err = _run(demo, "recall", *runs, "--version", "judged", "-k", "10",
                          "--estimate", "s1", "-q", "--format", "csv")
    assert code == 0, err
    assert "ESTIMATES from sample 's1'" in err and "80 sampled documents judged" in err
    # 10 topics: the Beta interval, validated from 5 topics up, so no caveat
    assert "note: the intervals of means" not in err
    topics = pd.read_csv(pd.io.common.StringIO(out), dtype={"topic": str})
    assert all(lookup(c) for c in topics.columns)
    assert len(topics) == 20  # 2 runs x 10 topics
    assert (topics["interval"] == "beta").all()  # a saved file names its interval method
    # R estimates never fall below what is judged relevant in pool and sample (num_rel
    # counts both), and every estimate lies in its own interval
    assert (topics["est_R_low"] >= topics["num_rel"] - 1e-9).all()
    _assert_inside(topics, "est_R", "est_recall")
    # the Horvitz-Thompson R counts only what was found (no sampled document is relevant)
    assert (topics["est_R_ht"] == topics["num_rel"]).all()
    assert (topics["est_R"] > topics["est_R_ht"] + 5).all()
    code, out, _ = _run(demo, "recall", *runs, "--version", "judged", "-k", "10,100",
                        "--estimate", "s1", "--format", "json", "-q")
    document = json.loads(out)
    jsonschema.validate(document, SCHEMA)
    assert document["estimate"]["sampled_judged"] == 80
    assert "Beta-binomial" in document["estimate"]["interval"]
    assert "caveat" not in document["estimate"]
    assert len(document["estimate"]["summary"]) == 4
    code, out, _ = _run(demo, "recall", *runs, "--version", "judged", "-k", "10",
                        "--estimate", "s1")
    assert code == 0 and "ESTIMATES from sample 's1'" in out
    _check_reproducible(demo)
    code, out, err = _run(demo, "status", "--estimate", "s1", "--format", "csv")
    assert code == 0, err
    status = pd.read_csv(pd.io.common.StringIO(out), dtype={"topic": str})
    assert all(lookup(c) for c in status.columns)
    assert (status["interval"] == "beta").all()  # rows name their interval method
    code, out, err = _run(demo, "status", "--estimate", "s1", "--format", "json")
    assert code == 0, err
    estimate = json.loads(out)["estimate"]
    assert estimate["sample"] == "s1" and estimate["base_pool"] == "main"
    assert estimate["sampled_judged"] == 80 and estimate["frame"] == "collection"
    assert estimate["interval"].startswith("hierarchical Beta-binomial posterior")
    assert "est_missed are ESTIMATES from sample 's1'" in err
    # the demo's sample found no relevant document beyond the pool: the interval starts at
    # 0, and the estimate (the posterior mean, 6.4 to 7.7 documents) lies inside it
    assert (status["est_missed_low"] == 0).all() and (status["est_missed_high"] > 30).all()
    assert status["est_missed"].between(6, 8.5).all()
    _assert_inside(status, "est_missed")
    # grown, not judged yet: the estimate says it uses the 80 judged of 120 (a tester saw
    # only "80 sampled documents judged" beside the budget)
    assert _run(demo, "sample", "--name", "s1", "--grow", "4")[0] == 0
    code, _, err = _run(demo, "recall", *runs, "--version", "judged", "-k", "10",
                        "--estimate", "s1", "--format", "csv")
    assert code == 0 and ("note: 40 of the sample's 120 documents are not judged yet (e.g. "
                          "since 'sample --grow'): the estimate uses the judged ones") in err


def _assert_inside(rows: pd.DataFrame, *estimates: str) -> None:
    for name in estimates:
        low, value, high = rows[f"{name}_low"], rows[name], rows[f"{name}_high"]
        assert ((low <= value + 1e-9) & (value <= high + 1e-9)).all(), name


def test_a_pool_grown_after_the_draw_is_taken_as_drawn(demo: str) -> None:
    # the base pool deepens after the sample is judged: its new documents lie in the
    # sample's strata (some are sampled); the estimate keeps the pool as drawn and says so
    assert _run(demo, "sample", "--name", "s1", "--budget", "8", "--seed", "1")[0] == 0
    _judge_from_truth(demo, "judged", "main", "s1")
    args = ["recall", "bm25", "--version", "judged", "-k", "10", "--estimate", "s1", "-q",
            "--format", "csv"]
    code, before, err = _run(demo, *args)
    assert code == 0 and "warning" not in err
    status_before = _run(demo, "status", "--estimate", "s1", "--format", "csv")[1]
    with JudgmentStore.open(demo) as store:
        drawn = len(store.pool_docs("main"))
        sampled = store.sample_docs("s1")
    assert _run(demo, "pool", "--depth", "30")[0] == 0
    with JudgmentStore.open(demo) as store:
        now = store.pool_docs("main")
    added = len(now) - drawn
    in_pool = len(sampled.merge(now, on=["topic", "docno"]))
    assert added > 0 and in_pool > 0
    code, after, err = _run(demo, *args)
    assert code == 0, err
    assert (f"pool 'main' took {added} document(s) after sample 's1' was drawn, {in_pool} "
            f"of them sampled documents") in err
    assert f"the pool as it was then ({drawn} documents)" in err and "draw a new sample" in err
    # the same design, the same judgments: the same estimates, to the digit (the new
    # pooled documents are not judged, and are not asked to be)
    assert after == before
    code, status, err = _run(demo, "status", "--estimate", "s1", "--format", "csv")
    assert code == 0 and f"{in_pool} of them sampled documents" in err
    columns = ["topic", "est_missed", "est_missed_low", "est_missed_high"]
    read = [pd.read_csv(pd.io.common.StringIO(s), dtype={"topic": str})[columns]
            for s in (status_before, status)]
    pd.testing.assert_frame_equal(*read)


def test_relevant_documents_outside_the_design_are_named(demo: str) -> None:
    # a relevant judgment the design does not know (neither pooled nor sampled: another
    # sample's, or imported) counts in num_rel but not in the estimate: stderr says so
    assert _run(demo, "sample", "--name", "s1", "--budget", "8", "--seed", "1")[0] == 0
    _judge_from_truth(demo, "judged", "main", "s1")
    with JudgmentStore.open(demo) as store:
        known = pd.concat([store.pool_docs(p)[["topic", "docno"]] for p in ("main", "s1")])
        elsewhere = sorted(set(store.docnos()) - set(known[known["topic"] == "1"]["docno"]))[0]
    extra = Path("extra.txt").resolve()
    extra.write_text(Path("judged.txt").read_text() + f"1 0 {elsewhere} 1\n")
    assert _run(demo, "import-qrels", str(extra), "--version", "extra")[0] == 0
    args = ["recall", "bm25", "-k", "10", "--estimate", "s1", "-q", "--format", "csv"]
    code, without, err = _run(demo, *args, "--version", "judged")
    assert code == 0 and "outside sample" not in err
    code, out, err = _run(demo, *args, "--version", "extra")
    assert code == 0, err
    assert ("note: 1 relevant document(s) in these qrels lie outside sample 's1''s design "
            "(neither in the pool it was drawn beyond nor in the sample") in err
    rows = pd.read_csv(pd.io.common.StringIO(out), dtype={"topic": str}).set_index("topic")
    before = pd.read_csv(pd.io.common.StringIO(without), dtype={"topic": str}).set_index("topic")
    assert rows.loc["1", "num_rel"] == before.loc["1", "num_rel"] + 1
    assert rows.loc["1", "est_R"] == before.loc["1", "est_R"]  # the design's evidence only
    code, _, err = _run(demo, "status", "--estimate", "s1", "--format", "csv")
    assert code == 0 and "1 relevant document(s) in these qrels lie outside" in err


def _check_reproducible(demo: str) -> None:
    """The same store and sample give the same intervals, run after run; a run's rows do not
    depend on the other runs asked for; the mean R interval is one for every run."""
    args = ["--version", "judged", "-k", "10", "--estimate", "s1", "-q", "--format", "csv"]
    both = [_run(demo, "recall", "bm25", "qld", *args)[1] for _ in range(2)]
    assert both[0] == both[1]
    rows = pd.read_csv(pd.io.common.StringIO(both[0]), dtype={"topic": str})
    alone = pd.read_csv(pd.io.common.StringIO(_run(demo, "recall", "bm25", *args)[1]),
                        dtype={"topic": str})
    pd.testing.assert_frame_equal(rows[rows["run_tag"] == "bm25"].reset_index(drop=True), alone)
    summary = pd.read_csv(pd.io.common.StringIO(_run(demo, "recall", "bm25", "qld",
                                                     *args[:-3], "--format", "csv")[1]))
    assert summary["est_R_low"].nunique() == 1 and summary["est_R_high"].nunique() == 1


def test_sample_refusals(demo: str) -> None:
    assert _run(demo, "sample", "--name", "s1", "--budget", "8")[0] == 0
    code, _, err = _run(demo, "sample", "--name", "s1", "--budget", "8")
    assert code == 1 and "exists already" in err
    code, _, err = _run(demo, "sample", "--name", "main", "--budget", "8")
    assert code == 1 and "exists already" in err
    code, _, err = _run(demo, "sample", "--name", "s2", "--budget", "2")
    assert code == 1 and "cannot give each of 3 non-empty strata" in err
    code, _, err = _run(demo, "sample", "--name", "s2", "--budget", "4", "--strata", "1-5,4-9")
    assert code == 1 and "overlap" in err
    code, _, err = _run(demo, "sample", "--name", "s2", "--budget", "4", "--pool", "nope")
    assert code == 1 and "no pool 'nope'" in err
    code, _, err = _run(demo, "status", "--pool", "s1", "--estimate", "s1")
    assert code == 1 and ("sample 's1' was drawn beyond pool 'main', not 's1': its est_missed "
                          "is what 'main' missed; use --pool main") in err
    code, _, err = _run(demo, "recall", "bm25", "--version", "demo-partial", "--estimate", "zz")
    assert code == 1 and "no sample 'zz'" in err and "samples: s1" in err
    assert "qrels" not in err  # refused before the qrels are read (and noted)
    code, _, err = _run(demo, "recall", "bm25", "--version", "demo-partial", "--estimate", "s1",
                        "--format", "trec")
    assert code == 2 and "no trec_eval layout" in err


def test_a_sample_whose_strata_leave_ranks_out_is_refused(demo: str) -> None:
    code, _, err = _run(demo, "sample", "--name", "s4", "--budget", "4", "--strata",
                        "1-20,unretrieved")
    assert code == 1 and "lie in no stratum of '1-20,unretrieved': best ranks 21+ (" in err
    with JudgmentStore.open(demo) as store:
        assert not store.has_sample("s4")


def test_minus_m_and_minus_c_apply_to_the_estimates(demo: str) -> None:
    assert _run(demo, "sample", "--name", "s1", "--budget", "8", "--seed", "1")[0] == 0
    _judge_from_truth(demo, "judged", "main", "s1")

    def rows(*args: str) -> pd.DataFrame:
        code, out, err = _run(demo, "recall", *args, "--version", "judged", "--estimate",
                              "s1", "--format", "csv")
        assert code == 0, err
        return pd.read_csv(pd.io.common.StringIO(out), dtype={"topic": str})

    # -M 5: only the first 5 documents count, all pooled (depth 10), so est_recall at k=10
    # is est_recall at k=5 (both from R's draws: no stratum document in the top k)
    m5 = rows("bm25", "-k", "10", "-M", "5", "-q").set_index("topic")
    k5 = rows("bm25", "-k", "5", "-q").set_index("topic")
    pd.testing.assert_series_equal(m5["recall"], k5["recall"])
    pd.testing.assert_series_equal(m5["est_recall"], k5["est_recall"])
    assert (m5.loc[m5["recall"] == 0, "est_recall_high"] == 0).all()
    # -c: a run of 2 of the 10 topics is averaged over all 10, the others scoring 0
    lines = (ROOT / "demo" / "runs" / "bm25.run").read_text().splitlines(keepends=True)
    part = Path("part.run").resolve()
    part.write_text("".join(line for line in lines if line.split()[0] in {"1", "2"}))
    alone, complete = rows(str(part), "-k", "100"), rows(str(part), "-k", "100", "-c")
    assert (alone["num_q"].item(), complete["num_q"].item()) == (2, 10)
    assert complete["est_recall"].item() == pytest.approx(alone["est_recall"].item() * 2 / 10)
    assert complete["recall"].item() == pytest.approx(alone["recall"].item() * 2 / 10)
    assert complete["est_recall_high"].item() < alone["est_recall_high"].item()


def test_a_sample_of_every_document_gives_exact_values(demo: str) -> None:
    # every stratum sampled whole: nothing left to estimate, so each interval is one value
    # and the estimate is that value, to the last bit (a mean of equal draws was not)
    assert _run(demo, "sample", "--name", "all", "--budget", "10000", "--seed", "1")[0] == 0
    _judge_from_truth(demo, "judged", "main", "all")
    code, out, err = _run(demo, "recall", "bm25", "qld", "tfidf", "--version", "judged",
                          "-k", "5,10,20,100", "-q", "--estimate", "all", "--format", "csv")
    assert code == 0, err
    rows = pd.read_csv(pd.io.common.StringIO(out))
    for name in ("est_R", "est_recall"):
        assert (rows[name] == rows[f"{name}_low"]).all()
        assert (rows[name] == rows[f"{name}_high"]).all()
    assert (rows["est_R"] == rows["num_rel"]).all() and (rows["est_recall"] == rows["recall"]).all()


def test_a_design_without_unretrieved_says_its_frame(demo: str) -> None:
    code, out, err = _run(demo, "sample", "--name", "s3", "--budget", "4", "--strata", "11-20,21+")
    assert code == 0, err
    assert "runs)" in out and "within the runs' lists" in err


def test_unretrieved_needs_the_documents(tmp_path: Path, store_address: str) -> None:
    db = store_address
    run = tmp_path / "a.run"
    run.write_text("".join(f"1 Q0 d{i} {i} {100 - i} a\n" for i in range(1, 30)))
    for args in (["init"], ["add-runs", str(run)], ["pool", "--depth", "5"]):
        assert _run(db, *args)[0] == 0
    code, _, err = _run(db, "sample", "--name", "s", "--budget", "4")
    assert code == 1 and "needs the collection's documents" in err
    assert _run(db, "sample", "--name", "s", "--budget", "4", "--strata", "6-10,11+")[0] == 0


def test_grow_keeps_every_earlier_draw(demo: str) -> None:
    assert _run(demo, "sample", "--name", "s1", "--budget", "8", "--seed", "2")[0] == 0
    with JudgmentStore.open(demo) as store:
        before = store.sample_docs("s1")
        sizes_before = store.sample_strata("s1")
    code, out, err = _run(demo, "sample", "--name", "s1", "--grow", "4", "--format", "csv")
    assert code == 0, err
    assert "grown to 12 per topic: 40 document(s) added" in err
    rows = pd.read_csv(pd.io.common.StringIO(out)).set_index("stratum")
    assert rows.loc["all", "sampled"] == 120
    with JudgmentStore.open(demo) as store:
        after = store.sample_docs("s1")
        sizes = store.sample_strata("s1")
        assert store.sample_design("s1")["budget"] == 12
        assert len(store.pool_docs("s1")) == 120
    # a longer prefix of the same order: what a fresh draw of 12 with the seed gives
    assert set(zip(before["topic"], before["docno"], strict=True)) < set(
        zip(after["topic"], after["docno"], strict=True))
    frame = sizes.merge(sizes_before, on=["topic", "stratum", "population"],
                        suffixes=("", "_before"))
    assert (frame["size"] >= frame["size_before"]).all() and frame["size"].sum() == 120
    merged = after.merge(sizes, on=["topic", "stratum"])
    assert (merged["inclusion"] == merged["size"] / merged["population"]).all()
    code, _, err = _run(demo, "sample", "--name", "s3", "--budget", "12", "--seed", "2")
    with JudgmentStore.open(demo) as store:
        fresh = store.sample_docs("s3")
    assert fresh[["topic", "docno", "stratum"]].equals(after[["topic", "docno", "stratum"]])
    code, _, err = _run(demo, "sample", "--name", "s1", "--grow", "4", "--seed", "3")
    assert code == 2 and "--grow keeps the sample's design: leave out --seed" in err
    code, _, err = _run(demo, "sample", "--name", "s1")
    assert code == 2 and "--budget N (a new sample) or --grow N" in err
    code, _, err = _run(demo, "sample", "--name", "nosuch", "--grow", "4")
    assert code == 1 and "no sample 'nosuch'" in err
    assert _run(demo, "pool", "--depth", "30")[0] == 0  # the pool deepens: the frame changes
    code, _, err = _run(demo, "sample", "--name", "s1", "--grow", "4")
    assert code == 1 and "frame of sample 's1' changed" in err


def test_stored_runs_in_order_and_threads_give_the_same_estimates(demo: str) -> None:
    # stored runs come in trec_eval order with their trec_rank and are not ordered again;
    # the same lines shuffled into a file are; the estimates are the same to the digit,
    # in one thread or several (each run x k draws from its own stream)
    assert _run(demo, "sample", "--name", "s1", "--budget", "8", "--seed", "1")[0] == 0
    _judge_from_truth(demo, "judged", "main", "s1")
    with JudgmentStore.open(demo) as store:
        design = load_design(store, "s1")
        qrels = store.qrels("judged")
        stored = pd.concat([store.run_frame(tag) for tag in ("bm25", "qld")], ignore_index=True)
    shuffled = stored.sample(frac=1, random_state=3)
    assert not shuffled.index.equals(stored.index)
    path = Path("shuffled.run").resolve()
    path.write_text("".join(f"{t} Q0 {d} {r} {s!r} {tag}\n" for tag, t, d, r, s in
                            shuffled[RUN_COLUMNS].itertuples(index=False)))
    from_file = read_run(path)
    assert "trec_rank" not in from_file.columns
    ks = [5, 10, 100]
    given = [estimate_recall(stored, qrels, design, ks, seed=1, threads=n) for n in (1, 2)]
    ordered = estimate_recall(from_file, qrels, design, ks, seed=1, threads=2)
    keys = ["run_tag", "k", "topic"]
    for name in ("per_topic", "summary"):
        frames = [getattr(e, name) for e in (*given, ordered)]
        pd.testing.assert_frame_equal(frames[0], frames[1], check_exact=True)
        pd.testing.assert_frame_equal(
            frames[0].sort_values(keys[:2 if name == "summary" else 3]).reset_index(drop=True),
            frames[2].sort_values(keys[:2 if name == "summary" else 3]).reset_index(drop=True),
            check_exact=True)
    per_topic = given[0].per_topic
    assert len(per_topic) == 2 * 10 * len(ks)
    # the command: stored tags (their store ranks) and the shuffled file (ranked on loading)
    args = ["--version", "judged", "-k", "5,10,100", "--estimate", "s1", "-q", "--format", "csv"]
    outputs = [_run(demo, "recall", *runs, *args) for runs in (["bm25", "qld"], [str(path)])]
    assert [code for code, _, _ in outputs] == [0, 0], outputs
    read = [pd.read_csv(pd.io.common.StringIO(out), dtype={"topic": str}).sort_values(keys)
            .reset_index(drop=True) for _, out, _ in outputs]
    pd.testing.assert_frame_equal(*read)
    assert len(read[0]) == len(per_topic)
    # Recall@k grows with k and differs between the runs: the lines were placed, not lost
    mean = given[0].summary.set_index(["run_tag", "k"])["est_recall"]
    assert (mean.loc["bm25"].diff().dropna() > 0).all()
    assert mean.loc["bm25", 10] != mean.loc["qld", 10]


def test_run_lines_in_any_grouping_give_the_same_estimates(demo: str) -> None:
    # the lines are placed run by run: lines already grouped by run and all kept (the
    # store's order, every rank within the depth) skip the regrouping, interleaved runs
    # are grouped, and lines of a topic outside the design or beyond the depth are left
    # out; each way gives the same estimates to the digit
    assert _run(demo, "sample", "--name", "s1", "--budget", "8", "--seed", "1")[0] == 0
    _judge_from_truth(demo, "judged", "main", "s1")
    with JudgmentStore.open(demo) as store:
        design = load_design(store, "s1")
        qrels = store.qrels("judged")
        stored = pd.concat([store.run_frame(tag) for tag in ("bm25", "qld")], ignore_index=True)
    interleaved = stored.sample(frac=1, random_state=5)
    assert (interleaved["run_tag"].to_numpy()[1:] != interleaved["run_tag"].to_numpy()[:-1]).sum() > 2
    outside = stored[stored["topic"] == stored["topic"].iloc[0]].assign(topic="no-such-topic")
    with_outside = pd.concat([outside, stored, outside], ignore_index=True)
    keys = ["run_tag", "k", "topic"]
    for ks in ([5, 10, 100], [5, int(stored["trec_rank"].max())]):
        estimates = [estimate_recall(lines, qrels, design, ks, seed=1, threads=threads)
                     for lines, threads in ((stored, 1), (interleaved, 1), (with_outside, 1),
                                            (stored, 2), (interleaved, 3))]
        assert len(estimates[0].per_topic) == 2 * 10 * len(ks)
        for name in ("per_topic", "summary"):
            frames = [getattr(e, name).sort_values(keys[:2 if name == "summary" else 3])
                      .reset_index(drop=True) for e in estimates]
            for other in frames[1:]:
                pd.testing.assert_frame_equal(frames[0], other, check_exact=True)


def test_runs_the_design_does_not_know_are_placed_alike_alone_or_beside_others(
        demo: str) -> None:
    # docnos outside the design's pairs (no best rank, not pooled, not sampled) lie where
    # a document no run retrieved lies (here the unretrieved stratum); one run alone is
    # placed in one part, beside others the runs are placed in two parts when threaded:
    # each run's estimates are the same every way
    assert _run(demo, "sample", "--name", "s1", "--budget", "8", "--seed", "1")[0] == 0
    _judge_from_truth(demo, "judged", "main", "s1")
    with JudgmentStore.open(demo) as store:
        design = load_design(store, "s1")
        qrels = store.qrels("judged")
        known = store.run_frame("bm25")
    unknown = known.assign(run_tag="unknown", docno="zz-" + known["docno"])
    keys = ["run_tag", "k", "topic"]
    runs: dict[object, list[pd.DataFrame]] = {}
    for lines in (known, unknown, pd.concat([known, unknown], ignore_index=True)):
        for threads in (1, 2):
            per_topic = estimate_recall(lines, qrels, design, [10, 100], seed=1,
                                        threads=threads).per_topic
            for tag, rows in per_topic.groupby("run_tag"):
                runs.setdefault(tag, []).append(rows.sort_values(keys).reset_index(drop=True))
    assert [len(v) for v in runs.values()] == [4, 4]
    for frames in runs.values():
        assert len(frames[0]) == 2 * 10
        for other in frames[1:]:
            pd.testing.assert_frame_equal(frames[0], other, check_exact=True)
    assert not runs["bm25"][0]["est_recall"].equals(runs["unknown"][0]["est_recall"])
