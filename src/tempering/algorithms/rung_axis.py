"""The rung axis: per-rung work over a ladder as one array operation.

A tempering sampler keeps one inner-kernel state per rung as *one* pytree whose leaves have a
leading rung axis (``replicas.position`` is (R, dim)), and its per-rung parameters the same way
(:meth:`~tempering.kernels.base.KernelSpec.rung_params`). :func:`over_rungs` runs a per-rung
function over that axis:

- on a ladder with ``density_at`` (power ladders: rungs that differ only in β) it builds the inner
  kernel once over the density at a traced rung index and ``vmap``s it over the rungs, so the
  compiled program is the same size for 4 rungs or 64, and the rungs run as one batch (and, with
  the driver's ``vmap`` over chains, rungs × chains as one batch);
- on a ladder without (subset rungs of different sizes N_m, approximations) it runs the rungs
  one after another in a ``lax.map`` whose body takes rung m's density from :func:`density_of`
  (the ladder's ``density_in_turn`` where it has one: the SPT pilot's subsets summed over a
  traced range, one body; else a ``lax.switch`` whose index is the map's counter, so one branch
  runs, also under the chains' ``vmap``), so each rung's likelihood costs what it should (see
  :mod:`tempering.ladders.tempering` for why) and the inner kernel compiles once, not once per
  rung. Against the rungs unrolled in Python (the same draws, bit for bit), SPT on tall label
  switching (n = 10⁴, 15 rungs, 4 chains × 2000 draws, 2 cores) compiled in 6.5–7.6 s instead
  of 11.0–11.1 s and sampled in 5.7–6.1 s instead of 4.2–4.9 s (the map's 30 switches a scan
  cost about 0.3 ms): a first run is 1–3 s sooner, a run past ~6000 draws a chain slower.

:func:`density_of` gives one rung's density at a traced index (``density_in_turn``, or a
``lax.switch`` over the unrolled rungs, when the ladder has no ``density_at``), for work that
walks the ladder one rung at a time inside a ``lax.scan`` (the sweep's swaps, tempered
transitions' excursions).

Written by hand: BlackJAX's tempered SMC vmaps its particles, not a ladder of distinct targets,
and no JAX library provides replica exchange over a rung axis.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tempering.ladders import TemperingLadder

LogDensity = Callable[[jax.Array], jax.Array]


def over_rungs(ladder: TemperingLadder, view: tuple, fn: Callable[..., Any], *stacked: Any
               ) -> Any:
    """``fn(m, log_density_m, *x_m)`` for every rung m, stacked on a leading rung axis.

    Parameters
    ----------
    fn
        (rung index, rung m's log density, rung m's slice of each of ``stacked``) ↦ a pytree.
        The index is traced (under ``vmap`` or ``lax.map``): use it to index arrays only.
    stacked
        Pytrees with a leading rung axis (parameters, keys, states).
    """
    num = ladder.num_rungs
    if ladder.density_at is not None:
        density_at = ladder.density_at
        return jax.vmap(lambda m, *xs: fn(m, density_at(view, m), *xs))(
            jnp.arange(num), *stacked)
    return jax.lax.map(lambda xs: fn(xs[0], density_of(ladder, view, xs[0]), *xs[1:]),
                       (jnp.arange(num), *stacked))


def density_of(ladder: TemperingLadder, view: tuple, m: jax.Array) -> LogDensity:
    """Rung m's log density for a traced m: ``density_at`` or ``density_in_turn`` when the
    ladder has it, else a ``lax.switch`` over its rungs' own densities."""
    if ladder.density_at is not None:
        return ladder.density_at(view, m)
    if ladder.density_in_turn is not None:
        return ladder.density_in_turn(view, m)
    branches = [r.log_density for r in ladder.rungs(view)]
    return lambda theta: jax.lax.switch(m, branches, theta)


def rung_costs(ladder: TemperingLadder) -> jax.Array:
    """The full-data-equivalent cost of one evaluation on each rung, as an (R,) array."""
    return jnp.asarray(ladder.costs, dtype=float)
