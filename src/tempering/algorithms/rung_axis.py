"""The rung axis: per-rung work over a ladder as one array operation.

A tempering sampler keeps one inner-kernel state per rung as *one* pytree whose leaves have a
leading rung axis (``replicas.position`` is (R, dim)), and its per-rung parameters the same way
(:meth:`~tempering.kernels.base.KernelSpec.rung_params`). :func:`over_rungs` runs a per-rung
function over that axis:

- on a ladder with ``density_at`` (power ladders: rungs that differ only in β) it builds the inner
  kernel once over the density at a traced rung index and ``vmap``s it over the rungs, so the
  compiled program is the same size for 4 rungs or 64, and the rungs run as one batch (and, with
  the driver's ``vmap`` over chains, rungs × chains as one batch);
- on a ladder without (subset rungs of static sizes N_m) it unrolls the rungs in Python and stacks
  the results, so each rung's likelihood costs what it should (see
  :mod:`tempering.ladders.tempering` for why).

:func:`density_of` gives one rung's density at a traced index (a ``lax.switch`` over the unrolled
rungs when the ladder has no ``density_at``), for work that walks the ladder one rung at a time
inside a ``lax.scan`` (the sweep's swaps, tempered transitions' excursions).

Written by hand: BlackJAX's tempered SMC vmaps its particles, not a ladder of distinct targets,
and no JAX library provides replica exchange over a rung axis.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tempering.algorithms.rungs import rung_slice, stack_rungs
from tempering.ladders import TemperingLadder

LogDensity = Callable[[jax.Array], jax.Array]


def is_batched(ladder: TemperingLadder) -> bool:
    """Whether the ladder's rungs run as one vmapped batch (it has ``density_at``)."""
    return ladder.density_at is not None


def over_rungs(ladder: TemperingLadder, view: tuple, fn: Callable[..., Any], *stacked: Any
               ) -> Any:
    """``fn(m, log_density_m, *x_m)`` for every rung m, stacked on a leading rung axis.

    Parameters
    ----------
    fn
        (rung index, rung m's log density, rung m's slice of each of ``stacked``) ↦ a pytree.
        Under ``vmap`` the index is traced: use it to index arrays only.
    stacked
        Pytrees with a leading rung axis (parameters, keys, states).
    """
    num = ladder.num_rungs
    if ladder.density_at is not None:
        density_at = ladder.density_at
        return jax.vmap(lambda m, *xs: fn(m, density_at(view, m), *xs))(
            jnp.arange(num), *stacked)
    rungs = ladder.rungs(view)
    return stack_rungs([fn(m, rungs[m].log_density, *rung_slice(stacked, m))
                        for m in range(num)])


def density_of(ladder: TemperingLadder, view: tuple, m: jax.Array) -> LogDensity:
    """Rung m's log density for a traced m: ``density_at`` when the ladder has it, else a
    ``lax.switch`` over its unrolled rungs."""
    if ladder.density_at is not None:
        return ladder.density_at(view, m)
    branches = [r.log_density for r in ladder.rungs(view)]
    return lambda theta: jax.lax.switch(m, branches, theta)


def rung_costs(ladder: TemperingLadder) -> jax.Array:
    """The full-data-equivalent cost of one evaluation on each rung, as an (R,) array."""
    return jnp.asarray(ladder.costs, dtype=float)
