"""Whether the coroutine running now may block its thread.

The sync facade says so (`MAY_BLOCK`) for a call it runs on the caller's own private loop, where
nothing else waits on that loop: an engine may then do its write right there, under its writer's lock,
instead of handing it to its writer thread and waiting for the answer to come back.
"""

from __future__ import annotations

from contextvars import ContextVar

MAY_BLOCK: ContextVar[bool] = ContextVar("tinymemory_may_block", default=False)
