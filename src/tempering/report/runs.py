"""Reading the runs a report shows: every file loaded and summarised before any page is built."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from tempering.errors import UserInputError
from tempering.run.loading import load_run
from tempering.summary import summarize

if TYPE_CHECKING:
    import arviz as az


class LoadedRun(NamedTuple):
    """One run of the report: its file, its data and its summary (:func:`summarize`)."""

    path: Path
    idata: az.InferenceData
    summary: dict[str, Any]


def load_runs(paths: Sequence[str | Path]) -> list[LoadedRun]:
    """Load every run file (the committed draws of one still being written), then summarise
    each.

    Raises
    ------
    UserInputError
        No file given, or a file that is missing or not a run file (one line, before any
        summary is computed).
    """
    if not paths:
        raise UserInputError("no run file given")
    loaded = [(Path(p), load_run(p, partial=True)) for p in paths]
    return [LoadedRun(path, idata, summarize(idata)) for path, idata in loaded]
