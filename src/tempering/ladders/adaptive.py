"""Schedules placed at equal communication barrier (Syed, Bouchard-Côté, Deligiannidis & Doucet
2021, JRSS-B, §5.1, their Algorithm 4; Pigeons.jl's round-based schedule update).

With rungs β_0 = 1 > β_1 > … > β_M and r_i the swap rejection rate of the adjacent pair
(i − 1, i), the communication barrier accumulated from the target down to rung i is estimated by

    Λ̂(β_i) = Σ_{j ≤ i} r_j,        Λ̂(β_0) = 0,

a non-decreasing function of the position along the ladder. Interpolating it monotonically
between the rungs (piecewise linearly in β, which is monotone) and inverting it at the targets
Λ̂_total · k / M' (k = 0..M') places M' + 1 new rungs so that every adjacent pair carries the same
share of the barrier — where Syed et al. show the round-trip rate of non-reversible swaps is
highest for a given number of rungs. The end points (1 and the last β) stay where they are.

Pure functions: in ``jax.numpy`` inside a compiled warmup on traced β's, in NumPy on a pilot's
numbers (:func:`~tempering.numerics.array_module`: no program compiled for them). Written by
hand: neither BlackJAX nor ArviZ places tempering schedules.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array
from jax.typing import ArrayLike

from tempering.numerics import array_module, interp

#: Below this estimated barrier every pair already swaps nearly always: the schedule is kept.
MIN_BARRIER = 1e-6


def cumulative_barrier(rejection: ArrayLike) -> Array:
    """Λ̂ at each rung, (M + 1,): 0 at the target, then the running sum of the rejections."""
    xp = array_module(rejection)
    rates = xp.clip(xp.asarray(rejection), 0.0, 1.0)
    return xp.concatenate([xp.zeros(1, rates.dtype), xp.cumsum(rates)])


def equal_barrier_betas(betas: ArrayLike, rejection: ArrayLike, rungs: int | None = None,
                        active: tuple[ArrayLike, ArrayLike] | None = None) -> Array:
    """The ``rungs`` β's (default: as many as now) at equal Λ̂ spacing, 1 first and the last β
    kept; with ``active`` = (a, b), only slots a … b are placed (at equal Λ̂ from the first β
    to the last) and the slots before a and after b keep the end β's (a rung window,
    :mod:`tempering.algorithms.pt.capacity`).

    Parameters
    ----------
    betas
        The schedule of the round just run, (M + 1,), decreasing from 1.
    rejection
        Swap rejection rate of each adjacent pair over that round, (M,).
    rungs
        Rungs of the new schedule (static).
    active
        The first and last slot in use (may be traced); the free slots' pairs should carry
        rejection 0 (their β's repeat an end's).

    Returns
    -------
    Array
        The new schedule, decreasing from 1; the old one where the estimated barrier is
        negligible (no information to move the rungs by).
    """
    xp = array_module(betas, rejection)  # NumPy on a pilot's numbers: no compiled program
    old = xp.asarray(betas)
    count = old.shape[0] if rungs is None else int(rungs)
    barrier = cumulative_barrier(rejection)
    total = barrier[-1]
    # strictly increasing abscissae for the inversion: a tiny ramp breaks ties of r = 0 pairs
    ramp = xp.linspace(0.0, 1e-9, barrier.shape[0]) * xp.maximum(total, 1.0)
    if active is None:
        fractions = xp.linspace(0.0, 1.0, count)
    else:
        first, last = xp.asarray(active[0]), xp.asarray(active[1])
        fractions = xp.clip((xp.arange(count) - first) / xp.maximum(last - first, 1), 0.0, 1.0)
    targets = fractions * (total + ramp[-1])
    new = (xp.interp if xp is not jnp else interp)(targets, barrier + ramp, old)
    new = xp.concatenate([old[:1], new[1:-1], old[-1:]])  # the end points stay
    if count != old.shape[0]:
        return new
    return xp.where(total > MIN_BARRIER, new, old)


def barrier_profile(betas: ArrayLike, rejection: ArrayLike) -> tuple[Array, Array]:
    """The local barrier λ̂ at the midpoints of the pairs: (midpoints, r_i / (β_{i−1} − β_i)),
    the derivative of the interpolated Λ̂ (Syed et al.'s λ(β))."""
    betas = jnp.asarray(betas)
    gaps = jnp.maximum(betas[:-1] - betas[1:], 1e-300)
    return 0.5 * (betas[:-1] + betas[1:]), jnp.clip(jnp.asarray(rejection), 0.0, 1.0) / gaps
