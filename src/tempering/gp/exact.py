"""Exact Gaussian log marginal likelihood through one Cholesky factorisation (seed 002 Eqs. 29–30).

    log N(y | 0, C) = −½ (yᵀ C⁻¹ y + log det C + n log 2π),      C = L Lᵀ,
    yᵀ C⁻¹ y = uᵀ u with L u = y (Eq. 29),      log det C = 2 Σ_i log L_ii (Eq. 30).

A failed factorisation (C not positive definite in floating point) yields NaN in JAX; the caller's
:func:`~tempering.numerics.finite_or_neg_inf` turns that into −∞, a rejected proposal. The
gradient of this function goes through JAX's Cholesky derivative; GP models use the faster
:mod:`tempering.gp.exact_grad` instead.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

LOG_2PI = float(np.log(2 * np.pi))


def gaussian_from_quad_logdet(quad: jax.Array, logdet: jax.Array, n: int) -> jax.Array:
    """log N(y | 0, C) = −½ (yᵀ C⁻¹ y + log det C + n log 2π) from its two pieces."""
    return -0.5 * (quad + logdet + n * LOG_2PI)


def cholesky_quad_logdet(cov: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(yᵀ C⁻¹ y, log det C) from one Cholesky factorisation (Eqs. 29–30); NaN when it fails."""
    chol = jnp.linalg.cholesky(cov)
    u = jax.scipy.linalg.solve_triangular(chol, y, lower=True)
    return jnp.sum(u**2), 2.0 * jnp.sum(jnp.log(jnp.diag(chol)))


def gaussian_log_marginal(cov: jax.Array, y: jax.Array) -> jax.Array:
    """log N(y | 0, cov) for an (n, n) covariance; NaN when the Cholesky fails."""
    chol = jnp.linalg.cholesky(cov)
    alpha = jax.scipy.linalg.solve_triangular(chol, y, lower=True)
    return (-0.5 * jnp.sum(alpha**2) - jnp.sum(jnp.log(jnp.diag(chol)))
            - 0.5 * y.shape[0] * LOG_2PI)
