"""Gaussian log density with a low-rank-plus-diagonal covariance (seed 002 §5.2.2, Eqs. 32–38).

For C = B S Bᵀ + d I with B (n, m), S = diag(s) and a scalar d > 0:

- matrix inversion lemma (Eq. 32):
      C⁻¹ = d⁻¹ I − d⁻² B (S⁻¹ + Bᵀ B / d)⁻¹ Bᵀ,
  so with S⁻¹ + Bᵀ B / d = L Lᵀ and u = L⁻¹ Bᵀ y / d,   yᵀ C⁻¹ y = yᵀ y / d − uᵀ u;
- determinant lemma (Eq. 38):
      det C = det(S⁻¹ + Bᵀ B / d) · det(d I) · det S,
  where det(d I) = dⁿ for the n × n identity (the seed prints d^m; the identity is n × n);
- for orthonormal B (Bᵀ B = I), Eq. 37 and its determinant:
      C⁻¹ = d⁻¹ I − B diag(s / (d (s + d))) Bᵀ,   log det C = Σ_i log(s_i + d) + (n − m) log d.

The ``*_quad_logdet`` functions return the two pieces (yᵀ C⁻¹ y, log det C) separately, so each can
be checked on its own; the ``*_log_marginal`` functions combine them into

    log N(y | 0, C) = −½ (yᵀ C⁻¹ y + log det C + n log 2π).

Each costs O(n m²) instead of the O(n³) of a Cholesky factorisation of C. Non-positive-definite
inputs give NaN, which the model turns into −∞ (a rejected proposal).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from tempering.gp.exact import gaussian_from_quad_logdet

Array = jax.Array


def lowrank_quad_logdet(b: Array, s: Array, d: Array, y: Array) -> tuple[Array, Array]:
    """(yᵀ C⁻¹ y, log det C) for C = B diag(s) Bᵀ + d I by Eqs. 32 and 38 (B of full rank)."""
    n = y.shape[0]
    inner = jnp.diag(1.0 / s) + b.T @ b / d  # S⁻¹ + Bᵀ D⁻¹ B
    chol = jnp.linalg.cholesky(inner)
    u = jax.scipy.linalg.solve_triangular(chol, b.T @ y / d, lower=True)
    quad = y @ y / d - u @ u
    logdet = 2.0 * jnp.sum(jnp.log(jnp.diag(chol))) + n * jnp.log(d) + jnp.sum(jnp.log(s))
    return quad, logdet


def orthonormal_quad_logdet(b: Array, s: Array, d: Array, y: Array) -> tuple[Array, Array]:
    """(yᵀ C⁻¹ y, log det C) for C = B diag(s) Bᵀ + d I with orthonormal B (Eq. 37)."""
    n, m = b.shape
    by = b.T @ y
    quad = y @ y / d - jnp.sum(by**2 * s / (d * (s + d)))
    logdet = jnp.sum(jnp.log(s + d)) + (n - m) * jnp.log(d)
    return quad, logdet


def unit_lowrank_quad_logdet(b: Array, d: Array, y: Array) -> tuple[Array, Array]:
    """(yᵀ C⁻¹ y, log det C) for C = B Bᵀ + d I: Eqs. 32 and 38 with S = I (Nyström, Eq. 42)."""
    return lowrank_quad_logdet(b, jnp.ones(b.shape[1], b.dtype), d, y)


def lowrank_log_marginal(b: Array, s: Array, d: Array, y: Array) -> Array:
    """log N(y | 0, B diag(s) Bᵀ + d I) by Eqs. 32 and 38 (any B of full column rank)."""
    return gaussian_from_quad_logdet(*lowrank_quad_logdet(b, s, d, y), y.shape[0])


def orthonormal_log_marginal(b: Array, s: Array, d: Array, y: Array) -> Array:
    """log N(y | 0, B diag(s) Bᵀ + d I) for orthonormal B (Eq. 37)."""
    return gaussian_from_quad_logdet(*orthonormal_quad_logdet(b, s, d, y), y.shape[0])
