"""A rich progress bar for chunked sampling: draws done, draws/s and mean acceptance so far."""

from __future__ import annotations

import sys
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextmanager
def sampling_progress(enabled: bool):
    """Yield a ``rich.progress.Progress`` on stderr (or ``None`` when disabled)."""
    if not enabled:
        yield None
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[accept]}"),
        TimeElapsedColumn(), console=Console(file=sys.stderr), transient=False)
    with progress:
        yield progress
