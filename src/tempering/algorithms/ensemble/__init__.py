"""Ensemble MCMC for fast and slow variables (seed 004, Neal 2010): ``ensemble`` and its baseline
``coordinate_rwm``. The family's map:

- :mod:`.sampler` — the ``ensemble`` spec; :mod:`.coordinate_rwm` — single-variable Metropolis;
- :mod:`.algorithm` — the ensemble transition (seed 004 §2, Eqs. 6–15, 18–19);
- :mod:`.bases` — the base measures ξ over the fast variables;
- :mod:`.slow` — updates of the slow variables on a fixed or shifted ensemble;
- :mod:`.warmup` — warmup of the gradient slow kernels.

``SPECS`` lists the family's samplers for the registry.
"""

from tempering.algorithms.ensemble.coordinate_rwm import SPEC as COORDINATE_RWM_SPEC
from tempering.algorithms.ensemble.sampler import SPEC as ENSEMBLE_SPEC

SPECS = (ENSEMBLE_SPEC, COORDINATE_RWM_SPEC)

__all__ = ["COORDINATE_RWM_SPEC", "ENSEMBLE_SPEC", "SPECS"]
