"""Seed 000: van de Meent, Paige & Wood (2014), *Tempering by Subsampling* — ``tempering
reproduce vdm2014`` and ``vdm2014-runtime``. The paper's map:

- :mod:`.experiment` — the reproduction (``SPEC``): settings, the runs per figure, the tables;
- :mod:`.runs` — timed chains from θ*, θ*/2, 2θ*; :mod:`.runtime` — how long the full size
  takes (``RUNTIME_SPEC``);
- :mod:`.paper` — the published numbers; :mod:`.plots` — Figs. 1–3; :mod:`.readme` — the README.
"""

from tempering.experiments.vdm2014.experiment import SPEC
from tempering.experiments.vdm2014.runtime import SPEC as RUNTIME_SPEC

SPECS = (SPEC, RUNTIME_SPEC)

__all__ = ["RUNTIME_SPEC", "SPEC", "SPECS"]
