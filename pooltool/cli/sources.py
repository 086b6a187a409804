"""Where a command's qrels and runs come from: a file, or a version / run tag in the store.

Every command that takes qrels or runs by name loads them here. A store is
opened only when a name is not an existing file, so the measuring commands
work as a trec_eval replacement without any store.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, ContextManager, TypeVar

import click

from pooltool.cli.group import db_path, open_store, store_exists, warn
from pooltool.errors import DuplicateRunTag, NoGrades, StoreError, UnknownRun, UnknownVersion
from pooltool.formats.qrels import read_qrels, read_qrels_table
from pooltool.formats.run import read_run, read_run_lines
from pooltool.formats.source import refuse_non_regular_file
from pooltool.records import RUN_COLUMNS

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from pooltool.store import JudgmentStore


T = TypeVar("T")


def check_run_specs(ctx: click.Context, _param: click.Parameter,
                    value: tuple[str, ...]) -> tuple[str, ...]:
    """A click callback for RUN values (a file, or the tag of a stored run): one that is
    neither is a usage error (exit 2), as a missing input file is for every command
    (click's ``exists=True``). The store is opened only when a value is not a file.

    :returns: ``value``.
    """
    missing = [spec for spec in value if not Path(spec).exists()]
    if not missing:
        return value
    path = db_path(ctx)
    stored: set[str] = set()
    if store_exists(path):
        from pooltool.store import JudgmentStore

        try:
            with JudgmentStore.open(path) as store:
                stored = {spec for spec in missing if store.has_run(spec)}
        except StoreError:
            pass
    for spec in missing:
        if not store_exists(path):
            raise click.BadParameter(f"{spec!r} is not a file, and there is no store at {path} "
                                     "(set --db or POOLTOOL_DB)")
        if spec not in stored:
            raise click.BadParameter(f"{spec!r} is neither a file nor a run in the store")
    return value


def load_qrels(ctx: click.Context, spec: str, policy: str = "latest") -> pd.DataFrame:
    """Qrels from an ir_datasets id (``irds:NAME``), a file path, else from the store
    version named ``spec`` (under
    ``policy``), else, when ``spec`` is a policy (``assessor:alice``,
    ``prefer:alice,gpt-judge``, ``latest:all``), the store's log now under it.

    :returns: columns ``topic, iteration, docno, grade``.
    :raises FormatError: a malformed file.
    :raises StoreError: ``spec`` names both a file and a stored version, or
        none of the three (no such file, and no store, version or policy).
    """
    if spec.startswith("irds:"):
        from pooltool.formats.irds import dataset_name, irds_qrels

        return irds_qrels(str(dataset_name(spec)))
    if _is_qrels_file(ctx, spec):
        return read_qrels(Path(spec))
    from pooltool.store.policy import is_policy  # only with a store: it loads pandas

    try:
        return stored_qrels(ctx, spec, policy)
    except NoGrades:
        raise  # the version is there: what it lacks is said as it is
    except UnknownVersion as exc:
        if not is_policy(spec):
            raise StoreError(f"{spec!r} is neither a qrels file nor a stored version nor a "
                             f"policy ({exc})") from exc
    except StoreError as exc:
        raise StoreError(f"{spec!r} is neither a qrels file nor a stored version ({exc})") from exc
    return stored_qrels(ctx, None, spec)


#: What positives-only qrels mean for the unjudged rate (recall, bias, impact).
UNJUDGED_CONSEQUENCE = ("every document it does not list counts as unjudged: unjudged@k is "
                        "1 - P@k and recall_upper is no bound on recall")


def note_positives_only(ctx: click.Context, qrels: pd.DataFrame | pa.Table, level: int,
                        name: str, consequence: str = UNJUDGED_CONSEQUENCE) -> None:
    """Say once on stderr (per qrels ``name`` and command) when qrels about to be scored
    list relevant documents only (:func:`~pooltool.records.positives_only`): every
    command that scores qrels calls this once it has them.

    :param qrels: a DataFrame or Arrow table with a ``grade`` column.
    :param level: the command's relevance level (trec_eval ``-l``).
    :param name: how the qrels are named (a file or spec as given, ``version:NAME``,
        ``log:now``, as the JSON documents name them).
    :param consequence: what it means for the command's output.
    """
    from pooltool.records import positives_only

    said: set[str] = ctx.meta.setdefault("pooltool.positives_only", set())
    import pyarrow as pa  # loaded already where qrels come as Arrow columns

    from pooltool.arrow.numbers import numbers

    # Arrow's to_numpy imports pandas, which recall on files runs without (arrow_numbers)
    grades = (numbers(qrels.column("grade")) if isinstance(qrels, pa.Table)
              else qrels["grade"].to_numpy())
    if name in said or not positives_only(grades, level):
        return
    said.add(name)
    warn(f"note: qrels {name} has no grade below the relevance level {level}: it lists "
         f"relevant documents only (as BEIR and MS MARCO qrels do), so {consequence}")


def qrels_name(spec: str | None, version: str | None = None) -> str:
    """How :func:`note_positives_only` names qrels: a file or spec as given, else
    ``version:NAME``, else ``log:now``."""
    return spec if spec else f"version:{version}" if version else "log:now"


def load_qrels_table(ctx: click.Context, spec: str) -> pd.DataFrame | pa.Table:
    """:func:`load_qrels`, but a file comes as Arrow columns
    (:func:`~pooltool.formats.qrels.read_qrels_table`: pandas is not loaded).

    :raises FormatError: a malformed file.
    :raises StoreError: see :func:`load_qrels`.
    """
    if _is_qrels_file(ctx, spec):
        return read_qrels_table(Path(spec))
    return load_qrels(ctx, spec)


def _is_qrels_file(ctx: click.Context, spec: str) -> bool:
    """Whether ``spec`` names a qrels file (not a pipe or device, not also a stored version).

    :raises StoreError: ``spec`` is both a file and a qrels version in the store.
    """
    refuse_non_regular_file(spec)
    if not Path(spec).is_file():
        return False
    if _is_stored_version(ctx, spec):
        raise StoreError(f"{spec!r} is both a file and a qrels version in the store: "
                         f"write ./{spec} for the file")
    return True


def _is_stored_version(ctx: click.Context, name: str) -> bool:
    path = db_path(ctx)
    if "/" in name or not store_exists(path):
        return False
    from pooltool.store import JudgmentStore  # only with a store: sqlite-utils costs start-up

    try:
        with JudgmentStore.open(path) as store:
            return name in set(store.versions()["name"])
    except StoreError:
        return False


def stored_qrels(ctx: click.Context, version: str | None, policy: str = "latest") -> pd.DataFrame:
    """The qrels of a store version (``None``: the judgment log now), never a file.
    When the store has a machine assessor, stderr says whose judgments, by kind,
    the policy took (:meth:`~pooltool.store.JudgmentStore.policy_note`).

    :raises StoreError: no store, no such version, a bad policy, or no grade under it
        (saying how to reach machines' grades when the version has only those).
    """
    with open_store(ctx) as store:
        qrels = store.nonempty_qrels(version, policy)
        if store.machines():
            warn(f"qrels {version or 'of the log now'}, {store.policy_note(version, policy)}")
        return qrels


def load_runs(ctx: click.Context, specs: Sequence[str], ranked: bool = False) -> pd.DataFrame:
    """The runs named by ``specs``, in the order given, as one frame.

    Each spec is a run file (which may hold several runs), else the tag of a
    run in the store. The files are read in threads (one per CPU): the compiled
    pass and Arrow's reader work without the GIL.

    :param ranked: add ``trec_rank``, each line's trec_eval rank: the store's for a
        stored run (its lines are kept in trec_eval order), computed for a file
        (:func:`~pooltool.ranking.trec_ranks`).
    :returns: columns ``run_tag, topic, docno, rank, score`` (as
        :func:`~pooltool.formats.run.read_run`), then ``trec_rank`` if ``ranked``.
    :raises FormatError: a malformed file.
    :raises UnknownRun: a spec that is neither a file nor a run in the store,
        or no store to look a tag up in.
    :raises DuplicateRunTag: two specs hold runs with the same tag.
    :raises StoreError: a spec names both a file and a stored run.
    """
    return load_runs_after(ctx, specs, lambda: None, ranked)[1]


def load_runs_after(ctx: click.Context, specs: Sequence[str], first: Callable[[], T],
                    ranked: bool = False) -> tuple[T, pd.DataFrame]:
    """``first()`` (a command's qrels), then :func:`load_runs`' frame, the run files read
    in threads while ``first`` runs; what ``first`` raises is raised first, and
    nothing of the runs is checked before it returns (as when it ran before
    :func:`load_runs`).

    :returns: what ``first`` returned, and :func:`load_runs`' frame.
    :raises: what ``first`` raises, then what :func:`load_runs` raises (the first
        failing spec in the order given).
    """
    import pandas as pd

    from pooltool.measures.recall import worker_count

    files = [spec if Path(spec).is_file() else None for spec in specs]
    paths = [Path(spec) for spec in files if spec is not None]
    with ThreadPoolExecutor(worker_count(paths, None)) as pool:
        reads = [None if spec is None else pool.submit(_read_file, Path(spec), ranked)
                 for spec in files]
        try:
            before = first()
            check_run_names(ctx, specs)
            with _store_for(ctx, [spec for spec in specs if not Path(spec).is_file()]) as store:
                parts = [_load_one(spec, store, ranked) if read is None else read.result()
                         for spec, read in zip(specs, reads, strict=True)]
        except BaseException:
            for read in reads:
                if read is not None:
                    read.cancel()
            raise
    from pooltool.ranking import first_seen

    # each part's tags once (its lines come run by run: hashed once per stretch)
    tags = [(origin, first_seen(frame["run_tag"].to_numpy(dtype=object)).tolist())
            for origin, frame in parts]
    _check_distinct_tags(tags)
    say_runs_per_file((origin, str(tag)) for origin, held in tags for tag in held)
    if not parts:
        dtypes = {**_RUN_DTYPES, **({"trec_rank": "int64"} if ranked else {})}
        return before, pd.DataFrame({c: pd.Series(dtype=t) for c, t in dtypes.items()})
    return before, pd.concat([frame for _, frame in parts], ignore_index=True)


def stored_run_tables(ctx: click.Context, tags: Sequence[str]) -> Iterator[pa.Table]:
    """The stored runs named by ``tags``, in the order given, as Arrow columns read
    one at a time (:meth:`~pooltool.store.JudgmentStore.iter_run_tables`: what
    recall reads from a file); the store stays open until the last is read.

    :raises UnknownRun: a tag of no live run, or no store to look it up in.
    """
    with _store_for(ctx, list(tags)) as store:
        assert store is not None  # tags is not empty
        for tag in tags:
            if not store.has_run(tag):
                raise UnknownRun(f"{tag!r} is neither a file nor a run in the store")
        yield from store.iter_run_tables(list(tags))


_RUN_DTYPES = {"run_tag": object, "topic": object, "docno": object, "rank": "int64",
               "score": "float64"}


def check_run_names(ctx: click.Context, specs: Sequence[str]) -> None:
    """Refuse a RUN that names both a file in the working directory and a stored run
    (as :func:`load_qrels` refuses such qrels names); ``./NAME`` means the file.

    :raises StoreError: the first such name.
    :raises FormatError: a RUN that is a pipe or device (``<(zcat run.gz)``).
    """
    for spec in specs:
        refuse_non_regular_file(spec)

    bare = [spec for spec in specs if "/" not in spec and Path(spec).is_file()]
    path = db_path(ctx)
    if not bare or not store_exists(path):
        return
    from pooltool.store import JudgmentStore  # only with a store: sqlite-utils and pandas

    try:
        with JudgmentStore.open(path) as store:
            both = [spec for spec in bare if store.has_run(spec)]
    except StoreError:
        return
    if both:
        raise StoreError(f"{both[0]!r} is both a file and a run in the store: write "
                         f"./{both[0]} for the file")


def say_runs_per_file(pairs: Iterable[tuple[str, str]]) -> None:
    """Say on stderr how many runs each file that holds several run tags gave (trec_eval
    would score such a file as one run).

    :param pairs: ``(file, run_tag)`` for every run read, files in input order.
    """
    tags: dict[str, list[str]] = {}
    for file, tag in pairs:
        tags.setdefault(file, []).append(tag)
    for file, names in tags.items():
        if len(names) > 1:
            warn(f"note: {file} gave {len(names)} runs, one per run tag: {', '.join(names)} "
                 "(trec_eval would score the file as one run)")


def _store_for(ctx: click.Context, tags: list[str]) -> ContextManager[JudgmentStore | None]:
    """The store to look ``tags`` up in; none is opened when there is no tag."""
    if not tags:
        return nullcontext()
    path = db_path(ctx)
    if not store_exists(path):
        raise UnknownRun(
            f"{tags[0]!r} is not a file, and there is no store at {path} (set --db or POOLTOOL_DB)"
        )
    from pooltool.store import JudgmentStore

    return JudgmentStore.open(path)


def _load_one(spec: str, store: JudgmentStore | None,
              ranked: bool) -> tuple[str, pd.DataFrame]:
    """Where a spec's runs come from (for messages), and the runs (with ``trec_rank``
    if ``ranked``)."""
    if store is None or Path(spec).is_file():
        return _read_file(Path(spec), ranked)
    if not store.has_run(spec):
        raise UnknownRun(f"{spec!r} is neither a file nor a run in the store")
    return f"the store ({spec})", store.run_frame(spec)[RUN_COLUMNS + (["trec_rank"] if ranked
                                                                        else [])]


def _read_file(path: Path, ranked: bool) -> tuple[str, pd.DataFrame]:
    """:func:`_load_one` of a file."""
    return str(path), _ranked_file(path) if ranked else read_run(path)


def _ranked_file(path: Path) -> pd.DataFrame:
    """A run file's lines with ``trec_rank``: from the order the compiled join found
    while proving the file free of repeats, else computed."""
    from pooltool.ranking import ranks_of_order, trec_ranks

    read = read_run_lines(path)
    order = read.order
    ranks = (trec_ranks(read.frame) if order is None or order.rows is None
             else ranks_of_order(order.rows, order.topics))
    return read.frame.assign(trec_rank=ranks)


def _check_distinct_tags(parts: list[tuple[str, list[str]]]) -> None:
    """Refuse a tag held by two parts (``(origin, its tags)`` each)."""
    seen: dict[str, str] = {}
    for origin, held in parts:
        for tag in held:
            if tag in seen:
                raise DuplicateRunTag(f"run tag {tag!r} is in both {seen[tag]} and {origin}")
            seen[str(tag)] = origin


#: Topics a warning names before it says how many more there are.
MISSING_SHOWN = 50


def use_system_allocator() -> None:
    """Give Arrow the C library's allocator, unless ``ARROW_DEFAULT_MEMORY_POOL`` names one
    (``recall``, ``eval``).

    pyarrow's default (mimalloc) asks the kernel for transparent huge pages,
    and zeroing them on first touch took a quarter of the CPU time of recall
    on the 15 TREC-COVID runs; with the system allocator recall took 0.79x the
    CPU time there (peak 94 MiB against 154) and 0.9x on 250,000-line runs.
    """
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())


def qrels_source(version: str | None, policy: str) -> str:
    """How a JSON document names stored qrels: ``version:NAME``, with the policy
    when it is not the default (``log:now`` when no version is named)."""
    where = f"version:{version}" if version else "log:now"
    return where if policy == "latest" else f"{where} policy:{policy}"


def measured_qrels(ctx: click.Context, qrels_file: Path | None,
                   stored: tuple[str | None, str], level: int) -> pd.DataFrame | pa.Table:
    """The qrels a measure takes: a file as Arrow columns (no pandas on the way), else the
    store's (version, policy); positives-only qrels are said once
    (:func:`note_positives_only`, at relevance ``level``).

    :raises StoreError: no such version, or no grade under the policy.
    """
    qrels = load_qrels_table(ctx, str(qrels_file)) if qrels_file else stored_qrels(ctx, *stored)
    note_positives_only(ctx, qrels, level, str(qrels_file) if qrels_file
                        else qrels_source(*stored))
    return qrels


def some_topics(topics: list[str]) -> str:
    """The first :data:`MISSING_SHOWN` topics, space-separated, and how many more."""
    shown = " ".join(topics[:MISSING_SHOWN])
    return shown + (f" ... ({len(topics) - MISSING_SHOWN} more)" if len(topics) > MISSING_SHOWN
                    else "")
