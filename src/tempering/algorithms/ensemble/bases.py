"""Ensemble base measures ξ over the fast variables (seed 004 §2, Eqs. 9–15 and §3's choices).

An ensemble is K fast values X₂ = (x₂⁽⁰⁾, …, x₂⁽ᴷ⁻¹⁾) sharing one slow value. A base measure ξ on
X₂ gives three things (:class:`EnsembleBase`):

- ``members(key, x2, k)``: the mapping to an ensemble, Eq. 9 — member k is the current x₂ and the
  others are drawn from ξ's conditional ξ_{−k|k}(· | x₂⁽ᵏ⁾ = x₂) (the caller draws k uniformly);
- ``log_marginals(X2)``: log ξ_j(x₂⁽ʲ⁾) for every member j, up to one constant shared by all j
  (what the ensemble density ρ of Eq. 20 divides by, and what mapping back weighs by);
- ``log_joint(X2)``: log ξ(X₂) up to a constant: only its ratio under a common shift of every
  member enters (the fast-variables-shifted update of §2); zero where ξ is shift-invariant.

Each measure is a pure function of its settings, written by hand (no library offers ensemble base
measures). Defaults are the paper's §3 choices where it gives them.

- ``independent``: members i.i.d. N(mean, sd²) — the fast variables' (Gaussian) prior moments.
- ``exchangeable``: x₂⁽ʲ⁾ | c ~ N(c, τ²I) with an improper flat ψ = ∞ prior on the centre c, so
  c | x₂⁽ᵏ⁾ ~ N(x₂⁽ᵏ⁾, τ²I) and every marginal is the same (flat): τ = ``scale`` × sd (0.4, §3).
- ``grid`` (a constellation, §2): K = m^D points of a rectangular grid with current state at a
  uniformly chosen node; its extent (m − 1)·d_j is redrawn U(1.0, 1.1) × sd_j independently of the
  state at every mapping (a fixed spacing makes the chain reducible: the seeds' errata). Flat
  marginals, shift-invariant.
- ``markov``: a stationary reversible Gaussian AR(1) chain
  x⁽ʲ⁺¹⁾ = mean + ρ(x⁽ʲ⁾ − mean) + √(1 − ρ²) sd ε, simulated forwards and backwards from member
  k (reversible: the same kernel both ways). The paper gives no default; we take innovations of
  sd ``scale`` × sd (ρ = √(1 − scale²)), the exchangeable ensemble's spread between neighbours,
  so that adjacent members are close (the ensemble explores locally) while the K-member walk
  spans the prior (its marginal is the prior).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

Array = jax.Array


class EnsembleBase(NamedTuple):
    name: str
    size: int
    members: Callable[[Array, Array, Array], Array]
    log_marginals: Callable[[Array], Array]
    log_joint: Callable[[Array], Array]


def _log_normal(x: Array, mean: Array, sd: Array) -> Array:
    """Σ_d log N(x_d; mean_d, sd_d²) over the last axis, constants dropped."""
    return -0.5 * jnp.sum(((x - mean) / sd) ** 2 + 2.0 * jnp.log(sd), axis=-1)


def _place(x2: Array, k: Array, others: Array) -> Array:
    """The K members: ``others`` (K, d) with row k replaced by the current x₂."""
    return others.at[k].set(x2)


def independent(size: int, mean_: np.ndarray, sd_: np.ndarray) -> EnsembleBase:
    mean, sd = jnp.asarray(mean_, float), jnp.asarray(sd_, float)

    def members(key, x2, k):
        return _place(x2, k, mean + sd * jax.random.normal(key, (size, mean.shape[0])))

    def log_marginals(X2):
        return _log_normal(X2, mean, sd)

    return EnsembleBase("independent", size, members, log_marginals,
                        lambda X2: jnp.sum(log_marginals(X2)))


def exchangeable(size: int, sd: np.ndarray, scale: float = 0.4) -> EnsembleBase:
    tau = scale * jnp.asarray(sd, float)

    def members(key, x2, k):
        k_centre, k_members = jax.random.split(key)
        centre = x2 + tau * jax.random.normal(k_centre, x2.shape)
        return _place(x2, k, centre + tau * jax.random.normal(k_members, (size, x2.shape[0])))

    def log_joint(X2):  # ∫ Π_j N(x⁽ʲ⁾; c, τ²) dc ∝ exp(−Σ_j |x⁽ʲ⁾ − x̄|²/2τ²): shift-invariant
        return -0.5 * jnp.sum(((X2 - jnp.mean(X2, axis=0)) / tau) ** 2)

    return EnsembleBase("exchangeable", size, members, lambda X2: jnp.zeros(X2.shape[0]),
                        log_joint)


def grid(size: int, sd: np.ndarray, widen: float = 1.1) -> EnsembleBase:
    sd = np.asarray(sd, float)
    dims = sd.shape[0]
    m = round(size ** (1.0 / dims))
    if m < 2 or m ** dims != size:
        raise ValueError(f"grid: K = {size} is not m^D with m ≥ 2 for D = {dims} fast variables")
    nodes = jax.device_put(np.asarray(list(product(range(m), repeat=dims)), float))  # (K, D)

    def members(key, x2, k):
        extent = jax.random.uniform(key, (dims,), minval=1.0, maxval=widen) * sd
        return x2 + (nodes - nodes[k]) * extent / (m - 1)

    def flat(X2):
        return jnp.zeros(X2.shape[0])

    return EnsembleBase("grid", size, members, flat, lambda X2: jnp.zeros(()))


def markov(size: int, mean_: np.ndarray, sd_: np.ndarray, scale: float = 0.4) -> EnsembleBase:
    mean, sd = jnp.asarray(mean_, float), jnp.asarray(sd_, float)
    rho = float(np.sqrt(1.0 - scale ** 2))
    step_sd = scale * sd

    def walk(key, start, steps):
        def body(x, noise):
            nxt = mean + rho * (x - mean) + step_sd * noise
            return nxt, nxt
        return jax.lax.scan(body, start, jax.random.normal(key, (steps, start.shape[0])))[1]

    def members(key, x2, k):
        k_up, k_down = jax.random.split(key)
        up, down = walk(k_up, x2, size - 1), walk(k_down, x2, size - 1)
        index = jnp.arange(size)
        # member j > k is step j − k forwards; j < k is step k − j backwards
        forwards = up[jnp.clip(index - k - 1, 0, size - 2)]
        backwards = down[jnp.clip(k - index - 1, 0, size - 2)]
        chosen = jnp.where((index > k)[:, None], forwards, backwards)
        return chosen.at[k].set(x2)

    def log_marginals(X2):
        return _log_normal(X2, mean, sd)

    def log_joint(X2):
        steps = _log_normal(X2[1:], mean + rho * (X2[:-1] - mean), step_sd)
        return log_marginals(X2[:1])[0] + jnp.sum(steps)

    return EnsembleBase("markov", size, members, log_marginals, log_joint)


#: name ↦ (size, mean, sd, scale) ↦ base measure: one line per ensemble.
ENSEMBLE_BASES: dict[str, Callable[..., EnsembleBase]] = {
    "independent": lambda size, mean, sd, scale: independent(size, mean, sd),
    "exchangeable": lambda size, mean, sd, scale: exchangeable(size, sd, scale),
    "grid": lambda size, mean, sd, scale: grid(size, sd),
    "markov": lambda size, mean, sd, scale: markov(size, mean, sd, scale),
}


def make_base(name: str, size: int, mean: np.ndarray, sd: np.ndarray,
              scale: float = 0.4) -> EnsembleBase:
    """The base measure ``name`` over K = ``size`` members of fast variables with prior moments
    ``mean``, ``sd``."""
    if name not in ENSEMBLE_BASES:
        raise ValueError(f"ensemble must be one of {', '.join(ENSEMBLE_BASES)} (got {name!r})")
    return ENSEMBLE_BASES[name](size, mean, sd, scale)
