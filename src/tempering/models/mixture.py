"""Equal-weight Gaussian mixture with unknown means: a multimodal test and demo target.

    x_i ~ Σ_{k=1}^{K} (1/K) N(μ_k, σ²) i.i.d.,     μ_k ~ N(0, σ_0²),  σ and K known.

The posterior is invariant under permutations of (μ_1, …, μ_K), so its K! label orderings carry
exactly equal mass: a sampler's share of draws in each ordering is a known answer (1/K!). With
well-separated means the orderings are separate modes that an untempered sampler does not cross.
"""

from __future__ import annotations

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
    """A data file (one value per row), or synthetic: ``n`` points split evenly over ``means``."""

    SYNTHETIC = ("n", "means")

    sigma: PositiveFloat = 1.0
    prior_sd: PositiveFloat = 5.0
    k: PositiveInt | None = None
    n: PositiveInt | None = None
    means: list[float] | None = Field(default=None, min_length=1)
    data_seed: NonNegativeInt = 0

    @model_validator(mode="after")
    def _k_matches_means(self) -> MixtureOptions:
        if self.k is not None and self.means is not None and self.k != len(self.means):
            raise ValueError(f"k = {self.k} but {len(self.means)} means were given")
        return self


def mixture_model(x: np.ndarray, k: int, sigma: float = 1.0, prior_sd: float = 5.0, *,
                  options: dict | None = None, attrs: dict | None = None) -> Model:
    """Build the model from a 1-D data array and a known number of components ``k``."""
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
    """Registry entry. Synthetic default: n = 100 points, half at each of the means (−1, 1)."""
    if options.data is not None:
        table = read_numeric_csv(options.data, header=False).values
        if table.shape[1] != 1:
            raise UserInputError(f"{options.data}: expected one value per row, got "
                                 f"{table.shape[1]} columns")
        x, k, attrs = table[:, 0], options.k or 2, {"data_source": options.data}
    else:
        means = np.asarray(options.means if options.means is not None else [-1.0, 1.0])
        n = options.n or 100
        rng = np.random.default_rng(options.data_seed)
        labels = np.arange(n) % len(means)
        x = means[labels] + options.sigma * rng.standard_normal(n)
        k, attrs = len(means), {"data_source": "synthetic", "means": means.tolist()}
    return mixture_model(x, k, options.sigma, options.prior_sd,
                         options=options.model_dump() | {"k": k}, attrs=attrs)


SPEC = ModelSpec(
    "mixture",
    "equal-weight Gaussian mixture, unknown means: K! equal modes",
    MixtureOptions,
    build,
)
