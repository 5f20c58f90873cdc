"""The reference's exact arithmetic, in float64: the target's log density, its mode and Hessian
by Newton's method, and importance sampling from the Laplace approximation (NumPy on the host;
the passes over the data run in JAX on the default device, :mod:`.passes`).

A target is the logistic regression's posterior, tempered or not (:class:`Target`):

    log π(θ) = κ (−|θ|² / 2s²) + β Σ_i log σ(y_i x_iᵀθ)     (+ a constant),

β = 1, κ = 1 for the posterior; MINT's law has β = 1/T and its prior weight κ. It is strictly
log-concave, so Newton's method (with step halving) finds its mode θ̂; H = −∇² log π(θ̂) and the
Laplace approximation q = N(θ̂, H⁻¹).

Importance sampling from q (:func:`importance`): draws θ_k ~ q, weights w_k ∝ π(θ_k) / q(θ_k),
and for each statistic g (θ_j, and (θ_j − θ̂_j)² for the variance) the *difference estimator*

    Ê_π g = E_q g + Σ_k w̃_k g(θ_k) − (1/K) Σ_k g(θ_k),     w̃ the normalised weights,

whose first term is exact under q (θ̂_j; (H⁻¹)_jj): its Monte-Carlo error is that of
(K w̃_k − 1) g(θ_k), small where π is close to q — the tall posteriors here, where the weights
are near 1. Its standard error is the delta method's, sd_k[K w̃_k (g_k − Ê_π g) − (g_k − ḡ)]
/ √K.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tempering.bench.tall.passes import Rows, log_likelihood
from tempering.bench.tall.passes import gradient_hessian as likelihood_gradient_hessian


@dataclass(frozen=True)
class Target:
    """A tempered logistic posterior: prior sd ``prior_sd`` (s), likelihood power ``beta`` (β)
    and prior weight ``prior_weight`` (κ)."""

    prior_sd: float
    beta: float = 1.0
    prior_weight: float = 1.0

    def describe(self) -> str:
        """The target in words, for the tables."""
        if self.beta == 1.0 and self.prior_weight == 1.0:
            return "posterior"
        prior = "" if self.prior_weight == 1.0 else f"prior^{self.prior_weight:.4g} × "
        return f"{prior}likelihood^(1/{1.0 / self.beta:.4g})"


def log_density(rows: Rows, target: Target, thetas: np.ndarray) -> np.ndarray:
    """log π(θ) up to its constant for each row of ``thetas`` (K, d): shape (K,)."""
    thetas = np.atleast_2d(thetas)
    prior = -0.5 * target.prior_weight * np.sum(thetas**2, axis=1) / target.prior_sd**2
    return prior + target.beta * log_likelihood(rows, thetas)


def gradient_hessian(rows: Rows, target: Target,
                     theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """∇ log π(θ) and −∇² log π(θ) (positive definite)."""
    grad, hess = likelihood_gradient_hessian(rows, theta)
    precision = target.prior_weight / target.prior_sd**2
    return (-precision * theta + target.beta * grad,
            precision * np.eye(theta.size) + target.beta * hess)


def mode(rows: Rows, target: Target,
         iterations: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """The mode θ̂ and H = −∇² log π(θ̂), by Newton's method from 0 with step halving."""
    theta = np.zeros(rows.x.shape[-1])
    current = log_density(rows, target, theta)[0]
    for _ in range(iterations):
        grad, hess = gradient_hessian(rows, target, theta)
        step = np.linalg.solve(hess, grad)
        for _ in range(60):
            proposal = theta + step
            value = log_density(rows, target, proposal)[0]
            if value >= current - 1e-12 * abs(current):
                break
            step = step / 2
        theta, current = proposal, value
        if np.max(np.abs(step)) <= 1e-10 * (1.0 + np.max(np.abs(theta))):
            break
    return theta, gradient_hessian(rows, target, theta)[1]


@dataclass(frozen=True)
class Estimate:
    """Posterior means and sds with their standard errors, from weighted draws."""

    mean: np.ndarray
    sd: np.ndarray
    mean_se: np.ndarray
    sd_se: np.ndarray
    ess: float
    draws: int

    def error(self) -> float:
        """The largest standard error of a mean or an sd, in sds: the estimate's own
        Monte-Carlo error on the bench's scale."""
        return float(max(np.max(self.mean_se / self.sd), np.max(self.sd_se / self.sd)))


def _difference(exact: np.ndarray, values: np.ndarray,
                weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The difference estimator of E_π g (per column of ``values``) and its standard error."""
    k = values.shape[0]
    plain = values.mean(axis=0)
    estimate = exact + weights @ values - plain
    terms = k * weights[:, None] * (values - estimate) - (values - plain)
    return estimate, terms.std(axis=0, ddof=1) / np.sqrt(k)


def importance(rows: Rows, target: Target, centre: np.ndarray,
               hessian: np.ndarray, draws: int, seed: int = 0) -> Estimate:
    """Means and sds of ``target`` by importance sampling from N(centre, hessian⁻¹) (module
    docstring)."""
    rng = np.random.default_rng(seed)
    chol = np.linalg.cholesky(np.linalg.inv(hessian))
    z = rng.standard_normal((draws, centre.size))
    thetas = centre + z @ chol.T
    log_w = log_density(rows, target, thetas) + 0.5 * np.sum(z**2, axis=1)
    weights = np.exp(log_w - log_w.max())
    weights /= weights.sum()
    variance_q = np.sum(chol**2, axis=1)
    mean, mean_se = _difference(centre, thetas, weights)
    second, second_se = _difference(variance_q, (thetas - centre) ** 2, weights)
    sd = np.sqrt(second - (mean - centre) ** 2)
    return Estimate(mean, sd, mean_se, second_se / (2.0 * sd), float(1.0 / np.sum(weights**2)),
                    draws)


def fingerprint(x: np.ndarray, y: np.ndarray) -> list[float]:
    """Sums that identify the data (a cached reference is reused only on the same data)."""
    return [float(f"{v:.12g}") for v in (x.sum(), np.square(x).sum(), y.sum(), x[:, 0] @ y)]


def as_float64(data: Any) -> tuple[np.ndarray, np.ndarray]:
    """A model's ``data`` (features, ±1 labels) as float64 NumPy arrays."""
    return np.asarray(data["x"], np.float64), np.asarray(data["y"], np.float64)
