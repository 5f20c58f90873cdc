"""Warmup of the equi-energy sampler and MINTEE (:mod:`tempering.algorithms.equi_energy.algorithm`):
the pilot that places and tunes the levels and sets H₀, the ladder's start-up and the per-level
step-size adaptation.

1. The pilot (``pilot`` local moves per level; 0 skips it): level 0 (the untruncated target at
   T₀ = 1) from the start, then each level k ≥ 1 from where level k−1 ended (a ``lax.scan`` up
   the levels), on its untruncated, unshifted target exp(−ĥ_k/T_k)
   (H₀ is not known yet); each level's step size is tuned towards ``target_accept`` as it goes
   (:func:`tune_step`), and the level starts the run where its pilot ended, with that step size.
   (A chain whose step size is far off stays where it starts: at T₀ = 1 in 50 dimensions an
   unadapted RWM step is almost never accepted.) Unless the ladder is given (``energies``: the
   run's pilot places it, :mod:`~tempering.algorithms.equi_energy.pilot`), H₀ is the lowest energy
   level 0 read (unless ``h0`` is given) and the truncations follow H_{k+1} = H_k + c T_k;
   with shifted fixed-subset energies the shifts s_k = ĥ_k(θ) − h(θ) are read at that lowest
   point θ (:mod:`~tempering.algorithms.equi_energy.levels`). Only the starting points and step
   sizes come from the pilot, never a level's target, so level 0's exactness is untouched. (An
   annealing pilot, hot levels first, was tried: on the 50-mode mixture from the origin the hot
   levels' tempered prior lets components drift far from the data, and level 0 inherited them,
   400 log-density units below the ridge that level 0's own pilot reaches.)
2. (L−1)(B + S) + ``num_steps`` steps of the whole ladder, level k's step size multiplied by its
   own dual-averaging iterate (BlackJAX's ``dual_averaging_adaptation``), updated with the
   acceptance of the level's local moves (steps that jump or precede the level's start leave it
   alone). The final averaged multipliers are frozen into the parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tempering.algorithms.base import Scans, when_warming
from tempering.algorithms.equi_energy.levels import Levels, flag_value, when
from tempering.numerics import like

WINDOW = 25  # pilot steps between step-size changes


def tune_step(multiplier: jax.Array, moves: jax.Array, t: jax.Array, target: float
              ) -> tuple[jax.Array, jax.Array]:
    """The pilot's step-size rule, after step ``t`` with ``moves`` accepted moves counted in the
    current window: at each window's end the multiplier is halved when no move was accepted,
    doubled when all were, and otherwise multiplied by 1.25 or 0.8 as the window's acceptance
    is above or below ``target``; the count restarts. Written by hand rather than with BlackJAX's
    dual averaging so that it uses only counts and single multiplications, which round the same
    whether or not the chains are vmapped (dual averaging's exp and pow did not, by an ulp, and
    the draws of a chain then depended on the layout)."""
    end = (t % WINDOW) == WINDOW - 1
    factor = jnp.where(moves == 0, 0.5, jnp.where(moves == WINDOW, 2.0,
                                                 jnp.where(moves > target * WINDOW, 1.25, 0.8)))
    return jnp.where(end, multiplier * factor, multiplier), jnp.where(end, 0, moves)


def scale_steps(params: dict, multipliers: jax.Array) -> dict:
    """``params`` with the inner kernel's stacked step sizes times ``multipliers`` (per level)."""
    kernel = params["kernel"]
    if "step_size" not in kernel:
        return params
    size = kernel["step_size"]
    scaled = size * multipliers.reshape((-1,) + (1,) * (size.ndim - 1))
    return {**params, "kernel": {**kernel, "step_size": scaled}}


def pilot_level(cfg: Any, lk: Any, kernel_at: Callable, key: jax.Array, k: int | jax.Array,
                position: jax.Array, perm: jax.Array, free: dict) -> tuple:
    """``cfg.pilot`` local moves of level k on exp(−ĥ_k/T_k) from ``position``, its step
    size tuned (:func:`tune_step`): the end point, the step multiplier, the lowest energy
    read and where (level 0 only: the others read nothing), and the cost. ``lk`` is level k's
    :class:`~tempering.algorithms.equi_energy.levels.LevelEnergy`, ``perm`` the chain's data
    permutation, ``free`` the parameters with no truncation and no shifts; k is static or traced."""
    refresh = lk.refreshes  # a fresh batch changes the density
    reads = k == 0  # a Python bool for a static level
    read_cost = jnp.where(reads, lk.cost, 0.0)

    def body(carry, key_t):
        kstate, (multiplier, moves), low, low_at, cost = carry
        key, t = key_t
        k_batch, k_step = jax.random.split(key)
        indices = lk.batch(perm, k_batch)
        kernel = kernel_at(k, indices, free, multiplier)
        old = kstate.position
        kstate, info = kernel.step(k_step, when(refresh, lambda: kernel.init(old), kstate))
        moves = moves + jnp.any(kstate.position != old).astype(jnp.int32)
        if cfg.adapt:
            multiplier, moves = tune_step(multiplier, moves, t, cfg.target_accept)
        cost = cost + (info.n_evals + flag_value(refresh)) * lk.cost
        if reads is not False:
            energy = when(reads, lambda: lk.energy(kstate.position, indices), low)
            lower = energy < low
            low = jnp.where(lower, energy, low)
            low_at = jnp.where(lower, kstate.position, low_at)
            cost = cost + read_cost
        return (kstate, (multiplier, moves), low, low_at, cost), None

    indices = lk.batch(perm, jax.random.fold_in(key, 1))
    start = kernel_at(k, indices, free).init(position)
    low = when(reads, lambda: lk.energy(position, indices), jnp.asarray(jnp.inf))
    tuner = (jnp.ones(()), jnp.zeros((), jnp.int32))
    carry = (start, tuner, low, position, jnp.asarray(read_cost))
    steps = (jax.random.split(key, cfg.pilot), jnp.arange(cfg.pilot))
    (end, (multiplier, _), low, low_at, cost), _ = jax.lax.scan(body, carry, steps)
    return end.position, multiplier, low, low_at, cost


