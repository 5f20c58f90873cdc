"""Gaussian-process regression hyperparameters (seed 000 §4.2, Eqs. 21–27).

    y ~ N(0, K + σ_n² I),   K_ij = σ_f² exp{−Σ_d (x_id − x_jd)² / (2 ℓ_d²)},
    ℓ_d ~ LogNormal(0.5, 1),   σ_f ~ Gamma(4, rate 1),   σ_n ~ Gamma(2, rate 2).

θ = (log ℓ_1..log ℓ_D, log σ_f, log σ_n) (one log ℓ for ``kernel="iso"``); ``log_prior`` is the
density of θ, i.e. it includes the Jacobian of the log transform. The likelihood is the exact
Cholesky marginal likelihood (with the fast gradient of :mod:`tempering.gp.exact_grad`): not
additive over data points, so ``alpha = 3`` and there are no per-datum terms. With η = σ_f and
ψ = σ_n/σ_f the covariance is σ_f² (E + ψ² I), so the model declares seed 004's exact Cholesky
split ``"eta"`` (slow log ℓ and log ψ, fast log σ_f; :mod:`~tempering.models.gp_splits`).

Synthetic data follow §4.2: θ drawn from the prior, covariates from an isotropic Gaussian centred
at 0 with standard deviation Σ_d ℓ_d / D, then y from the GP. ``standardize`` centres and scales
the covariates and response of a data *file* (recorded in the run's attributes); synthetic data are
left on the scale they were generated at, so the generating θ (``attrs["theta_true"]``) stays
meaningful.
"""

from __future__ import annotations

from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import gammaln
from pydantic import NonNegativeInt, PositiveInt
from scipy.special import digamma, polygamma

from tempering.data import read_numeric_csv
from tempering.errors import UserInputError
from tempering.gp import se_ard
from tempering.gp.exact_grad import se_log_marginal
from tempering.gp.structure import GPParts
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.gp_splits import ScaledGP, eta_split
from tempering.models.options import DataOptions

LENGTHSCALE_LOGNORMAL = (0.5, 1.0)  # (μ_0, σ_0)
SIGMA_F_GAMMA = (4.0, 1.0)  # (shape a_f, rate b_f)
SIGMA_N_GAMMA = (2.0, 2.0)  # (shape a_n, rate b_n)


class GpRegressionOptions(DataOptions):
    """Options of ``gp_regression``: a CSV file with a ``y`` column, or synthetic data."""

    kernel: Literal["ard", "iso"] = "ard"
    standardize: bool = True
    n: PositiveInt | None = None
    dim: PositiveInt | None = None
    data_seed: NonNegativeInt = 0


def _log_gamma_of_log(u: jax.Array, shape: float, rate: float) -> jax.Array:
    """Density of u = log σ when σ ~ Gamma(shape, rate): Gamma pdf at e^u times the Jacobian e^u."""
    return shape * np.log(rate) - gammaln(shape) + shape * u - rate * jnp.exp(u)


def _log_normal_pdf(u: jax.Array, mu: float, sd: float) -> jax.Array:
    return -0.5 * ((u - mu) / sd) ** 2 - np.log(sd) - 0.5 * np.log(2 * np.pi)


