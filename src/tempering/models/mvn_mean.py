"""Multivariate Gaussian mean (seed 000 §4.1, Eqs. 19–20).

    x_n ~ N(θ, Σ) i.i.d., n = 1..N,        θ_d ~ N(0, σ_0²), d = 1..D.

θ is already unconstrained. The posterior is Gaussian with precision Λ = I/σ_0² + N Σ⁻¹ and mean
Λ⁻¹ Σ⁻¹ Σ_n x_n (:func:`analytic_posterior`), which the tests use as the known answer.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import (
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
)

from tempering.data import read_numeric_csv
from tempering.errors import UserInputError
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.options import DataOptions

LOG_2PI = float(np.log(2 * np.pi))


class MvnMeanOptions(DataOptions):
    """Options of ``mvn_mean``: a data file, or synthetic data of size ``n`` × ``dim``."""

    cov: str | None = None
    prior_sd: PositiveFloat = 1.0
    n: PositiveInt | None = None
    dim: PositiveInt | None = None
    data_seed: NonNegativeInt = 0


def validate_covariance(cov: np.ndarray, dim: int, source: str = "cov") -> np.ndarray:
    """Check that ``cov`` is a symmetric positive-definite dim × dim matrix."""
    cov = np.asarray(cov, dtype=float)
    if cov.shape != (dim, dim):
        raise UserInputError(f"{source}: expected a {dim}x{dim} matrix, got shape {cov.shape}")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12):
        raise UserInputError(f"{source}: the covariance matrix is not symmetric")
    try:
        np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise UserInputError(f"{source}: the covariance matrix is not positive definite") from None
    return cov


def mvn_mean_model(x: np.ndarray, cov: np.ndarray | None = None, prior_sd: float = 1.0,
                   *, options: dict | None = None, attrs: dict | None = None) -> Model:
    """Build the model from an (N, D) data array and a D × D covariance (identity by default)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise UserInputError(f"mvn_mean data must be a 2-D array (N, D), got shape {x.shape}")
    dim = x.shape[1]
    cov = np.eye(dim) if cov is None else validate_covariance(cov, dim)
    chol = jnp.asarray(np.linalg.cholesky(cov))
    half_logdet = float(np.sum(np.log(np.diag(np.linalg.cholesky(cov)))))
    prior_var = float(prior_sd) ** 2

    def log_prior(theta):
        return -0.5 * jnp.sum(theta**2) / prior_var - 0.5 * dim * (LOG_2PI + np.log(prior_var))

    def log_lik_terms(theta, data):
        z = jax.scipy.linalg.solve_triangular(chol, (data["x"] - theta).T, lower=True)
        return -0.5 * jnp.sum(z**2, axis=0) - half_logdet - 0.5 * dim * LOG_2PI

    def log_lik(theta, data):
        return jnp.sum(log_lik_terms(theta, data))

    def init(key):
        return prior_sd * jax.random.normal(key, (dim,))

    return Model(
        name="mvn_mean",
        data={"x": jnp.asarray(x)},
        log_prior_fn=log_prior,
        log_lik_fn=log_lik,
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("theta", (dim,)),),
        constrain_fn=lambda theta: {"theta": theta},
        init_fn=init,
        options=options or {"prior_sd": prior_sd},
        attrs={"cov": cov.tolist(), **(attrs or {})},
    )


def analytic_posterior(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """Exact posterior mean and covariance of an ``mvn_mean`` model (conjugate Gaussian)."""
    x = np.asarray(model.data["x"])
    cov = np.asarray(model.attrs["cov"])
    prior_var = float(model.options["prior_sd"]) ** 2
    cov_inv = np.linalg.inv(cov)
    precision = np.eye(x.shape[1]) / prior_var + x.shape[0] * cov_inv
    post_cov = np.linalg.inv(precision)
    post_mean = post_cov @ cov_inv @ x.sum(axis=0)
    return post_mean, post_cov


def build(options: MvnMeanOptions) -> Model:
    """Registry entry: load or simulate the data named by ``options``."""
    table = read_numeric_csv(options.data).values if options.data is not None else None
    dim = table.shape[1] if table is not None else (options.dim or 5)
    cov = None
    if options.cov is not None:
        cov_values = read_numeric_csv(options.cov, header=False).values
        cov = validate_covariance(cov_values, dim, options.cov)
    if table is not None:
        x, attrs = table, {"data_source": options.data}
    else:
        rng = np.random.default_rng(options.data_seed)
        theta_true = options.prior_sd * rng.standard_normal(dim)
        chol = np.linalg.cholesky(cov if cov is not None else np.eye(dim))
        x = theta_true + rng.standard_normal((options.n or 256, dim)) @ chol.T
        attrs = {"data_source": "synthetic", "theta_true": theta_true.tolist()}
    return mvn_mean_model(x, cov, options.prior_sd, options=options.model_dump(), attrs=attrs)


def analytic_log_evidence(model: Model, beta: float | jax.Array = 1.0) -> jax.Array:
    """log Z(β) = log ∫ p(θ) p(X | θ)^β dθ of an ``mvn_mean`` model, exactly (β ≥ 0; β = 1 is the
    log evidence log p(X), β = 0 gives 0).

    With x̄ the data mean, S = Σ_n (x_n − x̄)ᵀ Σ⁻¹ (x_n − x̄), C = −(N/2)(D log 2π + log|Σ|),
    P_0 = I/σ_0² and Q = βN Σ⁻¹, b = Q x̄: β log p(X | θ) = β C − β S/2 − ½ (θ − x̄)ᵀ Q (θ − x̄), and
    the Gaussian integral against N(θ; 0, P_0⁻¹) gives

        log Z(β) = β C − β S/2 − ½ x̄ᵀ Q x̄ − ½ log|I + σ_0² Q| + ½ bᵀ (P_0 + Q)⁻¹ b.

    Written in ``jax.numpy``, so that d log Z/dβ = E_β[log p(X | θ)] and d² log Z/dβ² =
    Var_β[log p(X | θ)] follow by ``jax.grad`` (the integrands of thermodynamic integration).
    """
    x = jnp.asarray(model.data["x"])
    cov = jnp.asarray(model.attrs["cov"])
    prior_var = float(model.options["prior_sd"]) ** 2
    n, dim = x.shape
    cov_inv = jnp.linalg.inv(cov)
    xbar = x.mean(axis=0)
    resid = x - xbar
    scatter = jnp.sum((resid @ cov_inv) * resid)
    const = -0.5 * n * (dim * LOG_2PI + jnp.linalg.slogdet(cov)[1])
    q = beta * n * cov_inv
    b = q @ xbar
    precision = jnp.eye(dim) / prior_var + q
    return (beta * const - 0.5 * beta * scatter - 0.5 * xbar @ q @ xbar
            - 0.5 * jnp.linalg.slogdet(jnp.eye(dim) + prior_var * q)[1]
            + 0.5 * b @ jnp.linalg.solve(precision, b))


SPEC = ModelSpec(
    "mvn_mean",
    "mean of a multivariate Gaussian, Gaussian prior (seed 000 §4.1)",
    MvnMeanOptions,
    build,
)
