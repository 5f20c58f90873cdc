"""Parallel tempering over any ladder and inner kernel; with a subset ladder, SPT (seed 000 Alg.
1).

State: one inner-kernel state per rung (rung 0 the target), the index process (which replica sits
on each rung), per-replica round-trip bookkeeping, and the subset view (SPT's fixed subsets).

One iteration: ``inner_steps`` inner updates on every rung, then swap proposals between adjacent
rungs m−1 and m, accepted with (seed 000 Eq. 2, corrected indices per the seeds' errata)

    r = h_m(θ_{m−1}) h_{m−1}(θ_m) / [h_m(θ_m) h_{m−1}(θ_{m−1})].

Swap schemes: ``sweep`` proposes every pair systematically from m = M down to 1 (the paper's
choice); ``deo`` proposes the even pairs (m−1 even) on even iterations and the odd pairs on odd
ones, the deterministic even/odd non-reversible scheme (Okabe et al. 2001; Syed et al. 2022);
``seo`` picks even or odd at random each iteration, their stochastic (reversible) scheme, whose
index process is a random walk (round-trip rate 1/(2N + 2Σ r/(1 − r)) against DEO's
1/(2 + 2Σ r/(1 − r))). A sweep is neither: in one iteration a replica may cross many pairs.
States move, not temperatures: per-rung tuning stays with its rung. Each side of a proposal is
evaluated by initialising the other rung's kernel at the incoming state, so an accepted swap leaves
every cached density (and gradient) belonging to the rung it now sits on; that costs c_m + c_{m−1}
per proposal, counted (:mod:`tempering.algorithms.pt.swaps`). For a subset ladder those are the
"two extra evaluations" of seed 000 §3.1's caveat.

Rungs are an array axis: the replicas are one inner-kernel state whose leaves lead with the rung
axis, and every per-rung step (inner updates, swap evaluations, warmup adaptation, the
re-initialisation after a schedule move) runs through
:func:`~tempering.algorithms.rung_axis.over_rungs` — one kernel built over the density at a traced
rung and ``vmap``ped over the rungs on a power ladder, so the compiled program does not grow with
the ladder; unrolled on a subset ladder (static subset sizes).

A round trip is counted when a replica that has visited rung 0 and then rung M returns to rung 0.

With ``keep_all_rungs`` (a power ladder's model), every rung's draw is kept, as importance tempering
over MC3 (seed 001 §4) needs: ``position`` returns the (rungs, dim) stack, and the stats carry each
rung's index ``rung``, its log-likelihood ``log_tempered`` = U = (h_m − log p(θ))/β_m (read off the
cached density; evaluated, and counted, at β = 0) and its log importance weight (1 − β_m) U.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.base import Algorithm, AlgorithmInfo, Stat, warmup_by_scans
from tempering.algorithms.pt.capacity import RungWindow, inside_rungs, trimmed, window_in
from tempering.algorithms.pt.rounds import Rounds, round_record
from tempering.algorithms.pt.stats import (
    ALL_RUNGS_STATS,
    BETA,
    PT_HEADLINE,
    PT_STATS,
    REFERENCE_ACTIVE,
    REPLICA_AT_RUNG,
    ROUND_TRIPS,
    RUNG_ACCEPTANCE,
    SWAP_LOG_DOWN,
)
from tempering.algorithms.pt.swaps import paired_swaps, swap_log_ratio, sweep_swaps
from tempering.algorithms.pt.warmup import pt_scans
from tempering.algorithms.rung_axis import over_rungs, rung_costs
from tempering.kernels.base import BoundKernel, evals_and_acceptance
from tempering.ladders import TemperingLadder
from tempering.models.base import Model
from tempering.numerics import run_steps

__all__ = ["PTState", "parallel_tempering", "swap_log_ratio"]

AT_NOTHING, AT_BOTTOM, AT_TOP = 0, 1, 2


class PTState(NamedTuple):
    replicas: Any  # inner-kernel state, every leaf with a leading rung axis (rung 0 the target)
    replica_at_rung: jax.Array  # (R,) replica id on each rung (the index process)
    last_end: jax.Array  # (R,) per replica id: AT_NOTHING, AT_BOTTOM, AT_TOP (last end visited)
    round_trips: jax.Array  # () completed bottom → top → bottom trips, all replicas
    iteration: jax.Array  # () iterations done (DEO parity)
    view: tuple  # subset indices in force (SPT's fixed subsets), or the adaptive schedule's β's


def update_round_trips(index, last_end, round_trips, window=None):
    """Record the replicas now at the top and bottom rungs (the window's ends, with one);
    count completed round trips."""
    top, bottom = (index[-1], index[0]) if window is None else (index[window[1]],
                                                                  index[window[0]])
    last_end = last_end.at[top].set(jnp.where(last_end[top] == AT_BOTTOM, AT_TOP, last_end[top]))
    completed = last_end[bottom] == AT_TOP
    return last_end.at[bottom].set(AT_BOTTOM), round_trips + completed.astype(jnp.int32)


def check_ladder(ladder: TemperingLadder, keep_all_rungs: bool) -> None:
    """PT keeps its subsets (``redraw=False``); keeping every rung needs power weights."""
    if keep_all_rungs and ladder.kind != "power":
        raise ValueError("keep_all_rungs needs a power ladder (subset rungs have no power weights)")
    if ladder.redraw:
        raise ValueError("parallel tempering keeps its subsets: use a ladder with redraw=False")


def parallel_tempering(ladder: TemperingLadder, bound: BoundKernel, params: Any, *,
                       swap: str = "sweep", inner_steps: int = 1,
                       log_ratio: Callable = swap_log_ratio,
                       keep_all_rungs: Model | None = None,
                       rounds: Rounds | None = None, window: RungWindow | None = None,
                       steps_at: Callable[[Any, jax.Array], Any] | None = None) -> Algorithm:
    """Build PT (power ladder) or SPT (subset ladder with ``redraw=False``).

    Parameters
    ----------
    params
        Inner-kernel parameters stacked over rungs (see ``rung_params``).
    swap
        ``"sweep"`` (m = M..1 every iteration), ``"deo"`` (even/odd pairs alternately) or
        ``"seo"`` (even or odd pairs at random).
    log_ratio
        The swap log-ratio; replaceable only to show that a wrong one (e.g. transposed terms)
        breaks invariance.
    keep_all_rungs
        The model of a power ladder, to keep every rung's draws with their importance weights.
    rounds
        Adapt the schedule in warmup (:mod:`tempering.algorithms.pt.rounds`); the ladder must
        carry its β's in its view (:func:`~tempering.ladders.adaptive_power_ladder`). The
        parameters are then ``{"inner": ..., "schedule": ..., "rejection": ...}``.
    window
        With ``rounds``: the ladder is a line of slots of which the window's rungs are in use
        (:mod:`tempering.algorithms.pt.capacity`); the parameters then carry ``window`` (lo,
        hi) and ``start``, the line warmup starts from, so one program serves any window.
    steps_at
        (rungs' inner parameters, scan index) ↦ the parameters a scan's inner moves run with
        (:func:`~tempering.algorithms.pt.trajectory.jitter_steps`: HMC's leapfrog count).
    """
    check_ladder(ladder, keep_all_rungs is not None)
    target = ladder.target
    variational = rounds is not None and rounds.fit_reference is not None
    two_legs = target > 0
    params = _parameters(params, ladder, rounds, window)

    def inner(params):
        return params if rounds is None else params["inner"]

    @jax.jit  # eagerly (a pilot, a test) the rung-vmapped inits would compile op by op
    def init(key, position):
        view = ladder.draw_view(key)
        return initial_state(ladder, bound, view, inner(params), position)

    def iterate(key, state, params, swaps=True):
        keys = jax.random.split(key, ladder.num_rungs + 1)  # the rungs' and the swaps': one split
        live = window_in(params)
        moves = inner(params) if steps_at is None else steps_at(inner(params), state.iteration)
        replicas, cost, rung_accept = inner_updates(keys[:-1], ladder, bound, state.view, moves,
                                                    state.replicas, inner_steps, live)
        replicas, index, swap_cost, stats = propose_swaps(
            keys[-1], swap, ladder, bound, state, inner(params), replicas, log_ratio, live, swaps)
        new = moved_state(state, replicas, index, live)
        stats |= {ROUND_TRIPS.name: new.round_trips, RUNG_ACCEPTANCE.name: rung_accept,
                  REPLICA_AT_RUNG.name: index,
                  BETA.name: jnp.asarray(schedule(state), float)}
        stats, more = _declared_only(stats, state, replicas, ladder, variational, two_legs,
                                     keep_all_rungs)
        info = AlgorithmInfo(rung_accept[target], cost + swap_cost + more,
                             replicas.logdensity[target], stats)
        return new, info

    def step(key, state, params):
        return iterate(key, state, params)

    def reinit(state, params):
        replicas = over_rungs(ladder, state.view, lambda m, ld, p, x: bound.make(ld, p).init(x),
                              inner(params), state.replicas.position)
        costs = rung_costs(ladder) * inside_rungs(window_in(params), ladder.num_rungs)
        return state._replace(replicas=replicas), jnp.sum(costs)

    def schedule(state):
        return ladder.betas if rounds is None else state.view[0]

    restart = None if window is None else partial(restarted, reinit=reinit)
    in_program = pt_scans(bound, iterate, reinit, restart, rounds)  # warmup alone, jittable
    scans = pt_scans(bound, iterate, reinit, restart, rounds, on_host=True)  # the driver's

    def warmup(key, state, params, num_steps):
        return warmup_by_scans(in_program, key, state, params, num_steps)

    def position(state):
        return (state.replicas.position[target] if keep_all_rungs is None
                else state.replicas.position)

    stats, dims = _declared_stats(variational, two_legs, keep_all_rungs is not None)
    trim = None if window is None else partial(trimmed, stats=stats, window=window)
    return Algorithm(init, warmup, step, position, params, stats, dims, headline=PT_HEADLINE,
                     trim=trim, scans=scans)


def _parameters(inner: Any, ladder: TemperingLadder, rounds: Rounds | None,
                window: RungWindow | None) -> Any:
    """PT's parameters: the inner kernel's, with ``rounds`` in ``{"inner": ...}`` beside the
    round record, with a ``window`` also the window and the line warmup starts from."""
    if rounds is None:
        if window is not None:
            raise ValueError("a rung window needs an adaptive schedule (rounds)")
        return inner
    params = {"inner": inner, **round_record(rounds.max_rounds, ladder.num_rungs)}
    if window is None:
        return params
    return {**params, **jax.device_put({"window": window.as_array(),
                                        "start": np.asarray(ladder.betas, float)})}


def _declared_only(stats: dict, state: PTState, replicas: Any, ladder: TemperingLadder,
                   variational: bool, two_legs: bool, keep_all_rungs: Model | None
                   ) -> tuple[dict, jax.Array | float]:
    """A step's statistics as :func:`_declared_stats` declares them (q's flag with a fitted
    reference, no wider-side ratio on one leg, every rung's draws with ``keep_all_rungs``), and
    the cost of the evaluations those take."""
    if variational:
        stats[REFERENCE_ACTIVE.name] = state.view[1].active
    if not two_legs:
        stats.pop(SWAP_LOG_DOWN.name)
    if keep_all_rungs is None:
        return stats, 0.0
    all_rungs, energy_cost = _all_rungs_stats(keep_all_rungs, ladder.betas, replicas)
    return stats | all_rungs, energy_cost


def restarted(state: PTState, params: dict[str, Any], reinit: Callable,
              first: jax.Array | bool = True) -> tuple[PTState, jax.Array]:
    """The chain started on the parameters' line (``start``) and window: every slot's kernel
    re-initialised there, the replica at the window's first rung marked as at the bottom. Where
    ``first`` is false (a later call of a warmup in segments), the slots re-initialised on the
    line they are on."""
    window = params["window"]
    line = jnp.where(first, params["start"], state.view[0])
    state, cost = reinit(state._replace(view=(line, *state.view[1:])), params)
    last_end = jnp.zeros_like(state.last_end).at[state.replica_at_rung[window[0]]].set(AT_BOTTOM)
    return state._replace(last_end=jnp.where(first, last_end, state.last_end)), cost


def _declared_stats(variational: bool, two_legs: bool, all_rungs: bool
                    ) -> tuple[tuple[Stat, ...], tuple[str, ...]]:
    """The statistics a PT run records (q's flag with a fitted reference, the wider side's swap
    ratio with two legs, every rung's draws with ``keep_all_rungs``) and the extra dims."""
    stats = tuple(s for s in PT_STATS if (variational or s is not REFERENCE_ACTIVE)
                  and (two_legs or s is not SWAP_LOG_DOWN))
    if all_rungs:
        return stats + ALL_RUNGS_STATS, ("rung",)
    return stats, ()


def propose_swaps(key: jax.Array, swap: str, ladder: TemperingLadder, bound: BoundKernel,
                  state: PTState, params: Any, replicas: Any, log_ratio: Callable,
                  window: jax.Array | None = None, gate: jax.Array | bool = True) -> Any:
    """The iteration's swaps by ``swap``'s scheme (:mod:`tempering.algorithms.pt.swaps`): the
    replicas, the index process, the swaps' cost and their statistics (none proposed when
    ``gate`` is false)."""
    if swap == "seo":  # the parity's own key (a split costs a copy of Threefry's rounds)
        key, k_parity = jax.random.split(key)
    if swap == "sweep":
        return sweep_swaps(key, ladder, bound, state.view, params, replicas,
                           state.replica_at_rung, log_ratio, window, gate)
    parity = (jax.random.bernoulli(k_parity).astype(jnp.int32) if swap == "seo"
              else state.iteration % 2)
    return paired_swaps(key, ladder, bound, state.view, params, replicas,
                        state.replica_at_rung, parity, log_ratio, window, gate)


def initial_state(ladder: TemperingLadder, bound: BoundKernel, view: tuple, params: Any,
                  position: jax.Array) -> PTState:
    """Every rung's kernel started at ``position`` (one per rung when 2-D), replica m on rung m."""
    n_rungs = ladder.num_rungs
    positions = position if position.ndim == 2 else jnp.broadcast_to(
        position, (n_rungs, position.shape[-1]))
    replicas = over_rungs(ladder, view, lambda m, ld, p, x: bound.make(ld, p).init(x), params,
                          positions)
    last_end = jnp.zeros(n_rungs, jnp.int32).at[0].set(AT_BOTTOM)
    return PTState(replicas, jnp.arange(n_rungs), last_end, jnp.zeros((), jnp.int32),
                   jnp.zeros((), jnp.int32), view)


def moved_state(state: PTState, replicas: Any, index: jax.Array,
                window: jax.Array | None = None) -> PTState:
    """The state after an iteration's swaps: round trips counted, the iteration advanced."""
    last_end, round_trips = update_round_trips(index, state.last_end, state.round_trips, window)
    return PTState(replicas, index, last_end, round_trips, state.iteration + 1, state.view)


def inner_updates(keys: jax.Array, ladder: TemperingLadder, bound: BoundKernel, view: tuple,
                  params: Any, replicas: Any, inner_steps: int,
                  window: jax.Array | None = None) -> tuple[Any, jax.Array, jax.Array]:
    """``inner_steps`` inner updates on every rung, rung m with ``keys[m]``: the replicas,
    their cost (the window's rungs') and each rung's mean acceptance (R,). The keys come from
    the scan's one split (each split or draw is a copy of Threefry's rounds in the compiled
    program, about 0.15 s of XLA's compile apiece)."""

    def one_rung(m, log_density, rung_params, k, replica):
        return run_steps(bound.make(log_density, rung_params).step, k, replica, inner_steps,
                         evals_and_acceptance)

    replicas, (n_evals, accept) = over_rungs(ladder, view, one_rung, params, keys, replicas)
    costs = rung_costs(ladder) * inside_rungs(window, ladder.num_rungs)
    return replicas, jnp.sum(n_evals * costs), accept / inner_steps


def _all_rungs_stats(model: Model, betas: tuple[float, ...], replicas: Any
                     ) -> tuple[dict, jax.Array]:
    """Every rung's index, U = log p(X | θ) and log weight (1 − β) U; the evaluations' cost.
    U is read off the cached density, (h_m − log p(θ))/β_m; a rung at β = 0 (fixed ladders only)
    evaluates log p(X | θ), counted."""
    beta = jnp.asarray(betas, float)
    log_prior = jax.vmap(model.log_prior)(replicas.position)
    energy = (replicas.logdensity - log_prior) / jnp.where(beta > 0, beta, 1.0)
    at_prior = betas[-1] == 0.0  # only a ladder's last rung can be the prior
    if at_prior:
        energy = energy.at[-1].set(model.log_lik(replicas.position[-1]))
    one_minus = 1.0 - beta
    log_weight = jnp.where(one_minus == 0, 0.0, one_minus * energy)  # 0 · (−∞) = 0 at β = 1
    rung, log_tempered, log_weight_stat = ALL_RUNGS_STATS
    return {rung.name: jnp.arange(len(betas), dtype=jnp.int32), log_tempered.name: energy,
            log_weight_stat.name: log_weight}, jnp.asarray(float(at_prior))