def gp_regression_model(x: np.ndarray, y: np.ndarray, kernel: str = "ard", *,
                        options: dict | None = None, attrs: dict | None = None) -> Model:
    """Build the model from covariates ``x`` (n, D) and responses ``y`` (n,)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise UserInputError(f"gp_regression needs x (n, D) and y (n,), got {x.shape}, {y.shape}")
    dim = x.shape[1]
    n_ls = dim if kernel == "ard" else 1

    def unpack(theta):
        return theta[:n_ls], theta[n_ls], theta[n_ls + 1]

    def log_prior(theta):
        log_ls, log_sf, log_sn = unpack(theta)
        return (jnp.sum(_log_normal_pdf(log_ls, *LENGTHSCALE_LOGNORMAL))
                + _log_gamma_of_log(log_sf, *SIGMA_F_GAMMA)
                + _log_gamma_of_log(log_sn, *SIGMA_N_GAMMA))

    def kernel_fn(theta, x1, x2):
        log_ls, log_sf, _ = unpack(theta)
        return se_ard(x1, x2, jnp.exp(log_ls), jnp.exp(log_sf))

    def noise_var(theta):
        return jnp.exp(2.0 * unpack(theta)[2])

    def log_lik(theta, data):
        log_ls, log_sf, log_sn = unpack(theta)  # K + σ_n² I with K = kernel(θ, x, x)
        return se_log_marginal(log_ls, log_sf, log_sn, data["x"], data["y"], kappa=0.5)

    def constrain(theta):
        log_ls, log_sf, log_sn = unpack(theta)
        return {"lengthscale": jnp.exp(log_ls), "sigma_f": jnp.exp(log_sf),
                "sigma_n": jnp.exp(log_sn)}

    def init(key):
        k1, k2, k3 = jax.random.split(key, 3)
        mu, sd = LENGTHSCALE_LOGNORMAL
        log_ls = mu + sd * jax.random.normal(k1, (n_ls,))
        sf = jax.random.gamma(k2, SIGMA_F_GAMMA[0]) / SIGMA_F_GAMMA[1]
        sn = jax.random.gamma(k3, SIGMA_N_GAMMA[0]) / SIGMA_N_GAMMA[1]
        return jnp.concatenate([log_ls, jnp.log(jnp.stack([sf, sn]))])

    return Model(
        name="gp_regression",
        data={"x": jnp.asarray(x), "y": jnp.asarray(y)},
        log_prior_fn=log_prior,
        log_lik_fn=log_lik,
        alpha=3.0,
        params=(ParamSpec("lengthscale", (n_ls,)), ParamSpec("sigma_f", ()),
                ParamSpec("sigma_n", ())),
        constrain_fn=constrain,
        init_fn=init,
        options=options or {"kernel": kernel},
        attrs=attrs or {},
        gp=GPParts(kernel_fn, noise_var),
        splits={"eta": eta_split(_scaled_gp(x, y, n_ls))},
    )


def _log_gamma_moments(shape: float, rate: float) -> tuple[float, float]:
    """Mean and sd of log σ for σ ~ Gamma(shape, rate): ψ(shape) − log rate and √ψ'(shape)."""
    return float(digamma(shape) - np.log(rate)), float(np.sqrt(polygamma(1, shape)))


def _scaled_gp(x: np.ndarray, y: np.ndarray, n_ls: int) -> ScaledGP:
    """The covariance as σ_f² (E(ℓ) + ψ² I), ψ = σ_n/σ_f, for seed 004's η-fast split
    (:func:`~tempering.models.gp_splits.eta_split`; η = σ_f): slow (log ℓ, log ψ), fast log σ_f.
    σ_f's prior is independent of ℓ and σ_n, so its conditional given ψ depends on ψ; the split's
    fast moments are those of its marginal, the log of a Gamma(4, 1)."""
    xj = jnp.asarray(x)
    return ScaledGP(
        jnp.asarray(y), lambda log_ls: se_ard(xj, xj, jnp.exp(log_ls), 1.0),
        lambda log_ls: jnp.sum(_log_normal_pdf(log_ls, *LENGTHSCALE_LOGNORMAL)),
        lambda u: _log_gamma_of_log(u, *SIGMA_F_GAMMA),
        lambda u: _log_gamma_of_log(u, *SIGMA_N_GAMMA),
        tuple(f"log_lengthscale[{d}]" for d in range(n_ls)),
        _log_gamma_moments(*SIGMA_F_GAMMA), _log_gamma_moments(*SIGMA_N_GAMMA),
        ("log_sigma_f", "log_sigma_n", "log_psi"))


