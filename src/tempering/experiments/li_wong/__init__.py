"""Seed 003: Li & Wong, *Mini-batch Tempered MCMC* — ``tempering reproduce li-wong``. The paper's
map:

- :mod:`.experiment` — the reproduction (``SPEC``): part 1 (MINT, CMINT), part 2 (MINTEE);
- :mod:`.tied` — §4.1, Fig. 1, the tied-means mixture; :mod:`.logistic` — §4.2, logistic
  regression; :mod:`.bnn` — §4.3.2, the Bayesian neural network; :mod:`.ee` — §5.3, MINTEE on
  the 50-mode mixture;
- :mod:`.loop` — chains driven by hand in jitted chunks;
- :mod:`.paper` — the published numbers and settings; :mod:`.plots` — the figures;
  :mod:`.readme` — the README.

Beside ``SPEC``, the package exports part 2's setting for ``tempering bench ee``, which times the
same samplers on the same target: :mod:`.paper`, :class:`~.ee.EESettings`, :func:`~.ee.ee_model`
(the 50-mode mixture), :func:`~.ee.energy_samplers` (MINTEE's and EE's options) and
:func:`~.ee.continued_levels`.
"""

from tempering.experiments.li_wong import paper
from tempering.experiments.li_wong.ee import (
    EESettings,
    continued_levels,
    ee_model,
    energy_samplers,
)
from tempering.experiments.li_wong.experiment import SPEC

SPECS = (SPEC,)

__all__ = ["SPEC", "SPECS", "EESettings", "continued_levels", "ee_model", "energy_samplers",
           "paper"]
