"""SGLD and SGHMC at their defaults — control variates at the mode, a step from the curvature there
(Baker, Fearnhead, Fox & Nemeth 2019) — and the check that keeps a stochastic-gradient run from
being silently wrong.

- The control-variate estimator is unbiased, its recorded noise variance is unbiased for the
  variance over batches, and near the mode it is far quieter than the plain one: exact identities
  on a tiny data set whose every batch is enumerated.
- The optimiser's evaluations are what the warmup's cost counts, and the driver counts them.
- At their defaults both samplers match an exact reference on a logistic regression (n = 10⁴,
  d = 10, 4 × 1 000 draws after 500 warmup steps): means within Monte-Carlo error, sds within
  Monte-Carlo error of the reference's sds times the sampler's own predicted inflation. The
  reference is self-normalised importance sampling from a Student-t (ν = 10) on the Laplace
  approximation: consistent, with known Monte-Carlo error (IS ESS ≈ 85% of the draws here).
- The bias check is silent on those runs and fires on plain SGLD at the former default step.
"""

from __future__ import annotations

import dataclasses
import itertools

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import xarray as xr
from support import Z_BOUND

from tempering import get_model, get_sampler, run_chains
from tempering.algorithms.minibatch.control_variates import (
    Centre,
    full_lik_gradient,
    full_log_density,
    gradient_estimator,
)
from tempering.algorithms.minibatch.sgmcmc_tuning import find_mode
from tempering.precision import scope
from tempering.summary.checks import SGMCMC_SD_BIAS, sgmcmc_bias_warnings

LOGISTIC = {"n": 10_000, "dim": 10, "prior_sd": 5.0, "test_fraction": 0.0}
RUN = {"draws": 1000, "chains": 4, "warmup": 500, "progress": False}


# ------------------------------------------------------------------------------- the estimator

def enumerated(n=8, m=3, dim=2):
    """A tiny float64 logistic model, its SGLD target and estimator with batch m, every m-subset
    of its n points as an array, and its mode."""
    model = get_model("logistic", n=n, dim=dim, test_fraction=0.0, precision="float64")
    options = get_sampler("sgld", model, batch=m).options
    target = options.target(model)
    batches = jnp.asarray(list(itertools.combinations(range(n), m)), jnp.int32)
    mode, _ = jax.jit(find_mode, static_argnums=0)(full_log_density(model, target),
                                                  jnp.zeros(dim))
    return model, target, gradient_estimator(model, target), batches, mode


def over_batches(estimator, batches, theta, centre):
    """The estimate at θ on every batch: (gradients, recorded noise variances)."""
    out = jax.vmap(lambda b: estimator.estimate(theta, b, centre, None))(batches)
    return np.asarray(out.gradient), np.asarray(out.noise_variance)


def test_control_variates_are_unbiased_and_quieter_near_the_mode():
    with scope("float64"):
        model, target, estimator, batches, mode = enumerated()
        full = jax.grad(model.log_density)
        centre = Centre(mode, full_lik_gradient(model, target, mode), jnp.ones(()))
        sd = 1.0 / np.sqrt(np.diag(-np.asarray(jax.hessian(model.log_density)(mode))))
        for theta, near in ((mode + 2.0 * sd * jnp.asarray([1.0, -1.0]), False),
                            (mode + 0.1 * sd * jnp.asarray([1.0, 1.0]), True)):
            exact = np.asarray(full(theta))
            plain, plain_v = over_batches(estimator, batches, theta, None)
            cv, cv_v = over_batches(estimator, batches, theta, centre)
            for grads, recorded in ((plain, plain_v), (cv, cv_v)):
                np.testing.assert_allclose(grads.mean(axis=0), exact, rtol=1e-10, atol=1e-10)
                # the recorded V (finite-population factor) is unbiased for the variance
                np.testing.assert_allclose(recorded.mean(axis=0), grads.var(axis=0),
                                           rtol=1e-10, atol=1e-12)
            if near:  # Baker et al.: the noise falls as |θ − θ̂|²
                assert np.all(cv.var(axis=0) < 1e-2 * plain.var(axis=0))
        inactive = Centre(mode, jnp.full(2, jnp.nan), jnp.zeros(()))  # before warmup: plain
        np.testing.assert_array_equal(over_batches(estimator, batches, mode, inactive)[0],
                                      over_batches(estimator, batches, mode, None)[0])


# ------------------------------------------------------------------------------------ the cost

