"""Disk per item: the bytes each table and index of a SQLite file takes per stored item, schema 8 beside 9.

One file is filled with `--items` synthetic items through the default embedder (as bench/coldstart.py
does) and VACUUMed. A copy of it is then put back into schema 8's layout (float32 vectors, content keys as
64 hex digits, term counts keyed by namespace name, full indexes on the optional columns) and VACUUMed:
the same items in both layouts, measured with SQLite's `dbstat` table (pages of each b-tree, so the
unused space inside pages counts). A second copy of the schema 8 file is opened by the engine, which
upgrades it in place, to show what an old file becomes.

    python bench/disk.py [--items 100000] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from coldstart import build
from report import machine_line, table, write_section
from tinymemory.engines.sqlite.fts_terms import TOKENIZER

ISSUE_V8 = 2189  # the issue's figure for a 100k file before schema 9
TARGET = 1000
Measured = tuple[dict[str, int], int, int, int]  # bytes per object, items, file bytes, text bytes
FTS = ("items_fts_data", "items_fts_idx", "items_fts_content", "items_fts_docsize", "items_fts_config")
LABELS = {
    "sqlite_autoindex_items_1": "items id (UNIQUE index)",
    "sqlite_autoindex_lex_ns_1": "lex_ns name (UNIQUE index)",
    "lex_df": "lex_df (schema 8) / lex_terms (9)",
    "lex_terms": "lex_df (schema 8) / lex_terms (9)",
}
OPTIONAL_INDEXES = {
    "items_about": "about_kind, about_key, ns",
    "items_thread_ns": "thread_id, ns",
    "items_parent": "parent",
}
# Schema 11's layout from today's (12): the analysed columns back in FTS5 with its row vocabulary
TO_V11 = (
    f"CREATE VIRTUAL TABLE items_fts USING fts5(title, body, context, tokenize = '{TOKENIZER}')",
    "INSERT INTO items_fts (rowid, title, body, context) SELECT doc, title, body, context FROM lex_docs",
    "CREATE VIRTUAL TABLE items_vocab USING fts5vocab(items_fts, 'row')",
    "DROP TABLE lex_docs",
)

TO_V8 = (
    "CREATE TABLE old_ns (ns TEXT PRIMARY KEY, docs INTEGER NOT NULL, tokens INTEGER NOT NULL) WITHOUT ROWID",
    "INSERT INTO old_ns SELECT ns, docs, tokens FROM lex_ns",
    "CREATE TABLE old_df (term TEXT NOT NULL, ns TEXT NOT NULL, df INTEGER NOT NULL,"
    " PRIMARY KEY (term, ns)) WITHOUT ROWID",
    "INSERT INTO old_df SELECT term, ns, df FROM lex_df",
    "DROP VIEW lex_df",
    "DROP TABLE lex_terms",
    "DROP TABLE lex_ns",
    "ALTER TABLE old_ns RENAME TO lex_ns",
    "ALTER TABLE old_df RENAME TO lex_df",
    "UPDATE items SET ckey = lower(hex(ckey)) WHERE typeof(ckey) = 'blob'",
    "DROP TABLE lex_postings",
    "CREATE VIRTUAL TABLE items_postings USING fts5vocab(items_fts, 'instance')",
)


def vacuum(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def to_version_11(conn: sqlite3.Connection) -> None:
    """Schema 11's layout for the same rows, in one transaction on `conn` (a file of today's schema)."""
    conn.execute("BEGIN IMMEDIATE")
    for statement in TO_V11:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 11")
    conn.execute("COMMIT")


def to_version_8(path: Path) -> None:
    """Schema 8's layout for the same rows (the float32 values are the float16 ones widened: the same
    bytes a float32 file holds)."""
    conn = sqlite3.connect(path, isolation_level=None)
    to_version_11(conn)
    conn.create_function(
        "widen", 1, lambda b: np.frombuffer(b, dtype="<f2").astype("<f4").tobytes(), deterministic=True
    )
    conn.execute("BEGIN")
    conn.execute("UPDATE vectors SET vec = widen(vec) WHERE length(vec) = 2 * dim")
    for statement in TO_V8:
        conn.execute(statement)
    for name, columns in OPTIONAL_INDEXES.items():
        conn.execute(f"DROP INDEX {name}")
        conn.execute(f"CREATE INDEX {name} ON items({columns})")
    conn.execute("PRAGMA user_version = 8")
    conn.execute("COMMIT")
    conn.close()
    vacuum(path)


def per_object(path: Path) -> Measured:
    """Bytes of each table and index (dbstat), the item count and the file's size. The key `text` holds
    the bytes of the items' text itself (not an object: what no layout can save)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.OperationalError as exc:
        raise SystemExit(f"disk: this SQLite has no dbstat table ({exc})") from None
    n, text = (
        int(v) for v in conn.execute("SELECT count(*), sum(length(CAST(text AS BLOB))) FROM items").fetchone()
    )
    conn.close()
    sizes: dict[str, int] = {}
    for name, size in rows:
        label = "FTS5 index (items_fts_*)" if name in FTS else LABELS.get(name, name)
        sizes[label] = sizes.get(label, 0) + int(size)
        if name in FTS:
            sizes[f"  {name}"] = int(size)
    return sizes, n, path.stat().st_size, text


