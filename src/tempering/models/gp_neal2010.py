"""Neal's (2010) Gaussian-process regression demonstration (seed 004 §3, Eqs. 24 and 26–28).

    y ~ N(0, Σ),   Σ_ij = η² (a² + exp{−Σ_h (ν_h (z_ih − z_jh))²} + r² δ_ij) + σ² δ_ij   (Eq. 28),

with a = 1 and r = 0.01 fixed, zero mean, and y and z used as given (no centring or scaling).
θ = (log ν_1..log ν_p, log η, log σ), with independent priors (Eq. 28's paragraph)

    log σ ~ N(log 0.5, 1.5²),   log η ~ N(0, 1.5²),   log ν ~ N(log 0.5 · 1, 1.5² 11ᵀ + I),

the last being the hierarchy log ν₀ ~ N(log 0.5, 1.5²), log ν_h | ν₀ ~ N(log ν₀, 1) with ν₀
integrated out (seeds README, errata of 004): each log ν_h has sd √3.25 ≈ 1.80 and any two have
correlation 2.25/3.25 ≈ 0.69, as the seed says. The likelihood is the exact Cholesky marginal
likelihood on the full Σ (``alpha = 3``, no per-datum terms).

Synthetic data follow Eq. 27 and its footnote 2: w ~ N(0, I₁₂), z₁ = w₁, z₂ = 0.25 z₁ + w₂ √(1 −
0.25²), z₃ = 0.25 z₂ + w₃ √(1 − 0.25²), z₃₊ₕ = 0.99 z_h + w₃₊ₕ √(1 − 0.99²) and z₆₊ₕ = 0.9 z_h +
w₆₊ₕ √(1 − 0.9²) for h = 1, 2, 3, z₁₀..z₁₂ = w₁₀..w₁₂; y = f(z) + e with e ~ N(0, 0.4²) and

    f(z) = 0.7 z₁² + 0.8 sin(0.3 + (4.5 + 0.5 z₁) z₂) + 0.85 cos(0.1 + 5 z₃ + 0.1 z₂²).

The model declares the two exact fast/slow splits of seed 004 §3
(:mod:`~tempering.models.gp_splits`): ``"eta"`` (Cholesky; slow log ν and log ψ = log σ − log η,
fast log η) and ``"eta_sigma"`` (eigendecomposition, Eq. 26; slow log ν, fast log η and log σ).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import NonNegativeInt, PositiveInt

from tempering.errors import UserInputError
from tempering.gp.covariance import scaled_sq_dist
from tempering.gp.exact import LOG_2PI, gaussian_log_marginal
from tempering.gp.structure import GPParts
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.gp_regression import load_xy
from tempering.models.gp_splits import ScaledGP, eta_sigma_split, eta_split
from tempering.models.options import DataOptions

A_CONST = 1.0  # a of Eq. 28
JITTER_R = 0.01  # r of Eq. 28
NOISE_SD = 0.4  # sd of e in the synthetic data (Eq. 27)
N_COVARIATES = 12  # p of the synthetic data
LOG_SIGMA_PRIOR = (float(np.log(0.5)), 1.5)  # (mean, sd) of log σ
LOG_ETA_PRIOR = (0.0, 1.5)  # (mean, sd) of log η
LOG_NU_PRIOR = (float(np.log(0.5)), 1.5, 1.0)  # (mean of log ν₀, sd of log ν₀, sd of log ν_h | ν₀)


class GpNeal2010Options(DataOptions):
    """Options of ``gp_neal2010``: a CSV file with a ``y`` column, or Eq. 27's synthetic data
    (``n`` points, default 100, from ``data_seed``)."""

    SYNTHETIC = ("n",)

    n: PositiveInt | None = None
    data_seed: NonNegativeInt = 1


def log_normal_pdf(u: jax.Array, mean: float, sd: float) -> jax.Array:
    """log N(u | mean, sd²), elementwise."""
    return -0.5 * ((u - mean) / sd) ** 2 - np.log(sd) - 0.5 * LOG_2PI


def log_nu_prior_cov(p: int) -> np.ndarray:
    """The prior covariance of log ν: s₀² 11ᵀ + s² I (s₀ = 1.5, s = 1; seeds README, 004)."""
    _, sd0, sd = LOG_NU_PRIOR
    return sd0**2 * np.ones((p, p)) + sd**2 * np.eye(p)


def log_nu_prior(log_nu: jax.Array) -> jax.Array:
    """log N(log ν | m 1, s₀² 11ᵀ + s² I) in closed form, O(p).

    With c = s₀²/s² and d = log ν − m 1: Σ⁻¹ = (I − c/(1 + pc) 11ᵀ)/s² and
    log det Σ = p log s² + log(1 + pc), so the quadratic form is (dᵀd − c (Σ_h d_h)²/(1 + pc))/s².
    """
    mean, sd0, sd = LOG_NU_PRIOR
    p = log_nu.shape[-1]
    c = (sd0 / sd) ** 2
    d = log_nu - mean
    quad = (jnp.sum(d**2, axis=-1) - c * jnp.sum(d, axis=-1) ** 2 / (1.0 + p * c)) / sd**2
    logdet = p * np.log(sd**2) + np.log1p(p * c)
    return -0.5 * (quad + logdet + p * LOG_2PI)


def upsilon(log_nu: jax.Array, z: jax.Array) -> jax.Array:
    """Υ'(ν) = a² + exp{−Σ_h (ν_h Δ_h)²} + r² I on the rows of z (Eq. 24 plus jitter, §3)."""
    sq = scaled_sq_dist(z, z, jnp.exp(-log_nu))
    return A_CONST**2 + jnp.exp(-sq) + JITTER_R**2 * jnp.eye(z.shape[0])


