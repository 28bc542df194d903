"""Export and import (api.records, engines/sqlite/portable.py, `tinymemory export` / `import`) on real
SQLite files: a store moves without loss (exporting the copy gives the same bytes), derived state is
rebuilt as a store would build it, forgotten memories leave as tombstones, re-imports write nothing and
bad files write nothing."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tinymemory.api import (
    About,
    Conflict,
    ExpandRequest,
    FetchMode,
    FetchRequest,
    ForgetRequest,
    GetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    ListRequest,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
    Ref,
    Relation,
    Source,
    Unsupported,
    item_id,
)
from tinymemory.api.records import (
    FORMAT_VERSION,
    RECORD_FIELDS,
    PortableEngine,
    StoredRecord,
    decode_header,
    decode_record,
    encode_header,
    encode_record,
    encode_trailer,
)
from tinymemory.engines.sqlite import SqliteEngine

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
WRITER = Namespace.parse("team:acme/agent:writer")
TEAM = Namespace.parse("team:acme")
OTHER = Namespace.parse("team:other")
SECRET = "zebracorn"  # every field of the memory that is forgotten holds it


class Emb8:
    """A deterministic stand-in embedder: words hashed into 8 buckets, L2-normalised."""

    def __init__(self, name: str = "test-emb8") -> None:
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return 8

    def _one(self, text: str) -> npt.NDArray[np.float32]:
        v = np.full(8, 0.01, dtype=np.float32)
        for word in text.lower().split():
            v[hashlib.sha1(word.encode()).digest()[0] % 8] += 1.0 / 3.0  # thirds: not exact in float32
        return (v / np.linalg.norm(v)).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, 8), dtype=np.float32)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._one(text)


def item(
    text: str, ns: Namespace = WRITER, kind: ItemKind = ItemKind.LEARNING, days: float = 0, **meta: Any
) -> NewItem:
    confidence = meta.pop("confidence", None)
    identity = meta.pop("identity", None)
    observed = T0 + timedelta(days=days)
    return NewItem(kind, text, ItemMeta(namespace=ns, observed_at=observed, **meta), confidence, identity)


async def fill(path: Path) -> dict[str, str]:
    """A store with every kind of state an export must carry; returns the ids the tests look at."""
    async with SqliteEngine(path, embedder=Emb8()) as engine:
        ids: dict[str, str] = {}
        drink = About("preference", "dana.drink")
        ids["tea"] = (await engine.store(item("Dana drinks tea", about=drink, tags=("pref",)))).id
        ids["flat"] = (
            await engine.store(item("Dana drinks flat whites", about=drink, days=1, confidence=0.7))
        ).id
        # the same content corrected: a new generation of one content key
        ids["flat2"] = (
            await engine.store(item("Dana drinks flat whites", about=drink, days=2, confidence=0.95))
        ).id
        turns = await engine.store_many(
            [
                item("how is the Atlas project going", kind=ItemKind.CONVERSATION, thread_id="th1", days=3),
                item(
                    f"{SECRET} wants to buy Atlas, keep it quiet",
                    kind=ItemKind.CONVERSATION,
                    thread_id="th1",
                    days=3.1,
                ),
                item("the launch moved to May", kind=ItemKind.CONVERSATION, thread_id="th1", days=3.2),
                item("what about the budget", kind=ItemKind.CONVERSATION, thread_id="th1", days=3.3),
            ]
        )
        ids["turn1"], ids["secret_turn"], ids["turn3"], ids["turn4"] = (t.id for t in turns)
        ids["derived"] = (
            await engine.store(
                item(
                    f"{SECRET} plans to acquire Atlas",
                    days=4,
                    title=f"{SECRET} deal",
                    summary=f"{SECRET} acquisition",
                    evidence=(ids["secret_turn"],),
                    relations=(Relation(f"{SECRET} Inc", "acquires", "Atlas"),),
                    refs=(Ref("image", f"{SECRET}.png", media_type="image/png"),),
                    tags=("deal",),
                )
            )
        ).id
        ids["rich"] = (
            await engine.store(
                item(
                    "Dana works on Atlas with Lee",
                    ns=TEAM,
                    days=5,
                    confidence=0.9,
                    source=Source("agent", "writer-1"),
                    workspace="acme",
                    repo="acme/atlas",
                    file_path="docs/plan.md",
                    learning_kind="fact",
                    title="Atlas staffing",
                    purpose="who to ask",
                    category="people",
                    tags=("atlas", "people"),
                    evidence=("said in standup",),
                    refs=(
                        Ref(
                            "link",
                            "https://example.org/atlas",
                            status="unavailable",
                            url="https://example.org",
                        ),
                    ),
                    event_from=T0 + timedelta(days=10),
                    event_to=T0 + timedelta(days=12),
                    extra=(("ticket", "AT-12"), ("ünïcode", "naïve ✓")),
                    relations=(Relation("Dana", "works_on", "Atlas"), Relation("Lee", "works_on", "Atlas")),
                )
            )
        ).id
        doc = await engine.store(
            item("The Atlas handbook", ns=TEAM, kind=ItemKind.DOCUMENT, days=6, title="Handbook")
        )
        ids["doc"] = doc.id
        ids["chunk"] = (
            await engine.store(
                item(
                    "Chapter one: onboarding",
                    ns=TEAM,
                    kind=ItemKind.CHUNK,
                    days=6,
                    parent=doc.id,
                    parent_title="Handbook",
                    identity="0",
                )
            )
        ).id
        ids["other"] = (await engine.store(item("Other team note about budgets", ns=OTHER, days=7))).id
        # forgetting the turn forgets what cites it (the derived learning) too
        await engine.forget(ForgetRequest(ids=(ids["secret_turn"],)))
        return ids


async def export_lines(path: Path, *, vectors: bool, embedder: Any = None) -> list[str]:
    async with SqliteEngine(path, embedder=embedder) as engine:
        body = [encode_record(r) async for r in engine.export_records(vectors=vectors)]
    return [encode_header(), *body, encode_trailer(len(body))]


def records_of(lines: list[str]) -> list[StoredRecord]:
    return [decode_record(line, n) for n, line in enumerate(lines[1:-1], 2)]


async def import_lines(path: Path, lines: list[str], embedder: Any = None, batch: int = 3) -> tuple[int, int]:
    records = records_of(lines)
    imported = skipped = 0
    async with SqliteEngine(path, embedder=embedder) as engine:
        for at in range(0, len(records), batch):
            done = await engine.import_records(records[at : at + batch])
            imported, skipped = imported + done.imported, skipped + done.skipped
    return imported, skipped


def derived(path: Path) -> dict[str, Any]:
    """Everything a store derives from its rows, keyed by item id rather than rowid."""
    with sqlite3.connect(path) as conn:
        ids = dict(conn.execute("SELECT rowid, id FROM items").fetchall())
        live = {
            i
            for r, i in ids.items()
            if conn.execute("SELECT forgotten_at FROM items WHERE rowid = ?", (r,)).fetchone()[0] is None
        }

        def by_id(sql: str) -> list[tuple[Any, ...]]:
            return sorted((ids[row[0]], *row[1:]) for row in conn.execute(sql))

        return {
            "lex_ns": sorted(conn.execute("SELECT ns, docs, tokens FROM lex_ns")),
            "lex_df": sorted(conn.execute("SELECT term, ns, df FROM lex_df")),
            "fts": by_id("SELECT rowid, title, body, context FROM lex_docs"),
            "lex_len": sorted(conn.execute("SELECT id, lex_len FROM items")),
            "tags": by_id("SELECT item_rowid, tag FROM item_tags"),
            "evidence": by_id("SELECT item_rowid, cites FROM item_evidence"),
            # a forgotten version's edges and vector stay in its own file until purge; a copy has none
            "relations": [
                r
                for r in by_id(
                    "SELECT item_rowid, subject, subject_key, type, object, object_key FROM relations"
                )
                if r[0] in live
            ],
            "vectors": [
                v for v in by_id("SELECT item_rowid, embedder, dim, vec FROM vectors") if v[0] in live
            ],
        }


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("export") / "source.db"
    return path, asyncio.run(fill(path))


# -- round trips ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("vectors", [True, False], ids=["vectors", "no-vectors"])
async def test_a_round_trip_gives_the_same_bytes_and_the_same_derived_state(
    source: tuple[Path, dict[str, str]], tmp_path: Path, vectors: bool
) -> None:
    path, ids = source
    first = await export_lines(path, vectors=vectors)
    assert len(first) == len(ids) + 2
    copy = tmp_path / "copy.db"
    assert await import_lines(copy, first, embedder=Emb8()) == (len(ids), 0)
    assert await export_lines(copy, vectors=vectors) == first
    want, got = derived(path), derived(copy)
    if not vectors:
        assert got["vectors"] == [] and want["vectors"]
        got["vectors"] = want["vectors"]
    assert got == want


async def test_every_version_keeps_its_ids_times_and_links(
    source: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, ids = source
    lines = await export_lines(path, vectors=True)
    records = {r.id: r for r in records_of(lines)}
    assert list(records) == [r.id for r in records_of(lines)]  # storage order: ids once each
    order = [r.id for r in records_of(lines)]
    assert order.index(ids["tea"]) < order.index(ids["flat"]) < order.index(ids["flat2"])

    tea, flat, flat2 = records[ids["tea"]].item, records[ids["flat"]].item, records[ids["flat2"]].item
    assert (tea.superseded_by, flat.supersedes, flat.superseded_by, flat2.supersedes) == (
        ids["flat"],
        ids["tea"],
        ids["flat2"],
        ids["flat"],
    )
    assert tea.valid_to == flat.valid_from == T0 + timedelta(days=1) and flat2.valid_to is None
    assert records[ids["flat2"]].generation == 1
    assert records[ids["flat2"]].content_key == records[ids["flat"]].content_key
    assert item_id(records[ids["flat"]].content_key, 1) == ids["flat2"]

    rich = records[ids["rich"]].item
    assert rich.meta.event_from == T0 + timedelta(days=10) and rich.meta.event_to == T0 + timedelta(days=12)
    assert rich.meta.extra == (("ticket", "AT-12"), ("ünïcode", "naïve ✓"))
    assert rich.meta.refs[0] == Ref(
        "link", "https://example.org/atlas", status="unavailable", url="https://example.org"
    )
    assert records[ids["chunk"]].item.meta.parent == ids["doc"]

    copy = tmp_path / "copy.db"
    await import_lines(copy, lines, embedder=Emb8())
    async with SqliteEngine(path, embedder=Emb8()) as a, SqliteEngine(copy, embedder=Emb8()) as b:
        every = tuple(ids.values())
        got_a, got_b = await a.get(GetRequest(ids=every)), await b.get(GetRequest(ids=every))
        assert set(got_b.forgotten) == set(got_a.forgotten)  # ids and forgotten_at alike
        assert {t.id for t in got_b.forgotten} == {ids["secret_turn"], ids["derived"]}
        assert {i.id: i for i in got_b.items} == {i.id: i for i in got_a.items}
        for engine in (a, b):  # as_of reads the superseded version; now reads the active one
            then = MetaFilter(
                namespace=WRITER, about=About("preference", "dana.drink"), as_of=T0 + timedelta(hours=12)
            )
            assert [i.id for i in (await engine.list(ListRequest(filter=then))).items] == [ids["tea"]]
            graph = await engine.expand(ExpandRequest(seed_name="atlas"))
            assert {h.item.id for h in graph.hits} == {ids["rich"]}  # the forgotten edge is gone
        for mode in FetchMode:  # the same hits with the same scores: the index and statistics agree
            ask = FetchRequest(query="Atlas project budget", mode=mode, limit=10)
            want, got = await a.fetch(ask), await b.fetch(ask)
            assert want.hits and [(h.item.id, h.score) for h in got.hits] == [
                (h.item.id, h.score) for h in want.hits
            ]


async def test_vectors_travel_as_the_exact_stored_values(
    source: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, ids = source
    lines = await export_lines(path, vectors=True)
    with sqlite3.connect(path) as conn:
        blob = conn.execute(
            "SELECT v.vec FROM vectors v JOIN items i ON i.rowid = v.item_rowid WHERE i.id = ?",
            (ids["rich"],),
        ).fetchone()[0]
    (rich,) = [r for r in records_of(lines) if r.id == ids["rich"]]
    assert rich.vector is not None and (rich.vector.embedder, rich.vector.dim) == ("test-emb8", 8)
    # stored as float16; exported as the float32 values those bytes hold, exactly
    assert (
        np.asarray(rich.vector.values, dtype="<f4").tobytes()
        == np.frombuffer(blob, "<f2").astype("<f4").tobytes()
    )
    assert np.asarray(rich.vector.values, dtype="<f2").tobytes() == blob
    assert (
        '"vector":{"embedder":"test-emb8","dim":8,"values":['
        in lines[[r.id for r in records_of(lines)].index(ids["rich"]) + 1]
    )

    # another embedder's vectors are not this engine's: the rows come without one, for reembed to fill
    other = tmp_path / "other.db"
    await import_lines(other, lines, embedder=Emb8("another-model"))
    with sqlite3.connect(other) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
    async with SqliteEngine(other, embedder=Emb8("another-model")) as engine:
        done = await engine.reembed()
        assert done.reembedded == len(ids) - 2  # every version but the two forgotten


# -- forgotten memories ------------------------------------------------------------------------------------


async def test_a_forgotten_memory_leaves_as_a_tombstone(
    source: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, ids = source
    lines = await export_lines(path, vectors=True)
    assert all(SECRET not in line for line in lines)
    records = {r.id: r for r in records_of(lines)}
    for name in ("secret_turn", "derived"):
        tomb = records[ids[name]]
        assert tomb.item.forgotten_at is not None and tomb.vector is None
        assert (tomb.item.text, tomb.item.meta.title, tomb.item.meta.summary) == ("", None, None)
        assert tomb.item.meta.relations == () and tomb.item.meta.refs == ()
    derived_ = records[ids["derived"]].item
    assert derived_.meta.evidence == (ids["secret_turn"],) and derived_.meta.tags == ("deal",)  # kept
    assert records[ids["secret_turn"]].item.meta.thread_id == "th1"

    copy = tmp_path / "copy.db"
    await import_lines(copy, lines)
    with sqlite3.connect(copy) as conn:
        dump = "\n".join(conn.iterdump())
        assert SECRET not in dump
        assert conn.execute("SELECT count(*) FROM items WHERE forgotten_at IS NOT NULL").fetchone()[0] == 2
    async with SqliteEngine(copy) as engine:  # and a later store of the same content is a new generation
        again = await engine.store(
            item(
                f"{SECRET} wants to buy Atlas, keep it quiet",
                kind=ItemKind.CONVERSATION,
                thread_id="th1",
                days=9,
            )
        )
        assert again.id == item_id(records[ids["secret_turn"]].content_key, 1)


async def test_a_forgotten_record_with_content_is_imported_without_it(tmp_path: Path) -> None:
    record = synthetic(0, forgotten=True)
    assert record.item.text and SECRET in record.item.text
    async with SqliteEngine(tmp_path / "m.db") as engine:
        assert (await engine.import_records([record])).imported == 1
    with sqlite3.connect(tmp_path / "m.db") as conn:
        assert SECRET not in "\n".join(conn.iterdump())


# -- idempotence, atomicity, conflicts ------------------------------------------------------------------


async def test_importing_twice_writes_nothing_the_second_time(
    source: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, ids = source
    lines = await export_lines(path, vectors=True)
    copy = tmp_path / "copy.db"
    assert await import_lines(copy, lines, embedder=Emb8()) == (len(ids), 0)
    before = derived(copy)
    assert await import_lines(copy, lines, embedder=Emb8(), batch=500) == (0, len(ids))
    assert derived(copy) == before


def synthetic(n: int, *, forgotten: bool = False, ns: Namespace = WRITER) -> StoredRecord:
    """A record made by hand (no source store): a learning with its own content key."""
    key = hashlib.sha256(f"synthetic {n} {ns}".encode()).hexdigest()
    at = T0 + timedelta(minutes=n)
    text = f"{SECRET} note number {n}" if forgotten else f"note number {n}"
    memory = MemoryItem(
        id=item_id(key, 0),
        kind=ItemKind.LEARNING,
        text=text,
        meta=ItemMeta(namespace=ns, observed_at=at, title=text if forgotten else None),
        confidence=None,
        valid_from=at,
        forgotten_at=at if forgotten else None,
    )
    return StoredRecord(memory, key, 0)


async def test_a_batch_is_all_or_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    taken = synthetic(4)
    async with SqliteEngine(path) as engine:
        await engine.import_records([taken])
        # the same content, active under another generation: a second active version is refused
        clash = replace(
            synthetic(4), item=replace(taken.item, id=item_id(taken.content_key, 1)), generation=1
        )
        with pytest.raises(Conflict, match=taken.id):
            await engine.import_records([synthetic(1), synthetic(2), clash])
        got = await engine.get(GetRequest(ids=(synthetic(1).id, synthetic(2).id)))
        assert got.items == () and set(got.missing) == {synthetic(1).id, synthetic(2).id}
        with pytest.raises(InvalidRequest, match=r"records\[0\]\.id"):
            await engine.import_records([replace(synthetic(5), generation=3)])


async def test_the_engine_is_portable_and_an_in_memory_store_exports_too() -> None:
    async with SqliteEngine(":memory:") as engine:
        assert isinstance(engine, PortableEngine)
        await engine.import_records([synthetic(1), synthetic(2, forgotten=True)])
        got = [r async for r in engine.export_records(vectors=True)]
        assert [r.id for r in got] == [synthetic(1).id, synthetic(2).id]
        assert got[1].item.text == "" and got[1].item.meta.title is None


# -- bad lines ----------------------------------------------------------------------------------------------


def good_line() -> str:
    return encode_record(synthetic(1))


def altered(**changes: Any) -> str:
    doc = json.loads(good_line())
    for key, value in changes.items():
        if value is KeyError:
            del doc[key]
        else:
            doc[key] = value
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "m_', "line 7: is not valid JSON"),
        ("", "line 7: is empty"),
        ("[1, 2]", "line 7: `` must be an object"),
        (altered(namespace=KeyError), "line 7: `namespace` is missing"),
        (altered(namespace="Team:Acme"), "line 7: `namespace`: `Team:Acme` has a bad segment"),
        (altered(kind="memo"), "line 7: `kind` `memo` is not one of"),
        (altered(generation=1), "line 7: `id` does not derive from `ckey` and `generation`"),
        (altered(valid_from="yesterday"), "line 7: `valid_from` `yesterday` is not an RFC 3339 timestamp"),
        (altered(tags=["a", 3]), "line 7: `tags[1]` must be a string, got a number"),
        (altered(confidence=1.5), "line 7: `confidence` must be null or a number between 0 and 1"),
        (altered(colour="red"), "line 7: `colour` is not a field of format version 1"),
        (altered(text="\ud800"), "line 7: `text` is not valid unicode"),
        (
            altered(vector={"embedder": "e", "dim": 2, "values": [0.5]}),
            "line 7: `vector.values` holds 1 numbers",
        ),
        (altered(refs=[{"kind": "image"}]), "line 7: `refs[0].ref` is missing"),
    ],
)
def test_a_bad_line_is_refused_naming_its_number_and_field(line: str, message: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        decode_record(line, 7)
    assert str(err.value).startswith(f"import: {message}"), str(err.value)


def test_the_format_and_its_version_are_checked() -> None:
    assert decode_header(encode_header()) == FORMAT_VERSION == 1
    with pytest.raises(Unsupported, match="format version 2 is not supported"):
        decode_header('{"format": "tinymemory-export", "version": 2}')
    with pytest.raises(InvalidRequest, match="line 1: `format` is not tinymemory-export"):
        decode_header('{"id": "m_0"}')
    assert list(json.loads(good_line())) == list(RECORD_FIELDS)  # the documented key order


# -- the command line --------------------------------------------------------------------------------------


def cli(*args: str, stdin: bytes | None = None, ok: bool = True) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "TINYMEMORY_EMBEDDER": "none"}
    env.pop("TINYMEMORY_DB", None)
    done = subprocess.run(
        [sys.executable, "-m", "tinymemory", *args],
        input=stdin,
        capture_output=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert (done.returncode == 0) == ok, done.stderr.decode()
    return done


def error_of(done: subprocess.CompletedProcess[bytes]) -> dict[str, str]:
    assert done.returncode == 2, done.stderr
    parsed: dict[str, str] = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return parsed


def test_the_cli_moves_a_store_and_back(source: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, ids = source
    exported = tmp_path / "store.jsonl"
    summary = json.loads(cli("export", "--db", str(path), "-o", str(exported)).stdout)
    assert summary == {
        "exported": len(ids),
        "format_version": 1,
        "vectors": False,
        "namespace": None,
        "output": str(exported),
    }
    assert oct(exported.stat().st_mode & 0o777) == "0o600"  # a copy of the store: the owner's alone
    text = exported.read_text(encoding="utf-8")
    assert SECRET not in text and text.endswith(f'{{"end":"tinymemory-export","records":{len(ids)}}}\n')

    copy = tmp_path / "copy.db"
    done = cli("import", "--db", str(copy), str(exported))
    assert json.loads(done.stdout) == {
        "records": len(ids),
        "imported": len(ids),
        "skipped": 0,
        "format_version": 1,
    }
    assert f"{len(ids)} imported, 0 skipped" in done.stderr.decode()
    again = cli("import", "--db", str(copy), "-", stdin=exported.read_bytes())  # stdin, a second time
    assert json.loads(again.stdout)["skipped"] == len(ids) and json.loads(again.stdout)["imported"] == 0
    back = cli("export", "--db", str(copy))  # to stdout; the summary goes to stderr
    assert back.stdout == exported.read_bytes()
    assert f"export: {len(ids)} records" in back.stderr.decode()


def test_the_cli_exports_one_subtree(source: tuple[Path, dict[str, str]]) -> None:
    path, ids = source
    out = cli("export", "--db", str(path), "--namespace", "team:acme", "--vectors").stdout.decode()
    records = records_of(out.splitlines())
    assert {r.id for r in records} == set(ids.values()) - {ids["other"]}
    assert all(r.vector is not None for r in records if r.item.forgotten_at is None)
    assert (
        error_of(cli("export", "--db", str(path), "--namespace", "Team", ok=False))["error"]
        == "invalid_request"
    )


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda lines: [*lines[:3], "{oops", *lines[3:]], "import: line 4: is not valid JSON"),
        (lambda lines: lines[:-1], "without its closing line: it was cut short"),
        (lambda lines: [lines[0].replace(":1}", ":9}"), *lines[1:]], "format version 9 is not supported"),
        (lambda lines: [*lines[:-1], lines[-1].replace('"records":', '"records":1')], "`records` is 1"),
        (lambda lines: [*lines, lines[1]], "follows the closing line"),
    ],
)
def test_the_cli_refuses_a_bad_file_and_writes_nothing(
    source: tuple[Path, dict[str, str]], tmp_path: Path, mangle: Any, message: str
) -> None:
    path, _ = source
    lines = cli("export", "--db", str(path)).stdout.decode().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(mangle(lines)) + "\n", encoding="utf-8")
    copy = tmp_path / "copy.db"
    err = error_of(cli("import", "--db", str(copy), str(bad), ok=False))
    assert message in err["message"], err
    assert not copy.exists()  # refused before the store was opened


def test_the_cli_keeps_whole_batches_when_a_later_one_fails(tmp_path: Path) -> None:
    """Batches of 500: a conflict in the second leaves the first committed and says so."""
    records = [synthetic(n) for n in range(600)]
    taken = synthetic(550)
    clash = replace(taken, item=replace(taken.item, id=item_id(taken.content_key, 1)), generation=1)
    target = tmp_path / "m.db"

    async def seed() -> None:
        async with SqliteEngine(target) as engine:
            await engine.import_records([clash])

    asyncio.run(seed())
    lines = [encode_header(), *(encode_record(r) for r in records), encode_trailer(len(records))]
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = error_of(cli("import", "--db", str(target), str(path), ok=False))
    assert (
        err["error"] == "conflict"
        and "lines 502-601" in err["message"]
        and "500 records before" in err["message"]
    )
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT count(*) FROM items").fetchone()[0] == 501

    async def forget_clash() -> None:
        async with SqliteEngine(target) as engine:
            await engine.forget(ForgetRequest(ids=(clash.id,)))

    asyncio.run(forget_clash())  # the clash resolved, the same command finishes the job
    done = json.loads(cli("import", "--db", str(target), str(path)).stdout)
    assert (done["imported"], done["skipped"]) == (100, 500)


def test_the_cli_refuses_a_missing_store(tmp_path: Path) -> None:
    err = error_of(cli("export", "--db", str(tmp_path / "missing.db"), ok=False))
    assert err["error"] == "not_found" and err["message"].startswith("export: no store at")


def test_an_interrupted_import_keeps_whole_batches_and_says_how_many(tmp_path: Path) -> None:
    """Ctrl-C after the first progress line: the batch in flight ends whole, the count said is the count
    stored, and running the import again finishes it."""
    total = 20_000
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(encode_header() + "\n")
        for n in range(total):
            fh.write(encode_record(synthetic(n)) + "\n")
        fh.write(encode_trailer(total) + "\n")
    target = tmp_path / "m.db"
    env = {**os.environ, "TINYMEMORY_EMBEDDER": "none"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tinymemory", "import", "--db", str(target), str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        # a shell may start background jobs with SIGINT ignored; the child must take it as a user would
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    first = proc.stderr.readline().decode()
    assert first.startswith("import: 5000 of 20000 records"), first
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 130, rest
    said = int(rest.split("interrupted; ")[1].split(" records")[0])
    with sqlite3.connect(target) as conn:
        stored = conn.execute("SELECT count(*) FROM items").fetchone()[0]
    assert stored == said and said % 500 == 0 and 5000 <= said < total
    done = json.loads(cli("import", "--db", str(target), str(path)).stdout)
    assert (done["imported"], done["skipped"]) == (total - said, said)
