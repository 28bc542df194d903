"""A progress bar on stderr for the long, rare jobs (distilling a table, re-embedding a file), so a pause
of a minute always says what it is doing. stdout stays free for the CLI's JSON."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn


def progress_bar(enabled: bool = True) -> Progress:
    """On a terminal it redraws and then vanishes; elsewhere (logs, CI) it prints its final state once,
    so a log still records what the pause was."""
    console = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeRemainingColumn(),
        console=console,
        disable=not enabled,
        transient=console.is_terminal,
    )
