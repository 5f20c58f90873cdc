"""Swap proposals of parallel tempering over the rung axis (seed 000 Eq. 2, corrected indices per
the seeds' errata): a swap of the states on rungs m−1 and m is accepted with

    r = h_m(θ_{m−1}) h_{m−1}(θ_m) / [h_m(θ_m) h_{m−1}(θ_{m−1})].

Replicas are one rung-stacked pytree (:mod:`tempering.algorithms.rung_axis`). Each side of a
proposal is evaluated by initialising the other rung's kernel at the incoming state, so an accepted
swap leaves every cached density (and gradient) belonging to the rung it now sits on; that costs
c_m + c_{m−1} per proposal, counted.

- :func:`paired_swaps` (``deo``, ``seo``): the pairs (l, l + 1) with l ≡ parity (mod 2) are
  disjoint, so every rung is initialised once at its partner's state (one batched evaluation over
  the rung axis) and all pairs are decided at once. A rung without a partner at an end of the
  ladder evaluates its own state, unused and not counted (the batch is the same shape every
  iteration).
- :func:`sweep_swaps` (``sweep``, the paper's choice: every pair, m = M down to 1, each seeing the
  swaps before it): a ``lax.scan`` over the pairs, one compiled pair body for any ladder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tempering.algorithms.pt.capacity import inside_pairs
from tempering.algorithms.pt.stats import (
    SWAP_ACCEPTED,
    SWAP_LOG_DOWN,
    SWAP_LOG_UP,
    SWAP_PROB,
    SWAP_PROPOSED,
)
from tempering.algorithms.rung_axis import density_of, over_rungs, rung_costs
from tempering.algorithms.rungs import rung_slice
from tempering.kernels.base import BoundKernel
from tempering.ladders import TemperingLadder
from tempering.numerics import metropolis

Swapped = tuple[Any, jax.Array, jax.Array, dict[str, jax.Array]]


def swap_log_ratio(hi_at_lo: jax.Array, lo_at_hi: jax.Array, hi: jax.Array,
                   lo: jax.Array) -> jax.Array:
    """log r = log h_m(θ_{m−1}) + log h_{m−1}(θ_m) − log h_m(θ_m) − log h_{m−1}(θ_{m−1})."""
    return hi_at_lo + lo_at_hi - hi - lo


def partners(num_rungs: int, parity: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Each rung's partner under the pairs (l, l + 1), l ≡ ``parity`` (mod 2), and whether it has
    one (a rung without keeps itself as its partner)."""
    m = jnp.arange(num_rungs)
    partner = jnp.where(m % 2 == parity, m + 1, m - 1)
    paired = (partner >= 0) & (partner < num_rungs)
    return jnp.where(paired, partner, m), paired


def select_rows(flag: jax.Array, new: Any, old: Any) -> Any:
    """Row m of ``new`` where ``flag[m]``, else of ``old`` (rung-stacked pytrees)."""
    return jax.tree.map(
        lambda a, b: jnp.where(flag.reshape(flag.shape + (1,) * (a.ndim - 1)), a, b), new, old)


