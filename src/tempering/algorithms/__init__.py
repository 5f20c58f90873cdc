"""Sampling algorithms run by the driver, their specs and the sampler registry.

The map. Shared pieces sit at this level; each sampler family is a package whose ``__init__``
is its own map and lists its samplers (``SPECS``):

- :mod:`.base` — the ``Algorithm`` contract (init, warmup, step, position; NamedTuple states) and
  the statistics every run records; :mod:`.spec` — ``SamplerSpec``, a sampler's declaration;
  :mod:`.options` — the inner-kernel options samplers share; :mod:`.registry` — ``SAMPLERS``
  and ``get_sampler``;
- :mod:`.rungs`, :mod:`.rung_axis` — an inner kernel on every rung of a ladder, the rung axis
  as one batch (what PT, TT and the equi-energy levels share); :mod:`.cost_model` — seed 000's
  cost per iteration; :mod:`.single_kernel` — every built-in kernel as a sampler of its own;
- :mod:`.programs` — an algorithm's chain-batched compiled programs (warmup and chunk, or one
  program for both with ``Scans``), shared by a pilot and its run (the chains' keys and starting
  positions are :mod:`tempering.starts`'s);
- :mod:`.pt` — parallel tempering (``pt``, ``spt``); :mod:`.tt` — tempered transitions (``tt``,
  ``stt``, ``tt_approx``); :mod:`.st` — simulated tempering (``st``); :mod:`.approx` — the
  discretizing chain (``discretizing_chain``); :mod:`.minibatch` — mini-batch tempering and
  SG-MCMC (``mint``, ``cmint``, ``sgld``, ``sghmc``); :mod:`.equi_energy` — the equi-energy
  samplers (``ee``, ``mintee``); :mod:`.ensemble` — ensembles for fast and slow variables
  (``ensemble``, ``coordinate_rwm``).

A family imports the shared modules and its own, never another family
(``tests/package/test_layers.py``).
"""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.algorithms.base import Algorithm, AlgorithmInfo, Stat
from tempering.algorithms.cost_model import paper_cost_ratios, pt_iteration_costs, tt_iteration_cost
from tempering.algorithms.registry import SAMPLERS, build_sampler, get_sampler
from tempering.algorithms.spec import SamplerSpec

__all__ = ["SAMPLERS", "Algorithm", "AlgorithmInfo", "SamplerSpec", "Stat", "build_sampler",
           "get_sampler", "paper_cost_ratios", "pt_iteration_costs", "tt_iteration_cost"]