def upgrade(path: Path) -> float:
    """Open a schema 8 file as the engine does (migrate, then give the freed space back); seconds."""
    from tinymemory.engines.sqlite.db import connect

    started = time.perf_counter()
    conn = connect(str(path))
    took = time.perf_counter() - started
    conn.close()
    return took


def render(
    before: Measured,
    after: Measured,
    upgraded: Measured,
    upgrade_s: float,
    build_s: float,
    loads: tuple[str, str],
) -> str:
    (b, n, b_file, _), (a, _, a_file, text), (_, _, u_file, _) = before, after, upgraded
    names = sorted(set(b) | set(a), key=lambda k: (k.startswith("  "), -max(b.get(k, 0), a.get(k, 0))))
    top = [k for k in names if not k.startswith("  ")]
    shown = [k for k in top if max(b.get(k, 0), a.get(k, 0)) / n >= 1]
    small = [k for k in top if k not in shown]
    floor = a["vectors"] + a["items"] + a["FTS5 index (items_fts_*)"]
    rows = []
    for k in shown:
        rows.append([f"`{k}`" if " " not in k else k, f"{b.get(k, 0) / n:,.0f}", f"{a.get(k, 0) / n:,.0f}"])
        if k.startswith("FTS5"):
            subs = sorted((s for s in names if s.startswith("  ")), key=lambda s: -a.get(s, 0))
            rows += [
                [f"&nbsp;&nbsp;{s.strip()}", f"{b.get(s, 0) / n:,.1f}", f"{a.get(s, 0) / n:,.1f}"]
                for s in subs
            ]
    rest_b, rest_a = sum(b.get(k, 0) for k in small), sum(a.get(k, 0) for k in small)
    rows.append([f"everything else ({len(small)} objects)", f"{rest_b / n:,.1f}", f"{rest_a / n:,.1f}"])
    rows.append(["**file**", f"**{b_file / n:,.0f}**", f"**{a_file / n:,.0f}**"])
    return "\n".join(
        [
            "## Disk per item (`bench/disk.py`)",
            "",
            f"{n:,} synthetic items stored with the default embedder (256-d), built in {build_s:.0f} s; "
            f"{machine_line()}; 1-min load after the build and at the end: {loads[0]} / {loads[1]}. "
            "Bytes per item of each table and index (pages from SQLite's `dbstat`, so space left unused "
            "inside pages counts), both files VACUUMed. Schema 8 is the same file put back into that "
            "layout (float32 vectors, 64-hex-digit content keys, term counts keyed by namespace name, "
            "full indexes on about/thread/parent).",
            "",
            table(["table or index", "schema 8, bytes/item", "schema 9, bytes/item"], rows),
            "",
            f"- Target: under {TARGET:,} bytes per item; the issue measured {ISSUE_V8:,} before schema 9. "
            f"Schema 9: {a_file / n:,.0f}.",
            f"- What bounds it: the float16 vectors ({a['vectors'] / n:,.0f}: 512 bytes of values, the "
            f"rest row and page overhead; seven rows fit a 4 KiB page), the items row "
            f"({a['items'] / n:,.0f}, of which the text itself is {text / n:,.0f}) and the FTS5 index "
            f"({a['FTS5 index (items_fts_*)'] / n:,.0f}) make {floor / n:,.0f} of the {a_file / n:,.0f}.",
            f"- The schema 8 file opened by this version (migrated in place, then VACUUMed by the "
            f"migration): {u_file / n:,.0f} bytes per item, in {upgrade_s:.1f} s.",
        ]
    )


async def main_async(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="tinymemory-disk-") as tmp:
        now = Path(tmp) / "v9.db"
        build_s = await build(now, args.items)
        loads = [f"{os.getloadavg()[0]:.2f}"]
        vacuum(now)
        old = Path(tmp) / "v8.db"
        shutil.copy(now, old)
        to_version_8(old)
        again = Path(tmp) / "upgraded.db"
        shutil.copy(old, again)
        upgrade_s = upgrade(again)
        loads.append(f"{os.getloadavg()[0]:.2f}")
        md = render(
            per_object(old), per_object(now), per_object(again), upgrade_s, build_s, (loads[0], loads[1])
        )
    print(md)
    if not args.no_write:
        write_section("disk", md)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
