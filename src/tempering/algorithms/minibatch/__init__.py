"""Mini-batch tempered MCMC (seed 003, part 1): ``mint``, ``cmint`` and the stochastic-gradient
baselines ``sgld`` and ``sghmc``. The family's map:

- :mod:`.mint` — MINT (seed 003 Algorithm 1), its mini-batch schedule and spec;
- :mod:`.cmint` — cyclic MINT (seed 003 §4.3.1);
- :mod:`.sgmcmc` — what SGLD and SGHMC share on MINT's mini-batches (options, the algorithm,
  its warmup); :mod:`.sgld`, :mod:`.sghmc` — their specs (BlackJAX's integrators);
  :mod:`.control_variates` — the plain and control-variate batch gradient estimators (Baker et
  al. 2019) and their noise; :mod:`.sgmcmc_tuning` — the mode, the curvature and the whitening
  basis on the full data.

MINTEE, the mini-batch equi-energy sampler, is in :mod:`tempering.algorithms.equi_energy`.
``SPECS`` lists the family's samplers for the registry.
"""

from tempering.algorithms.minibatch.cmint import SPEC as CMINT_SPEC
from tempering.algorithms.minibatch.mint import SPEC as MINT_SPEC
from tempering.algorithms.minibatch.sghmc import SPEC as SGHMC_SPEC
from tempering.algorithms.minibatch.sgld import SPEC as SGLD_SPEC

SPECS = (MINT_SPEC, CMINT_SPEC, SGLD_SPEC, SGHMC_SPEC)

__all__ = ["CMINT_SPEC", "MINT_SPEC", "SGHMC_SPEC", "SGLD_SPEC", "SPECS"]
