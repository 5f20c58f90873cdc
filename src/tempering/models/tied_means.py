"""Gaussian mixture with tied means (Welling & Teh 2011; seed 003 §4.1).

    x_i ~ ½ N(θ₁, σ_x²) + ½ N(θ₁ + θ₂, σ_x²) i.i.d.,     θ₁ ~ N(0, σ₁²),  θ₂ ~ N(0, σ₂²),

with σ_x² = 2, σ₁² = 10, σ₂² = 1 (variances), θ = (θ₁, θ₂) unconstrained. The per-datum terms are

    l_i(θ) = log ½ − ½ log(2π σ_x²) + logaddexp(−(x_i − θ₁)²/(2σ_x²), −(x_i − θ₁ − θ₂)²/(2σ_x²)).

The likelihood is exactly invariant under the map M(θ₁, θ₂) = (θ₁ + θ₂, −θ₂) (it swaps the two
components; |det M| = 1, M∘M = id), so data drawn at θ* = (0, 1) give a second mode at
M(θ*) = (1, −1). With ``prior = "flat"`` (log π₀ = 0) the density is M-invariant and the two
modes carry equal mass, but it is improper: as |θ₂| → ∞ the likelihood tends to
∏ ½ N(x_i; θ₁, σ_x²) > 0, so it is not integrable in θ₂ — ratios of mass in bounded sets (the
grid's discs) stay well defined, a sampler's draws do not. The Gaussian prior tilts the ratio
slightly.

:func:`tied_means_grid_log_density` evaluates the tempered density w·log π₀(θ) + β·Σ_i l_i(θ) on a
grid exactly, and :func:`mode_mass_ratio` the ratio of its mass in discs of radius r about the two
modes (the paper's known answer for MINT's mode-visit ratio).
"""

from __future__ import annotations

from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt
from scipy.special import logsumexp

from tempering.data import read_numeric_csv
from tempering.errors import UserInputError
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.grid import tempered_log_density_points
from tempering.models.options import DataOptions

LOG_2PI = float(np.log(2 * np.pi))


class TiedMeansOptions(DataOptions):
    """A data file (one value per row) or ``n`` synthetic points drawn at ``theta_true``."""

    SYNTHETIC = ("n",)

    n: PositiveInt | None = Field(None, description="synthetic size; 10000 without data")
    data_seed: NonNegativeInt = 0
    theta_true: list[float] = Field([0.0, 1.0], min_length=2, max_length=2)
    noise_var: PositiveFloat = 2.0
    prior_var: list[PositiveFloat] = Field([10.0, 1.0], min_length=2, max_length=2)
    prior: Literal["gaussian", "flat"] = "gaussian"


def tied_means_mirror(theta):
    """The likelihood's symmetry M(θ₁, θ₂) = (θ₁ + θ₂, −θ₂) (on the last axis)."""
    theta = jnp.asarray(theta)
    return jnp.stack([theta[..., 0] + theta[..., 1], -theta[..., 1]], axis=-1)


