"""Two-dimensional mean under a Gaussian-mixture prior: unequal modes of known mass, i.i.d. terms.

    x_i ~ N(θ, σ² I₂) i.i.d., i = 1..n,        θ ~ Σ_{j=1}^{J} w_j N(m_j, s² I₂),   Σ_j w_j = 1,

θ ∈ ℝ² unconstrained (the ``weights`` option is normalised). The likelihood is a Gaussian in θ
about the data mean x̄ with variance σ²/n, so the posterior is exactly the mixture

    p(θ | x) = Σ_j w'_j N(θ; c_j, v I₂),    v = 1/(1/s² + n/σ²),    c_j = v (m_j/s² + n x̄/σ²),
    w'_j ∝ w_j N(x̄; m_j, (s² + σ²/n) I₂)

(:func:`modes2d_posterior`), and the evidence is

    log p(x) = −n log(2πσ²) − Σ_i |x_i − x̄|²/(2σ²) + log(2πσ²/n)
               + log Σ_j w_j N(x̄; m_j, (s² + σ²/n) I₂)

(:func:`modes2d_log_evidence`).

With prior means far apart relative to s the J components are separate modes whose masses w'_j
are known and unequal: a test target for samplers that must weigh modes (the EE sampler, MINTEE)
and, having per-datum terms, for mini-batch samplers. :func:`nearest_mode` assigns draws to modes.

The defaults: means (−4, −4), (0, 4), (4, −2), weights 0.2, 0.3, 0.5, s² = 0.09, and n = 50 points
drawn at θ* = (0, 0) with σ² = 200 (σ²/n = 4, so the data move the weights but barely the
centres: √v ≈ 0.30, centres ≈ 0.98 m_j, ≥ 20 standard deviations apart). x̄ ~ N(θ*, 4 I₂) is
random enough to swing the weights by a factor of e or more, so the default ``data_seed`` = 35 is
a draw that leaves all three modes sizeable: w' ≈ (0.142, 0.304, 0.554).
"""

from __future__ import annotations

from typing import Annotated

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, model_validator
from scipy.special import logsumexp

from tempering.data import read_numeric_csv
from tempering.errors import UserInputError
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.options import DataOptions

LOG_2PI = float(np.log(2 * np.pi))
Point = Annotated[list[float], Field(min_length=2, max_length=2)]


class Modes2dOptions(DataOptions):
    """A data file (two values per row) or ``n`` synthetic points drawn at ``theta_true``."""

    SYNTHETIC = ("n",)

    means: list[Point] = Field([[-4.0, -4.0], [0.0, 4.0], [4.0, -2.0]], min_length=1)
    weights: list[PositiveFloat] = Field([0.2, 0.3, 0.5], min_length=1)
    prior_var: PositiveFloat = 0.09
    noise_var: PositiveFloat = 200.0
    n: PositiveInt | None = Field(None, description="synthetic size; 50 without data")
    theta_true: Point = [0.0, 0.0]
    data_seed: NonNegativeInt = Field(35, description="35: posterior weights ≈ .14, .30, .55")

    @model_validator(mode="after")
    def _one_weight_per_mean(self) -> Modes2dOptions:
        if len(self.weights) != len(self.means):
            raise ValueError(f"weights: {len(self.weights)} weights for {len(self.means)} means "
                             "(one per mean)")
        return self


def nearest_mode(theta, centres) -> jax.Array:
    """Index of the centre nearest each θ (last axis 2) among ``centres`` (J, 2), by Euclidean
    distance: shape ``theta.shape[:-1]``, jittable.

    The posterior components share one variance v, so the nearest centre is the most probable
    component up to the log w'_j terms; with the defaults the basins' boundaries lie ≥ 10 posterior
    standard deviations from every centre, so the two rules differ on less than e⁻⁵⁰ of the mass.
    """
    theta = jnp.asarray(theta)
    d2 = jnp.sum((theta[..., None, :] - jnp.asarray(centres)) ** 2, axis=-1)
    return jnp.argmin(d2, axis=-1)


