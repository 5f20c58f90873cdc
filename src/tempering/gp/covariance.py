"""Covariance functions (noise-free K; the caller adds the residual variance).

- Seed 000 Eq. 21, squared-exponential ARD:
      κ(x, x′) = σ_f² exp{ −Σ_d (x_d − x′_d)² / (2 ℓ_d²) }.
- Seed 002 Eqs. 23–24, squared exponential with a constant (isotropic ρ or ARD ρ_k):
      K(x, x′) = c² + η² exp{ −Σ_k (x_k − x′_k)² / ρ_k² }.
  Note the missing ½: ρ = √2 ℓ.
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


def se_ard(x1: jax.Array, x2: jax.Array, lengthscale: jax.Array,
           sigma_f: jax.Array | float) -> jax.Array:
    """Squared-exponential ARD covariance matrix K(x1, x2) (seed 000 Eq. 21)."""
    return sigma_f**2 * jnp.exp(-0.5 * scaled_sq_dist(x1, x2, lengthscale))


def se_const(x1: jax.Array, x2: jax.Array, rho: jax.Array | float, eta: jax.Array | float,
             c: float) -> jax.Array:
    """c² + η² exp(−Σ_k (x1_k − x2_k)² / ρ_k²) (seed 002 Eq. 23 for scalar ρ, Eq. 24 for (p,))."""
    return c**2 + eta**2 * jnp.exp(-scaled_sq_dist(x1, x2, jnp.asarray(rho)))