def regression_function(z: np.ndarray) -> np.ndarray:
    """f(z) of Eq. 27 (only z₁, z₂, z₃ matter)."""
    z1, z2, z3 = z[:, 0], z[:, 1], z[:, 2]
    return (0.7 * z1**2 + 0.8 * np.sin(0.3 + (4.5 + 0.5 * z1) * z2)
            + 0.85 * np.cos(0.1 + 5.0 * z3 + 0.1 * z2**2))


def simulate(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Covariates z (n, 12) of the seed's footnote 2 and y = f(z) + N(0, 0.4²) (Eq. 27)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((n, N_COVARIATES))
    z = w.copy()

    def mix(h: int, parent: int, rho: float) -> None:  # z_h = ρ z_parent + w_h √(1 − ρ²)
        z[:, h] = rho * z[:, parent] + w[:, h] * np.sqrt(1.0 - rho**2)

    mix(1, 0, 0.25)
    mix(2, 1, 0.25)
    for h in range(3):
        mix(3 + h, h, 0.99)
        mix(6 + h, h, 0.9)
    y = regression_function(z) + NOISE_SD * rng.standard_normal(n)
    return z, y


def gp_neal2010_model(z: np.ndarray, y: np.ndarray, *, options: dict | None = None,
                      attrs: dict | None = None) -> Model:
    """Build the model (Eq. 28 with its priors) from covariates ``z`` (n, p) and ``y`` (n,)."""
    z = np.asarray(z, dtype=float)
    y = np.asarray(y, dtype=float)
    if z.ndim != 2 or y.shape != (z.shape[0],):
        raise UserInputError(f"gp_neal2010 needs z (n, p) and y (n,), got {z.shape}, {y.shape}")
    p = z.shape[1]
    zj, yj = jnp.asarray(z), jnp.asarray(y)

    def unpack(theta):
        return theta[:p], theta[p], theta[p + 1]

    def log_prior(theta):
        log_nu, log_eta, log_sigma = unpack(theta)
        return (log_nu_prior(log_nu) + log_normal_pdf(log_eta, *LOG_ETA_PRIOR)
                + log_normal_pdf(log_sigma, *LOG_SIGMA_PRIOR))

    def log_lik(theta, data):
        log_nu, log_eta, log_sigma = unpack(theta)
        n = data["y"].shape[0]
        cov = jnp.exp(2.0 * log_eta) * upsilon(log_nu, data["x"]) + jnp.exp(2.0 * log_sigma) * \
            jnp.eye(n)
        return gaussian_log_marginal(cov, data["y"])

    def kernel_fn(theta, x1, x2):  # noise-free part; η² r² joins σ² in the residual variance
        log_nu, log_eta, _ = unpack(theta)
        return jnp.exp(2.0 * log_eta) * (A_CONST**2
                                         + jnp.exp(-scaled_sq_dist(x1, x2, jnp.exp(-log_nu))))

    def noise_var(theta):
        _, log_eta, log_sigma = unpack(theta)
        return jnp.exp(2.0 * log_sigma) + JITTER_R**2 * jnp.exp(2.0 * log_eta)

    def constrain(theta):
        log_nu, log_eta, log_sigma = unpack(theta)
        return {"nu": jnp.exp(log_nu), "eta": jnp.exp(log_eta), "sigma": jnp.exp(log_sigma)}

    def init(key):
        return prior_draw(key, p)

    gp = ScaledGP(yj, lambda log_nu: upsilon(log_nu, zj), log_nu_prior,
                  lambda u: log_normal_pdf(u, *LOG_ETA_PRIOR),
                  lambda u: log_normal_pdf(u, *LOG_SIGMA_PRIOR),
                  tuple(f"log_nu[{h}]" for h in range(p)), LOG_ETA_PRIOR, LOG_SIGMA_PRIOR)
    return Model(
        name="gp_neal2010",
        data={"x": zj, "y": yj},
        log_prior_fn=log_prior,
        log_lik_fn=log_lik,
        alpha=3.0,
        params=(ParamSpec("nu", (p,)), ParamSpec("eta", ()), ParamSpec("sigma", ())),
        constrain_fn=constrain,
        init_fn=init,
        options=options or {},
        attrs=attrs or {},
        gp=GPParts(kernel_fn, noise_var),
        splits={"eta": eta_split(gp), "eta_sigma": eta_sigma_split(gp)},
    )


def prior_draw(key: jax.Array, p: int) -> jax.Array:
    """θ from the prior: log ν = log ν₀ + N(0, I) with log ν₀ ~ N(log 0.5, 1.5²), and the
    independent Gaussians of log η and log σ."""
    k0, k1, k2 = jax.random.split(key, 3)
    mean, sd0, sd = LOG_NU_PRIOR
    log_nu = mean + sd0 * jax.random.normal(k0) + sd * jax.random.normal(k1, (p,))
    tail = jnp.array([LOG_ETA_PRIOR[0], LOG_SIGMA_PRIOR[0]]) + \
        jnp.array([LOG_ETA_PRIOR[1], LOG_SIGMA_PRIOR[1]]) * jax.random.normal(k2, (2,))
    return jnp.concatenate([log_nu, tail])


def build(options: GpNeal2010Options) -> Model:
    """Registry entry: the CSV named by ``options.data`` (used as given), or Eq. 27's data."""
    if options.data is not None:
        z, y, covariates = load_xy(options.data)
        attrs: dict = {"data_source": options.data, "covariates": covariates}
    else:
        z, y = simulate(options.n or 100, options.data_seed)
        attrs = {"data_source": "synthetic (seed 004 Eq. 27)", "noise_sd": NOISE_SD}
    return gp_neal2010_model(z, y, options=options.model_dump(), attrs=attrs)


SPEC = ModelSpec(
    "gp_neal2010",
    "Neal's GP regression, 12 covariates, fast η, σ (seed 004 §3)",
    GpNeal2010Options,
    build,
    precision="float64",  # Cholesky factors of the kernel matrix
)
