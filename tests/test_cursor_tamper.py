"""Cursors are sealed (encrypted and authenticated with a key kept in the file): a forged, edited or
foreign cursor is an InvalidRequest naming `cursor`, and a cursor tells its holder nothing (a fetch
cursor's snapshot rowid would count other tenants' writes)."""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from test_sqlite_support import HashEmbedder, note
from tinymemory.api import FetchMode, FetchRequest, InvalidRequest, ListRequest
from tinymemory.engines.sqlite import SqliteEngine
from tinymemory.engines.sqlite.cursors import (
    KEY_NAME,
    MAX_OFFSET,
    MAX_POOL,
    CursorCodec,
    FetchCursor,
    ListCursor,
)
from tinymemory.tools import MemoryTools

T0 = datetime(2024, 3, 1, tzinfo=UTC)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[SqliteEngine]:
    async with SqliteEngine(tmp_path / "mem.db", embedder=HashEmbedder()) as eng:
        await eng.store_many(
            [note(f"garden note {i} about tomatoes", observed=T0 + timedelta(minutes=i)) for i in range(12)]
        )
        yield eng


def unsealed(doc: dict[str, object]) -> str:
    """The old, unsigned format: base64url JSON anyone could write."""
    raw = json.dumps(doc).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def raw_bytes(cursor: str) -> bytes:
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))


def file_codec(path: Path) -> CursorCodec:
    """The codec of the file's own key, read with plain sqlite3: it forges *authentic* cursors."""
    with sqlite3.connect(path) as conn:
        (value,) = conn.execute("SELECT value FROM engine_meta WHERE key = ?", (KEY_NAME,)).fetchone()
    return CursorCodec(base64.b64decode(value))


async def test_unsigned_cursors_with_huge_fields_are_invalid_requests(engine: SqliteEngine) -> None:
    fetched = await engine.fetch(FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3))
    listed = await engine.list(ListRequest(limit=3))
    assert fetched.next_cursor and listed.next_cursor
    huge = 2**64
    for doc in (
        {"k": "fetch", "s": huge, "o": 3, "p": 0, "f": "0" * 16},
        {"k": "fetch", "s": 5, "o": 3, "p": huge, "f": "0" * 16},
        {"k": "fetch", "s": 5, "o": huge, "p": 0, "f": "0" * 16},
    ):
        with pytest.raises(InvalidRequest, match=r"^fetch: `cursor` is not valid"):
            await engine.fetch(
                FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3, cursor=unsealed(doc))
            )
    with pytest.raises(InvalidRequest, match=r"^list: `cursor` is not valid"):
        await engine.list(
            ListRequest(limit=3, cursor=unsealed({"k": "list", "t": huge, "i": "m_x", "f": "0"}))
        )


async def test_a_cursor_reveals_nothing(engine: SqliteEngine) -> None:
    fetched = await engine.fetch(FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3))
    listed = await engine.list(ListRequest(limit=3))
    for cursor in (fetched.next_cursor, listed.next_cursor):
        assert cursor is not None
        with pytest.raises(ValueError):
            json.loads(raw_bytes(cursor))
    # Plaintext would carry field names, ids and the row count in every cursor; ciphertext holds a short
    # pattern only by chance (about 1 in 600 for two bytes), so each must be missing from some of four.
    fetches, lists = [], []
    for _ in range(4):
        f = (await engine.fetch(FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3))).next_cursor
        li = (await engine.list(ListRequest(limit=3))).next_cursor
        assert f is not None and li is not None
        fetches.append(raw_bytes(f))
        lists.append(raw_bytes(li))
    for minted in (fetches, lists):
        for leak in (b'"s"', b'"o"', b'"t"', b"m_", b"12"):  # field names, ids, the row count
            assert not all(leak in raw for raw in minted), leak
    again = await engine.fetch(FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3))
    assert again.next_cursor != fetched.next_cursor  # a fresh nonce: equal positions do not look equal


@pytest.mark.parametrize("kind", ["fetch", "list"])
async def test_every_edited_byte_is_detected(engine: SqliteEngine, kind: str) -> None:
    if kind == "fetch":
        cursor = (await engine.fetch(FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3))).next_cursor
    else:
        cursor = (await engine.list(ListRequest(limit=3))).next_cursor
    assert cursor is not None
    raw = raw_bytes(cursor)
    for i in range(len(raw)):
        edited = raw[:i] + bytes([raw[i] ^ 0x01]) + raw[i + 1 :]
        forged = base64.urlsafe_b64encode(edited).decode().rstrip("=")
        with pytest.raises(InvalidRequest, match=rf"^{kind}: `cursor` is not valid"):
            if kind == "fetch":
                await engine.fetch(FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3, cursor=forged))
            else:
                await engine.list(ListRequest(limit=3, cursor=forged))
    for truncated in (cursor[:-4], cursor[:20], cursor + "AAAA"):
        with pytest.raises(InvalidRequest, match=rf"^{kind}: `cursor` is not valid"):
            if kind == "fetch":
                await engine.fetch(
                    FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3, cursor=truncated)
                )
            else:
                await engine.list(ListRequest(limit=3, cursor=truncated))


