"""Brain: documents (files, folders, strings) ingested as a parent document plus its chunks.

Re-ingest is replay-safe: a document whose text is unchanged (and whose chunks are all there) is
skipped; a changed one supersedes its previous version (kept for as_of) and its old chunks are
forgotten before the new ones are stored, so a crash half-way is repaired by the next run.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from tinymemory.api import (
    About,
    ExploreRequest,
    Facet,
    ForgetRequest,
    InvalidRequest,
    ItemKind,
    ItemMeta,
    MemoryEngine,
    MemoryItem,
    MetaFilter,
    Namespace,
    NewItem,
    Ref,
    Relation,
    Source,
    Unsupported,
    utcnow,
)
from tinymemory.api.paging import newest
from tinymemory.lifecycle.chunking import chunk
from tinymemory.lifecycle.documents import MEDIA_TYPES, Parsed, parse, read_file, resolve_refs
from tinymemory.lifecycle.folders import walk_documents
from tinymemory.lifecycle.layout import MemoryLayout
from tinymemory.lifecycle.relations import llm_relations, rule_relations
from tinymemory.llm import LLM

log = logging.getLogger(__name__)

_SHA_KEY = "sha256"
_CHUNKS_KEY = "chunks"


@dataclass(slots=True)
class IngestReport:
    """What one ingest call did, per document path."""

    stored: list[str] = field(default_factory=list)  # paths stored for the first time
    replaced: list[str] = field(default_factory=list)  # paths whose content changed
    unchanged: list[str] = field(default_factory=list)  # paths skipped (replay)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (path, message)
    chunks: int = 0  # chunks written
    # a folder's files of a type brain does not read (not failures: nothing was tried), sorted
    unsupported: list[str] = field(default_factory=list)

    def merge(self, other: IngestReport) -> None:
        """Add another report's counts and failures to this one (a folder ingest sums its files')."""
        self.stored += other.stored
        self.replaced += other.replaced
        self.unchanged += other.unchanged
        self.failed += other.failed
        self.chunks += other.chunks
        self.unsupported += other.unsupported


class Brain:
    """Ingests documents for one layout. Reaches storage only through the engine it is given.

    Each chunk carries the relations found in its text (`relations=False` turns that off): by the
    rules of `lifecycle.relations`, or by `llm` when one is given (its failure fails the ingest before
    anything is written).
    """

    def __init__(
        self,
        engine: MemoryEngine,
        layout: MemoryLayout | Namespace | str | None = None,
        *,
        chunk_chars: int = 1_200,
        overlap_chars: int = 150,
        now: Callable[[], datetime] = utcnow,
        relations: bool = True,
        llm: LLM | None = None,
    ) -> None:
        if chunk_chars < 100 or not 0 <= overlap_chars < chunk_chars // 2:
            raise InvalidRequest("brain: `chunk_chars` must be >= 100 and `overlap_chars` below half of it")
        self.engine = engine
        self.layout = MemoryLayout.of(layout, op="brain")
        self.chunk_chars = chunk_chars
        self.overlap_chars = overlap_chars
        self.now = now
        self.relations = relations
        self.llm = llm

    async def ingest_text(
        self,
        text: str,
        *,
        source: str,
        name: str,
        media_type: str = "text/markdown",
        title: str | None = None,
        base: Path | None = None,
    ) -> IngestReport:
        """Ingest a string; `name` is its stable identity (a path-like name), re-used on re-ingest.
        Local links resolve against `base` and are read only inside it (see lifecycle.documents)."""
        parsed = parse(text, media_type, title or Path(name).stem or name)
        if title:
            parsed = Parsed(title, parsed.text, parsed.links, parsed.media_type)
        return await self._ingest(parsed, source=source, name=name, base=base, root=base)

    async def ingest_file(
        self,
        path: str | Path,
        *,
        source: str,
        name: str | None = None,
        root: str | Path | None = None,
        follow_symlinks: bool = False,
    ) -> IngestReport:
        """Ingest one document from disk (Markdown, text, HTML or, with the `pdf` extra, PDF); its file
        name is its stable identity unless `name` is given, so a re-ingest replaces what changed.

        The files it links are hashed only inside `root` (default: the document's folder); a link
        leading outside is stored as unavailable and reported in `failed`, unless `follow_symlinks`."""
        p = Path(path)
        parsed = read_file(p)
        return await self._ingest(
            parsed,
            source=source,
            name=name or p.name,
            base=p.parent,
            root=Path(root) if root is not None else p.parent,
            follow_symlinks=follow_symlinks,
        )

    async def ingest_folder(
        self, folder: str | Path, *, source: str, progress: bool = False, follow_symlinks: bool = False
    ) -> IngestReport:
        """Every readable document under `folder` (sorted, hidden files skipped). One bad file is
        reported in `failed` and does not stop the others; so is a symbolic link that leads outside
        the folder, which is skipped unless `follow_symlinks` (see lifecycle.folders), and a link in a
        document to a file outside it, which is not read (see lifecycle.documents). Files of a type
        brain does not read are listed in `unsupported` (and logged), not tried."""
        root = Path(folder)
        if not root.is_dir():
            raise InvalidRequest(f"brain ingest: `path` `{root}` is not a folder")
        walk = walk_documents(root, follow_symlinks=follow_symlinks)
        files = sorted(walk.documents)
        report = IngestReport()
        for path, why in walk.skipped:
            rel = path.relative_to(root).as_posix()
            log.warning("brain ingest: %s skipped: %s", rel, why)
            report.failed.append((rel, f"brain ingest: `path` `{rel}` is {why}"))
        report.unsupported = sorted(path.relative_to(root).as_posix() for path in walk.unsupported)
        if report.unsupported:
            log.warning(
                "brain ingest: %d file(s) not read, of a type brain does not read (it reads %s): %s",
                len(report.unsupported),
                " ".join(sorted(MEDIA_TYPES)),
                ", ".join(report.unsupported),
            )
        with _progress(progress, len(files), f"ingesting {root.name}") as advance:
            for file in files:
                rel = file.relative_to(root).as_posix()
                try:
                    report.merge(
                        await self.ingest_file(
                            file, source=source, name=rel, root=root, follow_symlinks=follow_symlinks
                        )
                    )
                except (InvalidRequest, Unsupported) as exc:
                    log.warning("brain ingest: %s skipped: %s", rel, exc)
                    report.failed.append((rel, str(exc)))
                advance()
        return report

    async def ingest(
        self, path: str | Path, *, source: str, progress: bool = False, follow_symlinks: bool = False
    ) -> IngestReport:
        """A file or a folder (`path` itself may be a symbolic link: naming it is the caller's choice)."""
        p = Path(path)
        if p.is_dir():
            return await self.ingest_folder(
                p, source=source, progress=progress, follow_symlinks=follow_symlinks
            )
        if not p.is_file():
            raise InvalidRequest(f"brain ingest: `path` `{p}` does not exist")
        return await self.ingest_file(p, source=source, follow_symlinks=follow_symlinks)

    async def _ingest(
        self,
        parsed: Parsed,
        *,
        source: str,
        name: str,
        base: Path | None,
        root: Path | None,
        follow_symlinks: bool = False,
    ) -> IngestReport:
        report = IngestReport()
        ns = self.layout.brain(source)
        if not parsed.text.strip():
            report.failed.append((name, "brain ingest: `text` is empty"))
            return report
        sha = hashlib.sha256(parsed.text.encode("utf-8")).hexdigest()
        pieces = chunk(parsed.text, parsed.title, max_chars=self.chunk_chars, overlap=self.overlap_chars)
        previous = await self._current(ns_filter := MetaFilter(namespace=ns, file_path=name))
        if (
            previous is not None
            and dict(previous.meta.extra).get(_SHA_KEY) == sha
            and await self._chunk_count(ns_filter, previous.id) == len(pieces)
        ):
            report.unchanged.append(name)
            return report
        edges = await self._relations([c.text for c in pieces])  # may fail: nothing written yet
        resolved = resolve_refs(parsed.links, base, root=root, follow_symlinks=follow_symlinks)
        refs = resolved.refs
        observed = self.now()
        src = Source("brain", source)
        doc = NewItem(
            ItemKind.DOCUMENT,
            parsed.text,
            ItemMeta(
                namespace=ns,
                source=src,
                file_path=name,
                title=parsed.title,
                refs=refs,
                observed_at=observed,
                about=About("document", name),
                extra=((_SHA_KEY, sha), (_CHUNKS_KEY, str(len(pieces))), ("media_type", parsed.media_type)),
            ),
        )
        if previous is not None:
            # Old chunks go first: if the run stops here, the document still looks changed next time.
            await self.engine.forget(
                ForgetRequest(filter=MetaFilter(namespace=ns, kinds=(ItemKind.CHUNK,), file_path=name))
            )
        stored = await self.engine.store(doc)
        chunks = [
            NewItem(
                ItemKind.CHUNK,
                c.text,
                ItemMeta(
                    namespace=ns,
                    source=src,
                    file_path=name,
                    title=c.title,
                    parent=stored.id,
                    parent_title=parsed.title,
                    refs=_refs_in(c.text, refs),
                    observed_at=observed,
                    extra=(("chunk", str(c.index)),),
                    relations=found,
                ),
                identity=f"{name}#{c.index}",
            )
            for c, found in zip(pieces, edges, strict=True)
        ]
        if chunks:
            await self.engine.store_many(chunks)
        (report.replaced if previous is not None else report.stored).append(name)
        report.chunks += len(chunks)
        for ref, why in resolved.refused:  # the document is stored; the file it links was not read
            log.warning("brain ingest: %s links %s, which %s", name, ref, why)
            report.failed.append((name, f"brain ingest: `path` `{name}` links `{ref}`, which {why}"))
        return report

    async def _relations(self, texts: list[str]) -> list[tuple[Relation, ...]]:
        """The relations of each chunk text (none when switched off)."""
        if not self.relations:
            return [() for _ in texts]
        if self.llm is not None:
            return await llm_relations(self.llm, texts)
        return [rule_relations(t) for t in texts]

    async def _current(self, flt: MetaFilter) -> MemoryItem | None:
        return await newest(
            self.engine,
            MetaFilter(namespace=flt.namespace, file_path=flt.file_path, kinds=(ItemKind.DOCUMENT,)),
        )

    async def _chunk_count(self, flt: MetaFilter, parent: str) -> int:
        result = await self.engine.explore(
            ExploreRequest(
                Facet.KIND,
                MetaFilter(namespace=flt.namespace, kinds=(ItemKind.CHUNK,), parent=parent),
                limit=1,
            )
        )
        return result.total


def _refs_in(text: str, refs: tuple[Ref, ...]) -> tuple[Ref, ...]:
    return tuple(r for r in refs if r.ref in text)


class _progress:
    """A rich progress bar for folders (or nothing), used as `with _progress(...) as advance`."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self.enabled = enabled and total > 0
        self.total = total
        self.label = label
        self._bar: object | None = None

    def __enter__(self) -> Callable[[], None]:
        if not self.enabled:
            return lambda: None
        from rich.console import Console
        from rich.progress import Progress

        bar = Progress(console=Console(stderr=True), transient=True)  # stdout stays for results
        bar.start()
        task = bar.add_task(self.label, total=self.total)
        self._bar = bar
        return lambda: bar.advance(task)

    def __exit__(self, *exc: object) -> None:
        from rich.progress import Progress

        if isinstance(self._bar, Progress):
            self._bar.stop()
