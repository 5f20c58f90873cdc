"""Bayesian logistic regression as a NumPyro model, on synthetic data, with per-datum terms.

    w_d ~ N(0, 1),  b ~ N(0, 2²),  y_i ~ Bernoulli(σ(x_i·w + b)),  i = 1..n.

``data_kwargs=("x", "y")`` names the per-datum arrays, and the plate's size follows them, so the
model has per-datum likelihood terms and the subset and mini-batch samplers run it::

    tempering sample --model examples/logistic_regression.py:model --sampler spt \\
        --set model.n=500 --chains 4 --draws 1000 --out lr.nc
"""

import numpy as np
import numpyro
import numpyro.distributions as dist

import tempering


def logistic_regression(x, y=None):
    w = numpyro.sample("w", dist.Normal(0.0, 1.0).expand([x.shape[1]]).to_event(1))
    b = numpyro.sample("b", dist.Normal(0.0, 2.0))
    with numpyro.plate("data", x.shape[0]):
        numpyro.sample("y", dist.Bernoulli(logits=x @ w + b), obs=y)


def synthetic(n, dim, seed):
    """n points in `dim` dimensions, labels from w = (1, -1, 0.5, ...) and b = 0.5."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, dim))
    w = np.resize([1.0, -1.0, 0.5], dim)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(x @ w + 0.5)))).astype(float)
    return x, y


def model(n: int = 200, dim: int = 3, seed: int = 0):
    """The model on `n` synthetic points (the options: --set model.n=500 ...)."""
    x, y = synthetic(n, dim, seed)
    return tempering.from_numpyro(logistic_regression, x=x, y=y, data_kwargs=("x", "y"),
                                  name="logistic_regression")
