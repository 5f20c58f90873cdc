"""Equal-weight Gaussian mixture with unknown means: a multimodal test and demo target.

    x_i ~ Σ_{k=1}^{K} (1/K) N(μ_k, σ²) i.i.d.,     μ_k ~ N(0, σ_0²),  σ and K known.

The posterior is invariant under permutations of (μ_1, …, μ_K), so its K! label orderings carry
exactly equal mass: a sampler's share of draws in each ordering is a known answer (1/K!). With
well-separated means the orderings are separate modes that an untempered sampler does not cross.

``spike = a`` (with ``k``) is seed 003's 50-mode experiment (Appendix D.2: K = 50, σ = 1,
n = 10⁵, ``--set model.k=50 --set model.n=100000 --set model.spike=2``): synthetic data drawn at
θ* = (a, 0, …, 0), i.e. ``means`` = θ*, so n/K of the points lie about a and the rest about 0.
Permuting the coordinates of θ* gives only K points, a·e_j (j = 1..K), so the posterior has K
modes, near them. Each carries mass exactly 1/K: the likelihood and the exchangeable prior are both
invariant under every permutation P of the coordinates, p(Pμ | x) = p(μ | x), and the
transposition (1 j) maps the region {μ : argmax_l a·μ_l = 1} onto {μ : argmax_l a·μ_l = j}, so
these K regions (which partition ℝ^K up to ties, a null set) have equal posterior mass.
:func:`mode_index` says which region a draw is in, so a sampler's share of draws per region is a
known answer (1/K). With ``spike`` the chains start at the origin, the paper's start (``start``;
a prior draw, N(0, σ_0²) per coordinate, strands components far from all the data, where the
likelihood is flat and a chain at T = 1 never brings them back). The paper's uniform prior on
ℝ^K would be improper (the likelihood tends to a positive constant as one μ_k → ∞ with no data
near it), so the prior stays N(0, σ_0²).
"""

from __future__ import annotations

from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import (
    Field,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    model_validator,
)

from tempering.data import read_numeric_csv
from tempering.errors import UserInputError
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.options import DataOptions

LOG_2PI = float(np.log(2 * np.pi))


class MixtureOptions(DataOptions):
    """A data file (one value per row), or synthetic: ``n`` points split evenly over ``means``
    (or over θ* = (``spike``, 0, …, 0) of length ``k``)."""

    SYNTHETIC = ("n", "means", "spike")

    sigma: PositiveFloat = 1.0
    prior_sd: PositiveFloat = 5.0
    k: PositiveInt | None = None
    n: PositiveInt | None = None
    means: list[float] | None = Field(default=None, min_length=1)
    data_seed: NonNegativeInt = 0
    spike: float | None = Field(None, description="synthetic data at (spike, 0, ..., 0); needs k")
    start: Literal["prior", "origin"] | None = Field(
        None, description="where chains start: a prior draw, or the origin (default with spike)")

    def start_at(self) -> str:
        """``start`` resolved: the origin with ``spike`` (the paper's start), else a prior draw."""
        return self.start or ("origin" if self.spike is not None else "prior")

    @model_validator(mode="after")
    def _k_matches_means(self) -> MixtureOptions:
        if self.spike is not None and self.means is not None:
            raise ValueError("spike: cannot be combined with means (it sets the means)")
        if self.spike is not None and self.k is None:
            raise ValueError("spike: needs k, the number of components")
        if self.k is not None and self.means is not None and self.k != len(self.means):
            raise ValueError(f"k = {self.k} but {len(self.means)} means were given")
        return self


def mode_index(mu, spike: float) -> jax.Array:
    """Which of the K ``spike`` modes each draw μ (last axis of length K) is in: argmax_j a·μ_j.

    For a = ``spike`` ≠ 0 the mode near a·e_j is region j = argmax_l a·μ_l (the largest
    coordinate for a > 0, the smallest for a < 0); the K regions have posterior mass exactly 1/K
    each (module docstring). Jittable; returns integer indices of shape ``mu.shape[:-1]``.
    """
    mu = jnp.asarray(mu)
    return jnp.argmax(jnp.sign(spike) * mu, axis=-1)


def mixture_model(x: np.ndarray, k: int, sigma: float = 1.0, prior_sd: float = 5.0, *,
                  options: dict | None = None, attrs: dict | None = None,
                  start: str = "prior") -> Model:
    """Build the model from a 1-D data array and a known number of components ``k``; chains
    start at a prior draw, or at the origin (``start="origin"``)."""
    x = np.asarray(x, dtype=float).reshape(-1)
    if k < 1:
        raise UserInputError(f"model.k must be positive (got {k})")
    log_norm = -np.log(sigma) - 0.5 * LOG_2PI - np.log(k)

    def log_prior(mu):
        return jnp.sum(-0.5 * (mu / prior_sd) ** 2 - np.log(prior_sd) - 0.5 * LOG_2PI)

    def log_lik_terms(mu, data):
        z = (data["x"][:, None] - mu[None, :]) / sigma
        return jax.scipy.special.logsumexp(-0.5 * z**2, axis=1) + log_norm

    def init(key):
        if start == "origin":
            return jnp.zeros(k)
        return prior_sd * jax.random.normal(key, (k,))

    return Model(
        name="mixture",
        data={"x": jnp.asarray(x)},
        log_prior_fn=log_prior,
        log_lik_fn=lambda mu, data: jnp.sum(log_lik_terms(mu, data)),
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("mu", (k,)),),
        constrain_fn=lambda mu: {"mu": mu},
        init_fn=init,
        options=options or {"k": k, "sigma": sigma, "prior_sd": prior_sd},
        attrs=attrs or {},
    )


def build(options: MixtureOptions) -> Model:
    """Registry entry. Synthetic default: n = 100 points, half at each of the means (−1, 1);
    with ``spike`` the means are (spike, 0, …, 0) of length ``k``."""
    if options.data is not None:
        table = read_numeric_csv(options.data, header=False).values
        if table.shape[1] != 1:
            raise UserInputError(f"{options.data}: expected one value per row, got "
                                 f"{table.shape[1]} columns")
        x, k, attrs = table[:, 0], options.k or 2, {"data_source": options.data}
    else:
        if options.spike is not None and options.k is not None:
            means = np.asarray([options.spike] + [0.0] * (options.k - 1))
        else:
            means = np.asarray(options.means if options.means is not None else [-1.0, 1.0])
        n = options.n or 100
        rng = np.random.default_rng(options.data_seed)
        labels = np.arange(n) % len(means)
        x = means[labels] + options.sigma * rng.standard_normal(n)
        k, attrs = len(means), {"data_source": "synthetic", "means": means.tolist()}
    return mixture_model(x, k, options.sigma, options.prior_sd,
                         options=options.model_dump() | {"k": k, "start": options.start_at()},
                         attrs=attrs, start=options.start_at())


SPEC = ModelSpec(
    "mixture",
    "equal-weight Gaussian mixture, unknown means: K! equal modes",
    MixtureOptions,
    build,
)
