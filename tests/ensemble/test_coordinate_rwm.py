"""``coordinate_rwm``, seed 004's single-variable Metropolis baseline: known answers on the
correlated Gaussian of ``test_ensemble`` with and without a fast/slow split (with extra fast
sweeps), its evaluation counts, and one-line errors."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import Z_BOUND, z_mean, z_sd
from test_ensemble import COV, MEAN, gaussian_model

from tempering import get_sampler, sample
from tempering.errors import UserInputError


@pytest.mark.parametrize("options", [{"scale": [1.2, 1.6, 1.4]},
                                     {"fast": "generic", "scale": [1.2, 1.6], "fast_scale": 1.4,
                                      "extra_fast": 3}], ids=["plain", "split"])
def test_known_gaussian(options):
    model = gaussian_model()
    algorithm = get_sampler("coordinate_rwm", model, **options)
    idata = sample(model, algorithm, key=5, draws=3000, chains=4, warmup=200, progress=False)
    theta = np.asarray(idata.posterior["theta"].values)
    for i in range(3):
        assert abs(z_mean(theta[..., i], MEAN[i])) < Z_BOUND, i
        assert abs(z_sd(theta[..., i], np.sqrt(COV[i, i]))) < Z_BOUND, i


def test_evaluation_counts():
    model = gaussian_model()
    plain = get_sampler("coordinate_rwm", model)
    state = plain.init(jax.random.key(0), jnp.zeros(3))
    _, info = plain.step(jax.random.key(1), state, plain.params)
    assert float(info.stats["slow_evals"]) == 3 and float(info.stats["fast_evals"]) == 0
    split = get_sampler("coordinate_rwm", model, fast="generic", extra_fast=4)
    state = split.init(jax.random.key(0), jnp.zeros(3))
    _, info = split.step(jax.random.key(1), state, split.params)
    # 2 slow updates (each also reads one fast density) and 1 + 4 sweeps of the 1 fast variable
    assert float(info.stats["slow_evals"]) == 2 and float(info.stats["fast_evals"]) == 2 + 5


def test_bad_input():
    model = gaussian_model()
    with pytest.raises(UserInputError, match="splits are generic"):
        get_sampler("coordinate_rwm", model, fast="eta")
    with pytest.raises(UserInputError, match="needs a split"):
        get_sampler("coordinate_rwm", model, extra_fast=2)
    with pytest.raises(UserInputError, match="2 values for 3 variables"):
        get_sampler("coordinate_rwm", dataclasses.replace(model), scale=[1.0, 1.0])
