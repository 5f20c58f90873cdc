"""Posterior predictive mean and variance of a GP regression (seed 002 Eqs. 25–28).

For one hyperparameter value θ, with C = K(x, x) + σ² I = L Lᵀ, k = K(x, x*) and v the prior
variance of a new *response* y* (Eq. 22: K(x*, x*) + σ², noise included),

    E[y* | x, y, x*, θ]   = kᵀ C⁻¹ y                                            (Eq. 25)
    Var[y* | x, y, x*, θ] = v − kᵀ C⁻¹ k = v − ‖L⁻¹ k‖²                          (Eq. 26)

(the Cholesky form the seed mentions below Eq. 30). Over the posterior of θ, represented by S
equally weighted draws θ_1..θ_S (Eqs. 27–28),

    E[y*]   ≈ (1/S) Σ_s m_s,
    Var[y*] ≈ (1/S) Σ_s v_s + (1/S) Σ_s (m_s − E[y*])²,

i.e. the mean and variance of the equal-weight mixture of the S Gaussians N(m_s, v_s) (hence the
1/S, not 1/(S − 1), in the second term). Everything is float64, jittable, and vmapped over draws
(in batches, so that S n × n matrices need not be held at once).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from tempering.gp.structure import GPParts

Array = jax.Array
BATCH_ELEMENTS = 2**25  # float64 entries of per-draw work held at once (256 MiB)


class Moments(NamedTuple):
    """Predictive means and variances, one per new point (or per draw and new point)."""

    mean: Array
    var: Array


def predictive_moments(gp: GPParts, theta: Array, x: Array, y: Array, x_new: Array) -> Moments:
    """Eqs. 25–26 for one θ: mean kᵀ C⁻¹ y and variance v − kᵀ C⁻¹ k at each row of ``x_new``."""
    kernel_fn, noise_var_fn = gp
    noise_var = noise_var_fn(theta)
    cov = kernel_fn(theta, x, x) + noise_var * jnp.eye(x.shape[0])
    chol = jnp.linalg.cholesky(cov)
    alpha = jax.scipy.linalg.cho_solve((chol, True), y)
    k = kernel_fn(theta, x, x_new)  # (n, m)
    half = jax.scipy.linalg.solve_triangular(chol, k, lower=True)  # L⁻¹ k
    prior_var = jax.vmap(lambda row: kernel_fn(theta, row[None], row[None])[0, 0])(x_new)
    return Moments(k.T @ alpha, prior_var + noise_var - jnp.sum(half**2, axis=0))


def mixture_moments(per_draw: Moments) -> Moments:
    """Eqs. 27–28 over equally weighted draws: per-draw (S, m) moments → (m,) moments."""
    mean = jnp.mean(per_draw.mean, axis=0)
    var = jnp.mean(per_draw.var, axis=0) + jnp.mean((per_draw.mean - mean) ** 2, axis=0)
    return Moments(mean, var)


def per_draw_moments(gp: GPParts, thetas: Array, x: Array, y: Array, x_new: Array) -> Moments:
    """Eqs. 25–26 for each of the S rows of ``thetas``: (S, m) means and variances."""
    n, m = x.shape[0], x_new.shape[0]
    batch = max(1, min(thetas.shape[0], BATCH_ELEMENTS // (2 * n * n + n * m)))
    one = lambda theta: predictive_moments(gp, theta, x, y, x_new)
    return jax.lax.map(one, thetas, batch_size=batch)


def posterior_predictive(gp: GPParts, thetas: Array, x: Array, y: Array, x_new: Array) -> Moments:
    """Predictive mean and variance of y* averaged over the draws ``thetas`` (Eqs. 25–28)."""
    run = jax.jit(lambda t, a, b, c: mixture_moments(per_draw_moments(gp, t, a, b, c)))
    return run(jnp.asarray(thetas, jnp.float64), jnp.asarray(x, jnp.float64),
               jnp.asarray(y, jnp.float64), jnp.asarray(x_new, jnp.float64))
