"""The static table at start-up: mapped from its file, not copied or widened, loaded once per process, and
giving the same vector bits whether rows are widened one lookup at a time or the whole table at once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from tinymemory.api import Unavailable
from tinymemory.retrieval.embedders import StaticMiniLMEmbedder
from tinymemory.retrieval.embedders.static import WIDEN_AFTER_TOKENS, map_table, sum_token_rows
from tinymemory.retrieval.embedders.tables import manifest_path, shipped_table

TEXTS = [
    "Dana drinks flat whites",
    "the quarterly report is due in June",
    "",
    "zzzq",
    "naïve café résumé",
    "東京で会いましょう",
    "what did she paint for the exhibition?",
]


def copy_shipped(folder: Path) -> Path:
    table = shipped_table(256)
    assert table is not None
    dst = folder / table.name
    shutil.copyfile(table, dst)
    shutil.copyfile(manifest_path(table), manifest_path(dst))
    return dst


def test_the_shipped_table_is_viewed_in_place_read_only() -> None:
    table_path = shipped_table(256)
    assert table_path is not None
    mapped, table = map_table(table_path)
    assert table.dtype == np.float16 and table.shape == (30522, 256)
    assert not table.flags.writeable
    assert np.shares_memory(table, np.frombuffer(mapped, dtype=np.uint8))
    np.testing.assert_array_equal(table, np.load(table_path))


def test_embedders_of_one_file_share_one_load() -> None:
    first, second = StaticMiniLMEmbedder(), StaticMiniLMEmbedder()
    first.load()
    assert second._ensure_loaded() is first._ensure_loaded()


def test_row_by_row_and_whole_table_widening_give_the_same_bits() -> None:
    emb = StaticMiniLMEmbedder()
    loaded = emb._ensure_loaded()
    narrow = np.zeros((len(TEXTS), 256), dtype=np.float32)
    wide = np.zeros_like(narrow)
    sum_token_rows(narrow, loaded.tokenizer, loaded.table, loaded.fallback, TEXTS)
    table32 = np.ascontiguousarray(loaded.table, dtype=np.float32)
    sum_token_rows(wide, loaded.tokenizer, table32, loaded.fallback, TEXTS)
    assert narrow.view(np.uint32).tobytes() == wide.view(np.uint32).tobytes()


def test_bulk_embedding_widens_once_and_keeps_the_vectors(tmp_path: Path) -> None:
    emb = StaticMiniLMEmbedder(copy_shipped(tmp_path), build_if_missing=False)
    before = emb.embed(TEXTS)
    assert emb._ensure_loaded().table.dtype == np.float16  # a few rows, nothing widened
    bulk = [f"memory number {i} about watercolours and exhibitions" for i in range(WIDEN_AFTER_TOKENS // 5)]
    emb.embed(bulk)
    assert emb._ensure_loaded().table.dtype == np.float32
    after = emb.embed(TEXTS)
    assert before.view(np.uint32).tobytes() == after.view(np.uint32).tobytes()


def test_a_replaced_table_file_is_read_again(tmp_path: Path) -> None:
    path = copy_shipped(tmp_path)
    StaticMiniLMEmbedder(path, build_if_missing=False).load()
    damaged = bytearray(path.read_bytes())
    damaged[-7] ^= 0x40
    tmp = path.with_name("replacement.npy")
    tmp.write_bytes(bytes(damaged))
    os.replace(tmp, path)  # as tables.write_atomically replaces a table
    with pytest.raises(Unavailable, match="does not match its manifest"):
        StaticMiniLMEmbedder(path, build_if_missing=False).load()


def test_a_file_that_is_not_an_array_is_unavailable(tmp_path: Path) -> None:
    bad = tmp_path / "t.npy"
    bad.write_bytes(b"not an array at all")
    with pytest.raises(Unavailable, match="is unreadable"):
        map_table(bad)


def test_a_text_has_the_same_vector_bits_alone_and_in_any_batch() -> None:
    emb = StaticMiniLMEmbedder()
    texts = [*TEXTS, "word " * 600, "a", "the exhibition opens in June and Dana paints for it every night"]
    batch = emb.embed(texts)
    alone = np.vstack([emb.embed([t]) for t in texts])
    shuffled = emb.embed(texts[::-1])[::-1]
    assert batch.view(np.uint32).tobytes() == alone.view(np.uint32).tobytes()
    assert batch.view(np.uint32).tobytes() == shuffled.view(np.uint32).tobytes()