def counting(model, calls):
    """``model`` whose full-data likelihood terms count their evaluations (batch ones do not)."""
    n, terms = model.n_data, model.log_lik_terms_fn

    def counted(theta, data):
        if jax.tree.leaves(data)[0].shape[0] == n:
            jax.debug.callback(lambda: calls.append(1))
        return terms(theta, data)

    return dataclasses.replace(model, log_lik_terms_fn=counted)


def test_the_optimisers_evaluations_are_counted_in_the_warmup_cost():
    model = get_model("logistic", n=2_000, dim=3, test_fraction=0.0)
    start = jnp.asarray([0.3, -0.2, 0.1], jnp.float32)
    calls: list[int] = []
    counted = counting(model, calls)
    algorithm = get_sampler("sgld", counted)
    target = algorithm.options.target(counted)
    with scope(model.precision):
        _, evals = jax.jit(find_mode, static_argnums=0)(full_log_density(counted, target),
                                                       start)
        assert float(evals) == len(calls) > 3  # each value-and-gradient counted once
        steps = 7
        _, params, cost = jax.jit(algorithm.warmup, static_argnums=3)(
            jax.random.key(0), algorithm.init(jax.random.key(1), start), algorithm.params, steps)
    # L-BFGS + the dense Hessian (2 per Hessian-vector product) + Σ∇l_i(θ̂) + the steps
    expected = float(evals) + 2 * 3 + 1 + steps * algorithm.facts["step_cost"]
    assert float(cost) == pytest.approx(expected, rel=1e-6)
    assert float(params["centred"]) == 1.0
    assert float(params["step_size"]) == pytest.approx(0.15, rel=1e-4)  # preconditioned: c
    result = run_chains(model, algorithm, key=0, draws=5, chains=2, warmup=steps,
                        init=np.asarray(start), progress=False)
    assert result.attrs["cost_warmup"] == pytest.approx(2 * expected, rel=1e-6)


# -------------------------------------------------------------------------- accuracy and check

def logistic_laplace(model, prior_sd):
    """The logistic regression's mode and its negative log-posterior Hessian, by Newton's method
    in NumPy float64 (l_i = log σ(y_i x_iᵀθ), θ ~ N(0, s² I))."""
    x, y = np.asarray(model.data["x"], np.float64), np.asarray(model.data["y"], np.float64)
    theta = np.zeros(x.shape[1])
    for _ in range(30):
        p = 1.0 / (1.0 + np.exp(-y * (x @ theta)))
        gradient = x.T @ (y * (1.0 - p)) - theta / prior_sd**2
        hessian = (x * (p * (1.0 - p))[:, None]).T @ x + np.eye(x.shape[1]) / prior_sd**2
        theta = theta + np.linalg.solve(hessian, gradient)
    return theta, hessian


def t_laplace_reference(model, prior_sd, size=4_000, nu=10.0):
    """Self-normalised IS from a Student-t (ν) on the Laplace approximation, in float64: means
    and sds, their Monte-Carlo standard errors (delta method) and the IS ESS."""
    mode, hessian = logistic_laplace(model, prior_sd)
    cov = np.linalg.inv(hessian)
    rng = np.random.default_rng(0)
    z = rng.standard_normal((size, model.dim)) @ np.linalg.cholesky(cov).T
    theta = mode + z / np.sqrt(rng.chisquare(nu, size) / nu)[:, None]
    quad = np.einsum("si,ij,sj->s", theta - mode, hessian, theta - mode)
    log_q = -0.5 * (nu + model.dim) * np.log1p(quad / nu)
    with scope("float64"):
        wide = dataclasses.replace(model, data=jax.tree.map(
            lambda a: jnp.asarray(a, jnp.float64), model.data))
        log_p = np.asarray(jax.lax.map(wide.log_density, jnp.asarray(theta), batch_size=500))
    log_w = log_p - log_q
    weights = np.exp(log_w - log_w.max())
    weights /= weights.sum()
    mean = weights @ theta
    var = weights @ (theta - mean) ** 2
    se_mean = np.sqrt(weights**2 @ (theta - mean) ** 2)
    se_var = np.sqrt(weights**2 @ ((theta - mean) ** 2 - var) ** 2)
    return mean, np.sqrt(var), se_mean, se_var / (2 * np.sqrt(var)), 1.0 / np.sum(weights**2)


