"""One way to open a store from its name: a `postgresql://` URL or a SQLite file path.

The rule is deliberately simple, so a host, the CLI and the service all read a target the same way:

- a string starting with `postgresql://` or `postgres://` opens the PostgreSQL engine;
- any other string or `Path` is a SQLite file (created if missing);
- `None` is the default SQLite file (`$TINYMEMORY_HOME/memory.db`, else the user data dir);
- a URL of another scheme opens the engine an installed package registers for that scheme under the
  `tinymemory.engines` entry point group (`memo = "mypkg.engine:open_memo"`: a callable taking the
  target and the keywords below and returning a MemoryEngine; docs/architecture/engines.md).

libpq's `key=value` connection strings and URL schemes nothing registers are refused with a message
saying what to write instead, rather than silently becoming an oddly named SQLite file. The PostgreSQL
engine (and so psycopg) is imported only when a URL asks for it. Targets may carry a password: show
them through `redact`, never as given.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from pathlib import Path
from typing import Any

from tinymemory.api.engine import MemoryEngine
from tinymemory.api.errors import InvalidRequest, Unsupported

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
POSTGRES_EXTRA = "tinymemory[postgres]"
# The modules the PostgreSQL engine needs beyond tinymemory's own.
_DRIVER_MODULES = frozenset({"psycopg", "psycopg_pool", "pgvector", "psycopg_binary", "psycopg_c"})
_OTHER_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# The start of a libpq key=value string: a connection keyword, then `=`.
_LIBPQ_KEYWORDS = re.compile(
    r"^\s*(host|hostaddr|port|dbname|user|password|passfile|service|sslmode|options|"
    r"connect_timeout|application_name|target_session_attrs)\s*=",
    re.IGNORECASE,
)
ENTRY_POINT_GROUP = "tinymemory.engines"
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)
MASK = "***"


def is_postgres_url(target: object) -> bool:
    """Whether `target` names a PostgreSQL store (a `postgresql://` or `postgres://` string)."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def redact(target: str | Path | None) -> str:
    """`target` fit for logs and messages: a URL's password (in the user part or a `password=`
    parameter) becomes `***`; a path is shown as it is; None is shown as `default`."""
    if target is None:
        return "default"
    text = str(target)
    match = _OTHER_URL.match(text)
    if match is None:
        return text
    scheme, rest = match.group(0), text[match.end() :]
    # The user part ends at the last `@` before the query: a password is percent-encoded by rule, but
    # a careless one may hold `/` or `@`, and masking too much is the safe way to be wrong.
    query_at = rest.find("?")
    head, tail = (rest, "") if query_at < 0 else (rest[:query_at], rest[query_at:])
    at = head.rfind("@")
    if at >= 0:
        userinfo, host = head[:at], head[at:]
        user, colon, _ = userinfo.partition(":")
        head = f"{user}:{MASK}{host}" if colon else head
    return scheme + head + _QUERY_PASSWORD.sub(lambda m: m.group(1) + MASK, tail)


def _refuse(target: str) -> None:
    """Strings that look like another kind of connection string: say what to write instead."""
    if not target.strip():
        raise InvalidRequest("open: `target` is empty; give a SQLite file path or a postgresql:// URL")
    if _LIBPQ_KEYWORDS.match(target):
        raise InvalidRequest(
            "open: `target` looks like a libpq key=value string, which is not accepted; "
            "write it as a postgresql://user@host:port/dbname URL"
        )
    match = _OTHER_URL.match(target)
    if match is not None:
        raise InvalidRequest(
            f"open: `target` has the scheme `{match.group(0)}`, which no installed engine registers; a "
            "store is a SQLite file path, a postgresql:// (or postgres://) URL, or a URL of a scheme "
            f"registered in the `{ENTRY_POINT_GROUP}` entry point group"
        )
    if "\x00" in target:
        raise InvalidRequest("open: `target` holds a NUL character")


def open_engine(target: str | Path | None, *, embedder: Any = "default", **kw: Any) -> MemoryEngine:
    """The engine for `target` (see the module's rule). `embedder` ("default", an Embedder or None)
    and the other keywords go to the engine's constructor: `answerer`, `analyzer`, `retrieval` for
    both; PostgreSQL also takes `min_size`, `max_size` and `migrate`.

    Nothing connects here: SQLite opens its file, and PostgreSQL its pool, on first use. Raises
    InvalidRequest for a target that is neither a path nor a postgresql:// URL, and Unsupported when
    a URL is given but the PostgreSQL driver is not installed."""
    if is_postgres_url(target):
        assert isinstance(target, str)
        return _postgres(target, embedder, kw)
    if isinstance(target, str) and (registered := _registered(target)) is not None:
        return _open_registered(registered, target, embedder, kw)
    if target is not None and not isinstance(target, str | Path):
        raise InvalidRequest(
            f"open: `target` must be a SQLite file path or a postgresql:// URL, got {type(target).__name__}"
        )
    if isinstance(target, str):
        _refuse(target)
    if target is not None and Path(target).is_dir():
        raise InvalidRequest(f"open: `target` {redact(target)!r} is a folder, not a SQLite file")
    from tinymemory.engines.sqlite import SqliteEngine

    return SqliteEngine(target, embedder=embedder, **kw)


def sqlite_file(target: str | Path | None) -> Path | None:
    """The SQLite file `target` names by the module's rule (None: the default file's name, its folder
    not created), or None when it names a server or a registered engine; refused as `open_engine`
    refuses it. Lets a caller ask whether the file exists before opening (which would create it)."""
    if is_postgres_url(target) or (isinstance(target, str) and _registered(target) is not None):
        return None
    if isinstance(target, str):
        _refuse(target)
    from tinymemory.engines.paths import default_db_path

    return default_db_path(create=False) if target is None else Path(target)


def _registered(target: str) -> importlib.metadata.EntryPoint | None:
    """The entry point an installed package registers for `target`'s URL scheme, if any."""
    match = _OTHER_URL.match(target)
    if match is None:
        return None
    scheme = match.group(0)[: -len("://")].lower()
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name.lower() == scheme:
            return entry
    return None


def _open_registered(
    entry: importlib.metadata.EntryPoint, target: str, embedder: Any, kw: dict[str, Any]
) -> MemoryEngine:
    """Call the registered opener; a broken registration is Unsupported, naming the scheme."""
    scheme = f"{entry.name}://"
    try:
        opener = entry.load()
    except Exception as exc:
        raise Unsupported(
            f"open: the engine registered for `{scheme}` ({entry.value}) does not load: {exc}"
        ) from exc
    engine = opener(target, embedder=embedder, **kw)
    if not isinstance(engine, MemoryEngine):
        raise Unsupported(
            f"open: the engine registered for `{scheme}` ({entry.value}) returned "
            f"{type(engine).__name__}, not a MemoryEngine"
        )
    return engine


def _postgres(url: str, embedder: Any, kw: dict[str, Any]) -> MemoryEngine:
    try:
        module = importlib.import_module("tinymemory.engines.postgres")
        engine_class = module.PostgresEngine
    except ImportError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing not in _DRIVER_MODULES:
            raise
        raise Unsupported(
            f"open: a postgresql:// store needs the PostgreSQL driver ({missing} is not installed); "
            f'install it with `pip install "{POSTGRES_EXTRA}"`'
        ) from None
    except AttributeError:
        raise Unsupported("open: this tinymemory has no PostgreSQL engine") from None
    engine: MemoryEngine = engine_class(url, embedder=embedder, **kw)
    return engine