def paired_swaps(key: jax.Array, ladder: TemperingLadder, bound: BoundKernel, view: tuple,
                 params: Any, replicas: Any, index: jax.Array, parity: jax.Array,
                 log_ratio: Callable = swap_log_ratio, window: jax.Array | None = None,
                 gate: jax.Array | bool = True) -> Swapped:
    """Even/odd swaps: the pairs (l, l + 1) with l ≡ ``parity`` (mod 2), all at once (inside
    the rung ``window``, with one: :mod:`~tempering.algorithms.pt.capacity`; none when ``gate``
    is false, as in PT's warmup while the rungs' kernels tune).

    Returns the replicas, the index process (replica id on each rung), the cost of the
    evaluations and the swap statistics (per pair; unproposed pairs have probability 0).
    """
    num = ladder.num_rungs
    partner, paired = partners(num, parity)
    incoming = jax.tree.map(lambda a: a[partner], replicas.position)
    candidates = over_rungs(ladder, view, lambda m, ld, p, x: bound.make(ld, p).init(x),
                            params, incoming)
    log_r = log_ratio(candidates.logdensity[1:], candidates.logdensity[:-1],
                      replicas.logdensity[1:], replicas.logdensity[:-1])
    proposed = (jnp.arange(num - 1) % 2 == parity) & inside_pairs(window, num - 1) & gate
    accepted, prob = metropolis(key, log_r)  # one uniform per pair, drawn at once
    accepted = proposed & accepted
    moved = paired & accepted[jnp.clip(jnp.minimum(jnp.arange(num), partner), 0, num - 2)]
    costs = rung_costs(ladder)
    cost = jnp.sum(jnp.where(proposed, costs[:-1] + costs[1:], 0.0))
    stats = {SWAP_PROB.name: jnp.where(proposed, prob, 0.0), SWAP_PROPOSED.name: proposed,
             SWAP_ACCEPTED.name: accepted,
             SWAP_LOG_UP.name: jnp.where(proposed, candidates.logdensity[:-1]
                                         - replicas.logdensity[1:], jnp.nan),
             SWAP_LOG_DOWN.name: jnp.where(proposed, candidates.logdensity[1:]
                                           - replicas.logdensity[:-1], jnp.nan)}
    return (select_rows(moved, candidates, replicas), jnp.where(moved, index[partner], index),
            cost, stats)


def sweep_swaps(key: jax.Array, ladder: TemperingLadder, bound: BoundKernel, view: tuple,
                params: Any, replicas: Any, index: jax.Array,
                log_ratio: Callable = swap_log_ratio, window: jax.Array | None = None,
                gate: jax.Array | bool = True) -> Swapped:
    """Every pair, m = M down to 1, each proposal seeing the swaps before it: a ``lax.scan``
    (the pairs inside the rung ``window`` only, with one; none when ``gate`` is false)."""
    top = ladder.num_rungs - 1
    inside = inside_pairs(window, top) & gate

    def set_row(tree, m, row):
        return jax.tree.map(lambda a, r: a.at[m].set(r), tree, row)

    def one_pair(carry, xs):
        replicas, index = carry
        m, k, ok = xs
        lo, hi = rung_slice(replicas, m - 1), rung_slice(replicas, m)
        hi_cand = bound.make(density_of(ladder, view, m), rung_slice(params, m)).init(
            lo.position)
        lo_cand = bound.make(density_of(ladder, view, m - 1), rung_slice(params, m - 1)).init(
            hi.position)
        log_r = log_ratio(hi_cand.logdensity, lo_cand.logdensity, hi.logdensity, lo.logdensity)
        accepted, prob = metropolis(k, log_r)
        accepted, prob = accepted & ok, jnp.where(ok, prob, 0.0)
        new_hi = jax.tree.map(lambda a, b: jnp.where(accepted, a, b), hi_cand, hi)
        new_lo = jax.tree.map(lambda a, b: jnp.where(accepted, a, b), lo_cand, lo)
        replicas = set_row(set_row(replicas, m, new_hi), m - 1, new_lo)
        swapped = index.at[m - 1].set(index[m]).at[m].set(index[m - 1])
        index = jnp.where(accepted, swapped, index)
        return (replicas, index), (prob, accepted, lo_cand.logdensity - hi.logdensity,
                                   hi_cand.logdensity - lo.logdensity)

    pairs = jnp.arange(top, 0, -1)
    (replicas, index), (prob, accepted, log_up, log_down) = jax.lax.scan(
        one_pair, (replicas, index), (pairs, jax.random.split(key, top), inside[::-1]))
    costs = rung_costs(ladder)
    stats = {SWAP_PROB.name: prob[::-1], SWAP_PROPOSED.name: inside,
             SWAP_ACCEPTED.name: accepted[::-1], SWAP_LOG_UP.name: log_up[::-1],
             SWAP_LOG_DOWN.name: log_down[::-1]}
    return replicas, index, jnp.sum(jnp.where(inside, costs[:-1] + costs[1:], 0.0)), stats
