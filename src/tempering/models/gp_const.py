"""GP regression in seed 002's form (Wang & Neal 2013, Eqs. 22–24).

    y ~ N(0, K + σ² I),   K_ij = c² + η² exp{ −Σ_k (x_ik − x_jk)² / ρ_k² },

with one ρ (``kernel="iso"``, Eq. 23) or one ρ_k per covariate (``"ard"``, Eq. 24), and c a fixed,
fairly large constant that lets the function's level shift. θ = (log ρ, log η, log σ), each with an
independent N(0, 2²) prior — the seed says only "typically an independent Gaussian prior on the
logarithm of each hyperparameter", so the location and scale are ours (wide enough to hold every
value of Table 1). The likelihood is exact (Eqs. 29–30), with the fast gradient of
:mod:`tempering.gp.exact_grad`.

Synthetic data follow §6.1: covariates uniform on [0, 1]^p, y drawn from the GP with Table 1's
hyperparameters (η = 5; ρ = 0.1 or 0.1·k for ``lengthscales="short"``, 2 or 2·k for ``"long"``).
Table 1 does not give σ; we generate with ``sigma`` = 0.5 by default and c = 10.
"""

from __future__ import annotations

from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import (
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
)

from tempering.gp.covariance import se_const
from tempering.gp.exact_grad import se_log_marginal
from tempering.gp.structure import GPParts
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.gp_regression import read_xy_file
from tempering.models.options import DataOptions

LOG_PRIOR = (0.0, 2.0)  # N(μ, sd²) on each log hyperparameter
TABLE1_ETA = 5.0


class GpConstOptions(DataOptions):
    """A CSV file with a ``y`` column, or synthetic data as in seed 002 §6.1."""

    kernel: Literal["iso", "ard"] = "iso"
    c: PositiveFloat = 10.0
    standardize: bool = True
    n: PositiveInt | None = None
    dim: PositiveInt | None = None
    lengthscales: Literal["short", "long"] = "short"
    sigma: PositiveFloat = 0.5
    data_seed: NonNegativeInt = 0


def table1_rho(p: int, kernel: str, lengthscales: str) -> np.ndarray:
    """Seed 002 Table 1: ρ = 0.1 (short) or 2 (long); ARD multiplies by the covariate index k."""
    base = 0.1 if lengthscales == "short" else 2.0
    return base * (np.arange(1, p + 1) if kernel == "ard" else np.ones(1))


def gp_const_model(x: np.ndarray, y: np.ndarray, kernel: str = "iso", c: float = 10.0, *,
                   options: dict | None = None, attrs: dict | None = None) -> Model:
    """Build the model from covariates ``x`` (n, p) and responses ``y`` (n,)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n_rho = x.shape[1] if kernel == "ard" else 1
    mu, sd = LOG_PRIOR

    def kernel_fn(theta, x1, x2):
        return se_const(x1, x2, jnp.exp(theta[:n_rho]), jnp.exp(theta[n_rho]), c)

    def noise_var(theta):
        return jnp.exp(2.0 * theta[n_rho + 1])

    def log_prior(theta):
        return jnp.sum(-0.5 * ((theta - mu) / sd) ** 2 - np.log(sd) - 0.5 * np.log(2 * np.pi))

    def log_lik(theta, data):  # log N(y | 0, kernel_fn(θ, x, x) + noise_var(θ) I), fast gradient
        return se_log_marginal(theta[:n_rho], theta[n_rho], theta[n_rho + 1], data["x"],
                               data["y"], kappa=1.0, const=c**2)

    def constrain(theta):
        return {"rho": jnp.exp(theta[:n_rho]), "eta": jnp.exp(theta[n_rho]),
                "sigma": jnp.exp(theta[n_rho + 1])}

    def init(key):
        return mu + sd * jax.random.normal(key, (n_rho + 2,))

    return Model(name="gp_const", data={"x": jnp.asarray(x), "y": jnp.asarray(y)},
                 log_prior_fn=log_prior, log_lik_fn=log_lik, alpha=3.0,
                 params=(ParamSpec("rho", (n_rho,)), ParamSpec("eta", ()),
                         ParamSpec("sigma", ())),
                 constrain_fn=constrain, init_fn=init,
                 options=options or {"kernel": kernel, "c": c}, attrs=attrs or {},
                 gp=GPParts(kernel_fn, noise_var))


def simulate(n: int, p: int, kernel: str, lengthscales: str, sigma: float, c: float,
             seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x ~ U[0, 1]^p, y ~ N(0, K + σ² I) with Table 1's η and ρ; returns x, y, generating θ."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(n, p))
    rho = table1_rho(p, kernel, lengthscales)
    cov = np.array(se_const(jnp.asarray(x), jnp.asarray(x), jnp.asarray(rho), TABLE1_ETA, c))
    cov += sigma**2 * np.eye(n)
    y = np.linalg.cholesky(cov) @ rng.standard_normal(n)
    theta = np.concatenate([np.log(rho), np.log([TABLE1_ETA, sigma])])
    return x, y, theta


def build(options: GpConstOptions) -> Model:
    """Registry entry: load (and standardise) a file, or simulate seed 002's data."""
    if options.data is not None:
        x, y, attrs = read_xy_file(options.data, options.standardize)
    else:
        x, y, theta = simulate(options.n or 100, options.dim or 1, options.kernel,
                               options.lengthscales, options.sigma, options.c, options.data_seed)
        attrs = {"data_source": "synthetic", "theta_true": theta.tolist(), "standardized": False}
    return gp_const_model(x, y, options.kernel, options.c, options=options.model_dump(),
                          attrs=attrs)


SPEC = ModelSpec(
    "gp_const",
    "GP regression, c² + η² exp(−‖x−x′‖²/ρ²) covariance (seed 002 §5.1)",
    GpConstOptions,
    build,
    precision="float64",  # Cholesky factors of the kernel matrix
)
