"""Exact Gaussian log marginal likelihood through one Cholesky factorisation (seed 002 Eqs. 29–30).

    log N(y | 0, C) = −½ yᵀ C⁻¹ y − Σ_i log L_ii − (n/2) log 2π,      C = L Lᵀ.

A failed factorisation (C not positive definite in floating point) yields NaN in JAX; the caller's
:func:`~tempering.models.base.finite_or_neg_inf` turns that into −∞, a rejected proposal.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

LOG_2PI = float(np.log(2 * np.pi))


def gaussian_log_marginal(cov: jax.Array, y: jax.Array) -> jax.Array:
    """log N(y | 0, cov) for an (n, n) covariance; NaN when the Cholesky fails."""
    chol = jnp.linalg.cholesky(cov)
    alpha = jax.scipy.linalg.solve_triangular(chol, y, lower=True)
    return (-0.5 * jnp.sum(alpha**2) - jnp.sum(jnp.log(jnp.diag(chol)))
            - 0.5 * y.shape[0] * LOG_2PI)
