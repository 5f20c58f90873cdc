"""SGLD and SGHMC on MINT's mini-batches (BlackJAX): known answers on the Gaussian mean, for the
plain estimator at a given step (control variates and the automatic step, the defaults:
``test_sgmcmc_cv.py``).

On ``mvn_mean`` (identity covariance) the batch gradient is g_B(θ) = −Pθ + (n/m) Σ_B x_i with
P = 1/σ₀² + n, so SGLD is a linear recursion whose stationary law is known exactly: mean Σx/P
(no bias) and, per coordinate, variance (h²V + 2hT)/(1 − (1 − hP)²), V = n²(1 − m/n) S²/m the
variance of (n/m) Σ_B x_i under sampling without replacement (S² the data's variance). The
target (π₀ L)^(1/T) has variance T/P; the difference is SGLD's O(h) bias, ≈ hP/2 + hV/(2T).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import Z_BOUND, z_mean, z_sd

from tempering import get_model, get_sampler
from tempering.errors import UserInputError
from tempering.models.mvn_mean import analytic_posterior

CHAINS, STEPS, BURN = 16, 12_000, 1_000


def draws(algorithm, start, *, seed=0, chains=CHAINS, steps=STEPS, burn=BURN):
    """(chain, draw, dim) positions after ``burn`` steps, and the per-step costs; every chain
    starts at ``start``."""

    def chain(key):
        state = algorithm.init(key, start)

        def body(state, k):
            state, info = algorithm.step(k, state, algorithm.params)
            return state, (algorithm.position(state), info.cost, info.acceptance_rate)

        return jax.lax.scan(body, state, jax.random.split(key, steps))[1]

    keys = jax.random.split(jax.random.key(seed), chains)
    theta, cost, accept = jax.jit(jax.vmap(chain))(keys)
    return np.asarray(theta)[:, burn:], np.asarray(cost), np.asarray(accept)


def sgld_variance(model, h, temperature, m):
    """Exact stationary variance per coordinate of SGLD on ``mvn_mean`` (module docstring)."""
    x = np.asarray(model.data["x"])
    n = x.shape[0]
    precision = 1.0 / float(model.options["prior_sd"]) ** 2 + n
    noise = n**2 * (1 - m / n) * np.var(x, axis=0, ddof=1) / m
    return (h**2 * noise + 2 * h * temperature) / (1 - (1 - h * precision) ** 2), precision


def test_sgld_mean_is_the_posterior_mean_and_variance_the_discretised_chains():
    model = get_model("mvn_mean", n=200, dim=2, data_seed=0)
    h = 2e-4
    algorithm = get_sampler("sgld", model, step_size=h, control_variates=False)
    mean, cov = analytic_posterior(model)
    theta, _, _ = draws(algorithm, jnp.asarray(mean))
    exact, _ = sgld_variance(model, h, 1.0, algorithm.facts["batch"])
    for d in range(2):
        assert abs(z_mean(theta[..., d], mean[d])) < Z_BOUND
        assert abs(z_sd(theta[..., d], np.sqrt(exact[d]))) < Z_BOUND
        # the O(h) bias is real (≈ 30% in variance here): the posterior's own sd is far off
        assert z_sd(theta[..., d], np.sqrt(cov[d, d])) > Z_BOUND


@pytest.mark.slow  # ~6 s
def test_sgld_temperature_tempers_the_prior_as_well_as_the_likelihood():
    """T = 2 with a strong prior (σ₀ = 0.1, prior precision 100, n = 200): (π₀ L)^(1/T) has the
    posterior's mean and variance T/P = 2/300; the power rung π₀ L^(1/T) would have mean
    (Σx/2)/200 and variance 1/200 — both far from what the chain does."""
    model = get_model("mvn_mean", n=200, dim=2, data_seed=0, prior_sd=0.1)
    h, temperature = 1e-4, 2.0
    algorithm = get_sampler("sgld", model, step_size=h, temperature=temperature,
                            control_variates=False)
    mean, _ = analytic_posterior(model)
    theta, _, _ = draws(algorithm, jnp.asarray(mean), seed=1)
    exact, precision = sgld_variance(model, h, temperature, algorithm.facts["batch"])
    x_sum = np.asarray(model.data["x"]).sum(axis=0)
    for d in range(2):
        assert abs(z_mean(theta[..., d], mean[d])) < Z_BOUND
        assert abs(z_sd(theta[..., d], np.sqrt(exact[d]))) < Z_BOUND
        assert exact[d] / (temperature / precision) < 1.1  # the target's variance, up to O(h)
        assert abs(z_sd(theta[..., d], np.sqrt(1 / (100 + 200 / temperature)))) > Z_BOUND
    power_mean = (x_sum / temperature) / (100 + 200 / temperature)
    assert max(abs(z_mean(theta[..., d], power_mean[d])) for d in range(2)) > Z_BOUND


def test_sghmc_mean_is_the_posterior_mean():
    model = get_model("mvn_mean", n=200, dim=2, data_seed=0)
    algorithm = get_sampler("sghmc", model, step_size=1e-3, num_integration_steps=10,
                            control_variates=False)
    mean, _ = analytic_posterior(model)
    theta, cost, accept = draws(algorithm, jnp.zeros(2), seed=2, steps=4_000, burn=500)
    for d in range(2):
        assert abs(z_mean(theta[..., d], mean[d])) < Z_BOUND
    np.testing.assert_array_equal(cost, 10 * 14 / 200)
    np.testing.assert_array_equal(accept, 1.0)


@pytest.mark.parametrize("name", ["sgld", pytest.param("sghmc", marks=pytest.mark.slow)])
def test_same_key_same_draws_and_exact_cost(name):
    model = get_model("mvn_mean", n=200, dim=2, data_seed=0)
    algorithm = get_sampler(name, model, batch=20)
    a = draws(algorithm, jnp.zeros(2), seed=3, chains=2, steps=50, burn=0)
    b = draws(algorithm, jnp.zeros(2), seed=3, chains=2, steps=50, burn=0)
    c = draws(algorithm, jnp.zeros(2), seed=4, chains=2, steps=50, burn=0)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])
    grads = algorithm.facts["gradients_per_step"]
    assert grads == (1 if name == "sgld" else 50) + 1  # the control variates' batch gradient
    np.testing.assert_array_equal(a[1], grads * 20 / 200)
    assert algorithm.facts["batch"] == 20 and algorithm.options.batch == 20


def test_default_batch_is_root_n_and_options_round_trip():
    model = get_model("mvn_mean", n=200, dim=2, data_seed=0)
    algorithm = get_sampler("sgld", model)
    assert algorithm.options.batch == 14 and algorithm.facts["n"] == 200
    again = get_sampler("sgld", model, **algorithm.options.model_dump())
    assert again.options == algorithm.options


def test_lp_is_the_batch_estimate_at_the_new_position():
    model = get_model("mvn_mean", n=20, dim=2, data_seed=0)
    algorithm = get_sampler("sgld", model, batch=20)  # the whole data: the estimate is exact
    state = algorithm.init(jax.random.key(0), jnp.zeros(2))
    state, info = jax.jit(algorithm.step)(jax.random.key(1), state, algorithm.params)
    np.testing.assert_allclose(info.lp, model.log_density(algorithm.position(state)), rtol=1e-12)


def test_user_errors_are_one_line():
    model = get_model("mvn_mean", n=200, dim=2, data_seed=0)
    no_terms = dataclasses.replace(model, log_lik_terms_fn=None)
    with pytest.raises(UserInputError, match="^sampler: sgld needs a model with per-datum"):
        get_sampler("sgld", no_terms)
    with pytest.raises(UserInputError, match="^sampler: sghmc needs"):
        get_sampler("sghmc", no_terms)
    with pytest.raises(UserInputError, match="^sampler.batch: the batch size must be between"):
        get_sampler("sgld", model, batch=201)
    with pytest.raises(UserInputError, match="^sampler.beta: the injected noise variance"):
        get_sampler("sghmc", model, beta=100.0, step_size=1e-3)
