"""Reproductions of the seed papers' experiments: one module per paper, run by ``tempering
reproduce NAME``. Each module has ``run(quick: bool, out: Path) -> None``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from tempering.errors import UserInputError

EXPERIMENTS: dict[str, str] = {
    "gsk2010": "tempering.experiments.gsk2010",
    "vdm2014": "tempering.experiments.vdm2014",
    "vdm2014-runtime": "tempering.experiments.vdm2014_runtime",
    "wang-neal2013": "tempering.experiments.wn2013",
}


def get_experiment(name: str) -> Callable[..., None]:
    """The ``run`` function of a reproduction, by name."""
    if name not in EXPERIMENTS:
        raise UserInputError(f"unknown experiment {name!r} (known: {', '.join(EXPERIMENTS)})")
    return importlib.import_module(EXPERIMENTS[name]).run


def prepare_out(out: Path) -> Path:
    """Create the output directory (its parent must exist)."""
    out = Path(out)
    if not out.parent.is_dir():
        raise UserInputError(f"output directory's parent does not exist: {out.parent}")
    out.mkdir(exist_ok=True)
    return out