@pytest.fixture(scope="module")
def logistic():
    model = get_model("logistic", **LOGISTIC)
    return model, t_laplace_reference(model, LOGISTIC["prior_sd"])


def accuracy_z(idata, reference, inflate=True):
    """z-scores of the means and of the sds against the reference, the sds against the
    reference's times the run's predicted sd inflation (its recorded step × noise factors)
    unless ``inflate`` is false."""
    mean, sd, se_mean, se_sd, _ = reference
    theta = idata.posterior["theta"]
    ours_se_mean = az.mcse(idata, var_names=["theta"], method="mean")["theta"].values
    ours_se_sd = az.mcse(idata, var_names=["theta"], method="sd")["theta"].values
    stats = idata.sample_stats
    predicted = np.sqrt(float(stats["step_inflation"].mean() * stats["noise_inflation"].mean()))
    predicted = predicted if inflate else 1.0
    z_mean = (theta.mean(("chain", "draw")).values - mean) / np.hypot(ours_se_mean, se_mean)
    z_sd = (theta.std(("chain", "draw"), ddof=1).values - sd * predicted) \
        / np.hypot(ours_se_sd, se_sd * predicted)
    return z_mean, z_sd, predicted


@pytest.mark.parametrize("name", ["sgld", "sghmc"])
def test_defaults_match_the_posterior_and_the_check_is_silent(logistic, name):
    model, reference = logistic
    assert reference[4] > 0.8 * 4_000  # the IS reference's ESS
    algorithm = get_sampler(name, model)
    assert algorithm.options.control_variates and algorithm.options.step_size is None
    idata = run_chains(model, algorithm, key=3, **RUN).idata
    z_mean, z_sd, predicted = accuracy_z(idata, reference)
    assert np.max(np.abs(z_mean)) < Z_BOUND, z_mean
    assert np.max(np.abs(z_sd)) < Z_BOUND, z_sd
    assert 1.0 < predicted < 1.08  # a few percent on the sd (SGLD 5%, SGHMC 2–3% here)
    mean, sd = reference[:2]
    errors = (idata.posterior["theta"].mean(("chain", "draw")).values - mean) / sd
    assert np.max(np.abs(errors)) < 0.2  # the target, in posterior sds
    assert sgmcmc_bias_warnings(idata) == []


def test_the_check_fires_on_plain_sgld_at_the_former_default_step(logistic):
    """Control variates off at h = 10⁻⁴ (SGLD's former default): the gradient noise inflates the
    variance about 6-fold; the check says so in one line and the accuracy test would fail."""
    model, reference = logistic
    algorithm = get_sampler("sgld", model, control_variates=False, step_size=1e-4)
    idata = run_chains(model, algorithm, key=3, **RUN).idata
    warnings = sgmcmc_bias_warnings(idata)
    assert len(warnings) == 1
    assert "the gradient noise dominates: turn control_variates on" in warnings[0]
    sd_ratio = idata.posterior["theta"].std(("chain", "draw")).values / reference[1]
    assert np.all(sd_ratio > 1.0 + 2 * SGMCMC_SD_BIAS)  # the sds really are far off
    assert accuracy_z(idata, reference)[2] > 1.5  # the predicted sd factor
    _, z_sd, _ = accuracy_z(idata, reference, inflate=False)
    assert np.min(z_sd) > Z_BOUND  # the accuracy test of the defaults would fail on this run


def hand_idata(step, noise):
    """A run's sample_stats with constant step and noise factors (2 chains × 10 draws)."""
    shape = (2, 10)
    return xr.Dataset({"step_inflation": (("chain", "draw"), np.full(shape, step)),
                       "noise_inflation": (("chain", "draw"), np.full(shape, noise))})


@pytest.mark.parametrize(("step", "noise", "says"), [
    (1.08, 1.01, None),
    (1.0, 1.30, "the gradient noise dominates"),
    (3.0, 1.01, "the step dominates"),
    (np.inf, 1.0, "the step dominates"),
    (0.5, 1.0, "-29%"),  # too narrow: SGHMC at temperature 2
    (np.nan, 1.01, "without warmup"),
    (np.nan, 2.0, "the gradient noise dominates"),
])
def test_the_check_reads_the_recorded_factors(step, noise, says):
    warnings = sgmcmc_bias_warnings({"sample_stats": hand_idata(step, noise)})
    if says is None:
        assert warnings == []
    else:
        assert len(warnings) == 1 and says in warnings[0], warnings
