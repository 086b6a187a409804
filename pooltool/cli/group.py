"""The click group every command hangs on, and the options commands share.

Each command parses its options, calls one public function of the core, and
hands the result to :mod:`pooltool.report`. Any :class:`PooltoolError` becomes
``Error: <message>`` on stderr with exit status 1, never a traceback.
"""

from __future__ import annotations

import gc
import importlib
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pooltool.cli.lazy import COMMAND_MODULES, command_entry, command_index
from pooltool.errors import PooltoolError, StoreBusy, StoreConnectionLost
from pooltool.report import COLUMN_CHOICE, FORMATS, ColumnChoice
from pooltool.text import identifier_problem, visible

if TYPE_CHECKING:
    from pooltool.store import JudgmentStore

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class PooltoolGroup(click.Group):
    """A click group that turns the errors a user can cause into clean ``Error:`` lines:
    pooltool's own, files that cannot be written or read (``OSError``), a store
    that another process keeps locked past the busy timeout, and a PostgreSQL server
    that went away (which says that nothing was changed: a write is one transaction).
    Any data an error quotes is shown visibly (:func:`pooltool.text.visible`: ESC as
    ``\\x1b``).

    Commands are imported on first use (:mod:`pooltool.cli.lazy`): listing
    them reads their help from the source, running one imports its module."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *command_index()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            _import_command_module(cmd_name)  # its namesake, without the index
        entry = None if cmd_name in self.commands else command_entry(cmd_name)
        if entry is not None:
            _import_command_module(entry.module)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's command list, with the stand-ins of commands not imported yet."""
        index = command_index()
        listed = [(name, self.commands.get(name) or index[name].listing)
                  for name in self.list_commands(ctx)]
        shown = [(name, command) for name, command in listed if not command.hidden]
        if shown:
            limit = formatter.width - 6 - max(len(name) for name, _ in shown)
            with formatter.section("Commands"):
                formatter.write_dl([(name, command.get_short_help_str(limit))
                                    for name, command in shown])

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:  # a usage error, or a command's own
            exc.message = visible(exc.message, lines=True)  # type: ignore[misc]  # may quote data
            raise
        except StoreBusy as exc:
            raise _busy(exc) from exc
        except StoreConnectionLost as exc:  # a read's says nothing of writes: nothing was
            said = str(exc) if "; nothing was " in str(exc) else f"{exc}; nothing was changed"
            raise click.ClickException(said) from exc
        except PooltoolError as exc:
            raise click.ClickException(visible(str(exc), lines=True)) from exc
        except BrokenPipeError:
            # the reader went away (| head): stop quietly, as Unix tools do
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115  stdout is closed at exit
            ctx.exit(0)
        except OSError as exc:
            raise click.ClickException(visible(_os_message(exc))) from exc
        except sqlite3.OperationalError as exc:  # SQLite's own, while a store is opened
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            raise _busy(exc) from exc


def _busy(exc: Exception) -> click.ClickException:
    """The one line for a store whose write lock another process held past the wait."""
    from pooltool.store.store import BUSY_TIMEOUT_S  # imported by the store's user

    return click.ClickException(
        "the store is busy: another process has held its write lock for over "
        f"{BUSY_TIMEOUT_S:.0f} s; nothing was changed, try again")


#: Command modules whose commands do no BLAS work (no matrix products, no linalg).
_NO_BLAS = ("evaluate", "recall")


def _import_command_module(name: str) -> None:
    """Import ``pooltool.cli.NAME`` with the cyclic garbage collector paused, then freeze
    what the import made: modules, classes and functions (numpy's, pyarrow's, ...)
    that live as long as the process. The collector's passes over them took about
    6% of the CPU time of ``pooltool recall`` on the 15 TREC-COVID runs.

    For ``recall`` and ``eval``, numpy's OpenBLAS starts no threads of its own
    (unless ``OPENBLAS_NUM_THREADS`` says otherwise): they would be idle, yet
    starting them and their spin before they sleep took 14% of the CPU time of
    ``pooltool recall`` on the TREC-COVID runs. OpenBLAS reads the variable once,
    when numpy is first imported."""
    if name in _NO_BLAS and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    paused = gc.isenabled()
    gc.disable()
    try:
        importlib.import_module(f"pooltool.cli.{name}")
    finally:
        if paused:
            gc.enable()
    gc.freeze()


