"""The ensemble transition for fast and slow variables (seed 004, Neal 2010, §2: Eqs. 6–15, 18–20).

One iteration from (x₁, x₂), with the slow cache c = prepare(x₁) carried along:

1. **To an ensemble** (Eq. 9): k ~ U{0, …, K−1}; member k is x₂, the others are drawn from the
   base measure's conditional ξ_{−k|k} (:mod:`~tempering.algorithms.ensemble.bases`). No slow
   evaluation: the members share x₁ and its cache; their K log densities are fast.
2. **Update x₁** with the members fixed (or shifted together) by Metropolis–Hastings on the
   ensemble density (Eq. 20, the seeds' errata)

       ρ(x₁, X₂) ∝ ξ(X₂) · (1/K) Σ_k π(x₁, x₂⁽ᵏ⁾) / ξ_k(x₂⁽ᵏ⁾),

   in logs a log-sum-exp in which members of zero density weigh nothing. Each proposal costs one
   slow evaluation (prepare at the proposed x₁) and K fast ones.
3. **Back to one state** (Eq. 15): member j with probability ∝ π(x₁, x₂⁽ʲ⁾)/ξ_j(x₂⁽ʲ⁾).

Every function here is pure; the slow move is passed in
(:mod:`~tempering.algorithms.ensemble.slow`), so the sampler
(:mod:`~tempering.algorithms.ensemble.sampler`) only wires them. Written by hand: no library
implements ensemble MCMC.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp

from tempering.algorithms.base import AlgorithmInfo
from tempering.algorithms.ensemble.bases import EnsembleBase

Array = jax.Array


class EnsembleState(NamedTuple):
    """The single state (x₁, x₂), the slow cache of x₁ and log π(x₁, x₂)."""

    x1: Array
    x2: Array
    cache: Any
    log_density: Array


class Ensemble(NamedTuple):
    """The ensemble during the slow update: x₁, its cache, the members X₂ (K, d₂), their
    log π and log ξ_j."""

    x1: Array
    cache: Any
    members: Array
    log_pi: Array
    log_xi: Array


def log_ensemble_density(log_pi: Array, log_xi: Array, log_joint: Array | float = 0.0) -> Array:
    """log ρ (Eq. 20) up to a constant: log ξ(X₂) + log (1/K) Σ_k exp(log π_k − log ξ_k).

    Members of zero density (log π = −∞) weigh nothing; all −∞ gives −∞."""
    weights = log_pi - log_xi
    return log_joint + logsumexp(weights) - jnp.log(weights.shape[0])


def map_back_weights(log_pi: Array, log_xi: Array) -> Array:
    """The normalised probabilities of choosing each member when mapping back (Eq. 15)."""
    return jax.nn.softmax(log_pi - log_xi)


def effective_members(weights: Array) -> Array:
    """1 / Σ_j w̄_j²: how many members carry the mapping-back weight."""
    return 1.0 / jnp.sum(weights ** 2)


def to_ensemble(key: Array, state: EnsembleState, base: EnsembleBase,
                log_members: Callable[[Any, Array, Array], Array]) -> tuple[Ensemble, Array]:
    """Step 1: the current state at a uniform position k among K members (returns k too)."""
    k_pos, k_members = jax.random.split(key)
    k = jax.random.randint(k_pos, (), 0, base.size)
    members = base.members(k_members, state.x2, k)
    log_pi = log_members(state.cache, state.x1, members)
    return Ensemble(state.x1, state.cache, members, log_pi, base.log_marginals(members)), k


def back_to_state(key: Array, ensemble: Ensemble) -> tuple[EnsembleState, Array, Array]:
    """Step 3: a member chosen ∝ π/ξ_j; returns the state, its index and the effective number of
    members."""
    weights = map_back_weights(ensemble.log_pi, ensemble.log_xi)
    j = jax.random.choice(key, weights.shape[0], p=weights)
    state = EnsembleState(ensemble.x1, ensemble.members[j], ensemble.cache, ensemble.log_pi[j])
    return state, j, effective_members(weights)


def propose_slow(ensemble: Ensemble, x1_new: Array, shift: Array | None, base: EnsembleBase,
                 prepare: Callable[[Array], Any],
                 log_members: Callable[[Any, Array, Array], Array]) -> tuple[Ensemble, Array]:
    """The ensemble at a proposed x₁ (its members shifted by ``shift`` when given: the
    fast-variables-shifted update) and the log acceptance ratio for a symmetric proposal:
    log ρ(x₁′, X₂′) − log ρ(x₁, X₂), with the ξ(X₂′)/ξ(X₂) factor when the members moved."""
    cache = prepare(x1_new)
    members = ensemble.members if shift is None else ensemble.members + shift
    log_pi = log_members(cache, x1_new, members)
    log_xi = ensemble.log_xi if shift is None else base.log_marginals(members)
    new = Ensemble(x1_new, cache, members, log_pi, log_xi)
    if shift is None:
        log_ratio = (log_ensemble_density(log_pi, log_xi)
                     - log_ensemble_density(ensemble.log_pi, ensemble.log_xi))
    else:
        log_ratio = (log_ensemble_density(log_pi, log_xi, base.log_joint(members))
                     - log_ensemble_density(ensemble.log_pi, ensemble.log_xi,
                                            base.log_joint(ensemble.members)))
    return new, jnp.where(jnp.isnan(log_ratio), -jnp.inf, log_ratio)


def initial_state(split: Any, position: Array) -> EnsembleState:
    """(x₁, x₂) of θ, the slow cache of x₁ and log π there (one slow evaluation)."""
    x1, x2 = split.parts(jnp.asarray(position))
    cache = split.prepare(x1)
    return EnsembleState(x1, x2, cache, split.log_density_members(cache, x1, x2[None])[0])


def step_info(state: EnsembleState, accepted: Array, slow_evals: Array,
              stats: dict[str, Array]) -> AlgorithmInfo:
    """The driver's record of an iteration: acceptance = the share of slow updates accepted,
    cost = slow evaluations (each counted as one full evaluation), the slow acceptance added to
    ``stats``."""
    rate = accepted.astype(float)
    return AlgorithmInfo(jnp.mean(rate), slow_evals, state.log_density,
                         {**stats, "slow_evals": slow_evals, "slow_acceptance": rate})