async def test_the_key_belongs_to_the_file(tmp_path: Path, engine: SqliteEngine) -> None:
    listed = await engine.list(ListRequest(limit=3))
    assert listed.next_cursor is not None
    async with SqliteEngine(tmp_path / "other.db", embedder=None) as other:
        await other.store_many([note(f"other note {i}") for i in range(12)])
        with pytest.raises(InvalidRequest, match=r"^list: `cursor` is not valid"):
            await other.list(ListRequest(limit=3, cursor=listed.next_cursor))
    # a second engine on the same file (as another process would) and a reopened one both accept it
    async with SqliteEngine(tmp_path / "mem.db", embedder=None) as same:
        second = await same.list(ListRequest(limit=3, cursor=listed.next_cursor))
    first = await engine.list(ListRequest(limit=3, cursor=listed.next_cursor))
    assert [i.id for i in second.items] == [i.id for i in first.items]
    assert len(first.items) == 3


async def test_authentic_cursors_with_out_of_range_fields_are_refused(
    tmp_path: Path, engine: SqliteEngine
) -> None:
    """Even a cursor sealed with the file's key is bounded field by field (a bug must not become an
    OverflowError or an unbounded scan)."""
    req = FetchRequest("tomatoes", mode=FetchMode.LEXICAL, limit=3)
    listed = await engine.list(ListRequest(limit=3))
    fetched = await engine.fetch(req)
    assert listed.next_cursor and fetched.next_cursor
    codec = file_codec(tmp_path / "mem.db")
    good_list = codec.open("list", "list", listed.next_cursor)
    good_fetch = codec.open("fetch", "fetch", fetched.next_cursor)
    assert (await engine.list(ListRequest(limit=3, cursor=codec.seal("list", good_list)))).items
    assert (
        await engine.fetch(FetchRequest(req.query, req.mode, limit=3, cursor=codec.seal("fetch", good_fetch)))
    ).hits
    bad_fetch = [
        {"s": 2**64},
        {"s": -1},
        {"s": True},
        {"s": 1.5},
        {"o": MAX_OFFSET + 1},
        {"o": -3},
        {"p": MAX_POOL + 1},
        {"p": 2**64},
        {"o": None},
    ]
    for change in bad_fetch:
        forged = codec.seal("fetch", {**good_fetch, **change})
        with pytest.raises(InvalidRequest, match=r"^fetch: `cursor` is not valid"):
            await engine.fetch(FetchRequest(req.query, req.mode, limit=3, cursor=forged))
    bad_list = [
        {"t": 2**64},
        {"t": -(2**63)},
        {"t": "0"},
        {"i": "not an id"},
        {"i": "m_" + "g" * 24},
        {"i": "m_" + "0" * 24 + "\n"},
        {"i": 7},
    ]
    for change in bad_list:
        forged = codec.seal("list", {**good_list, **change})
        with pytest.raises(InvalidRequest, match=r"^list: `cursor` is not valid"):
            await engine.list(ListRequest(limit=3, cursor=forged))
    # sealed for the other operation: the kind is bound too
    with pytest.raises(InvalidRequest, match=r"^list: `cursor` is not valid"):
        await engine.list(ListRequest(limit=3, cursor=codec.seal("fetch", good_list)))


async def test_tools_name_themselves_in_cursor_errors(engine: SqliteEngine) -> None:
    tools = MemoryTools(engine)
    with pytest.raises(InvalidRequest, match=r"^memory_fetch: `cursor` is not valid"):
        await tools.call("memory_fetch", {"query": "tomatoes", "cursor": "abc"})
    with pytest.raises(InvalidRequest, match=r"^memory_list: `cursor` is not valid"):
        await tools.call("memory_list", {"cursor": "abc"})
    page = await tools.call("memory_fetch", {"query": "tomatoes", "limit": 2})
    assert page["next_cursor"]
    with pytest.raises(InvalidRequest, match=r"^memory_fetch: `cursor` belongs to a different query"):
        await tools.call("memory_fetch", {"query": "garden", "limit": 2, "cursor": page["next_cursor"]})
    with pytest.raises(InvalidRequest, match=r"^memory_list: `cursor` is not valid"):
        await tools.call("memory_list", {"cursor": page["next_cursor"]})


def test_no_cursor_points_past_the_offset_cap() -> None:
    codec = CursorCodec(bytes(32))
    assert FetchCursor(1, MAX_OFFSET, 0).encode(codec, "f") is not None
    assert FetchCursor(1, MAX_OFFSET + 1, 0).encode(codec, "f") is None


def test_a_cursors_length_says_nothing_of_its_fields() -> None:
    """AES-GCM keeps the plaintext's length: unpadded, a fetch cursor grew by a character or two with
    each digit of its snapshot rowid (a count of every tenant's writes)."""
    codec = CursorCodec(bytes(32))
    fp = "0123456789abcdef"
    fetch = {
        len(FetchCursor(s, o, p).encode(codec, fp) or "")
        for s in (1, 10**6, 2**63 - 1)
        for o, p in ((0, 0), (MAX_OFFSET, MAX_POOL))
    }
    listing = {len(ListCursor(t, "m_" + "0" * 24).encode(codec, fp)) for t in (0, 10**15, -(10**17))}
    assert len(fetch) == 1 and len(listing) == 1
    assert FetchCursor.decode(
        codec, "fetch", FetchCursor(7, 3, 9).encode(codec, fp) or "", fp
    ) == FetchCursor(7, 3, 9)