def _os_message(exc: OSError) -> str:
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


@click.group(cls=PooltoolGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_name="pooltool")
@click.option(
    "--db",
    default="pooltool.db",
    envvar="POOLTOOL_DB",
    show_default=True,
    help="The judgment store: a SQLite file, or a PostgreSQL database as "
         "postgresql://USER@HOST:PORT/DB (password from PGPASSWORD or ~/.pgpass); "
         "also set by POOLTOOL_DB.",
)
@click.pass_context
def cli(ctx: click.Context, db: str) -> None:
    """Build IR test collections the TREC way: pool runs, judge, measure recall.

    \b
    Start with:  pooltool demo
    Then:        pooltool --db my.db init && pooltool --db my.db add-runs runs/*
    """
    ctx.obj = store_address(db)
    COLUMN_CHOICE.set(ColumnChoice())


def output_option(default: str = "table", choices: tuple[str, ...] = FORMATS) -> Callable[[F], F]:
    """Add ``--format`` (table for people; csv, tsv, json, jsonl for scripts), and
    ``--columns`` / ``--all-columns`` to choose the columns of tables."""
    fmt = click.option(
        "--format",
        "fmt",
        type=click.Choice(choices),
        default=default,
        show_default=True,
        help="Output format: a table for people (values never cut: columns that do not fit "
             "go to a further table), csv/tsv/json for scripts (always every column).",
    )
    columns = click.option(
        "--columns", metavar="NAME,...", expose_value=False, callback=_set_columns,
        help="Table columns to show after the key columns (run_tag, topic, k), e.g. "
             "recall,ceiling. 'pooltool explain' defines each column.")
    every = click.option(
        "--all-columns", is_flag=True, expose_value=False, callback=_set_all_columns,
        help="Show every table column (a narrow terminal shows a compact set).")

    def decorate(f: F) -> F:
        return fmt(columns(every(f)))

    return decorate