def make_scans(ladder: Any, dual_averaging: Callable) -> Scans:
    """EE's and MINTEE's warmup and sampling as one loop body
    (:class:`~tempering.algorithms.base.Scans`) over ``ladder``
    (:class:`~tempering.algorithms.equi_energy.algorithm.Ladder`), so that one compiled program
    runs both: ``begin`` runs the pilot (module docstring, 1.) when warming; the warming scans
    are the start-up's (L−1)(B + S) steps and then the warmup's, each level's step size times
    its dual-averaging iterate (2.), and the last freezes the averaged multipliers into the
    parameters; a sampling scan is the algorithm's ``step``."""
    cfg, L = ladder.cfg, ladder.cfg.levels
    da_init, da_update, da_final = dual_averaging(cfg.target_accept)

    def begin(key, state, params, warming, num_steps):
        del num_steps
        state, params, cost = when_warming(warming, lambda: pilot(ladder, key, state, params),
                                           state, params)
        return state, params, jax.vmap(da_init)(jnp.ones(L)), cost

    def scan(key, t, state, params, da, warming, num_steps):
        multipliers = (jnp.where(warming, jnp.exp(da.log_step_size), 1.0) if cfg.adapt
                       else jnp.ones(L))
        state, info = ladder.step_with(key, state, params, multipliers)

        def adapt():
            rates = info.stats["local_acceptance"]
            moved = jnp.isfinite(rates)
            updated = jax.vmap(da_update)(da, jnp.where(moved, rates, 0.0))
            new_da = jax.tree.map(lambda new, old: jnp.where(
                moved.reshape((L,) + (1,) * (new.ndim - 1)), new, old), updated, da)
            final = scale_steps(params, jax.vmap(da_final)(new_da)) if cfg.adapt else params
            frozen = jax.lax.cond(t == cfg.start(0) + num_steps - 1,
                                  lambda: like(final, params), lambda: params)
            return frozen, new_da

        params, da = jax.lax.cond(warming, adapt, lambda: (params, da))
        return state, params, da, info

    return Scans(begin, scan, startup=cfg.start(0))


def pilot(ladder: Any, key: jax.Array, state: Any, params: dict) -> tuple[Any, dict, jax.Array]:
    """The pilot (module docstring, 1.) of one chain on ``ladder``: every level's start, step
    size, H₀ and the shifts. The levels' pilots run in turn, each from where the one below
    ended; each level then restarts where its pilot ended. Returns the state, the parameters
    and the cost."""
    cfg, kernel_at, L = ladder.cfg, ladder.kernel_at, ladder.cfg.levels
    free = {**params, "levels": jnp.full(L, -jnp.inf), "shifts": jnp.zeros(L)}
    keys = jax.random.split(key, L + 1)

    def one(k, carry, key):
        position, cost = carry
        end, multiplier, low, low_at, c = pilot_level(
            cfg, ladder.energy(k), kernel_at, key, k, position, state.perm, free)
        return (end, cost + c), (end, multiplier, low, low_at)

    (_, cost), (starts, multipliers, lows, lows_at) = ladder.scan_levels(
        one, (state.levels[0].kernel.position, jnp.zeros(())), keys[:L])
    low, low_at = lows[0], lows_at[0]  # only level 0 reads h
    params = {**scale_steps(params, multipliers), "levels": ladder.truncations(low)}
    if cfg.shifted:
        params["shifts"], cost = shifts_at(ladder, low_at, low, state.perm, cost)

    def restart(k, level, start):
        lk = ladder.energy(k)
        indices = lk.batch(state.perm, jax.random.wrap_key_data(level.batch_key))
        reading = lk.read(start, indices, state.perm, keys[L], params["shifts"])
        return level._replace(kernel=kernel_at(k, indices, params).init(start),
                              energy=reading.energy, energy_above=reading.energy_above,
                              mean_log_lik=reading.mean_log_lik)

    levels = ladder.over_levels(restart, state.levels.stacked, starts)
    for lk in ladder.energies:
        cost = cost + lk.cost
    return state._replace(levels=Levels(levels)), params, cost


def shifts_at(ladder: Any, point: jax.Array, energy: jax.Array, perm: jax.Array,
              cost: jax.Array) -> tuple[jax.Array, jax.Array]:
    """s_k = ĥ_k(θ) − h(θ) at the pilot's lowest point θ
    (:mod:`~tempering.algorithms.equi_energy.levels`, Shifts): the fixed surrogates then agree
    with h where H₀ is set. Returns the shifts and the cost with their read-outs."""
    energies, L = ladder.energies, ladder.cfg.levels

    def read(k):
        lk = ladder.energy(k)
        return lk.energy(point, lk.batch(perm, None))

    raw = ladder.over_levels(read).at[0].set(energy)  # level 0 reads h itself: s₀ = 0
    cost = cost + sum(energies[k].cost for k in range(1, L))
    return raw - energy, cost
