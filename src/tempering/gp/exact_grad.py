"""Exact GP log likelihood with a fast hand-written gradient (one Cholesky, reused backwards).

For the squared-exponential family used by both GP models,

    C = c₀ + s² E + σ² I,      E_ij = exp(−Σ_d w_d (x_id − x_jd)²),      w_d = κ / ℓ_d²,

(κ = ½, c₀ = 0: seed 000 Eq. 21, ``gp_regression``; κ = 1, c₀ = c²: seed 002 Eqs. 23–24,
``gp_const``), the value is log N(y | 0, C) by Eqs. 29–30 and its derivative in any direction is

    ∂/∂θ log N(y | 0, C) = ½ tr((ααᵀ − C⁻¹) ∂C/∂θ) = Σ_ij W_ij ∂C_ij/∂θ,
    α = C⁻¹ y,   W = ½ (ααᵀ − C⁻¹).

The backward pass reuses the forward's Cholesky factor L: the lower blocks of C⁻¹ = L⁻ᵀ L⁻¹ cost
about (2/3) n³ (:func:`~tempering.gp.cho_inverse.inverse_blocks`), against the ~3 n³ of JAX's
generic Cholesky derivative. With K = s² E and M = W ∘ K (elementwise), r = M 1, and x centred
(the kernel only sees differences), every trace is closed-form, with no n × n derivative matrix
per parameter:

    ∂/∂ log s    = 2 Σ_ij M_ij,
    ∂/∂ log σ    = 2 σ² tr W,
    ∂/∂ log ℓ_d  = 2 w_d Σ_ij M_ij (x_id − x_jd)² = 4 w_d (Σ_i x_id² r_i − Σ_i x_id (M x)_id),
    ∂/∂ x_id     = −4 w_d Σ_j M_ij (x_id − x_jd) = −4 w_d (x_id r_i − (M x)_id),
    ∂/∂ y        = −α,

so beyond C⁻¹ the gradient costs one n × n by n × D product (M x), all accumulated block by block
over the lower blocks of the symmetric C⁻¹ (C⁻¹ and M are never assembled). A shared (isotropic)
ℓ gets the sum over d. The forward value is that of :func:`~tempering.gp.exact
.gaussian_log_marginal` on the same matrix (to round-off: the covariance is symmetric as built, so
the Cholesky skips JAX's symmetrisation pass).

A failed Cholesky gives NaN (the model maps it to −∞, a rejected proposal); the backward pass then
yields NaN without raising. This is a ``jax.custom_vjp``: reverse mode only (no ``jax.jvp`` or
``jax.hessian`` through it).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp

from tempering.gp.cho_inverse import inverse_blocks
from tempering.gp.covariance import scaled_sq_dist
from tempering.gp.exact import LOG_2PI

Array = jax.Array


def _parts(log_scale, log_amp, log_noise, x, kappa, const):
    k_se = jnp.exp(log_amp) ** 2 * jnp.exp(-kappa * scaled_sq_dist(x, x, jnp.exp(log_scale)))
    noise_var = jnp.exp(2.0 * log_noise)
    cov = (const + k_se if const else k_se) + noise_var * jnp.eye(x.shape[0])
    return k_se, noise_var, cov


@partial(jax.custom_vjp, nondiff_argnums=(5, 6))
def _se_log_marginal(log_scale, log_amp, log_noise, x, y, kappa, const):
    return _forward(log_scale, log_amp, log_noise, x, y, kappa, const)[0]


def _forward(log_scale, log_amp, log_noise, x, y, kappa, const):
    k_se, noise_var, cov = _parts(log_scale, log_amp, log_noise, x, kappa, const)
    chol = jax.lax.linalg.cholesky(cov, symmetrize_input=False)  # cov is symmetric as built
    u = jax.scipy.linalg.solve_triangular(chol, y, lower=True)
    value = -0.5 * jnp.sum(u**2) - jnp.sum(jnp.log(jnp.diag(chol))) - 0.5 * y.shape[0] * LOG_2PI
    alpha = jax.scipy.linalg.solve_triangular(chol, u, trans=1, lower=True)  # Lᵀ α = u
    return value, (chol, alpha, k_se, noise_var, log_scale, x)


def _reduce(chol, alpha, k_se, xc, g):
    """r = M 1, M xc, Σ M and tr W for M = W ∘ K, W = ½ g (ααᵀ − C⁻¹), block by block over the
    lower blocks of C⁻¹ (each off-diagonal block stands for itself and its transpose)."""
    blocks, ranges = inverse_blocks(chol)
    r = [jnp.zeros(stop - start, chol.dtype) for start, stop in ranges]
    mx = [jnp.zeros((stop - start, xc.shape[1]), chol.dtype) for start, stop in ranges]
    total = trace = jnp.zeros((), chol.dtype)
    for (p, q), inv in blocks.items():
        (p0, p1), (q0, q1) = ranges[p], ranges[q]
        w = 0.5 * g * (jnp.outer(alpha[p0:p1], alpha[q0:q1]) - inv)
        m = w * k_se[p0:p1, q0:q1]
        r[p] = r[p] + jnp.sum(m, axis=1)
        mx[p] = mx[p] + m @ xc[q0:q1]
        if p == q:
            total, trace = total + jnp.sum(m), trace + jnp.trace(w)
        else:
            total = total + 2.0 * jnp.sum(m)
            r[q] = r[q] + jnp.sum(m, axis=0)
            mx[q] = mx[q] + m.T @ xc[p0:p1]
    return jnp.concatenate(r), jnp.concatenate(mx), total, trace


def _backward(kappa, const, residuals, g):
    chol, alpha, k_se, noise_var, log_scale, x = residuals
    xc = x - jnp.mean(x, axis=0)
    r, mx, total, trace = _reduce(chol, alpha, k_se, xc, g)
    w = kappa * jnp.exp(-2.0 * log_scale) * jnp.ones(x.shape[1], x.dtype)  # (D,)
    d_scale = 4.0 * w * (r @ xc**2 - jnp.sum(xc * mx, axis=0))
    if log_scale.shape[0] != x.shape[1]:
        d_scale = jnp.sum(d_scale, keepdims=True)
    d_x = -4.0 * w * (xc * r[:, None] - mx)
    return d_scale, 2.0 * total, 2.0 * noise_var * trace, d_x, -g * alpha


_se_log_marginal.defvjp(_forward, _backward)


def se_log_marginal(log_scale: Array, log_amp: Array, log_noise: Array, x: Array, y: Array,
                    kappa: float, const: float = 0.0) -> Array:
    """log N(y | 0, c₀ + s² exp(−κ Σ_d (x_id − x_jd)²/ℓ_d²) + σ² I) with the fast gradient above.

    Parameters
    ----------
    log_scale
        log ℓ: shape (D,) (one per covariate, ARD) or (1,) (shared, isotropic).
    log_amp, log_noise
        log s and log σ (scalars).
    x, y
        Covariates (n, D) and responses (n,) — all data, or any subset / view.
    kappa, const
        κ and c₀ (static floats): ½ and 0 for seed 000's kernel, 1 and c² for seed 002's.
    """
    log_scale = jnp.atleast_1d(jnp.asarray(log_scale, jnp.float64))
    return _se_log_marginal(log_scale, jnp.asarray(log_amp, jnp.float64),
                            jnp.asarray(log_noise, jnp.float64), jnp.asarray(x), jnp.asarray(y),
                            float(kappa), float(const))


def se_covariance(log_scale: Array, log_amp: Array, log_noise: Array, x: Array, kappa: float,
                  const: float = 0.0) -> Array:
    """The covariance C that :func:`se_log_marginal` factorises (for checks and benchmarks)."""
    return _parts(jnp.atleast_1d(log_scale), log_amp, log_noise, x, kappa, const)[2]