def _set_columns(_ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value:
        names = tuple(n.strip() for n in value.split(",") if n.strip())
        COLUMN_CHOICE.set(ColumnChoice(names, COLUMN_CHOICE.get().everything))


def _set_all_columns(_ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        COLUMN_CHOICE.set(ColumnChoice(COLUMN_CHOICE.get().names, True))


def level_option(f: F) -> F:
    """Add ``-l/--level`` (relevant means grade >= LEVEL, trec_eval -l; at least 0)."""
    return click.option("-l", "--level", type=click.IntRange(min=0), default=1,
                        show_default=True,
                        help="Relevant means grade >= LEVEL (trec_eval -l).")(f)


def output_file_option(f: F) -> F:
    """Add ``-o/--output FILE`` (default: stdout)."""
    return click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                        help="Write to FILE instead of stdout.")(f)


def non_blank(_ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Refuse a blank option value; give it without its surrounding spaces."""
    if not value.strip():
        raise click.BadParameter(f"{param.name} must not be blank")
    return value.strip()


class open_output:
    """A context manager yielding the output stream: FILE (written whole) or stdout."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.handle = open(self.path, "w", encoding="utf-8") if self.path else sys.stdout
        return self.handle

    def __exit__(self, *exc: object) -> None:
        if self.path:
            self.handle.close()


_EXISTING_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


class FileOrDataset(click.ParamType):  # type: ignore[type-arg]
    """An existing file (a Path), or an ir_datasets id ``irds:NAME`` (kept as str)."""

    name = "FILE|irds:NAME"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path | str:
        if isinstance(value, str) and value.startswith("irds:"):
            return value
        return _EXISTING_FILE.convert(value, param, ctx)


file_or_dataset = FileOrDataset()


def qrels_options(f: F) -> F:
    """Add ``--qrels FILE``, ``--version NAME`` and ``--policy POLICY``: the qrels a measure
    takes, from a file or from the store (check them with :func:`stored_or_file`)."""
    options = [
        click.option("--qrels", "qrels_file", type=file_or_dataset,
                     help="Qrels file (TREC format), or an ir_datasets id irds:NAME (the "
                          "irds extra)."),
        click.option("--version", "version", metavar="NAME",
                     help="Take the qrels from this stored version."),
        click.option("--policy", metavar="POLICY",
                     help="With the store's qrels (a --version, else the log now): how a "
                          "pair's grade is picked, e.g. assessor:gpt-judge, "
                          "prefer:alice,gpt-judge, latest:all (default latest: people's "
                          "judgments only).")]
    for option in reversed(options):
        f = option(f)
    return f


def stored_or_file(qrels_file: Path | None, version: str | None,
                   policy: str | None) -> tuple[str | None, str]:
    """The store's ``(version, policy)`` that :func:`qrels_options` name (``policy``
    ``latest`` by default; unused when a file is given).

    :raises click.UsageError: neither a file nor the store, or both.
    """
    if (qrels_file is None) == (version is None and policy is None):
        raise click.UsageError("give exactly one of --qrels FILE or --version NAME / --policy")
    return version, policy or "latest"


PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _check_plot_path(_ctx: click.Context, _param: click.Parameter,
                     value: Path | None) -> Path | None:
    if value is None:
        return None
    if value.suffix.lower() not in PLOT_SUFFIXES:
        raise click.BadParameter(f"{value}: the image type comes from the suffix, one of "
                                 f"{', '.join(PLOT_SUFFIXES)}")
    if not value.parent.is_dir():
        raise click.BadParameter(f"{value}: no such folder {value.parent}")
    return value


def plot_option(help_text: str) -> Callable[[F], F]:
    """Add ``--plot FILE`` (.png, .svg or .pdf, in an existing folder)."""
    return click.option("--plot", type=click.Path(dir_okay=False, path_type=Path),
                        callback=_check_plot_path, help=help_text)


def store_address(db: str) -> str | Path:
    """A ``--db`` value as the store's address: a PostgreSQL URL as given, else a path.

    :raises click.BadParameter: a URL that holds a password (it would show in the
        process list and shell history; libpq reads it from ``PGPASSWORD`` or
        ``~/.pgpass``), or an empty value.
    """
    from pooltool.records import is_postgresql_url, url_holds_password

    if is_postgresql_url(db):
        if url_holds_password(db):
            raise click.BadParameter(
                "the URL holds a password: leave it out and put it in PGPASSWORD or "
                "~/.pgpass (libpq reads them), so it never shows on the command line",
                param_hint="'--db'")
        return db
    if not db:
        raise click.BadParameter("an empty store path", param_hint="'--db'")
    if _LIBPQ_KEYWORDS.search(db):  # never echoed: it may hold a password
        raise click.BadParameter(
            "this is a libpq keyword string (host=... dbname=...), not a SQLite path: name a "
            "PostgreSQL store by a URL, postgresql://USER@HOST:PORT/DBNAME, with the "
            "password in PGPASSWORD or ~/.pgpass", param_hint="'--db'")
    return Path(db)


_LIBPQ_KEYWORDS = re.compile(
    r"(?:^|\s)(?:host|hostaddr|port|dbname|user|password|passfile|service|sslmode|"
    r"connect_timeout|options|application_name|target_session_attrs)\s*=")


def db_path(ctx: click.Context) -> str | Path:
    """The store chosen with ``--db`` / ``POOLTOOL_DB``: a file path, or a PostgreSQL URL."""
    return ctx.find_root().obj


def store_exists(address: str | Path) -> bool:
    """Whether there is a store to open at ``address`` (a PostgreSQL URL is tried)."""
    return not isinstance(address, Path) or address.is_file()


def check_assessor(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A click callback: refuse an assessor name (``-a/--assessor``) that holds a control
    character (:func:`pooltool.text.identifier_problem`), as a usage error (a blank
    name is left to the command).

    :returns: ``value``.
    """
    problem = None if value is None else identifier_problem("assessor name", value)
    if problem is not None:
        raise click.BadParameter(problem)
    return value


def warn(message: str) -> None:
    """Print a message for people on stderr (never mixed with data on stdout)."""
    click.echo(visible(message, lines=True), err=True)


def open_store(ctx: click.Context) -> JudgmentStore:
    """The store named by ``--db`` (it must exist) for a command that reads it: an older
    store's schema is never upgraded (it is read as it is where it can be, else refused
    saying how to upgrade it). Before reading, the writes that judging apps which died
    left in their journals are committed (:func:`replay_abandoned`), so that no judgment
    waits unseen; what cannot be committed is named on stderr.

    :raises StoreError: no store there, not a pooltool store, or one this pooltool cannot
        read as it is.
    """
    return open_store_at(db_path(ctx))


def open_store_at(address: str | Path, upgrade: bool | None = False) -> JudgmentStore:
    """:func:`open_store` for the store at ``address`` (a path or PostgreSQL URL);
    ``upgrade`` as :meth:`~pooltool.store.JudgmentStore.open` takes it, and a schema
    upgraded is said on stderr."""
    from pooltool.store import JudgmentStore
    from pooltool.store.journal import replay_abandoned
    from pooltool.store.migrations import pooltool_version

    store = JudgmentStore.open(address, upgrade=upgrade)
    if store.upgraded:
        warn(f"upgraded the store's schema ({', '.join(store.upgraded)}): pooltool older "
             f"than {pooltool_version()} cannot open {store.address} now")
    try:
        replay = replay_abandoned(store)
    except StoreConnectionLost:
        store.close()
        raise
    except sqlite3.OperationalError as exc:
        warn(f"warning: judging writes wait in journals next to the store and cannot be "
             f"committed ({exc}); what is read here lacks them")
        return store
    if replay.replayed:
        warn(f"committed {replay.replayed} write(s) left by judging or adjudication apps "
             "that ended")
    for path, count in replay.waiting.items():
        warn(f"warning: {count} judging write(s) in {path} still wait (the store is busy); "
             "what is read here lacks them")
    return store


def progress(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Yield ``items``, drawing a rich progress bar (a count when ``total`` is
    unknown) on stderr while it is a terminal; nothing is drawn otherwise.

    :param items: what the command works through (files, documents).
    :param description: what is being done, e.g. ``"reading runs"``.
    :param total: how many items there are, if known.
    """
    if not sys.stderr.isatty():
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = ([BarColumn(), MofNCompleteColumn()] if total is not None
               else [TextColumn("{task.completed:,}")])
    with Progress(TextColumn("{task.description}", markup=False), *columns, transient=True,
                  console=Console(stderr=True)) as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)


def say_if_store_busy(path: str | Path, store: JudgmentStore | None = None) -> None:
    """Say on stderr, at once, when another process holds the store's write lock:
    the command then waits for it up to ``BUSY_TIMEOUT_S`` seconds. A SQLite file is
    tried before it is opened; a PostgreSQL store is asked through ``store``'s
    connection (``pg_locks``)."""
    from pooltool.store.sqlite import write_lock_held
    from pooltool.store.store import BUSY_TIMEOUT_S

    busy = (write_lock_held(path) if isinstance(path, Path)
            else store is not None and store.write_lock_held_elsewhere())
    if busy:
        shown = path if store is None else store.address
        warn(f"another process is writing to {shown}: waiting for it up to "
             f"{BUSY_TIMEOUT_S:.0f} s ...")


def open_store_to_write(ctx: click.Context) -> JudgmentStore:
    """:func:`open_store` for a command that writes, first saying whether another
    process's write will make this command wait (:func:`say_if_store_busy`). An older
    SQLite store is upgraded; a PostgreSQL store is left to its owner's ``store
    upgrade`` (assessors on an older pooltool share it)."""
    path = db_path(ctx)
    say_if_store_busy(path)
    store = open_store_at(path, upgrade=None)
    if not isinstance(path, Path):
        say_if_store_busy(path, store)
    return store
