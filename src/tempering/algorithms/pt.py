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

from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.base import Algorithm, AlgorithmInfo, Headline, Stat, rung_weight_stats
from tempering.algorithms.cost_model import pt_predicted_cost
from tempering.algorithms.options import TemperingOptions
from tempering.algorithms.pt_mixing import mixing_lines, mixing_summary
from tempering.algorithms.rungs import ladder_facts, rung_slice, stack_rungs, warmup_rung
from tempering.algorithms.spec import SamplerSpec, StatArrays
from tempering.kernels.base import BoundKernel, evals_and_acceptance
from tempering.ladders import TemperingLadder, power_tempering_ladder
from tempering.models.base import Model
from tempering.numerics import metropolis, run_steps, select

AT_NOTHING, AT_BOTTOM, AT_TOP = 0, 1, 2

SWAP_PROB = Stat("swap_accept_prob", ("pair",),
                 "acceptance probability of the swap of rungs (m−1, m); 0 when not proposed")
SWAP_PROPOSED = Stat("swap_proposed", ("pair",), "whether the swap of (m−1, m) was proposed")
SWAP_ACCEPTED = Stat("swap_accepted", ("pair",), "whether the swap of (m−1, m) was accepted")
ROUND_TRIPS = Stat("round_trips", (), "completed bottom → top → bottom trips so far, all replicas")
RUNG_ACCEPTANCE = Stat("rung_acceptance", ("ladder",), "inner-kernel acceptance on each rung")
REPLICA_AT_RUNG = Stat("replica_at_rung", ("ladder",), "which replica sits on each rung")
PT_STATS = (SWAP_PROB, SWAP_PROPOSED, SWAP_ACCEPTED, ROUND_TRIPS, RUNG_ACCEPTANCE,
            REPLICA_AT_RUNG)
ALL_RUNGS_STATS = rung_weight_stats(("ladder",))
#: Swap acceptance (floor 0.05: below it the rungs barely exchange) and round trips.
PT_HEADLINE = (Headline("swap accept", "swap_accepted", per="swap_proposed", floor=0.05,
                        advice="neighbouring rungs are too far apart: more rungs, or a higher "
                               "beta_min"),
               Headline("round trips", "round_trips", last=True))


class PTState(NamedTuple):
    replicas: tuple  # inner state on each rung
    replica_at_rung: jax.Array  # (R,) replica id on each rung (the index process)
    last_end: jax.Array  # (R,) per replica id: AT_NOTHING, AT_BOTTOM, AT_TOP (last end visited)
    round_trips: jax.Array  # () completed bottom → top → bottom trips, all replicas
    iteration: jax.Array  # () iterations done (DEO parity)
    view: tuple  # subset indices in force (fixed per chain)


def swap_log_ratio(hi_at_lo: jax.Array, lo_at_hi: jax.Array, hi: jax.Array,
                   lo: jax.Array) -> jax.Array:
    """log r = log h_m(θ_{m−1}) + log h_{m−1}(θ_m) − log h_m(θ_m) − log h_{m−1}(θ_{m−1})."""
    return hi_at_lo + lo_at_hi - hi - lo


def update_round_trips(index, last_end, round_trips):
    """Record the replicas now at the top and bottom rungs; count completed round trips."""
    top, bottom = index[-1], index[0]
    last_end = last_end.at[top].set(jnp.where(last_end[top] == AT_BOTTOM, AT_TOP, last_end[top]))
    completed = last_end[bottom] == AT_TOP
    return last_end.at[bottom].set(AT_BOTTOM), round_trips + completed.astype(jnp.int32)


def propose_swaps(key: jax.Array, replicas: list, index: jax.Array, parity: jax.Array,
                  rungs, ks, swap: str, log_ratio: Callable) -> tuple[tuple, jax.Array, jax.Array,
                                                                     dict[str, jax.Array]]:
    """Swap proposals between adjacent rungs m−1 and m for m = M..1 (``sweep``) or the pairs
    with m−1 ≡ ``parity`` (mod 2) (``deo``), each accepted with Eq. 2's ratio. Each side is
    evaluated by initialising the other rung's kernel at the incoming state, so accepted states
    carry their new rung's cached density. Returns the replicas, the index process, the cost of
    the evaluations and the swap statistics."""
    top = len(replicas) - 1
    replicas = list(replicas)
    cost = jnp.zeros(())
    probs: list[Any] = [None] * top
    proposed_all: list[Any] = [None] * top
    accepted_all: list[Any] = [None] * top
    for m, k in zip(range(top, 0, -1), jax.random.split(key, top), strict=True):
        lo, hi = replicas[m - 1], replicas[m]
        hi_cand, lo_cand = ks[m].init(lo.position), ks[m - 1].init(hi.position)
        log_r = log_ratio(hi_cand.logdensity, lo_cand.logdensity, hi.logdensity, lo.logdensity)
        proposed = jnp.asarray(True) if swap == "sweep" else (m - 1) % 2 == parity
        accepted, prob = metropolis(k, log_r)
        accepted = proposed & accepted
        replicas[m], replicas[m - 1] = select(accepted, hi_cand, hi), select(accepted, lo_cand,
                                                                             lo)
        swapped = index.at[m - 1].set(index[m]).at[m].set(index[m - 1])
        index = jnp.where(accepted, swapped, index)
        cost = cost + jnp.where(proposed, rungs[m].cost + rungs[m - 1].cost, 0.0)
        probs[m - 1] = jnp.where(proposed, prob, 0.0)
        proposed_all[m - 1], accepted_all[m - 1] = proposed, accepted
    stats = {SWAP_PROB.name: jnp.stack(probs), SWAP_PROPOSED.name: jnp.stack(proposed_all),
             SWAP_ACCEPTED.name: jnp.stack(accepted_all)}
    return tuple(replicas), index, cost, stats


