"""Reproductions of the seed papers' experiments: one package per paper, run by ``tempering
reproduce NAME``. Each package is opened by its map and lists ``SPECS``, each a
:class:`~tempering.registry.RunnableSpec` whose ``run(quick: bool, out: Path) -> None`` writes
tables, CSV, plots and a README into ``out``: :mod:`.vdm2014` (seed 000), :mod:`.gsk2010`
(001), :mod:`.wang_neal2013` (002), :mod:`.li_wong` (003), :mod:`.neal2010` (004). Shared here:
:mod:`.plotting`, :mod:`.report` (tables and READMEs), :mod:`.timing` (timed chains). Adding a
reproduction is one package and one line in the tuple below. A package's name is its ``tempering
reproduce`` name with ``_`` for ``-``. Reproductions use the public API only (``tempering`` and
the ``__all__`` of its public packages); ``tests/package/test_layers.py`` checks their imports.
"""

from __future__ import annotations

from pathlib import Path

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering import UserInputError
from tempering.experiments import gsk2010, li_wong, neal2010, vdm2014, wang_neal2013
from tempering.registry import Registry, RunnableSpec

EXPERIMENTS: Registry[RunnableSpec] = Registry("experiment", (
    *gsk2010.SPECS,
    *li_wong.SPECS,
    *neal2010.SPECS,
    *vdm2014.SPECS,
    *wang_neal2013.SPECS,
))


def prepare_out(out: Path) -> Path:
    """Create the output directory (its parent must exist)."""
    out = Path(out)
    if not out.parent.is_dir():
        raise UserInputError(f"output directory's parent does not exist: {out.parent}")
    out.mkdir(exist_ok=True)
    return out