def gp_regression_prior_mean(n_lengthscales: int) -> np.ndarray:
    """E[θ] under the prior, in the sampler's unconstrained coordinates (Eqs. 23–25): E[log ℓ_d]
    = μ_0 for each length scale, E[log σ_f] = ψ(a_f) − log b_f, E[log σ_n] = ψ(a_n) − log b_n."""
    log_ls = np.full(n_lengthscales, LENGTHSCALE_LOGNORMAL[0])
    tail = [float(digamma(a) - np.log(b)) for a, b in (SIGMA_F_GAMMA, SIGMA_N_GAMMA)]
    return np.concatenate([log_ls, tail])


def simulate(n: int, dim: int, kernel: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seed 000 §4.2: θ from the prior, x ~ N(0, (Σ_d ℓ_d / D)² I), y ~ N(0, K + σ_n² I)."""
    rng = np.random.default_rng(seed)
    n_ls = dim if kernel == "ard" else 1
    ls = np.exp(rng.normal(*LENGTHSCALE_LOGNORMAL, size=n_ls))
    sf = rng.gamma(SIGMA_F_GAMMA[0], 1.0 / SIGMA_F_GAMMA[1])
    sn = rng.gamma(SIGMA_N_GAMMA[0], 1.0 / SIGMA_N_GAMMA[1])
    x = rng.normal(0.0, float(np.mean(np.broadcast_to(ls, (dim,)))), size=(n, dim))
    kernel_matrix = np.asarray(se_ard(jnp.asarray(x), jnp.asarray(x), jnp.asarray(ls), sf))
    cov = kernel_matrix + sn**2 * np.eye(n)
    y = np.linalg.cholesky(cov) @ rng.standard_normal(n)
    theta_true = np.concatenate([np.log(ls), np.log([sf, sn])])
    return x, y, theta_true


def load_xy(spec: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Read a CSV with a header; column ``y`` is the response, the others covariates.

    The bundled ``mcycle`` data name their response ``accel``; it is used as ``y``.
    """
    table = read_numeric_csv(spec, header=True)
    columns = list(table.columns or [])
    if spec == "mcycle":
        columns = ["y" if c == "accel" else c for c in columns]
    if "y" not in columns:
        raise UserInputError(f"{spec}: no column named y (columns: {', '.join(columns)})")
    if len(columns) < 2:
        raise UserInputError(f"{spec}: needs at least one covariate column beside y")
    j = columns.index("y")
    covariates = [c for c in columns if c != "y"]
    return np.delete(table.values, j, axis=1), table.values[:, j], covariates


def read_xy_file(spec: str, standardize: bool) -> tuple[np.ndarray, np.ndarray, dict]:
    """Load a data file and, if asked, centre and scale every column (constants in ``attrs``)."""
    x, y, covariates = load_xy(spec)
    attrs: dict = {"data_source": spec, "covariates": covariates, "standardized": standardize}
    if standardize:
        x_mean, x_sd = x.mean(axis=0), x.std(axis=0)
        y_mean, y_sd = float(y.mean()), float(y.std())
        if np.any(x_sd == 0) or y_sd == 0:
            raise UserInputError(f"{spec}: a column is constant; cannot standardize")
        x, y = (x - x_mean) / x_sd, (y - y_mean) / y_sd
        attrs |= {"x_mean": x_mean.tolist(), "x_sd": x_sd.tolist(), "y_mean": y_mean,
                  "y_sd": y_sd}
    return x, y, attrs


def build(options: GpRegressionOptions) -> Model:
    """Registry entry: load (and standardise) or simulate the data named by ``options``."""
    if options.data is not None:
        x, y, attrs = read_xy_file(options.data, options.standardize)
    else:
        x, y, theta_true = simulate(options.n or 100, options.dim or 2, options.kernel,
                                    options.data_seed)
        attrs = {"data_source": "synthetic", "theta_true": theta_true.tolist(),
                 "standardized": False}
    return gp_regression_model(x, y, options.kernel, options=options.model_dump(), attrs=attrs)


SPEC = ModelSpec(
    "gp_regression",
    "GP regression hyperparameters, SE-ARD kernel (seed 000 §4.2)",
    GpRegressionOptions,
    build,
    precision="float64",  # Cholesky factors of the kernel matrix
)