def tied_means_model(x: np.ndarray, *, noise_var: float = 2.0,
                     prior_var: tuple[float, float] = (10.0, 1.0), prior: str = "gaussian",
                     options: dict | None = None, attrs: dict | None = None) -> Model:
    """Build the model from a 1-D data array (see the module docstring for the maths)."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    prior_sd = jnp.sqrt(jnp.asarray(prior_var, dtype=float))
    const = float(np.log(0.5) - 0.5 * (LOG_2PI + np.log(noise_var)))

    def log_prior(theta):
        if prior == "flat":
            return jnp.zeros((), theta.dtype)
        z = theta / prior_sd
        return jnp.sum(-0.5 * z**2 - jnp.log(prior_sd) - 0.5 * LOG_2PI)

    def log_lik_terms(theta, data):
        xs = data["x"]
        a = -0.5 * (xs - theta[0]) ** 2 / noise_var
        b = -0.5 * (xs - theta[0] - theta[1]) ** 2 / noise_var
        return jnp.logaddexp(a, b) + const

    return Model(
        name="tied_means",
        data={"x": jnp.asarray(x)},
        log_prior_fn=log_prior,
        log_lik_fn=lambda theta, data: jnp.sum(log_lik_terms(theta, data)),
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("theta", (2,)),),
        constrain_fn=lambda theta: {"theta": theta},
        init_fn=lambda key: prior_sd * jax.random.normal(key, (2,)),
        options=options or {"noise_var": noise_var, "prior_var": list(prior_var),
                            "prior": prior},
        attrs=attrs or {},
    )


def build(options: TiedMeansOptions) -> Model:
    """Registry entry: read the CSV, or draw ``n`` (default 10 000) points at ``theta_true``.

    The initial θ is a draw from N(0, diag(prior_var)) for either prior.
    """
    theta_true = np.asarray(options.theta_true, dtype=np.float64)
    if options.data is not None:
        table = read_numeric_csv(options.data, header=False).values
        if table.shape[1] != 1:
            raise UserInputError(f"{options.data}: expected one value per row, got "
                                 f"{table.shape[1]} columns")
        x, source = table[:, 0], options.data
        if x.shape[0] < 2:
            raise UserInputError(f"{options.data}: needs at least 2 values")
    else:
        n = options.n or 10_000
        rng = np.random.default_rng(options.data_seed)
        second = rng.random(n) < 0.5
        means = theta_true[0] + second * theta_true[1]
        x, source = means + np.sqrt(options.noise_var) * rng.standard_normal(n), "synthetic"
    attrs = {"data_source": source, "theta_true": theta_true.tolist(),
             "modes": [theta_true.tolist(), np.asarray(tied_means_mirror(theta_true)).tolist()]}
    return tied_means_model(x, noise_var=options.noise_var,
                            prior_var=(options.prior_var[0], options.prior_var[1]),
                            prior=options.prior, options=options.model_dump(), attrs=attrs)


def tied_means_grid_log_density(model: Model, beta: float, prior_weight: float,
                                grid1: np.ndarray, grid2: np.ndarray, **blocks) -> np.ndarray:
    """w·log π₀(θ) + β·Σ_i l_i(θ) at every (grid1[j], grid2[k]): a (len(grid1), len(grid2))
    array ("ij" indexing), exact over all n data (blocked in memory; ``blocks`` are
    :func:`~tempering.models.grid.tempered_log_density_points`'s ``points_block`` and
    ``max_elements``). ``prior_weight`` w = 0 drops the prior, w = 1 is the tempered-likelihood
    posterior π₀ L^β, and w = β the fully tempered (π₀ L)^β."""
    g1, g2 = np.meshgrid(np.asarray(grid1, float), np.asarray(grid2, float), indexing="ij")
    points = np.stack([g1.ravel(), g2.ravel()], axis=1)
    values = tempered_log_density_points(model, points, beta, prior_weight, **blocks)
    return values.reshape(g1.shape)


def disc_log_mass(model: Model, center, radius: float, beta: float = 1.0,
                  prior_weight: float = 1.0, points: int = 101, **blocks) -> float:
    """log ∫_{|θ−c| ≤ r} exp(w·log π₀(θ) + β·Σ_i l_i(θ)) dθ, unnormalised, by the midpoint rule on
    a ``points`` × ``points`` grid of cells covering the disc (cells whose centre is inside: about
    0.785·points² density evaluations over all n data)."""
    center = np.asarray(center, dtype=np.float64)
    h = 2.0 * radius / points
    offsets = -radius + h * (np.arange(points) + 0.5)
    d1, d2 = np.meshgrid(offsets, offsets, indexing="ij")
    inside = d1**2 + d2**2 <= radius**2
    cells = center + np.stack([d1[inside], d2[inside]], axis=1)
    values = tempered_log_density_points(model, cells, beta, prior_weight, **blocks)
    return float(logsumexp(values) + 2.0 * np.log(h))


def mode_mass_ratio(model: Model, beta: float = 1.0, prior_weight: float = 1.0,
                    radius: float = 0.01, modes=None, points: int = 101, **blocks) -> float:
    """Mass of the tempered density within ``radius`` of the first mode over that of the second.

    ``modes`` defaults to the model's recorded (θ*, M(θ*)) — (0, 1) and (1, −1) by default. Each
    mass is :func:`disc_log_mass` on its own fine grid (a grid spacing below the radius is what
    makes a disc of radius 10⁻² resolvable). M preserves area but not distance, so with β = 1 the
    disc masses agree only as far as each disc holds its whole mode; as β → 0 the ratio → 1.
    """
    first, second = modes if modes is not None else model.attrs.get(
        "modes", [[0.0, 1.0], [1.0, -1.0]])
    log_a = disc_log_mass(model, first, radius, beta, prior_weight, points, **blocks)
    log_b = disc_log_mass(model, second, radius, beta, prior_weight, points, **blocks)
    return float(np.exp(log_a - log_b))


SPEC = ModelSpec(
    "tied_means",
    "Gaussian mixture with tied means (Welling & Teh 2011; seed 003 §4.1): two modes",
    TiedMeansOptions,
    build,
)
