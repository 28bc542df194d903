"""The Postgres schema, versioned in `schema_version`, and the migrations that reach it.

Migrations run on open (`migrate=True`) or from `PostgresEngine.upgrade()`, under a session advisory
lock, so replicas starting together apply each step once; each step is one transaction that re-reads
the version first. A database newer than this code is a Conflict and is never touched.

The tables mirror the SQLite engine's (times are BIGINT microseconds since the epoch, UTC), plus:
- `tenant` on every tenant-owned table: the first namespace segment, the row-level security key (and
  the column to distribute on, should the tables ever be sharded);
- `items.tsv`, the lexical index: a tsvector built from our own analyzer's terms (weights A title,
  B body, C neighbouring turns), with the analysed column texts beside it so forget and the thread
  relink can take exact counts out of the statistics;
- `vectors.vec`, a pgvector column without a fixed size; an HNSW index per (embedder, dim) is created
  when an engine with that embedder opens (`ensure_vector_index`).
"""

from __future__ import annotations

import hashlib
import logging

import psycopg
from psycopg import sql

from tinymemory.api.errors import Conflict, Unavailable

SCHEMA_VERSION = 2

# advisory lock classes (the two-key form keeps them apart from any other user of advisory locks)
LOCK_CLASS_MIGRATE = 0x746D0001
LOCK_CLASS_TENANT = 0x746D0002
LOCK_CLASS_GLOBAL = 0x746D0003

HNSW_MAX_DIM = 2000  # pgvector's limit for an HNSW index over `vector`

_log = logging.getLogger(__name__)

_BASE = """
CREATE TABLE IF NOT EXISTS schema_version (
    one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS engine_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)
"""

_TENANT_TABLES = ("items", "item_tags", "item_evidence", "relations", "vectors", "lex_ns", "lex_df")

_V1 = """
CREATE FUNCTION tinymemory_tenant_ok(t text) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT CASE coalesce(current_setting('tinymemory.tenants', true), '')
        WHEN '' THEN false
        WHEN '*' THEN true
        ELSE t = ANY (string_to_array(current_setting('tinymemory.tenants', true), ','))
    END
$$;
CREATE TABLE items (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    ckey TEXT NOT NULL,
    generation INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    confidence DOUBLE PRECISION,
    ns TEXT COLLATE "C" NOT NULL,
    source_kind TEXT,
    source_id TEXT,
    workspace TEXT,
    folder TEXT,
    file_path TEXT,
    language TEXT,
    repo TEXT,
    url TEXT,
    thread_id TEXT,
    agent_id TEXT,
    tool_call TEXT,
    learning_kind TEXT,
    title TEXT,
    summary TEXT,
    purpose TEXT,
    category TEXT,
    about_kind TEXT,
    about_key TEXT,
    parent TEXT,
    parent_title TEXT,
    observed_at BIGINT NOT NULL,
    event_from BIGINT,
    event_to BIGINT,
    valid_from BIGINT NOT NULL,
    valid_to BIGINT,
    forgotten_at BIGINT,
    superseded_by TEXT,
    supersedes TEXT,
    extra TEXT NOT NULL DEFAULT '{}',
    lex_len INTEGER NOT NULL DEFAULT 0,
    lex_title TEXT,
    lex_body TEXT,
    lex_context TEXT,
    tsv tsvector
);
CREATE INDEX items_ckey ON items (ckey);
CREATE INDEX items_observed ON items (observed_at DESC, id DESC);
CREATE INDEX items_ns_observed ON items (ns, observed_at DESC, id DESC);
CREATE INDEX items_about ON items (about_kind, about_key, ns);
CREATE INDEX items_parent ON items (parent);
CREATE INDEX items_thread ON items (thread_id, ns, rowid);
CREATE INDEX items_ns_active ON items (ns, kind) WHERE valid_to IS NULL AND forgotten_at IS NULL;
CREATE INDEX items_forgotten ON items (forgotten_at) WHERE forgotten_at IS NOT NULL;
CREATE INDEX items_tsv ON items USING gin (tsv);
CREATE TABLE item_tags (
    tenant TEXT COLLATE "C" NOT NULL,
    tag TEXT NOT NULL,
    item_rowid BIGINT NOT NULL,
    PRIMARY KEY (tag, item_rowid)
);
CREATE INDEX item_tags_item ON item_tags (item_rowid);
CREATE TABLE item_evidence (
    tenant TEXT COLLATE "C" NOT NULL,
    cites TEXT NOT NULL,
    item_rowid BIGINT NOT NULL,
    PRIMARY KEY (cites, item_rowid)
);
CREATE INDEX item_evidence_item ON item_evidence (item_rowid);
CREATE TABLE relations (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant TEXT COLLATE "C" NOT NULL,
    item_rowid BIGINT NOT NULL,
    subject TEXT NOT NULL,
    subject_key TEXT NOT NULL,
    type TEXT NOT NULL,
    object TEXT NOT NULL,
    object_key TEXT NOT NULL
);
CREATE INDEX relations_subject ON relations (subject_key, type);
CREATE INDEX relations_object ON relations (object_key, type);
CREATE INDEX relations_item ON relations (item_rowid);
CREATE TABLE vectors (
    item_rowid BIGINT PRIMARY KEY,
    tenant TEXT COLLATE "C" NOT NULL,
    embedder TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec vector NOT NULL
);
CREATE INDEX vectors_embedder ON vectors (embedder, dim, item_rowid);
CREATE TABLE lex_ns (
    ns TEXT COLLATE "C" PRIMARY KEY,
    tenant TEXT COLLATE "C" NOT NULL,
    docs BIGINT NOT NULL,
    tokens BIGINT NOT NULL
);
CREATE TABLE lex_df (
    term TEXT NOT NULL,
    ns TEXT COLLATE "C" NOT NULL,
    tenant TEXT COLLATE "C" NOT NULL,
    df BIGINT NOT NULL,
    PRIMARY KEY (term, ns)
)
"""


