"""Covariance functions.

Seed 000 Eq. 21: the squared-exponential ARD kernel
    κ(x, x′) = σ_f² exp{ −Σ_d (x_d − x′_d)² / (2 ℓ_d²) }.
(Seed 002's form, c² + η² exp(−‖x − x′‖²/ρ²), arrives with the approximation work.)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def scaled_sq_dist(x1: jax.Array, x2: jax.Array, lengthscale: jax.Array) -> jax.Array:
    """Σ_d (x1_d − x2_d)² / ℓ_d² for every pair of rows; ``lengthscale`` is (D,) or scalar."""
    a = x1 / lengthscale
    b = x2 / lengthscale
    sq = jnp.sum(a**2, axis=1)[:, None] + jnp.sum(b**2, axis=1)[None, :] - 2.0 * a @ b.T
    return jnp.maximum(sq, 0.0)


def se_ard(x1: jax.Array, x2: jax.Array, lengthscale: jax.Array, sigma_f: jax.Array) -> jax.Array:
    """Squared-exponential ARD covariance matrix K(x1, x2) (seed 000 Eq. 21)."""
    return sigma_f**2 * jnp.exp(-0.5 * scaled_sq_dist(x1, x2, lengthscale))
