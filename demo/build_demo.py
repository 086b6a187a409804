"""Build the pooltool demo collection from Python standard-library docstrings.

Run from anywhere with ``python demo/build_demo.py``; it rewrites, next to
this script:

* ``docs.jsonl``  one document per module, function or class docstring;
* ``topics.xml``  10 topics in TREC-COVID XML style;
* ``runs/*.run``  four runs from four toy retrievers (BM25, TF-IDF cosine,
  title match, Dirichlet query likelihood), 50 documents per topic;
* ``qrels.txt``   partial graded judgments (0, 1, 2) assigned by rule.

Standard library only, no network, no randomness: running it twice on the same
Python gives byte-identical files. Docstrings differ a little between Python
versions and platforms, so a rebuild elsewhere may change some texts, scores
and ranks; the document ids (a fixed list below) do not depend on the version,
except that objects without a docstring on that version are skipped.
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
MAX_CHARS = 1500
DEPTH = 50

# The fixed document list: module -> public names documented as their own docs.
# Every module also contributes its own docstring as the document named after
# it, except the modules in NO_MODULE_DOC. Names whose objects lack a docstring
# on CPython 3.11 are left out of the list, so that the docnos stay the same on
# versions that add one.
NO_MODULE_DOC = frozenset({"multiprocessing", "pathlib", "zoneinfo"})
MODULES: dict[str, tuple[str, ...]] = {
    "argparse": ("ArgumentParser", "Namespace", "Action", "FileType", "ArgumentError",
                 "ArgumentTypeError", "HelpFormatter", "RawDescriptionHelpFormatter",
                 "ArgumentDefaultsHelpFormatter"),
    "getopt": ("getopt", "gnu_getopt"),
    "optparse": ("OptionParser", "Option", "make_option", "OptionValueError", "OptionError",
                 "BadOptionError", "IndentedHelpFormatter", "TitledHelpFormatter"),
    "shlex": ("shlex", "split", "quote", "join"),
    "sys": ("exit",),
    "json": ("dump", "dumps", "load", "loads", "JSONDecoder", "JSONEncoder", "JSONDecodeError"),
    "csv": ("reader", "writer", "Sniffer", "Dialect", "excel", "register_dialect", "get_dialect",
            "list_dialects", "field_size_limit"),
    "pickle": ("dump", "dumps", "load", "loads", "Pickler", "Unpickler", "PickleBuffer"),
    "shelve": ("open", "Shelf", "DbfilenameShelf", "BsdDbShelf"),
    "sqlite3": ("connect", "Connection", "Cursor", "register_adapter", "register_converter",
                "complete_statement", "adapt"),
    "gzip": ("open", "compress", "decompress", "GzipFile", "BadGzipFile"),
    "zipfile": ("ZipFile", "ZipInfo", "PyZipFile", "Path", "is_zipfile", "LargeZipFile"),
    "tarfile": ("open", "TarFile", "TarInfo", "is_tarfile", "TarError", "ReadError",
                "ExtractError", "CompressionError"),
    "bz2": ("open", "compress", "decompress", "BZ2File", "BZ2Compressor", "BZ2Decompressor"),
    "lzma": ("open", "compress", "decompress", "LZMAFile", "LZMACompressor", "LZMADecompressor",
             "LZMAError", "is_check_supported"),
    "zlib": ("compress", "decompress", "compressobj", "decompressobj", "crc32", "adler32"),
    "datetime": ("date", "time", "datetime", "timedelta", "tzinfo", "timezone"),
    "time": ("time", "sleep", "monotonic", "perf_counter", "process_time", "strftime", "strptime",
             "gmtime", "localtime", "mktime", "ctime", "struct_time", "tzset"),
    "calendar": ("Calendar", "TextCalendar", "calendar", "isleap", "monthrange", "timegm",
                 "weekday"),
    "zoneinfo": ("available_timezones", "ZoneInfoNotFoundError"),
    "re": ("compile", "search", "match", "fullmatch", "findall", "finditer", "split", "sub",
           "subn", "escape", "purge", "Pattern", "Match", "RegexFlag", "error"),
    "string": ("Template", "capwords"),
    "textwrap": ("wrap", "fill", "shorten", "dedent", "indent", "TextWrapper"),
    "difflib": ("SequenceMatcher", "Differ", "HtmlDiff", "unified_diff", "context_diff", "ndiff",
                "get_close_matches", "restore"),
    "random": ("random", "seed", "randint", "randrange", "choice", "choices", "sample", "shuffle",
               "uniform", "gauss", "triangular", "getrandbits", "randbytes", "Random",
               "SystemRandom"),
    "statistics": ("mean", "median", "mode", "stdev", "variance", "quantiles", "NormalDist",
                   "correlation", "linear_regression"),
    "math": ("sqrt", "log", "floor", "ceil", "fsum", "gcd", "factorial", "isclose"),
    "decimal": ("Decimal", "Context", "getcontext", "setcontext", "localcontext"),
    "fractions": ("Fraction",),
    "hashlib": ("new", "md5", "sha1", "sha256", "sha512", "sha3_256", "blake2b", "blake2s",
                "shake_128", "pbkdf2_hmac", "file_digest"),
    "hmac": ("new", "digest", "compare_digest", "HMAC"),
    "secrets": ("token_bytes", "token_hex", "token_urlsafe", "choice", "randbelow", "randbits",
                "compare_digest", "SystemRandom"),
    "socket": ("socket", "create_connection", "create_server", "getaddrinfo", "gethostname",
               "gethostbyname", "getfqdn", "socketpair", "inet_ntoa"),
    "http.client": ("HTTPSConnection",),
    "urllib.request": ("urlopen", "build_opener", "urlretrieve", "pathname2url", "url2pathname",
                       "getproxies", "HTTPDigestAuthHandler"),
    "urllib.parse": ("urlparse", "urlunparse", "urlsplit", "urljoin", "urlencode", "parse_qs",
                     "parse_qsl", "quote", "unquote"),
    "smtplib": ("SMTP", "SMTP_SSL", "LMTP", "SMTPException", "SMTPAuthenticationError",
                "SMTPRecipientsRefused", "SMTPServerDisconnected", "quoteaddr"),
    "email": ("message_from_string", "message_from_bytes", "message_from_file",
              "message_from_binary_file"),
    "threading": ("Thread", "Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore", "Event",
                  "Timer", "Barrier", "local", "current_thread", "main_thread", "get_ident"),
    "multiprocessing": ("Pool", "Queue", "JoinableQueue", "SimpleQueue", "Pipe", "Lock", "Event",
                        "Manager", "Value", "Array", "cpu_count", "current_process",
                        "active_children", "parent_process", "freeze_support"),
    "subprocess": ("run", "Popen", "call", "check_call", "check_output", "getoutput",
                   "getstatusoutput", "CompletedProcess", "CalledProcessError", "TimeoutExpired"),
    "concurrent.futures": ("Executor", "ThreadPoolExecutor", "ProcessPoolExecutor", "Future",
                           "as_completed", "wait", "BrokenExecutor"),
    "asyncio": ("run", "Runner", "create_task", "gather", "wait", "wait_for", "sleep", "timeout",
                "to_thread", "run_coroutine_threadsafe", "get_running_loop", "Queue", "Lock",
                "Event", "Task", "Future", "open_connection", "start_server", "AbstractEventLoop"),
    "queue": ("Queue", "LifoQueue", "PriorityQueue", "SimpleQueue", "Empty", "Full"),
    "os": ("getcwd", "chdir", "listdir", "scandir", "walk", "mkdir", "makedirs", "remove", "rmdir",
           "rename", "replace", "stat", "chmod", "getenv", "getpid", "kill", "system", "fork",
           "execv", "execvp", "execl", "spawnv", "spawnl", "posix_spawn", "waitpid", "wait",
           "cpu_count", "urandom", "getrandom", "pipe", "open", "read", "write", "unlink",
           "get_terminal_size"),
    "os.path": ("abspath", "basename", "dirname", "exists", "isdir", "isfile", "join", "normpath",
                "realpath", "relpath", "split", "splitext", "expanduser", "getsize", "commonpath"),
    "pathlib": ("Path", "PurePath", "PosixPath", "PurePosixPath", "PureWindowsPath",
                "WindowsPath"),
    "shutil": ("copy", "copy2", "copyfile", "copytree", "rmtree", "move", "which", "disk_usage",
               "make_archive", "unpack_archive", "get_archive_formats", "get_unpack_formats",
               "register_archive_format"),
    "glob": ("glob", "iglob", "escape"),
    "fnmatch": ("fnmatch", "fnmatchcase", "filter", "translate"),
    "tempfile": ("TemporaryFile", "NamedTemporaryFile", "SpooledTemporaryFile",
                 "TemporaryDirectory", "mkstemp", "mkdtemp", "mktemp", "gettempdir",
                 "gettempprefix"),
    "logging": ("getLogger", "basicConfig", "Logger", "Handler", "StreamHandler", "FileHandler",
                "NullHandler", "Formatter", "LogRecord", "LoggerAdapter", "error", "exception",
                "log"),
    "unittest": ("TestCase", "TestSuite", "TestLoader", "TextTestRunner", "main", "skip", "skipIf",
                 "SkipTest"),
    "doctest": ("testmod", "testfile", "DocTestSuite", "DocTestFinder", "DocTestRunner",
                "run_docstring_examples"),
    "collections": ("namedtuple", "deque", "ChainMap", "Counter", "OrderedDict", "defaultdict",
                    "UserList"),
    "heapq": ("heappush", "heappop", "heapify", "heapreplace", "heappushpop", "merge", "nlargest",
              "nsmallest"),
    "bisect": ("bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right"),
    "itertools": ("accumulate", "chain", "combinations", "compress", "count", "groupby", "islice",
                  "pairwise", "permutations", "product"),
    "functools": ("cache", "lru_cache", "partial", "reduce", "singledispatch", "total_ordering",
                  "wraps", "cmp_to_key"),
    "xml.etree.ElementTree": ("parse", "iterparse", "fromstring", "tostring", "ElementTree", "XML",
                              "dump", "indent", "register_namespace", "canonicalize"),
    "html": ("escape", "unescape"),
    "base64": ("b64encode", "b64decode", "urlsafe_b64encode", "urlsafe_b64decode", "b32encode",
               "b32decode", "encodebytes", "decodebytes"),
    "uuid": ("UUID", "uuid1", "uuid3", "uuid4", "uuid5", "getnode", "SafeUUID"),
}

# Topics: id, query (title), question (description), narrative, grading rules.
# A rule pattern matches a document when it names the document's module or
# matches its docno (fnmatch); the first matching rule gives the grade.
TOPICS: list[dict] = [
    {
        "query": "command line argument parsing",
        "question": "How do I parse command-line options and arguments in a Python program?",
        "narrative": "Relevant: modules, classes and functions that parse sys.argv into "
                     "options and positional arguments or generate usage and help messages "
                     "(argparse, getopt, optparse). Partly relevant: tools that split a "
                     "command line into words, and where the argument list itself lives. "
                     "Not relevant: parsing other kinds of text such as URLs, CSV or XML.",
        "rules": (("argparse", 2), ("getopt", 2), ("optparse", 1), ("shlex", 1),
                  ("sys.exit", 0), ("sys", 1)),
    },
    {
        "query": "compress and archive files",
        "question": "Which modules compress data or pack several files into an archive?",
        "narrative": "Relevant: compression formats and archive containers (gzip, bz2, lzma, "
                     "zlib, zip and tar files) and their readers, writers and errors. Partly "
                     "relevant: high-level helpers that create or unpack archives. Not "
                     "relevant: copying or moving files without compressing them.",
        "rules": (("gzip", 2), ("bz2", 2), ("lzma", 2), ("zlib", 2), ("zipfile", 2),
                  ("tarfile", 2), ("shutil.make_archive", 1), ("shutil.unpack_archive", 1),
                  ("shutil.get_archive_formats", 1), ("shutil.get_unpack_formats", 1),
                  ("shutil.register_archive_format", 1)),
    },
    {
        "query": "date time arithmetic time zones",
        "question": "How do I add or subtract dates and times and convert between time zones?",
        "narrative": "Relevant: date, time, timedelta and time-zone objects and the IANA time "
                     "zone database. Partly relevant: clock functions, conversions between "
                     "timestamps and broken-down time, and calendar computations. Not "
                     "relevant: timeouts, sleeping or performance timers used for other ends.",
        "rules": (("datetime", 2), ("zoneinfo", 2), ("time.sleep", 0), ("time.perf_counter", 0),
                  ("time.process_time", 0), ("time.monotonic", 0), ("time", 1),
                  ("calendar", 1)),
    },
    {
        "query": "random numbers sampling",
        "question": "How can I generate random numbers, shuffle a list or draw a random sample?",
        "narrative": "Relevant: pseudo-random generators, random choices, shuffling, sampling "
                     "and random distributions. Partly relevant: cryptographically secure "
                     "random tokens and random identifiers. Not relevant: descriptive "
                     "statistics of existing data.",
        "rules": (("random", 2), ("secrets.compare_digest", 0), ("secrets", 1),
                  ("os.urandom", 1), ("os.getrandom", 1), ("uuid.uuid4", 1)),
    },
    {
        "query": "hashing message authentication",
        "question": "How do I compute a secure hash digest or a message authentication code?",
        "narrative": "Relevant: secure hash algorithms, key derivation and keyed-hash message "
                     "authentication codes (hashlib, hmac). Partly relevant: constant-time "
                     "digest comparison and simple checksums. Not relevant: hash tables, "
                     "encoding binary data as text.",
        "rules": (("hashlib", 2), ("hmac", 2), ("secrets.compare_digest", 1), ("zlib.crc32", 1),
                  ("zlib.adler32", 1)),
    },
    {
        "query": "run external command process",
        "question": "How do I run an external program and capture its output and exit status?",
        "narrative": "Relevant: starting child programs, waiting for them and collecting their "
                     "output and return code (subprocess, os.system, os.popen, exec and spawn "
                     "functions, asyncio subprocesses). Partly relevant: quoting a command "
                     "line and waiting for or signalling a child. Not relevant: threads, or "
                     "process pools that run Python functions.",
        "rules": (("subprocess", 2), ("os.system", 2), ("os.exec*", 2), ("os.spawn*", 2),
                  ("os.posix_spawn", 2), ("shlex.quote", 1), ("shlex.split", 1),
                  ("shlex.join", 1), ("os.wait*", 1), ("os.kill", 1), ("os.fork", 1)),
    },
    {
        "query": "regular expression matching",
        "question": "How do I search or replace text with regular expressions?",
        "narrative": "Relevant: compiling regular expressions, matching, searching, splitting "
                     "and substituting with them, and match objects (re). Partly relevant: "
                     "shell-style wildcard patterns. Not relevant: plain substring search or "
                     "fuzzy string comparison.",
        "rules": (("re", 2), ("fnmatch", 1), ("glob", 1)),
    },
    {
        "query": "read write csv json files",
        "question": "How do I read and write CSV and JSON data files?",
        "narrative": "Relevant: readers, writers, encoders, decoders and dialects for CSV and "
                     "JSON (csv, json). Not relevant: binary serialization such as pickle or "
                     "shelve, and generic file input and output.",
        "rules": (("csv", 2), ("json", 2)),
    },
    {
        "query": "temporary files and directories",
        "question": "How do I create temporary files and directories that are cleaned up?",
        "narrative": "Relevant: creating temporary files and directories and finding the "
                     "temporary directory (tempfile). Partly relevant: removing a directory "
                     "tree. Not relevant: ordinary file creation, copying or path handling.",
        "rules": (("tempfile", 2), ("shutil.rmtree", 1)),
    },
    {
        "query": "concurrency threads processes",
        "question": "How can a Python program do work concurrently with threads or processes?",
        "narrative": "Relevant: threads, process-based parallelism, executors and their "
                     "synchronization primitives (threading, multiprocessing, "
                     "concurrent.futures). Partly relevant: asyncio tasks, thread-safe queues "
                     "and forking. Not relevant: running external programs, timing code.",
        "rules": (("threading", 2), ("multiprocessing", 2), ("concurrent.futures", 2),
                  ("asyncio.to_thread", 2), ("asyncio.run_coroutine_threadsafe", 2),
                  ("asyncio", 1), ("queue", 1), ("os.fork", 1), ("os.cpu_count", 1)),
    },
]

STOPWORDS = frozenset("""
a an and are as at be been but by can do does for from has have how i if in into is it its
may me my no not of on or so such than that the their them then there these they this to
was were what when where which while who will with would you your
""".split())


# ---------------------------------------------------------------------------
# Documents


def docstring(obj: object) -> str:
    """The object's own docstring, cleaned; a class without one falls back to __init__."""
    doc = obj.__doc__ if isinstance(obj.__doc__, str) else None
    if not doc and inspect.isclass(obj):
        init = obj.__dict__.get("__init__")
        doc = getattr(init, "__doc__", None) if inspect.isfunction(init) else None
    return inspect.cleandoc(doc) if doc else ""


