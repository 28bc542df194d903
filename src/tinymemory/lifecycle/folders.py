"""The documents under a folder for brain ingest, and the symbolic links the walk will not follow.

A folder from someone else (a cloned repository) may hold links. One that leads outside the folder
would pull any file the user can read into memory, so it is skipped and reported unless the caller
asks to follow links; a link that stays inside is followed. The folder itself may be a link: naming
it is the caller's choice. Every real folder is walked once, so a cycle of links cannot loop and
links to one folder cannot multiply the walk, and folders reached by their own names are walked
before those reached through links, so a document keeps the name it has in the tree.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from tinymemory.lifecycle.documents import FOLLOW_HINT, media_type_of


@dataclass(slots=True)
class FolderWalk:
    """What a walk found: documents as reached (through links too), what it refused, with why, and the
    files of a type brain does not read (not hidden ones)."""

    documents: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    unsupported: list[Path] = field(default_factory=list)


def walk_documents(root: Path, *, follow_symlinks: bool = False) -> FolderWalk:
    """Every readable document under `root` (hidden names skipped), in walk order."""
    walk = FolderWalk()
    inside = root.resolve()
    walked: set[tuple[int, int]] = set()
    links: deque[Path] = deque()  # links to folders, walked after the real tree

    def visit(folder: Path) -> None:
        walked.add(_identity(folder))
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            walk.skipped.append((folder, f"cannot be read ({exc.strerror})"))
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = folder / entry.name
            if entry.is_symlink():
                refusal = _refusal(path, inside, follow_symlinks)
                if refusal is not None:
                    if refusal[1] or media_type_of(path) is not None:  # a folder, or a document by name
                        walk.skipped.append((path, refusal[0]))
                    continue
                if path.is_dir():
                    links.append(path)
                    continue
            if entry.is_dir(follow_symlinks=False):
                visit(path)
            elif path.is_file():
                (walk.documents if media_type_of(path) is not None else walk.unsupported).append(path)

    visit(root)
    while links:
        link = links.popleft()
        try:
            identity = _identity(link)
        except OSError as exc:  # changed since it was seen
            walk.skipped.append((link, f"cannot be read ({exc.strerror})"))
            continue
        if identity not in walked:  # else a cycle, or a second way to a folder already walked
            visit(link)
    return walk


def _identity(folder: Path) -> tuple[int, int]:
    st = folder.stat()
    return st.st_dev, st.st_ino


def _refusal(link: Path, inside: Path, follow: bool) -> tuple[str, bool] | None:
    """Why the walk does not follow `link` (and whether it names a folder), or None to follow it."""
    try:
        target = link.resolve(strict=True)
    except FileNotFoundError:
        return "a symbolic link to nothing (its target does not exist)", False
    except (OSError, RuntimeError):  # a loop of links: ELOOP, or RuntimeError before Python 3.13
        return "a symbolic link that never reaches a file (a loop of links)", False
    if follow or target.is_relative_to(inside):
        return None
    kind = "folder" if target.is_dir() else "file"
    return f"a symbolic link to a {kind} outside the folder (`{target}`); {FOLLOW_HINT}", target.is_dir()