def _policies() -> str:
    """Row-level security on every tenant-owned table, forced so the owning role is bound by it too."""
    out = []
    for table in _TENANT_TABLES:
        out.append(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        out.append(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
        out.append(
            f"CREATE POLICY {table}_tenant ON {table}"
            " USING (tinymemory_tenant_ok(tenant)) WITH CHECK (tinymemory_tenant_ok(tenant))"
        )
    return ";\n".join(out)


def _statements(script: str) -> list[str]:
    """Split on `;` at line ends (the function body's own semicolons sit inside `$$`)."""
    out: list[str] = []
    current: list[str] = []
    quoted = False
    for line in script.splitlines():
        if line.count("$$") % 2:
            quoted = not quoted
        current.append(line)
        if not quoted and line.rstrip().endswith(";"):
            out.append("\n".join(current).rstrip().rstrip(";"))
            current = []
    tail = "\n".join(current).strip()
    if tail:
        out.append(tail)
    return [s for s in out if s.strip()]


# Version 2: every key holds the tenant, so a row of one tenant never collides with another's. Ids come
# from content (api/ids.py): under a global UNIQUE (id), inserting a guessed memory's id into one's own
# tenant failed exactly when another tenant held that memory; the same held for a namespace in lex_ns, a
# (term, namespace) in lex_df, and every row id. The leading columns stay first, so every lookup keeps
# its index. Row ids stay unique across tenants all the same: they come from one identity sequence.
_PER_TENANT_KEYS = (
    ("items", "items_pkey", "PRIMARY KEY (rowid, tenant)"),
    ("items", "items_id_key", "UNIQUE (id, tenant)"),
    ("item_tags", "item_tags_pkey", "PRIMARY KEY (tag, item_rowid, tenant)"),
    ("item_evidence", "item_evidence_pkey", "PRIMARY KEY (cites, item_rowid, tenant)"),
    ("relations", "relations_pkey", "PRIMARY KEY (rowid, tenant)"),
    ("vectors", "vectors_pkey", "PRIMARY KEY (item_rowid, tenant)"),
    ("lex_ns", "lex_ns_pkey", "PRIMARY KEY (ns, tenant)"),
    ("lex_df", "lex_df_pkey", "PRIMARY KEY (term, ns, tenant)"),
)

# Statistics: the planner's samples of a column (most common values, histogram bounds) shape EXPLAIN's
# row estimates for any role that may read the table, row-level security or not (equality and ordering
# of text are leakproof, so the planner uses them under a policy): a tenant could bisect the sampled
# bounds of another tenant's texts. The columns that only carry what a memory says, which no query
# filters, orders or joins on, keep no statistics: the type is restated to drop the samples already
# taken (ANALYZE with a target of 0 leaves old ones), and the target set to 0. The columns queries do
# filter on (namespace, tenant, ids, keys, kinds, terms, tags) keep theirs: without them the planner's
# cached plans for a reach turn to sequential scans (measured: the bounded count of a user's reach went
# from 0.8 to 7-10 ms at 30,000 rows, and a sequential scan grows with the table).
_PAYLOAD_COLUMNS = {
    "items": (
        "text", "workspace", "folder", "file_path", "language", "repo", "url", "agent_id", "tool_call",
        "title", "summary", "purpose", "parent_title", "superseded_by", "supersedes", "extra",
        "lex_title", "lex_body", "lex_context",
    ),
    "relations": ("subject", "object"),
}  # fmt: skip


def _without_statistics(table: str, columns: tuple[str, ...]) -> str:
    changes = ", ".join(
        f'ALTER COLUMN {c} TYPE text COLLATE "default", ALTER COLUMN {c} SET STATISTICS 0' for c in columns
    )
    return f"ALTER TABLE {table} {changes}"


# Sequences: the row id sequences count every tenant's writes. The service role needs no right on them
# (an identity column fills itself, and the engine reads the ids its inserts return), and with USAGE it
# could still read the count (`pg_sequence_last_value`, `pg_sequences`) or draw from it (`nextval`). Every
# role but the owner loses every right on them, and on the sequences the owner creates later.
_SEQUENCES_OWNER_ONLY = """
DO $$
DECLARE grant_row record;
BEGIN
    FOR grant_row IN
        SELECT s.seq, CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE g.grantee::regrole::text END AS who
        FROM (SELECT pg_get_serial_sequence('items', 'rowid')::regclass AS seq
              UNION ALL SELECT pg_get_serial_sequence('relations', 'rowid')::regclass) s
        JOIN pg_class c ON c.oid = s.seq
        CROSS JOIN LATERAL aclexplode(coalesce(c.relacl, acldefault('S', c.relowner))) g
        WHERE g.grantee <> c.relowner
        GROUP BY 1, 2
    LOOP
        EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM %s', grant_row.seq, grant_row.who);
    END LOOP;
    FOR grant_row IN
        SELECT d.defaclrole::regrole AS owner, d.defaclnamespace AS space,
            CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE g.grantee::regrole::text END AS who
        FROM pg_default_acl d CROSS JOIN LATERAL aclexplode(d.defaclacl) g
        WHERE d.defaclobjtype = 'S' AND g.grantee <> d.defaclrole
            AND pg_has_role(current_user, d.defaclrole, 'MEMBER')
        GROUP BY 1, 2, 3
    LOOP
        EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %s %s REVOKE ALL ON SEQUENCES FROM %s',
            grant_row.owner,
            CASE WHEN grant_row.space = 0 THEN '' ELSE 'IN SCHEMA ' || grant_row.space::regnamespace END,
            grant_row.who);
    END LOOP;
END
$$
"""


def _v2() -> list[str]:
    """Schema 1 to 2: keys per tenant, no statistics on what memories say, sequences the owner's alone."""
    out = [
        f"ALTER TABLE {table} DROP CONSTRAINT {name}, ADD CONSTRAINT {name} {key}"
        for table, name, key in _PER_TENANT_KEYS
    ]
    out += [_without_statistics(table, columns) for table, columns in _PAYLOAD_COLUMNS.items()]
    out.append(_SEQUENCES_OWNER_ONLY.strip())
    return out


# MIGRATIONS[n] takes a database at version n to version n + 1. A step, once released, never changes:
# databases were built with it (tests/postgres/fixtures/schema_v1.sql holds step 0 as released).
MIGRATIONS: dict[int, list[str]] = {
    0: _statements(_V1) + _statements(_policies() + ";"),
    1: _v2(),
}


async def _version(conn: psycopg.AsyncConnection[tuple[object, ...]]) -> int:
    cur = await conn.execute("SELECT version FROM schema_version")
    row = await cur.fetchone()
    return 0 if row is None else int(str(row[0]))


async def _ensure_extension(conn: psycopg.AsyncConnection[tuple[object, ...]]) -> None:
    """pgvector must be installed; create it when this role may, else say who must."""
    cur = await conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
    if await cur.fetchone() is not None:
        return
    try:
        async with conn.transaction():
            await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as exc:
        raise Unavailable(
            "open: the database lacks the pgvector extension and this role cannot create it"
            f" ({str(exc).strip()}); run `CREATE EXTENSION vector;` in this database as a superuser"
        ) from None


async def schema_version(conn: psycopg.AsyncConnection[tuple[object, ...]]) -> int:
    """The database's schema version (0: never migrated)."""
    cur = await conn.execute("SELECT to_regclass('schema_version') IS NOT NULL")
    row = await cur.fetchone()
    if row is None or not row[0]:
        return 0
    return await _version(conn)


def _too_new(found: int, target: int) -> Conflict:
    return Conflict(f"open: database schema version {found} is newer than this tinymemory ({target})")


async def migrate(conn: psycopg.AsyncConnection[tuple[object, ...]], target: int = SCHEMA_VERSION) -> int:
    """Bring the database up to `target`, one transaction per step; return the version found.

    `conn` is in autocommit mode; the whole run holds a session advisory lock, so concurrent openers
    wait and then find the work done.
    """
    await conn.execute("SELECT pg_advisory_lock(%s, 0)", (LOCK_CLASS_MIGRATE,))
    try:
        start = await schema_version(conn)
        if start > target:
            raise _too_new(start, target)
        if start == target:
            return start
        await _ensure_extension(conn)
        try:
            await _steps(conn, target)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise Unavailable(
                f"open: the database schema is at version {start} and this tinymemory needs {target}, but"
                f" this role may not change the schema ({str(exc).strip()}); run `tinymemory db upgrade`"
                " as the database's owner"
            ) from None
        return start
    finally:
        await conn.execute("SELECT pg_advisory_unlock(%s, 0)", (LOCK_CLASS_MIGRATE,))


async def _steps(conn: psycopg.AsyncConnection[tuple[object, ...]], target: int) -> None:
    """The pending migration steps, one transaction each, each re-reading the version first."""
    async with conn.transaction():
        for statement in _statements(_BASE + ";"):
            await conn.execute(statement)
    while True:
        async with conn.transaction():
            # the migrations touch rows of every tenant
            await conn.execute("SELECT set_config('tinymemory.tenants', '*', true)")
            current = await _version(conn)
            if current >= target:
                return
            for statement in MIGRATIONS[current]:
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO schema_version (one, version) VALUES (true, %s)"
                " ON CONFLICT (one) DO UPDATE SET version = excluded.version",
                (current + 1,),
            )


async def check_version(
    conn: psycopg.AsyncConnection[tuple[object, ...]], target: int = SCHEMA_VERSION
) -> None:
    """Without migrating: the database must be at exactly `target`."""
    found = await schema_version(conn)
    if found > target:
        raise _too_new(found, target)
    if found < target:
        raise Conflict(
            f"open: database schema version {found} is older than this tinymemory ({target});"
            " run `tinymemory db upgrade` (or open with migrate=True)"
        )


def vector_index_name(embedder: str, dim: int) -> str:
    digest = hashlib.sha256(f"{embedder}\x00{dim}".encode()).hexdigest()[:16]
    return f"vectors_hnsw_{digest}"


def vector_expression(dim: int) -> sql.Composed:
    """`vec::vector(dim)`: the typed expression the per-embedder HNSW index is built on."""
    return sql.SQL("vec::vector({})").format(sql.Literal(int(dim)))


async def ensure_vector_index(
    conn: psycopg.AsyncConnection[tuple[object, ...]], embedder: str, dim: int
) -> bool:
    """Create the HNSW index of one embedder's vectors if missing (under the migration lock); False when
    the size is past what HNSW takes (search then stays exact) or this role may not create it."""
    if not 1 <= dim <= HNSW_MAX_DIM:
        return False
    name = vector_index_name(embedder, dim)
    await conn.execute("SELECT pg_advisory_lock(%s, 0)", (LOCK_CLASS_MIGRATE,))
    try:
        cur = await conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,))
        row = await cur.fetchone()
        if row is not None and row[0]:
            return True
        statement = sql.SQL(
            "CREATE INDEX IF NOT EXISTS {name} ON vectors USING hnsw (({expr}) vector_cosine_ops)"
            " WHERE embedder = {embedder} AND dim = {dim}"
        ).format(
            name=sql.Identifier(name),
            expr=vector_expression(dim),
            embedder=sql.Literal(embedder),
            dim=sql.Literal(int(dim)),
        )
        try:
            async with conn.transaction():
                await conn.execute(statement)
        except psycopg.errors.InsufficientPrivilege as exc:
            _log.warning(
                "postgres: cannot create the vector index %s (%s); semantic search stays exact", name, exc
            )
            return False
        return True
    finally:
        await conn.execute("SELECT pg_advisory_unlock(%s, 0)", (LOCK_CLASS_MIGRATE,))
