"""Exact fast/slow splits of a scaled GP likelihood (seed 004 §3, Eqs. 23–26).

Both GP models that declare splits have a covariance of the form

    Σ(θ) = η² Υ'(k) + σ² I,      θ = (k, log η, log σ),

with k the kernel's slow parameters (log ν_h for ``gp_neal2010``, Eq. 28 with Υ' of Eq. 24 plus the
jitter r²I; log ℓ_d for ``gp_regression``, where Υ' is the unit-amplitude squared exponential and
η = σ_f). Two exact rewrites make part of θ *fast* (seed 004 §3):

``"eta"`` (Cholesky). With ψ = σ/η, Σ = η² (Υ' + ψ² I). Slow x₁ = (k, log ψ), fast x₂ = log η;
the change (log η, log σ) ↦ (log η, log ψ = log σ − log η) has unit Jacobian. One Cholesky factor
of Υ' + ψ² I gives d = log det(Υ' + ψ² I) and q = yᵀ(Υ' + ψ² I)⁻¹y, and then for any η

    log det Σ = 2n log η + d,      yᵀ Σ⁻¹ y = q / η²                          (O(1) per member).

``"eta_sigma"`` (eigendecomposition, Eq. 26). Slow x₁ = k, fast x₂ = (log η, log σ). With
Υ' = E Λ Eᵀ and u = Eᵀ y, Σ = E (η² Λ + σ² I) Eᵀ, so

    log det Σ = Σ_i log(η² λ_i + σ²),      yᵀ Σ⁻¹ y = Σ_i u_i² / (η² λ_i + σ²)   (O(n) per member).

In both, a member's log density is the whole posterior log p(θ) + log N(y | 0, Σ(θ)) at
θ = join(x₁, x₂): the prior of k is computed once per slow value; the priors of log η and log σ
are evaluated per member in the split's coordinates (log σ = log ψ + log η for ``"eta"``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.gp.exact import cholesky_quad_logdet, gaussian_from_quad_logdet
from tempering.models.fast_slow import FastSlowSplit, coordinate_maps

Array = jax.Array


class ScaledGP(NamedTuple):
    """A GP posterior with covariance η² Υ'(k) + σ² I on θ = (k, log η, log σ).

    Attributes
    ----------
    y
        Responses (n,), all data.
    unit_cov
        k ↦ Υ'(k), the (n, n) covariance at η = 1, σ = 0 (jitter included where the model has it).
    kernel_log_prior
        k ↦ log p(k) (the density of the unconstrained k, Jacobian included).
    log_eta_prior, log_sigma_prior
        Elementwise log densities of log η and of log σ (independent of k and of each other).
    kernel_names
        Names of the coordinates of k, for reports.
    eta_moments, sigma_moments
        (mean, sd) of the priors of log η and log σ: the ensembles' base measure.
    scale_names
        Names of (log η, log σ, log ψ) in reports (``gp_regression`` calls η σ_f and σ σ_n).
    """

    y: Array
    unit_cov: Callable[[Array], Array]
    kernel_log_prior: Callable[[Array], Array]
    log_eta_prior: Callable[[Array], Array]
    log_sigma_prior: Callable[[Array], Array]
    kernel_names: tuple[str, ...]
    eta_moments: tuple[float, float]
    sigma_moments: tuple[float, float]
    scale_names: tuple[str, str, str] = ("log_eta", "log_sigma", "log_psi")

    @property
    def n_kernel(self) -> int:
        return len(self.kernel_names)


def eta_split(gp: ScaledGP) -> FastSlowSplit:
    """The Cholesky split (seed 004 §3): slow (k, log ψ), ψ = σ/η; fast log η.

    ``prepare(x₁)`` factorises Υ'(k) + ψ² I once and returns (q, d, log p(k)); a member log η = e
    then costs O(1): log N(y | 0, Σ) = −½ (q e^{−2e} + 2n e + d + n log 2π), and its prior is
    log p(k) + log p_η(e) + log p_σ(log ψ + e).
    """
    m, n = gp.n_kernel, gp.y.shape[0]

    def parts(theta: Array) -> tuple[Array, Array]:
        log_psi = theta[m + 1] - theta[m]
        return jnp.concatenate([theta[:m], log_psi[None]]), theta[m:m + 1]

    def join(x1: Array, x2: Array) -> Array:
        return jnp.concatenate([x1[:m], x2[:1], (x1[m] + x2[0])[None]])

    def prepare(x1: Array) -> tuple[Array, Array, Array]:
        psi2 = jnp.exp(2.0 * x1[m])
        quad, logdet = cholesky_quad_logdet(gp.unit_cov(x1[:m]) + psi2 * jnp.eye(n), gp.y)
        return quad, logdet, gp.kernel_log_prior(x1[:m])

    def fast_log_density(cache: tuple[Array, Array, Array], x1: Array, x2: Array) -> Array:
        quad, logdet, kernel_prior = cache
        log_eta = x2[:, 0]
        log_lik = gaussian_from_quad_logdet(quad * jnp.exp(-2.0 * log_eta),
                                            logdet + 2.0 * n * log_eta, n)
        prior = (kernel_prior + gp.log_eta_prior(log_eta)
                 + gp.log_sigma_prior(x1[m] + log_eta))
        return prior + log_lik

    eta_name, _, psi_name = gp.scale_names
    return FastSlowSplit("eta", (*gp.kernel_names, psi_name), (eta_name,), parts, join, prepare,
                         fast_log_density, np.array([gp.eta_moments[0]]),
                         np.array([gp.eta_moments[1]]))


def eta_sigma_split(gp: ScaledGP) -> FastSlowSplit:
    """The eigendecomposition split (seed 004 Eq. 26): slow k; fast (log η, log σ).

    ``prepare(k)`` computes Υ'(k) = E Λ Eᵀ once and returns (λ, u², log p(k)) with u = Eᵀ y; a
    member (log η, log σ) then costs O(n): with μ_i = η² λ_i + σ²,
    log N(y | 0, Σ) = −½ (Σ_i u_i²/μ_i + Σ_i log μ_i + n log 2π).
    """
    m, n = gp.n_kernel, gp.y.shape[0]
    parts, join = coordinate_maps(m + 2, (m, m + 1))

    def prepare(x1: Array) -> tuple[Array, Array, Array]:
        lam, vecs = jnp.linalg.eigh(gp.unit_cov(x1))
        return lam, (vecs.T @ gp.y) ** 2, gp.kernel_log_prior(x1)

    def fast_log_density(cache: tuple[Array, Array, Array], x1: Array, x2: Array) -> Array:
        lam, u2, kernel_prior = cache
        log_eta, log_sigma = x2[:, 0], x2[:, 1]
        mu = jnp.exp(2.0 * log_eta)[:, None] * lam + jnp.exp(2.0 * log_sigma)[:, None]  # (K, n)
        log_lik = gaussian_from_quad_logdet(jnp.sum(u2 / mu, axis=1),
                                            jnp.sum(jnp.log(mu), axis=1), n)
        return kernel_prior + gp.log_eta_prior(log_eta) + gp.log_sigma_prior(log_sigma) + log_lik

    means, sds = zip(gp.eta_moments, gp.sigma_moments, strict=True)
    return FastSlowSplit("eta_sigma", gp.kernel_names, gp.scale_names[:2], parts, join,
                         prepare, fast_log_density, np.array(means, float), np.array(sds, float))
