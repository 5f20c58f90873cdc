"""Warmup of the ensemble sampler's gradient slow kernels (``slow_kernel=hmc|nuts``).

The slow kernel runs on the ensemble density ρ(x₁, X₂) of a fresh ensemble at every iteration, so
BlackJAX's window adaptation, which needs one fixed log density, does not apply; this module runs
its dual-averaging step-size update (Hoffman & Gelman 2014, §3.2.1) over the whole ensemble
iteration instead, written by hand around it:

1. First half of the warmup: dual averaging of a multiplier of ε towards ``target_accept`` on the
   slow kernel's acceptance probability, the inverse mass matrix unchanged; the second quarter's
   x₁ values are kept.
2. With a diagonal inverse mass matrix among the parameters (NUTS): it becomes the variance of
   those x₁ values, shrunk towards 10⁻³ as Stan does (n/(n + 5) var + 10⁻³ · 5/(n + 5)); the
   dual averaging restarts from the step size reached.
3. Second half: dual averaging again; its final averaged step size is frozen for sampling, so
   the sampling phase runs one fixed kernel and stays exact.

Metropolis slow updates (``coordinate_rwm``, ``rwm``) take their proposal scales as options, as
in the paper, and warm up with the parameters unchanged
(:func:`~tempering.algorithms.base.step_scans`: the warmup's scans are the step itself, in
the run's one program).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
from blackjax.adaptation.step_size import dual_averaging_adaptation


def _adapt_step_size(step: Callable, key, state, params, num_steps: int, target: float,
                     keep_from: int):
    """``num_steps`` iterations with ε × exp(dual-averaging iterate); returns the state, the
    parameters with the final averaged ε, the cost and the x₁ values from ``keep_from`` on."""
    da_init, da_update, da_final = dual_averaging_adaptation(target)

    def body(carry, inputs):
        state, da, cost = carry
        k, i = inputs
        trial = {**params, "step_size": params["step_size"] * jnp.exp(da.log_step_size)}
        state, info = step(k, state, trial)
        rate = jnp.mean(info.stats["slow_acceptance"])
        da = da_update(da, jnp.where(jnp.isfinite(rate), rate, 0.0))
        return (state, da, cost + info.cost), (state.x1, i >= keep_from)

    (state, da, cost), (x1s, kept) = jax.lax.scan(
        body, (state, da_init(jnp.ones(())), jnp.zeros(())),
        (jax.random.split(key, num_steps), jnp.arange(num_steps)))
    tuned = {**params, "step_size": params["step_size"] * da_final(da)}
    return state, tuned, cost, x1s, kept


def adaptive_warmup(step: Callable, target_accept: float) -> Callable:
    """``warmup(key, state, params, num_steps) -> (state, params, cost)`` for a gradient slow
    kernel: see the module docstring."""

    def warmup(key, state, params, num_steps):
        if num_steps < 4:
            return state, params, jnp.zeros(())
        first = num_steps // 2
        k_first, k_second = jax.random.split(key)
        state, params, cost, x1s, kept = _adapt_step_size(step, k_first, state, params, first,
                                                          target_accept, first // 2)
        if "inverse_mass_matrix" in params:
            n = jnp.sum(kept)
            weights = kept[:, None] / n
            mean = jnp.sum(weights * x1s, axis=0)
            var = jnp.sum(weights * (x1s - mean) ** 2, axis=0)
            params = {**params,
                      "inverse_mass_matrix": (n / (n + 5.0)) * var + 1e-3 * (5.0 / (n + 5.0))}
        state, params, more, _, _ = _adapt_step_size(step, k_second, state, params,
                                                     num_steps - first, target_accept, 0)
        return state, params, cost + more

    return warmup
