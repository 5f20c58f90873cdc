"""Every inner kernel on ``mvn_mean`` with a correlated Σ: posterior means and sds against the
analytic posterior, with tolerances from ArviZ's Monte-Carlo standard errors (fixed seeds)."""

from __future__ import annotations

import numpy as np
import pytest
from support import Z_BOUND, z_mean, z_sd

from tempering import sample
from tempering.algorithms import get_sampler
from tempering.models.mvn_mean import analytic_posterior, mvn_mean_model

SETTINGS = {
    "rwm": ({"step_size": 0.12}, 4000),
    "hmc": ({"step_size": 0.05, "num_steps": 10}, 1500),
    "nuts": ({}, 1000),
    "slice": ({"width": 0.3}, 1500),
}


@pytest.fixture(scope="module")
def correlated_model():
    rng = np.random.default_rng(11)
    cov = np.array([[1.0, 0.8, 0.3], [0.8, 1.0, 0.5], [0.3, 0.5, 1.0]])
    theta_true = np.array([0.5, -1.0, 0.2])
    x = theta_true + rng.standard_normal((50, 3)) @ np.linalg.cholesky(cov).T
    return mvn_mean_model(x, cov, prior_sd=1.0)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_kernel_recovers_analytic_posterior(correlated_model, name):
    options, draws = SETTINGS[name]
    model = correlated_model
    idata = sample(model, get_sampler(name, model, **options), key=2024, chains=4, draws=draws,
                   warmup=500, progress=False)
    theta = idata.posterior["theta"].values  # (chain, draw, dim)
    mean, cov = analytic_posterior(model)
    sd = np.sqrt(np.diag(cov))
    for d in range(3):
        assert abs(z_mean(theta[:, :, d], mean[d])) < Z_BOUND, (name, d, "mean")
        assert abs(z_sd(theta[:, :, d], sd[d])) < Z_BOUND, (name, d, "sd")
    # The posterior correlation is strong (the test is not trivially passed by marginals alone).
    corr = np.corrcoef(theta.reshape(-1, 3).T)
    exact = cov / np.outer(sd, sd)
    np.testing.assert_allclose(corr, exact, atol=0.05)


def test_a_wrong_posterior_fails_the_same_check(correlated_model):
    """True-positive check of the tolerance: draws from a posterior with a 10% wider sd fail."""
    model = correlated_model
    mean, cov = analytic_posterior(model)
    rng = np.random.default_rng(0)
    wide = rng.multivariate_normal(mean, 1.21 * cov, size=(4, 1000))
    sd = np.sqrt(np.diag(cov))
    assert max(abs(z_sd(wide[:, :, d], sd[d])) for d in range(3)) > Z_BOUND
