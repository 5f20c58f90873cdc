"""Exact MCMC from cheap GP approximations (seed 002): the ``discretizing_chain`` (seed 002 §3,
Eqs. 10–13). The family's map:

- :mod:`.discretizing` — the discretizing chain with its cache, and its spec;
- :mod:`.pilot` — choosing the approximation's size m from a pilot.

TT over a ladder of approximations (seed 002 §4) is ``tt_approx`` in :mod:`tempering.algorithms.tt`.
``SPECS`` lists the family's samplers for the registry.
"""

from tempering.algorithms.approx.discretizing import SPEC as DISCRETIZING_SPEC

SPECS = (DISCRETIZING_SPEC,)

__all__ = ["DISCRETIZING_SPEC", "SPECS"]
