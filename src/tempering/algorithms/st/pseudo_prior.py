"""Tuning the pseudo-prior of simulated tempering (Geyer & Thompson 1995; seed 001 §2).

ST samples (x, i) from p̃(i) π_{k_i}(x) with π_k(x) ∝ exp(b(x) + k U(x)) unnormalised; rung i is
visited with probability ∝ p̃(i) Z(k_i), Z(k) = ∫ exp(b + k U). Uniform occupation needs
p̃(i) ∝ 1/Z(k_i), which is unknown, so it is tuned in warmup and then FROZEN (the sampling phase
must run one fixed kernel to be exact):

1. an optional *pilot* starting value: each rung's inner kernel run on its own for a while gives
   Ê_i ≈ E_{k_i}[U], and thermodynamic integration (d log Z / dk = E_k[U]) with the trapezoid
   rule gives log Ẑ_i, so log p̃(i) = −log Ẑ_i (:func:`pilot_log_pseudo_prior`). Without it the
   start is uniform (tgp's choice), which for a likelihood of n data points is hundreds of nats
   off and takes the stochastic approximation a long time to undo;
2. stochastic approximation (seed README, restored): at SA round t = 1, 2, … with the chain at
   rung r, log p̃(r) −= c0/(t + n0) and every other log p̃(j) += c0/(m (t + n0))
   (:func:`sa_update`; tgp's ``Temper::StochApprox``, defaults c0 = 100, n0 = 1000);
3. occupation-count correction: after a further stretch with p̃ fixed and occupation counts o_i,
   p̃(i) ∝ p̃(i)/o_i, a count of zero being read as the smallest positive count
   (:func:`count_correction`; tgp's ``Temper::UpdatePrior``).

All log pseudo-priors are kept normalised (log-sum-exp 0).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

Array = jax.Array


def normalise(log_p: Array) -> Array:
    """log p − log Σ exp(log p)."""
    return log_p - jax.scipy.special.logsumexp(log_p)


def uniform_log_pseudo_prior(num_rungs: int) -> Array:
    """log p̃(i) = −log m."""
    return jax.device_put(np.full(num_rungs, -np.log(num_rungs), np.float64))  # no program


def pilot_log_pseudo_prior(betas: Array, mean_energy: Array) -> Array:
    """log p̃(i) = −log Ẑ_i with log Ẑ_0 = 0 and, by the trapezoid rule on d log Z/dk = E_k[U],
    log Ẑ_{i+1} = log Ẑ_i − (k_i − k_{i+1}) (Ê_i + Ê_{i+1}) / 2.

    Falls back to the uniform pseudo-prior when any Ê_i is not finite (a rung whose pilot chain
    never left a region of zero density).
    """
    betas = jnp.asarray(betas, float)
    steps = (betas[:-1] - betas[1:]) * (mean_energy[:-1] + mean_energy[1:]) / 2.0
    log_z = jnp.concatenate([jnp.zeros(1), -jnp.cumsum(steps)])
    uniform = uniform_log_pseudo_prior(betas.shape[0])
    return jnp.where(jnp.all(jnp.isfinite(log_z)), normalise(-log_z), uniform)


def sa_update(log_p: Array, rung: Array, t: Array, c0: float, n0: float) -> Array:
    """One stochastic-approximation round t ≥ 1 with the chain at ``rung`` (Geyer–Thompson):
    log p̃(rung) −= c0/(t + n0), log p̃(j) += c0/(m (t + n0)) for j ≠ rung; renormalised."""
    m = log_p.shape[0]
    gain = c0 / (t + n0)
    at = jax.nn.one_hot(rung, m, dtype=log_p.dtype)
    return normalise(log_p - at * gain + (1.0 - at) * gain / m)


def count_correction(log_p: Array, counts: Array) -> Array:
    """p̃(i) ∝ p̃(i)/o_i; zero counts are read as the smallest positive count; unchanged if all
    counts are zero."""
    counts = jnp.asarray(counts, float)
    positive = counts > 0
    smallest = jnp.min(jnp.where(positive, counts, jnp.inf))
    filled = jnp.where(positive, counts, smallest)
    corrected = normalise(log_p - jnp.log(filled))
    return jnp.where(jnp.any(positive), corrected, log_p)