def clip(text: str) -> str:
    """At most about MAX_CHARS characters, cut at a word boundary."""
    if len(text) <= MAX_CHARS:
        return text
    cut = text[:MAX_CHARS]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    return cut[: space if space > MAX_CHARS // 2 else MAX_CHARS].rstrip() + " ..."


def build_docs() -> list[dict]:
    """One document per module and listed member with a docstring, sorted by docno."""
    docs: dict[str, dict] = {}
    skipped = []
    for module_name, members in MODULES.items():
        module = importlib.import_module(module_name)
        entries = [] if module_name in NO_MODULE_DOC else [(module_name, module)]
        entries += [(f"{module_name}.{name}", getattr(module, name, None)) for name in members]
        for docno, obj in entries:
            text = docstring(obj) if obj is not None else ""
            if text:
                docs[docno] = {"docno": docno, "title": docno, "text": clip(text),
                               "module": module_name}
            else:
                skipped.append(docno)
    if skipped:  # none on CPython 3.11; other versions may lack a few docstrings
        print(f"skipped (no docstring here): {', '.join(skipped)}", file=sys.stderr)
    return [docs[docno] for docno in sorted(docs)]


# ---------------------------------------------------------------------------
# Text processing


def stem(word: str) -> str:
    """A very light suffix stripper (plurals, -ing, -ed, final -e)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix, minimum in (("ing", 6), ("ed", 5)):
        if len(word) >= minimum and word.endswith(suffix):
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    else:
        if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lowercase, split on non-alphanumerics, drop stopwords, stem."""
    return [stem(token) for token in re.split(r"[^a-z0-9]+", text.lower())
            if token and token not in STOPWORDS]


class Index:
    """Term statistics over the documents' title and text."""

    def __init__(self, docs: list[dict]) -> None:
        self.docnos = [doc["docno"] for doc in docs]
        self.titles = [doc["title"].lower() for doc in docs]
        self.tf = [Counter(tokenize(doc["title"] + " " + doc["text"])) for doc in docs]
        self.length = [sum(tf.values()) for tf in self.tf]
        self.n = len(docs)
        self.avgdl = sum(self.length) / self.n
        self.df: Counter[str] = Counter()
        self.cf: Counter[str] = Counter()
        for tf in self.tf:
            self.df.update(tf.keys())
            self.cf.update(tf)
        self.total = sum(self.cf.values())


# ---------------------------------------------------------------------------
# Retrievers: each maps (index, query terms) to one score per document, or None
# for a document that does not match at all.

Scores = list[float | None]


def bm25(index: Index, terms: list[str], k1: float = 0.9, b: float = 0.4) -> Scores:
    scores: Scores = [None] * index.n
    for term in terms:
        df = index.df[term]
        if not df:
            continue
        idf = math.log(1 + (index.n - df + 0.5) / (df + 0.5))
        for i, tf in enumerate(index.tf):
            if tf[term]:
                norm = k1 * (1 - b + b * index.length[i] / index.avgdl)
                scores[i] = (scores[i] or 0.0) + idf * tf[term] * (k1 + 1) / (tf[term] + norm)
    return scores


def tfidf(index: Index, terms: list[str]) -> Scores:
    """Cosine between (1 + log tf) * log(N / df) vectors of query and document."""
    def weights(tf: Counter[str]) -> dict[str, float]:
        return {term: (1 + math.log(count)) * math.log(index.n / index.df[term])
                for term, count in sorted(tf.items()) if index.df[term]}

    query = weights(Counter(terms))
    query_norm = math.sqrt(sum(w * w for w in query.values()))
    scores: Scores = [None] * index.n
    if not query_norm:
        return scores
    for i, tf in enumerate(index.tf):
        if not any(tf[term] for term in query):
            continue
        doc = weights(tf)
        doc_norm = math.sqrt(sum(w * w for w in doc.values()))
        if doc_norm:
            dot = sum(weight * doc.get(term, 0.0) for term, weight in query.items())
            scores[i] = dot / (query_norm * doc_norm)
    return scores


def title_match(index: Index, terms: list[str]) -> Scores:
    """The number of distinct query terms found inside the title (docno): integer scores."""
    distinct = sorted(set(term for term in terms if len(term) >= 3))
    scores: Scores = [None] * index.n
    for i, title in enumerate(index.titles):
        hits = sum(term in title for term in distinct)
        if hits:
            scores[i] = float(hits)
    return scores


def query_likelihood(index: Index, terms: list[str], mu: float = 1000.0) -> Scores:
    """Dirichlet-smoothed query likelihood (log); only documents with a query term."""
    known = [term for term in terms if index.cf[term]]
    scores: Scores = [None] * index.n
    for i, tf in enumerate(index.tf):
        if not any(tf[term] for term in known):
            continue
        scores[i] = sum(
            math.log((tf[term] + mu * index.cf[term] / index.total) / (index.length[i] + mu))
            for term in known
        )
    return scores


RETRIEVERS: tuple[tuple[str, str, Callable[[Index, list[str]], Scores]], ...] = (
    ("bm25.run", "bm25", bm25),
    ("tfidf.run", "tfidf", tfidf),
    ("title.run", "titlematch", title_match),
    ("ql.run", "qld", query_likelihood),
)


def overlap(index: Index, terms: list[str]) -> Scores:
    """The number of distinct query terms in each document (used only to fill runs)."""
    distinct = sorted(set(terms))
    return [float(sum(tf[term] > 0 for term in distinct)) for tf in index.tf]


def rank(index: Index, scores: Scores, terms: list[str]) -> list[tuple[str, float]]:
    """The top DEPTH (docno, score) pairs, by printed score desc then docno desc.

    That is the order trec_eval (and pooltool) give tied scores. A retriever
    that matches fewer than DEPTH documents (the title matcher) is filled up
    with the documents sharing most query terms, all with one tied score below
    its lowest (0 for the title matcher), so every topic has DEPTH lines.
    """
    matched = [(round(s, 4), index.docnos[i]) for i, s in enumerate(scores) if s is not None]
    ranked = sorted(matched, reverse=True)[:DEPTH]
    if len(ranked) < DEPTH:
        seen = {docno for _, docno in ranked}
        fill_score = min(0.0, min(score for score, _ in ranked) - 1) if ranked else 0.0
        candidates = sorted(
            ((count, docno) for count, docno in zip(overlap(index, terms), index.docnos, strict=True)
             if docno not in seen),
            key=lambda pair: (-pair[0], pair[1]),
        )[: DEPTH - len(ranked)]
        ranked += sorted(((fill_score, docno) for _, docno in candidates), reverse=True)
    return [(docno, score) for score, docno in ranked]


# ---------------------------------------------------------------------------
# Judgments


def grade(topic: dict, doc: dict) -> int:
    for pattern, value in topic["rules"]:
        if doc["module"] == pattern or fnmatchcase(doc["docno"], pattern):
            return value
    return 0


def judged(topic_id: int, runs: dict[str, list[str]], relevant: dict[str, int]) -> set[str]:
    """The judged docnos of one topic.

    All topics: the union of every run's top 5 (relevant or not). Even-numbered
    topics also get the relevant documents of the BM25 run's top 10, as if the
    assessors had gone deeper on that run alone. The union top 10 of every
    topic thus keeps unjudged documents for the judging UI.
    """
    chosen = {docno for ranking in runs.values() for docno in ranking[:5]}
    if topic_id % 2 == 0:
        chosen |= {docno for docno in runs["bm25.run"][:10] if relevant.get(docno, 0) > 0}
    return chosen


# ---------------------------------------------------------------------------
# Writing


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def topics_xml() -> str:
    lines = ["<topics>"]
    for number, topic in enumerate(TOPICS, start=1):
        lines += [
            f'  <topic number="{number}">',
            f"    <query>{escape(topic['query'])}</query>",
            f"    <question>{escape(topic['question'])}</question>",
            f"    <narrative>{escape(topic['narrative'])}</narrative>",
            "  </topic>",
        ]
    lines.append("</topics>")
    return "\n".join(lines) + "\n"


def main() -> int:
    docs = build_docs()
    index = Index(docs)
    by_docno = {doc["docno"]: doc for doc in docs}

    write(HERE / "docs.jsonl", "".join(
        json.dumps({key: doc[key] for key in ("docno", "title", "text")}, ensure_ascii=False)
        + "\n" for doc in docs))
    write(HERE / "topics.xml", topics_xml())

    rankings: dict[str, dict[int, list[str]]] = {name: {} for name, _, _ in RETRIEVERS}
    for name, tag, retriever in RETRIEVERS:
        lines = []
        for number, topic in enumerate(TOPICS, start=1):
            terms = tokenize(topic["query"])
            ranked = rank(index, retriever(index, terms), terms)
            rankings[name][number] = [docno for docno, _ in ranked]
            lines += [f"{number} Q0 {docno} {position} {score:.4f} {tag}"
                      for position, (docno, score) in enumerate(ranked, start=1)]
        write(HERE / "runs" / name, "\n".join(lines) + "\n")

    qrels, summary = [], []
    for number, topic in enumerate(TOPICS, start=1):
        grades = {doc["docno"]: grade(topic, doc) for doc in docs}
        runs = {name: rankings[name][number] for name in rankings}
        chosen = judged(number, runs, grades)
        qrels += [f"{number} 0 {docno} {grades[docno]}" for docno in sorted(chosen)]
        pool10 = {docno for ranking in runs.values() for docno in ranking[:10]}
        summary.append((number, topic["query"], len(pool10), len(chosen & pool10),
                        sum(grades[d] > 0 for d in chosen), sum(g > 0 for g in grades.values())))
    write(HERE / "qrels.txt", "\n".join(qrels) + "\n")

    check(docs, rankings, qrels, by_docno)
    report(docs, rankings, qrels, summary)
    return 0


def check(docs: list[dict], rankings: dict, qrels: list[str], by_docno: dict) -> None:
    assert len(by_docno) == len(docs), "duplicate docnos"
    for name, per_topic in rankings.items():
        assert len(per_topic) == len(TOPICS), name
        for number, ranking in per_topic.items():
            assert len(ranking) == DEPTH, (name, number)
            assert len(set(ranking)) == DEPTH, (name, number)
            assert all(docno in by_docno for docno in ranking), (name, number)
    for line in qrels:
        assert line.split()[2] in by_docno, line
    size = (HERE / "docs.jsonl").stat().st_size
    assert size < 1_000_000, f"docs.jsonl is {size} bytes"


def report(docs: list[dict], rankings: dict, qrels: list[str], summary: list) -> None:
    size = (HERE / "docs.jsonl").stat().st_size
    print(f"docs:   {len(docs)} ({len(MODULES)} modules, docs.jsonl {size} bytes)")
    print(f"topics: {len(TOPICS)}")
    print(f"runs:   {', '.join(rankings)} ({DEPTH} docs per topic)")
    grades = Counter(line.split()[3] for line in qrels)
    print(f"qrels:  {len(qrels)} lines (grade 0: {grades['0']}, 1: {grades['1']}, "
          f"2: {grades['2']})")
    pool = sum(row[2] for row in summary)
    done = sum(row[3] for row in summary)
    print(f"pool@10: {pool} pairs, {done} judged ({100 * done / pool:.0f}%), "
          f"{pool - done} left to judge")
    print("topic  pool@10  judged  relevant-judged  relevant-by-rule  query")
    for number, query, pool10, judged10, rel, rel_all in summary:
        print(f"{number:>5}  {pool10:>7}  {judged10:>6}  {rel:>15}  {rel_all:>16}  {query}")


if __name__ == "__main__":
    sys.exit(main())