def _mixture_weights(x: np.ndarray, means: np.ndarray, weights: np.ndarray, prior_var: float,
                     noise_var: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(w', c, v, log Σ_j w_j N(x̄; m_j, (s² + σ²/n) I₂)) of the posterior (module docstring)."""
    n = x.shape[0]
    xbar = x.mean(axis=0)
    t = prior_var + noise_var / n
    log_terms = (np.log(weights / weights.sum()) - 0.5 * np.sum((xbar - means) ** 2, axis=1) / t
                 - np.log(2 * np.pi * t))
    log_total = float(logsumexp(log_terms))
    var = 1.0 / (1.0 / prior_var + n / noise_var)
    centres = var * (means / prior_var + n * xbar / noise_var)
    return np.exp(log_terms - log_total), centres, var, log_total


def modes2d_posterior(model: Model) -> tuple[np.ndarray, np.ndarray, float]:
    """The exact posterior of a ``modes2d`` model from its data: weights w' (J,), centres c (J, 2)
    and the common variance v of p(θ | x) = Σ_j w'_j N(θ; c_j, v I₂)."""
    weights, centres, var, _ = _mixture_weights(*_parts(model))
    return weights, centres, var


def modes2d_log_evidence(model: Model) -> float:
    """log p(x) = log ∫ p(θ) Π_i N(x_i; θ, σ² I₂) dθ of a ``modes2d`` model, exactly."""
    x, means, weights, prior_var, noise_var = _parts(model)
    n = x.shape[0]
    scatter = float(np.sum((x - x.mean(axis=0)) ** 2))
    log_mix = _mixture_weights(x, means, weights, prior_var, noise_var)[3]
    return (-n * np.log(2 * np.pi * noise_var) - 0.5 * scatter / noise_var
            + np.log(2 * np.pi * noise_var / n) + log_mix)


def _parts(model: Model) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """(x, means, weights, s², σ²) of a ``modes2d`` model."""
    opts = model.options
    return (np.asarray(model.data["x"], dtype=np.float64),
            np.asarray(opts["means"], dtype=np.float64),
            np.asarray(opts["weights"], dtype=np.float64),
            float(opts["prior_var"]), float(opts["noise_var"]))


def modes2d_model(x: np.ndarray, means, weights, prior_var: float = 0.09,
                  noise_var: float = 200.0, *, options: dict | None = None,
                  attrs: dict | None = None) -> Model:
    """Build the model from (n, 2) data and the prior's means (J, 2) and weights (J,)."""
    x = np.asarray(x, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 2 or x.shape[0] < 1:
        raise UserInputError(f"modes2d data must be (n, 2) with n ≥ 1, got shape {x.shape}")
    log_w = jnp.asarray(np.log(weights / weights.sum()))
    m = jnp.asarray(means)
    prior_const = -np.log(2 * np.pi * prior_var)
    lik_const = -np.log(2 * np.pi * noise_var)

    def log_prior(theta):
        log_comp = log_w - 0.5 * jnp.sum((theta - m) ** 2, axis=1) / prior_var
        return jax.scipy.special.logsumexp(log_comp) + prior_const

    def log_lik_terms(theta, data):
        return -0.5 * jnp.sum((data["x"] - theta) ** 2, axis=1) / noise_var + lik_const

    def init(key):
        pick, noise = jax.random.split(key)
        j = jax.random.categorical(pick, log_w)
        return m[j] + np.sqrt(prior_var) * jax.random.normal(noise, (2,))

    options = options or {"means": means.tolist(), "weights": weights.tolist(),
                          "prior_var": prior_var, "noise_var": noise_var}
    return Model(
        name="modes2d",
        data={"x": jnp.asarray(x)},
        log_prior_fn=log_prior,
        log_lik_fn=lambda theta, data: jnp.sum(log_lik_terms(theta, data)),
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("theta", (2,)),),
        constrain_fn=lambda theta: {"theta": theta},
        init_fn=init,
        options=options,
        attrs=attrs or {},
    )


def build(options: Modes2dOptions) -> Model:
    """Registry entry: read the CSV (two columns), or draw ``n`` (default 50) points at
    ``theta_true``; the exact posterior mixture goes in the attrs."""
    if options.data is not None:
        x = read_numeric_csv(options.data).values
        if x.shape[1] != 2:
            raise UserInputError(f"{options.data}: expected two values per row, got "
                                 f"{x.shape[1]} columns")
        attrs: dict = {"data_source": options.data}
    else:
        rng = np.random.default_rng(options.data_seed)
        x = np.asarray(options.theta_true) + np.sqrt(options.noise_var) * rng.standard_normal(
            (options.n or 50, 2))
        attrs = {"data_source": "synthetic", "theta_true": list(options.theta_true)}
    weights, centres, var, _ = _mixture_weights(
        np.asarray(x, dtype=np.float64), np.asarray(options.means, dtype=np.float64),
        np.asarray(options.weights, dtype=np.float64), options.prior_var, options.noise_var)
    attrs |= {"posterior_weights": weights.tolist(), "posterior_centres": centres.tolist(),
              "posterior_var": var}
    return modes2d_model(x, options.means, options.weights, options.prior_var,
                         options.noise_var, options=options.model_dump(), attrs=attrs)


SPEC = ModelSpec(
    "modes2d",
    "2-D Gaussian mean, Gaussian-mixture prior: J modes of exactly known, unequal mass",
    Modes2dOptions,
    build,
)
