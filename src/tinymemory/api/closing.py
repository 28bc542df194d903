"""`with` and `async with` for whatever holds a store open: one pair of block methods each.

A class that has a `close()` (a coroutine for `AsyncClosing`) takes these as a base and is closed on
the way out of the block; an explicit close inside the block is fine, since closing twice does nothing.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """`with ... as x:` gives `x` and closes it on the way out."""

    __slots__ = ()

    def close(self) -> None:
        """Close what this object holds open (each class says what)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        """`with ... as mem:` closes the store on the way out (an explicit close inside is fine)."""
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the store."""
        self.close()


class AsyncClosing:
    """`async with ... as x:` gives `x` and awaits its close on the way out."""

    __slots__ = ()

    async def close(self) -> None:
        """Close what this object holds open (each class says what)."""
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        """`async with ... as mem:` closes the store on the way out (an explicit close inside is fine)."""
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the store."""
        await self.close()
