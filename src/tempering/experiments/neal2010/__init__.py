"""Seed 004: Neal (2010), *MCMC using ensembles of states for problems with fast and slow
variables such as Gaussian process regression* — ``tempering reproduce neal2010``. The paper's
map:

- :mod:`.experiment` — the reproduction (``SPEC``);
- :mod:`.runs` — its runs and what is measured on each;
- :mod:`.paper` — the published numbers and settings; :mod:`.plots` — the traces of Figs. 2–5;
  :mod:`.readme` — the README, claim by claim.
"""

from tempering.experiments.neal2010.experiment import SPEC

SPECS = (SPEC,)

__all__ = ["SPEC", "SPECS"]
