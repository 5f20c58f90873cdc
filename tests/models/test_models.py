"""Models against independent dense computations (NumPy / SciPy) and finite differences."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from tempering.models import get_model
from tempering.models.gp_regression import gp_regression_model
from tempering.models.mvn_mean import analytic_posterior, mvn_mean_model


def dense_se_ard(x, lengthscale, sigma_f):
    n = x.shape[0]
    k = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            k[i, j] = sigma_f**2 * np.exp(-0.5 * np.sum(((x[i] - x[j]) / lengthscale) ** 2))
    return k


@pytest.fixture(scope="module")
def gp():
    return get_model("gp_regression", n=40, dim=3, data_seed=7)


def test_gp_log_lik_matches_scipy(gp):
    x, y = np.asarray(gp.data["x"]), np.asarray(gp.data["y"])
    for theta in ([0.1, -0.3, 0.5, 0.2, -1.0], [1.0, 0.0, -0.5, -0.2, -2.0]):
        ls, sf, sn = np.exp(theta[:3]), np.exp(theta[3]), np.exp(theta[4])
        cov = dense_se_ard(x, ls, sf) + sn**2 * np.eye(len(y))
        expected = stats.multivariate_normal(np.zeros(len(y)), cov).logpdf(y)
        assert float(gp.log_lik(jnp.asarray(theta))) == pytest.approx(expected, rel=1e-10)


def test_gp_log_prior_is_density_of_log_parameters(gp):
    theta = np.array([0.3, -0.2, 1.1, 0.4, -0.7])
    ls, sf, sn = np.exp(theta[:3]), np.exp(theta[3]), np.exp(theta[4])
    expected = (np.sum(stats.lognorm(s=1.0, scale=np.exp(0.5)).logpdf(ls) + theta[:3])
                + stats.gamma(a=4.0, scale=1.0).logpdf(sf) + theta[3]
                + stats.gamma(a=2.0, scale=0.5).logpdf(sn) + theta[4])
    assert float(gp.log_prior(jnp.asarray(theta))) == pytest.approx(expected, rel=1e-12)


def test_gp_gradient_matches_finite_differences(gp):
    theta = jnp.asarray([0.2, -0.1, 0.4, 0.3, -1.2])
    grad = np.asarray(jax.jit(jax.grad(gp.log_density))(theta))
    h = 1e-5
    for i in range(theta.shape[0]):
        e = jnp.zeros_like(theta).at[i].set(h)
        fd = (float(gp.log_density(theta + e)) - float(gp.log_density(theta - e))) / (2 * h)
        assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-6)


def test_gp_non_positive_definite_is_minus_infinity_not_an_exception():
    x = np.repeat(np.linspace(0.0, 1.0, 10)[:, None], 3, axis=0)  # each point three times
    y = np.random.default_rng(0).standard_normal(30)
    model = gp_regression_model(x, y, "iso")
    # σ_n = e^-40 leaves K singular (rank 10 of 30): the Cholesky fails.
    theta = jnp.asarray([2.0, 0.0, -40.0])
    assert float(model.log_lik(theta)) == -np.inf
    assert float(model.log_density(theta)) == -np.inf
    assert float(jax.jit(model.log_density)(jnp.asarray([np.nan, 0.0, 0.0]))) == -np.inf
    assert np.isfinite(float(model.log_density(jnp.asarray([0.0, 0.0, -1.0]))))


def test_gp_iso_has_one_lengthscale_and_named_output():
    model = get_model("gp_regression", n=20, dim=4, kernel="iso")
    assert model.dim == 3 and model.alpha == 3.0
    out = model.constrain(jnp.asarray([0.0, np.log(2.0), np.log(0.5)]))
    assert out["lengthscale"].shape == (1,)
    assert float(out["sigma_f"]) == pytest.approx(2.0)
    assert float(out["sigma_n"]) == pytest.approx(0.5)


def test_gp_mcycle_is_standardized_and_recorded():
    model = get_model("gp_regression", data="mcycle")
    y = np.asarray(model.data["y"])
    assert model.n_data == 133 and model.dim == 3
    assert abs(y.mean()) < 1e-12 and y.std() == pytest.approx(1.0)
    assert model.attrs["y_mean"] == pytest.approx(-25.5459, abs=1e-3)
    raw = get_model("gp_regression", data="mcycle", standardize=False)
    assert float(np.asarray(raw.data["y"]).min()) == pytest.approx(-134.0)


def test_mvn_mean_terms_sum_and_match_scipy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    x = rng.standard_normal((25, 3))
    model = mvn_mean_model(x, cov, prior_sd=2.0)
    theta = np.array([0.3, -0.4, 1.2])
    terms = np.asarray(model.log_lik_terms(jnp.asarray(theta)))
    np.testing.assert_allclose(terms, stats.multivariate_normal(theta, cov).logpdf(x), rtol=1e-12)
    assert float(model.log_lik(jnp.asarray(theta))) == pytest.approx(terms.sum(), rel=1e-12)
    prior = stats.norm(0, 2.0).logpdf(theta).sum()
    assert float(model.log_prior(jnp.asarray(theta))) == pytest.approx(prior, rel=1e-12)
    assert model.alpha == 1.0


def test_mvn_mean_analytic_posterior_against_gradient_and_hessian():
    """The analytic mean is the zero of the log-density gradient; the covariance is −H⁻¹."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 4))
    model = mvn_mean_model(rng.standard_normal((30, 4)), a @ a.T + np.eye(4), prior_sd=0.7)
    mean, cov = analytic_posterior(model)
    grad = np.asarray(jax.jit(jax.grad(model.log_density))(jnp.asarray(mean)))
    hess = np.asarray(jax.jit(jax.hessian(model.log_density))(jnp.asarray(mean)))
    np.testing.assert_allclose(grad, 0.0, atol=1e-9)
    np.testing.assert_allclose(np.linalg.inv(-hess), cov, rtol=1e-9)


def test_synthetic_data_are_reproducible_by_seed():
    a = get_model("mvn_mean", n=10, dim=2, data_seed=3)
    b = get_model("mvn_mean", n=10, dim=2, data_seed=3)
    c = get_model("mvn_mean", n=10, dim=2, data_seed=4)
    np.testing.assert_array_equal(a.data["x"], b.data["x"])
    assert not np.array_equal(a.data["x"], c.data["x"])
