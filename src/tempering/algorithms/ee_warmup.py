"""Warmup of the equi-energy sampler and MINTEE (:mod:`tempering.algorithms.equi_energy`): the
pilot that sets H₀, the ladder's start-up and the per-level step-size adaptation.

1. With no ``h0`` or with shifted fixed-subset energies: ``pilot`` local moves of level 0 (the
   untruncated target at T₀ = 1) from the start. H₀ is the lowest energy read (unless ``h0`` is
   given), the truncations follow H_{k+1} = H_k + c T_k, the shifts s_k = ĥ_k(θ) − h(θ) are read
   at the lowest point θ (:mod:`~tempering.algorithms.ee_levels`), and every level's kernel is
   re-initialised on them (its cached density depends on H_k and s_k).
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
import numpy as np


def make_warmup(cfg: Any, energies: list, kernel_at: Callable, step_with: Callable,
                dual_averaging: Callable, energy_levels: Callable) -> Callable:
    """``warmup(key, state, params, num_steps) -> (state, params, cost)`` for EE / MINTEE."""
    L = cfg.levels
    temps = np.asarray(cfg.temperatures, dtype=float)
    fresh = 1.0 if cfg.fresh_batches else 0.0

    def pilot(key, state, params):
        lk = energies[0]

        def body(carry, k):
            kstate, low, low_at, cost = carry
            k_batch, k_step = jax.random.split(k)
            indices = lk.batch(state.perm, k_batch)
            kernel = kernel_at(0, indices, params)
            start = kernel.init(kstate.position) if cfg.fresh_batches else kstate
            kstate, info = kernel.step(k_step, start)
            energy = lk.energy(kstate.position, indices)
            lower = energy < low
            return (kstate, jnp.where(lower, energy, low),
                    jnp.where(lower, kstate.position, low_at),
                    cost + (info.n_evals + fresh + 1.0) * lk.cost), None

        first = state.levels[0]
        (_, low, low_at, cost), _ = jax.lax.scan(
            body, (first.kernel, first.energy, first.kernel.position, jnp.zeros(())),
            jax.random.split(key, cfg.pilot))
        h0 = low if cfg.h0 is None else cfg.h0
        params = {**params, "levels": energy_levels(h0, temps, cfg.c)}
        if cfg.shifted:
            params["shifts"], cost = shifts_at(low_at, low, state, cost)
        shifts = params["shifts"]
        levels = []
        for k, level in enumerate(state.levels):
            indices = energies[k].batch(state.perm, jax.random.wrap_key_data(level.batch_key))
            levels.append(level._replace(
                kernel=kernel_at(k, indices, params).init(level.kernel.position),
                energy=level.energy - shifts[k],
                energy_above=level.energy_above - shifts[min(k + 1, L - 1)]))
            cost = cost + energies[k].cost
        return state._replace(levels=tuple(levels)), params, cost

    def shifts_at(point, energy, state, cost):
        """s_k = ĥ_k(θ) − h(θ) at the pilot's lowest point θ (:mod:`ee_levels`, Shifts): the
        fixed surrogates then agree with h where H₀ is set."""
        raw = [energy] + [energies[k].energy(point, energies[k].batch(state.perm, None))
                          for k in range(1, L)]
        cost = cost + sum(energies[k].cost for k in range(1, L))
        return jnp.stack(raw) - energy, cost

    def warmup(key, state, params, num_steps):
        k_pilot, k_run = jax.random.split(key)
        cost = jnp.zeros(())
        if cfg.h0 is None or cfg.shifted:
            state, params, cost = pilot(k_pilot, state, params)
        da_init, da_update, da_final = dual_averaging(cfg.target_accept)
        da = jax.vmap(da_init)(jnp.ones(L))

        def body(carry, k):
            state, da, cost = carry
            multipliers = jnp.exp(da.log_step_size) if cfg.adapt else jnp.ones(L)
            state, info = step_with(k, state, params, multipliers)
            rates = info.stats["local_acceptance"]
            moved = jnp.isfinite(rates)
            updated = jax.vmap(da_update)(da, jnp.where(moved, rates, 0.0))
            da = jax.tree.map(lambda new, old: jnp.where(
                moved.reshape((L,) + (1,) * (new.ndim - 1)), new, old), updated, da)
            return (state, da, cost + info.cost), None

        total = cfg.start(0) + num_steps
        (state, da, run_cost), _ = jax.lax.scan(body, (state, da, jnp.zeros(())),
                                                jax.random.split(k_run, total))
        kernel = params["kernel"]
        if cfg.adapt and "step_size" in kernel:
            final = jax.vmap(da_final)(da)
            size = kernel["step_size"]
            kernel = {**kernel, "step_size": size * final.reshape((L,) + (1,) * (size.ndim - 1))}
        return state, {**params, "kernel": kernel}, cost + run_cost

    return warmup
