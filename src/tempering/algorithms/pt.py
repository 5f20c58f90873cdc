"""Parallel tempering over any ladder and inner kernel; with a subset ladder, SPT (seed 000 Alg.
1).

State: one inner-kernel state per rung (rung 0 the target), the index process (which replica sits
on each rung), per-replica round-trip bookkeeping, and the subset view (fixed per chain for SPT).

One iteration: ``inner_steps`` inner updates on every rung, then swap proposals between adjacent
rungs m−1 and m, accepted with (seed 000 Eq. 2, corrected indices per the seeds' errata)

    r = h_m(θ_{m−1}) h_{m−1}(θ_m) / [h_m(θ_m) h_{m−1}(θ_{m−1})].

Swap schemes: ``sweep`` proposes every pair systematically from m = M down to 1 (the paper's
choice); ``deo`` proposes the even pairs (m−1 even) on even iterations and the odd pairs on odd
ones, the deterministic even/odd non-reversible scheme (Okabe et al. 2001; Syed et al. 2022).
States move, not temperatures: per-rung tuning stays with its rung. Each side of a proposal is
evaluated by initialising the other rung's kernel at the incoming state, so an accepted swap leaves
every cached density (and gradient) belonging to the rung it now sits on; that costs c_m + c_{m−1}
per proposal, counted. For a subset ladder those are the "two extra evaluations" of seed 000 §3.1's
caveat.

A round trip is counted when a replica that has visited rung 0 and then rung M returns to rung 0.

With ``keep_all_rungs`` (a power ladder's model), every rung's draw is kept, as importance tempering
over MC3 (seed 001 §4) needs: ``position`` returns the (rungs, dim) stack, and the stats carry each
rung's index ``rung``, its log-likelihood ``log_tempered`` = U = (h_m − log p(θ))/β_m (read off the
cached density; evaluated, and counted, at β = 0) and its log importance weight (1 − β_m) U.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from tempering.algorithms.base import Algorithm, AlgorithmInfo, run_steps
from tempering.algorithms.tempering_options import rung_slice, visit, warmup_rung
from tempering.kernels.base import BoundKernel
from tempering.ladders import TemperingLadder
from tempering.models.base import Model

AT_NOTHING, AT_BOTTOM, AT_TOP = 0, 1, 2


class PTState(NamedTuple):
    replicas: tuple  # inner state on each rung
    index: jax.Array  # (R,) replica id on each rung
    last_end: jax.Array  # (R,) per replica id: AT_NOTHING, AT_BOTTOM, AT_TOP (last end visited)
    round_trips: jax.Array  # () completed bottom → top → bottom trips, all replicas
    iteration: jax.Array  # () iterations done (DEO parity)
    view: tuple  # subset indices in force (fixed per chain)


def swap_log_ratio(hi_at_lo: jax.Array, lo_at_hi: jax.Array, hi: jax.Array,
                   lo: jax.Array) -> jax.Array:
    """log r = log h_m(θ_{m−1}) + log h_{m−1}(θ_m) − log h_m(θ_m) − log h_{m−1}(θ_{m−1})."""
    return hi_at_lo + lo_at_hi - hi - lo


def _select(flag, new, old):
    return jax.tree.map(lambda a, b: jnp.where(flag, a, b), new, old)


def update_round_trips(index, last_end, round_trips):
    """Record the replicas now at the top and bottom rungs; count completed round trips."""
    top, bottom = index[-1], index[0]
    last_end = last_end.at[top].set(jnp.where(last_end[top] == AT_BOTTOM, AT_TOP, last_end[top]))
    completed = last_end[bottom] == AT_TOP
    return last_end.at[bottom].set(AT_BOTTOM), round_trips + completed.astype(jnp.int32)


def parallel_tempering(ladder: TemperingLadder, bound: BoundKernel, params: Any, *, name: str,
                       options: dict, swap: str = "sweep", inner_steps: int = 1,
                       log_ratio: Callable = swap_log_ratio,
                       keep_all_rungs: Model | None = None) -> Algorithm:
    """Build PT (power ladder) or SPT (subset ladder with ``redraw=False``).

    Parameters
    ----------
    params
        Inner-kernel parameters stacked over rungs (see ``rung_params``).
    swap
        ``"sweep"`` (m = M..1 every iteration) or ``"deo"`` (even/odd pairs alternately).
    log_ratio
        The swap log-ratio; replaceable only to show that a wrong one (e.g. transposed terms)
        breaks invariance.
    keep_all_rungs
        The model of a power ladder, to keep every rung's draws with their importance weights.
    """
    if keep_all_rungs is not None and ladder.kind != "power":
        raise ValueError("keep_all_rungs needs a power ladder (subset rungs have no power weights)")
    if ladder.redraw:
        raise ValueError("parallel tempering keeps its subsets: use a ladder with redraw=False")
    n_rungs = ladder.num_rungs
    top = n_rungs - 1

    def kernels(view, params):
        rungs = ladder.rungs(view)
        return rungs, [bound.make(r.log_density, rung_slice(params, m))
                       for m, r in enumerate(rungs)]

    def init(key, position):
        view = ladder.draw_view(key)
        _, ks = kernels(view, params)
        positions = position if position.ndim == 2 else jnp.broadcast_to(
            position, (n_rungs, position.shape[-1]))
        replicas = tuple(k.init(positions[m]) for m, k in enumerate(ks))
        index = jnp.arange(n_rungs)
        last_end = jnp.zeros(n_rungs, jnp.int32).at[0].set(AT_BOTTOM)
        return PTState(replicas, index, last_end, jnp.zeros((), jnp.int32),
                       jnp.zeros((), jnp.int32), view)

    def swaps(key, state, rungs, ks, replicas):
        replicas, index = list(replicas), state.index
        parity = state.iteration % 2
        cost = jnp.zeros(())
        probs, proposed_all, accepted_all = [None] * top, [None] * top, [None] * top
        for m, k in zip(range(top, 0, -1), jax.random.split(key, top), strict=True):
            lo, hi = replicas[m - 1], replicas[m]
            hi_cand, lo_cand = ks[m].init(lo.position), ks[m - 1].init(hi.position)
            log_r = log_ratio(hi_cand.logdensity, lo_cand.logdensity, hi.logdensity,
                              lo.logdensity)
            proposed = jnp.asarray(True) if swap == "sweep" else (m - 1) % 2 == parity
            accepted = proposed & (jnp.log(jax.random.uniform(k)) < log_r)
            replicas[m], replicas[m - 1] = _select(accepted, hi_cand, hi), _select(
                accepted, lo_cand, lo)
            swapped = index.at[m - 1].set(index[m]).at[m].set(index[m - 1])
            index = jnp.where(accepted, swapped, index)
            cost = cost + jnp.where(proposed, rungs[m].cost + rungs[m - 1].cost, 0.0)
            prob = jnp.where(jnp.isnan(log_r), 0.0, jnp.minimum(1.0, jnp.exp(log_r)))
            probs[m - 1] = jnp.where(proposed, prob, 0.0)
            proposed_all[m - 1], accepted_all[m - 1] = proposed, accepted
        stats = {"swap_accept_prob": jnp.stack(probs), "swap_proposed": jnp.stack(proposed_all),
                 "swap_accepted": jnp.stack(accepted_all)}
        return tuple(replicas), index, cost, stats

    def step(key, state, params):
        k_inner, k_swap = jax.random.split(key)
        rungs, ks = kernels(state.view, params)
        replicas, cost, rung_accept = [], jnp.zeros(()), []
        for m, k in enumerate(jax.random.split(k_inner, n_rungs)):
            replica, n_evals, accept = visit(ks[m], k, state.replicas[m], inner_steps)
            replicas.append(replica)
            rung_accept.append(accept)
            cost = cost + n_evals * rungs[m].cost
        replicas, index, swap_cost, stats = swaps(k_swap, state, rungs, ks, replicas)
        last_end, round_trips = update_round_trips(index, state.last_end, state.round_trips)
        new = PTState(replicas, index, last_end, round_trips, state.iteration + 1, state.view)
        stats |= {"round_trips": round_trips, "rung_acceptance": jnp.stack(rung_accept),
                  "replica_at_rung": index}
        if keep_all_rungs is not None:
            all_rungs, energy_cost = _all_rungs_stats(keep_all_rungs, ladder.betas, replicas)
            stats |= all_rungs
            cost = cost + energy_cost
        info = AlgorithmInfo(rung_accept[0], cost + swap_cost, replicas[0].logdensity, stats)
        return new, info

    def warmup(key, state, params, num_steps):
        if bound.warmup is None:
            state, cost = run_steps(step, key, state, params, num_steps)
            return state, params, cost
        rungs = ladder.rungs(state.view)
        replicas, tuned, cost = [], [], jnp.zeros(())
        for m, k in enumerate(jax.random.split(key, n_rungs)):
            replica, p, n_evals = warmup_rung(bound, k, rungs[m].log_density,
                                              state.replicas[m], rung_slice(params, m), num_steps)
            replicas.append(replica)
            tuned.append(p)
            cost = cost + n_evals * rungs[m].cost
        params = jax.tree.map(lambda *ps: jnp.stack(ps), *tuned)
        return state._replace(replicas=tuple(replicas)), params, cost

    def position(state):
        if keep_all_rungs is None:
            return state.replicas[0].position
        return jnp.stack([r.position for r in state.replicas])

    return Algorithm(name, init, warmup, step, position, params, options)


def _all_rungs_stats(model: Model, betas: tuple[float, ...], replicas) -> tuple[dict, jax.Array]:
    """Every rung's index, U = log p(X | θ) and log weight (1 − β) U; the evaluations' cost."""
    energies, cost = [], jnp.zeros(())
    for beta, replica in zip(betas, replicas, strict=True):
        if beta > 0:
            energies.append((replica.logdensity - model.log_prior(replica.position)) / beta)
        else:
            energies.append(model.log_lik(replica.position))
            cost = cost + 1.0
    energy = jnp.stack(energies)
    one_minus = 1.0 - jnp.asarray(betas)
    log_weight = jnp.where(one_minus == 0, 0.0, one_minus * energy)
    return {"rung": jnp.arange(len(betas), dtype=jnp.int32), "log_tempered": energy,
            "log_weight": log_weight}, cost