def parallel_tempering(ladder: TemperingLadder, bound: BoundKernel, params: Any, *,
                       name: str = "pt", swap: str = "sweep", inner_steps: int = 1,
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

    def step(key, state, params):
        k_inner, k_swap = jax.random.split(key)
        rungs, ks = kernels(state.view, params)
        replicas, cost, rung_accept = [], jnp.zeros(()), []
        for m, k in enumerate(jax.random.split(k_inner, n_rungs)):
            replica, (n_evals, accept) = run_steps(ks[m].step, k, state.replicas[m], inner_steps,
                                                   evals_and_acceptance)
            replicas.append(replica)
            rung_accept.append(accept / inner_steps)
            cost = cost + n_evals * rungs[m].cost
        replicas, index, swap_cost, stats = propose_swaps(
            k_swap, replicas, state.replica_at_rung, state.iteration % 2, rungs, ks, swap,
            log_ratio)
        last_end, round_trips = update_round_trips(index, state.last_end, state.round_trips)
        new = PTState(replicas, index, last_end, round_trips, state.iteration + 1, state.view)
        stats |= {ROUND_TRIPS.name: round_trips, RUNG_ACCEPTANCE.name: jnp.stack(rung_accept),
                  REPLICA_AT_RUNG.name: index}
        if keep_all_rungs is not None:
            all_rungs, energy_cost = _all_rungs_stats(keep_all_rungs, ladder.betas, replicas)
            stats |= all_rungs
            cost = cost + energy_cost
        info = AlgorithmInfo(rung_accept[0], cost + swap_cost, replicas[0].logdensity, stats)
        return new, info

    def warmup(key, state, params, num_steps):
        if bound.warmup is None:
            state, cost = run_steps(lambda k, s: step(k, s, params), key, state, num_steps,
                                    lambda info: info.cost)
            return state, params, cost
        rungs = ladder.rungs(state.view)
        replicas, tuned, cost = [], [], jnp.zeros(())
        for m, k in enumerate(jax.random.split(key, n_rungs)):
            replica, p, n_evals = warmup_rung(bound, k, rungs[m].log_density,
                                              state.replicas[m], rung_slice(params, m), num_steps)
            replicas.append(replica)
            tuned.append(p)
            cost = cost + n_evals * rungs[m].cost
        return state._replace(replicas=tuple(replicas)), stack_rungs(tuned), cost

    def position(state):
        if keep_all_rungs is None:
            return state.replicas[0].position
        return jnp.stack([r.position for r in state.replicas])

    stats = PT_STATS + (ALL_RUNGS_STATS if keep_all_rungs is not None else ())
    dims = ("ladder",) if keep_all_rungs is not None else ()
    return Algorithm(name, init, warmup, step, position, params, stats, dims, headline=PT_HEADLINE)


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
    rung, log_tempered, log_weight_stat = ALL_RUNGS_STATS
    return {rung.name: jnp.arange(len(betas), dtype=jnp.int32), log_tempered.name: energy,
            log_weight_stat.name: log_weight}, cost


# --------------------------------------------------------------------------- the samplers


class PTOptions(TemperingOptions):
    """``swap``: ``sweep`` (every pair, m = M..1) or ``deo`` (even/odd pairs alternately);
    ``keep_all_rungs``: write every rung's draws (IMC3, for importance tempering and evidence
    estimates), not only the target's."""

    swap: Literal["sweep", "deo"] = "sweep"
    keep_all_rungs: bool = False


def build(model: Model, options: PTOptions) -> Algorithm:
    """PT on the powered-likelihood ladder of ``options``."""
    ladder = power_tempering_ladder(model, options.betas())
    return build_over(model, options, ladder,
                      keep_all_rungs=model if options.keep_all_rungs else None)


def build_over(model: Model, options: PTOptions, ladder: TemperingLadder,
           keep_all_rungs: Model | None) -> Algorithm:
    """PT over ``ladder`` with the inner kernel of ``options`` (shared with SPT)."""
    spec, bound = options.bind_inner(model.dim)
    algorithm = parallel_tempering(ladder, bound, spec.rung_params(bound, ladder.betas),
                                   swap=options.swap, inner_steps=options.inner_steps,
                                   keep_all_rungs=keep_all_rungs)
    return algorithm._replace(facts=ladder_facts(ladder))


def swap_summary(stats: StatArrays) -> dict[str, Any]:
    """Swap rate per adjacent pair and round trips. A pair's rate is its summed acceptance
    probability over the iterations that proposed it (with ``deo``, every other iteration)."""
    prob, proposed = stats[SWAP_PROB.name], stats[SWAP_PROPOSED.name]
    counts = proposed.sum(axis=(0, 1))
    rates = prob.sum(axis=(0, 1)) / np.maximum(counts, 1)
    swap_rate = [float(p) if c else None for p, c in zip(rates, counts, strict=True)]
    return {"swap_rate": swap_rate, "round_trips": int(stats[ROUND_TRIPS.name][:, -1].sum()),
            **mixing_summary(swap_rate, stats[ROUND_TRIPS.name])}


def swap_lines(summary: Mapping[str, Any]) -> list[str]:
    rates = " ".join("—" if r is None else f"{r:.2f}" for r in summary["swap_rate"])
    return [f"swap acceptance by pair (0-1, 1-2, ...): {rates}   "
            f"round trips {summary['round_trips']}", *mixing_lines(summary)]


SPEC = SamplerSpec(
    "pt", "parallel tempering, powered likelihood (seed 000); also takes the inner kernel's "
    "options", PTOptions, build, PT_STATS + ALL_RUNGS_STATS, swap_summary, swap_lines,
    predicted_cost=pt_predicted_cost)
