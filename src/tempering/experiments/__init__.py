"""Reproductions of the seed papers' experiments: one module per paper, run by ``tempering
reproduce NAME``. Each module exports ``SPEC``, a :class:`~tempering.registry.RunnableSpec` whose
``run(quick: bool, out: Path) -> None`` writes tables, CSV, plots and a README into ``out``.
Adding a reproduction is one module and one line in the tuple below. Reproductions use the public
API only (``tempering``, ``tempering.estimators``, ``tempering.models``, ``tempering.algorithms``,
``tempering.ladders``); a test checks their imports.
"""

from __future__ import annotations

from pathlib import Path

from tempering import UserInputError
from tempering.experiments import gsk2010, li_wong, neal2010, vdm2014, vdm2014_runtime, wn2013
from tempering.registry import Registry, RunnableSpec

EXPERIMENTS: Registry[RunnableSpec] = Registry("experiment", (
    gsk2010.SPEC,
    li_wong.SPEC,
    neal2010.SPEC,
    vdm2014.SPEC,
    vdm2014_runtime.SPEC,
    wn2013.SPEC,
))


def prepare_out(out: Path) -> Path:
    """Create the output directory (its parent must exist)."""
    out = Path(out)
    if not out.parent.is_dir():
        raise UserInputError(f"output directory's parent does not exist: {out.parent}")
    out.mkdir(exist_ok=True)
    return out
