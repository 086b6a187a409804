"""The bundled demo collection and the function that builds a store from it.

The files ship in ``demo/`` (installed as the package ``pooltool.demo_data``):
topics, documents built from Python standard-library docstrings, runs from
several retrievers, and a partial qrels. See ``demo/README.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pooltool import pooling
from pooltool.errors import StoreError
from pooltool.formats.documents import iter_documents
from pooltool.formats.topics import read_topics
from pooltool.store import JudgmentStore

DEMO_DEPTH = 10
DEMO_VERSION = "demo-partial"


@dataclass(frozen=True)
class DemoResult:
    """Where the demo store is and what the demo pool looks like."""

    store_path: Path | str
    files: Path
    pool: pooling.PoolRound


def demo_files() -> Path:
    """The folder holding the demo collection (``demo/`` of a checkout, or the installed copy).

    :raises FileNotFoundError: neither location holds ``topics.xml``.
    """
    package = Path(__file__).resolve().parent
    for folder in (package.parent / "demo", package / "demo_data"):
        if (folder / "topics.xml").is_file():
            return folder
    raise FileNotFoundError("the demo collection is not installed (no demo/topics.xml)")


def _remove_old_demo(path: Path) -> None:
    """Delete an earlier, untouched demo store; refuse to touch anything else."""
    try:
        with JudgmentStore.open(path) as store:
            is_demo = store.setting("demo", False) is True
            touched = is_demo and _has_user_work(store)
    except StoreError:
        is_demo = touched = False
    if not is_demo:
        raise StoreError(f"{path} already exists and is not a demo store: choose another file or folder "
                         "(the demo never overwrites your data)")
    if touched:
        raise StoreError(f"{path} holds judgments or versions you added to the demo: choose "
                         "another folder, or delete it yourself if you no longer need them")
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)


def _has_user_work(store: JudgmentStore) -> bool:
    """Whether anything beyond the demo's own import was added: a judgment, a version."""
    versions = set(store.versions()["name"])
    origins = set(store.judgment_log()["origin"])
    return versions != {DEMO_VERSION} or any(not o.startswith("qrels:") for o in origins)


def build_demo(folder: Path) -> DemoResult:
    """Build ``folder/pooltool.db`` from the demo collection and pool it at depth 10.

    :param folder: created if missing; an earlier demo store there is
        replaced (it holds nothing but demo data), any other file named
        ``pooltool.db`` is left alone.
    :returns: the store path, the demo files folder and the pooling round.
    :raises StoreError: ``folder/pooltool.db`` exists and is not a demo store.
    """
    folder.mkdir(parents=True, exist_ok=True)
    return build_demo_at(folder / "pooltool.db")


def build_demo_at(address: Path | str) -> DemoResult:
    """Build the demo store at ``address`` (``pooltool --db ADDRESS demo``) and pool it.

    :param address: a SQLite file (its folder must exist; an earlier demo store
        there is replaced, any other file refused) or a PostgreSQL URL of a
        database without a pooltool store (a PostgreSQL store is append-only, so
        an earlier demo there is not replaced).
    :returns: the store's address, the demo files folder and the pooling round.
    :raises StoreError: the file is not a demo store; the database holds a store.
    """
    if isinstance(address, Path) and address.exists():
        _remove_old_demo(address)
    with JudgmentStore.open(address, create=True) as store:
        if store.engine == "postgresql" and (store.setting("demo") is not None
                                             or store.run_tags() or len(store.topics())):
            raise StoreError(f"{store.address} already holds a pooltool store: the demo "
                             "builds into a database without one (give another database)")
        round_ = fill_demo(store)
    return DemoResult(address, demo_files(), round_)


def fill_demo(store: JudgmentStore) -> pooling.PoolRound:
    """Import the demo collection into an empty ``store`` (topics, documents, runs,
    the partial qrels as version ``demo-partial``) and pool it at depth 10.

    :returns: the pooling round.
    """
    files = demo_files()
    store.set_setting("demo", True)
    store.add_topics(read_topics(files / "topics.xml"), str(files / "topics.xml"))
    store.add_documents(iter_documents(files / "docs.jsonl"), str(files / "docs.jsonl"))
    store.add_runs(sorted((files / "runs").glob("*.run")))
    store.import_qrels(files / "qrels.txt", DEMO_VERSION, assessor="demo")
    return pooling.pool_runs(store, DEMO_DEPTH)
