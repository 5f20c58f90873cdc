"""Seed 002: Wang & Neal (2013), *MCMC methods for Gaussian process models using fast
approximations for the likelihood* — ``tempering reproduce wang-neal2013``. The paper's map:

- :mod:`.experiment` — the reproduction (``SPEC``);
- :mod:`.paper` — the published numbers.
"""

from tempering.experiments.wang_neal2013.experiment import SPEC

SPECS = (SPEC,)

__all__ = ["SPEC", "SPECS"]
