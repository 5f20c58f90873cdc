"""The equi-energy sampler (Kou, Zhou & Wong 2006; seed 003 App. D): ``ee`` on the full data and
``mintee``, its mini-batch version (seed 003 §5.2, Algorithm 2). The family's map:

- :mod:`.sampler` — the ``ee`` spec (``levels=auto`` runs the pilot); :mod:`.mintee` — the
  ``mintee`` spec;
- :mod:`.algorithm` — the sampler over all levels: init, one step, the warmup's hand-off;
- :mod:`.levels` — one level: its energy read-out, local move and equi-energy jump;
- :mod:`.prefix` — MINTEE's fixed-subset energies at a traced level, one body for every level;
- :mod:`.rings` — the energy rings, fixed-capacity reservoirs of past draws;
- :mod:`.warmup` — the staged warmup that fills the rings;
- :mod:`.pilot` — the pilot that places the levels, top temperature and energy ladder;
- :mod:`.stats` — what it records and how ``tempering summary`` shows it.

``SPECS`` lists the family's samplers for the registry.
"""

from tempering.algorithms.equi_energy.mintee import SPEC as MINTEE_SPEC
from tempering.algorithms.equi_energy.sampler import SPEC as EE_SPEC

SPECS = (EE_SPEC, MINTEE_SPEC)

__all__ = ["EE_SPEC", "MINTEE_SPEC", "SPECS"]
