"""Updates of the slow variables x₁ on a fixed (or shifted) ensemble (seed 004 §2 and §3).

Each is ``move(key, ensemble) -> (ensemble, accepted, slow_evals)`` with ``accepted`` of shape
(d₁,) (per slow coordinate; a joint move reports its one decision in every entry, a gradient
kernel its acceptance probability, what its step-size adaptation reads) and
``slow_evals`` the number of slow evaluations (``prepare`` calls) it made.

- :func:`coordinate_move`: the slow variables one at a time in a fixed order, each a Gaussian
  proposal of its own scale (the paper's best for the GP, §3); with ``shift_sd`` every proposal
  also shifts all members by one common N(0, shift_sd²) step (the fast-variables-shifted update:
  symmetric, so only the ξ(X₂′)/ξ(X₂) factor of :func:`~tempering.algorithms.ensemble.algorithm.
  propose_slow` enters).
- :func:`joint_move`: one Gaussian proposal of all slow variables together.
- :func:`kernel_move`: any kernel factory (HMC, NUTS from BlackJAX) on x₁ ↦ log ρ(x₁, X₂) with
  the members fixed — ρ is a smooth function of x₁, so a gradient kernel on it is exact. The
  kernel starts afresh on each ensemble (one slow evaluation with its gradient), and the ensemble
  is rebuilt at the kernel's new x₁ (one more): beyond the paper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tempering.algorithms.ensemble.algorithm import Ensemble, log_ensemble_density, propose_slow
from tempering.algorithms.ensemble.bases import EnsembleBase
from tempering.numerics import metropolis, select

Array = jax.Array


def coordinate_move(scales: Array, base: EnsembleBase, prepare: Callable, log_members: Callable,
                    shift_sd: Array | None = None) -> Callable:
    """One sweep of single-coordinate Metropolis updates of x₁ (proposal sds ``scales``)."""
    scales = jnp.asarray(scales, float)

    def move(key: Array, ensemble: Ensemble) -> tuple[Ensemble, Array, Array]:
        def body(ens, inputs):
            i, k = inputs
            k_prop, k_shift, k_acc = jax.random.split(k, 3)
            x1_new = ens.x1.at[i].add(scales[i] * jax.random.normal(k_prop))
            shift = None if shift_sd is None else \
                shift_sd * jax.random.normal(k_shift, ens.members.shape[1:])
            new, log_ratio = propose_slow(ens, x1_new, shift, base, prepare, log_members)
            accepted, _ = metropolis(k_acc, log_ratio)
            return select(accepted, new, ens), accepted

        dims = scales.shape[0]
        ensemble, accepted = jax.lax.scan(body, ensemble,
                                          (jnp.arange(dims), jax.random.split(key, dims)))
        return ensemble, accepted, jnp.asarray(float(dims))

    return move


def joint_move(scales: Array, base: EnsembleBase, prepare: Callable, log_members: Callable,
               shift_sd: Array | None = None) -> Callable:
    """One Gaussian proposal of every slow variable at once."""
    scales = jnp.asarray(scales, float)

    def move(key: Array, ensemble: Ensemble) -> tuple[Ensemble, Array, Array]:
        k_prop, k_shift, k_acc = jax.random.split(key, 3)
        x1_new = ensemble.x1 + scales * jax.random.normal(k_prop, ensemble.x1.shape)
        shift = None if shift_sd is None else \
            shift_sd * jax.random.normal(k_shift, ensemble.members.shape[1:])
        new, log_ratio = propose_slow(ensemble, x1_new, shift, base, prepare, log_members)
        accepted, _ = metropolis(k_acc, log_ratio)
        return (select(accepted, new, ensemble), jnp.broadcast_to(accepted, scales.shape),
                jnp.asarray(1.0))

    return move


def kernel_move(make_kernel: Callable[[Callable, Any], Any], prepare: Callable,
                log_members: Callable) -> Callable:
    """A kernel from ``make_kernel(logdensity, params)`` (the library's kernel factory) on
    x₁ ↦ log ρ(x₁, X₂), the members fixed; ``params`` come with each call."""

    def move(key: Array, ensemble: Ensemble, params: Any) -> tuple[Ensemble, Array, Array]:
        def log_rho(x1):
            log_pi = log_members(prepare(x1), x1, ensemble.members)
            return log_ensemble_density(log_pi, ensemble.log_xi)

        kernel = make_kernel(log_rho, params)
        state, info = kernel.step(key, kernel.init(ensemble.x1))
        x1 = state.position
        cache = prepare(x1)
        log_pi = log_members(cache, x1, ensemble.members)
        moved = Ensemble(x1, cache, ensemble.members, log_pi, ensemble.log_xi)
        rate = jnp.where(jnp.isfinite(info.acceptance_rate), info.acceptance_rate, 0.0)
        accepted = jnp.broadcast_to(rate, ensemble.x1.shape)
        return moved, accepted, jnp.asarray(info.n_evals, float) + 2.0

    return move
