"""Which MemoryPolicy each workspace runs under: one file for all, or a folder of one file per workspace.

In a folder, `<workspace>.yaml` (or .yml, .json) binds that workspace and `_default.yaml` every other
one; without either, a workspace gets the built-in policy. Files are read at start, so a broken policy
stops the service before it accepts a request.
"""

from __future__ import annotations

from pathlib import Path

from tinymemory.api import InvalidRequest
from tinymemory.policy import MemoryPolicy

SUFFIXES = (".yaml", ".yml", ".json")
DEFAULT_STEM = "_default"


class PolicyBook:
    """The policy of each workspace. `bound(ws)` is None when the workspace runs the built-in default
    (guidance then says so: kinds and relation types are not restricted to a list)."""

    def __init__(self, by_workspace: dict[str, MemoryPolicy], fallback: MemoryPolicy | None) -> None:
        self._by_workspace = by_workspace
        self._fallback = fallback
        self._default = MemoryPolicy.default()

    @classmethod
    def load(cls, path: Path | None) -> PolicyBook:
        if path is None:
            return cls({}, None)
        if path.is_file():
            return cls({}, MemoryPolicy.load(path))
        if not path.is_dir():
            raise InvalidRequest(f"serve: `--policy` `{path}` is neither a policy file nor a folder of them")
        by_workspace: dict[str, MemoryPolicy] = {}
        fallback = None
        for file in sorted(path.iterdir()):
            if file.suffix not in SUFFIXES or not file.is_file():
                continue
            policy = MemoryPolicy.load(file)
            if file.stem == DEFAULT_STEM:
                fallback = policy
            elif file.stem in by_workspace:
                raise InvalidRequest(f"serve: two policy files bind workspace `{file.stem}` in `{path}`")
            else:
                by_workspace[file.stem] = policy
        return cls(by_workspace, fallback)

    def bound(self, workspace: str) -> MemoryPolicy | None:
        return self._by_workspace.get(workspace, self._fallback)

    def effective(self, workspace: str) -> MemoryPolicy:
        return self.bound(workspace) or self._default

    @property
    def workspaces(self) -> tuple[str, ...]:
        return tuple(self._by_workspace)

    def every_policy(self) -> list[MemoryPolicy]:
        """Every policy the book can answer: each workspace's, and the one any other workspace runs (an
        empty name is never a workspace, so it reads the fallback). With them the retention job reads
        nothing when no policy limits retention."""
        return [*(self.effective(w) for w in self.workspaces), self.effective("")]
