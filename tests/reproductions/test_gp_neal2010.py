"""Neal's (2010) GP model (seed 004 §3, Eqs. 24–28) and the exact fast/slow splits of the GP models:
each split's cheap member density equals the model's full log posterior, the synthetic data follow
Eq. 27, CSV data are used as given, and the log ν prior is the README's hierarchy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.special import digamma, polygamma
from scipy.stats import multivariate_normal, norm

from tempering.errors import UserInputError
from tempering.models.gp_neal2010 import (
    A_CONST,
    JITTER_R,
    log_nu_prior,
    log_nu_prior_cov,
    prior_draw,
    regression_function,
    simulate,
)
from tempering.models.registry import get_model

SPLIT_CASES = {
    "neal-eta": ("gp_neal2010", dict(n=40), "eta"),
    "neal-eta_sigma": ("gp_neal2010", dict(n=40), "eta_sigma"),
    "gpreg-ard-eta": ("gp_regression", dict(n=30, dim=3, data_seed=2), "eta"),
    "gpreg-iso-eta": ("gp_regression", dict(n=30, dim=2, kernel="iso", data_seed=3), "eta"),
}


@pytest.fixture(scope="module")
def neal():
    return get_model("gp_neal2010")


@pytest.mark.parametrize("case", SPLIT_CASES.values(), ids=SPLIT_CASES.keys())
def test_split_members_equal_full_log_density(case):
    """fast_log_density(prepare(x₁), x₁, X₂)[k] = log π(join(x₁, x₂ᵏ)) to rtol 1e-10, K = 5."""
    name, options, split_name = case
    model = get_model(name, **options)
    split = model.splits[split_name]
    prepare, fast = jax.jit(split.prepare), jax.jit(split.fast_log_density)
    rng = np.random.default_rng(7)
    for i in range(4):
        theta = model.init_position(jax.random.key(i))
        x1, x2 = split.parts(theta)
        assert x1.shape == (split.slow_dim,) and x2.shape == (split.fast_dim,)
        assert split.slow_dim + split.fast_dim == model.dim
        np.testing.assert_allclose(split.join(x1, x2), theta, rtol=0, atol=1e-13)
        members = x2 + 0.7 * rng.standard_normal((5, split.fast_dim))
        got = fast(prepare(x1), x1, jnp.asarray(members))
        want = np.array([model.log_density(split.join(x1, m)) for m in members])
        assert got.shape == (5,)
        assert np.all(np.isfinite(want))
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_eta_split_moves_sigma_with_eta(neal):
    """In the η split ψ = σ/η is slow: changing the fast log η by t changes log σ by t too."""
    split = neal.splits["eta"]
    theta = neal.init_position(jax.random.key(3))
    x1, x2 = split.parts(theta)
    moved = split.join(x1, x2 + 0.5)
    np.testing.assert_allclose(moved[-2:] - theta[-2:], [0.5, 0.5], atol=1e-13)
    np.testing.assert_allclose(moved[:-2], theta[:-2], atol=0)
    np.testing.assert_allclose(x1[-1], theta[-1] - theta[-2], atol=1e-15)


def test_fast_prior_moments():
    """The base-measure moments: Neal's log η ~ N(0, 1.5²), log σ ~ N(log 0.5, 1.5²); for
    gp_regression the log of σ_f ~ Gamma(4, 1) (checked by Monte Carlo)."""
    neal = get_model("gp_neal2010", n=10)
    np.testing.assert_allclose(neal.splits["eta"].fast_mean, [0.0])
    np.testing.assert_allclose(neal.splits["eta"].fast_sd, [1.5])
    np.testing.assert_allclose(neal.splits["eta_sigma"].fast_mean, [0.0, np.log(0.5)])
    np.testing.assert_allclose(neal.splits["eta_sigma"].fast_sd, [1.5, 1.5])
    split = get_model("gp_regression", n=10, dim=2).splits["eta"]
    np.testing.assert_allclose(split.fast_mean, [digamma(4.0)])
    np.testing.assert_allclose(split.fast_sd, [np.sqrt(polygamma(1, 4.0))])
    draws = np.log(np.random.default_rng(0).gamma(4.0, 1.0, size=200_000))
    assert abs(draws.mean() - split.fast_mean[0]) < 5 * draws.std() / np.sqrt(draws.size)
    assert abs(draws.std() - split.fast_sd[0]) < 0.01


def test_log_density_is_eq28_with_its_priors(neal):
    """The model's log posterior against Eq. 28 built entry by entry and scipy's densities."""
    z, y = np.asarray(neal.data["x"])[:25], np.asarray(neal.data["y"])[:25]
    data = {"x": jnp.asarray(z), "y": jnp.asarray(y)}
    theta = np.asarray(neal.init_position(jax.random.key(11)))
    nu, eta, sigma = np.exp(theta[:12]), np.exp(theta[12]), np.exp(theta[13])
    n = len(y)
    cov = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            s = np.sum((nu * (z[i] - z[j])) ** 2)
            cov[i, j] = eta**2 * (A_CONST**2 + np.exp(-s) + JITTER_R**2 * (i == j)) \
                + sigma**2 * (i == j)
    want_lik = multivariate_normal(np.zeros(n), cov).logpdf(y)
    np.testing.assert_allclose(neal.log_lik(jnp.asarray(theta), data), want_lik, rtol=1e-10)
    want_prior = (multivariate_normal(np.full(12, np.log(0.5)), log_nu_prior_cov(12))
                  .logpdf(theta[:12]) + norm(0.0, 1.5).logpdf(theta[12])
                  + norm(np.log(0.5), 1.5).logpdf(theta[13]))
    np.testing.assert_allclose(neal.log_prior(jnp.asarray(theta)), want_prior, rtol=1e-12)
    assert neal.constrain(jnp.asarray(theta))["nu"].shape == (12,)


def test_log_nu_prior_is_the_hierarchy():
    """Cov = 1.5² 11ᵀ + I: sd √3.25, correlation 2.25/3.25; draws agree within MC error."""
    cov = log_nu_prior_cov(12)
    sd = np.sqrt(np.diag(cov))
    np.testing.assert_allclose(sd, np.sqrt(3.25))
    corr = cov / np.outer(sd, sd)
    np.testing.assert_allclose(corr[~np.eye(12, dtype=bool)], 2.25 / 3.25)
    points = np.random.default_rng(1).normal(-0.7, 2.0, size=(6, 12))
    want = multivariate_normal(np.full(12, np.log(0.5)), cov).logpdf(points)
    np.testing.assert_allclose(log_nu_prior(jnp.asarray(points)), want, rtol=1e-12)
    n_draws = 20_000
    draws = np.asarray(jax.vmap(lambda k: prior_draw(k, 12))(
        jax.random.split(jax.random.key(0), n_draws)))
    log_nu = draws[:, :12]
    # sd of a sample sd ≈ σ/√(2N) ≈ 0.009; of a correlation ≈ (1 − ρ²)/√N ≈ 0.004
    np.testing.assert_allclose(log_nu.std(axis=0), np.sqrt(3.25), atol=0.05)
    sample_corr = np.corrcoef(log_nu.T)[~np.eye(12, dtype=bool)]
    assert abs(sample_corr.mean() - 2.25 / 3.25) < 0.02
    assert abs(log_nu.mean() - np.log(0.5)) < 0.06  # the shared log ν₀ dominates: sd 1.5/√N
    np.testing.assert_allclose(draws[:, 12:].std(axis=0), [1.5, 1.5], atol=0.05)


def test_synthetic_data_default_and_seeds(neal):
    assert neal.data["x"].shape == (100, 12) and neal.data["y"].shape == (100,)
    same = get_model("gp_neal2010", data_seed=1)
    np.testing.assert_array_equal(same.data["y"], neal.data["y"])
    np.testing.assert_array_equal(same.data["x"], neal.data["x"])
    other = get_model("gp_neal2010", data_seed=2)
    assert not np.allclose(other.data["y"], neal.data["y"])
    assert get_model("gp_neal2010", n=17).data["x"].shape == (17, 12)
    z, y = simulate(100, 1)
    np.testing.assert_array_equal(neal.data["y"], y)


def test_synthetic_data_follow_eq27():
    """Footnote 2's correlations, and y − f(z) ~ N(0, 0.4²) (Eq. 27), on a large sample."""
    z, y = simulate(20_000, 5)
    corr = np.corrcoef(z.T)
    se = 1.0 / np.sqrt(len(y))
    np.testing.assert_allclose(z.std(axis=0), 1.0, atol=0.03)
    for (a, b), rho in {(0, 1): 0.25, (1, 2): 0.25, (0, 2): 0.0625, (0, 3): 0.99, (1, 4): 0.99,
                        (2, 5): 0.99, (0, 6): 0.9, (1, 7): 0.9, (2, 8): 0.9, (0, 9): 0.0,
                        (9, 10): 0.0, (2, 11): 0.0}.items():
        assert abs(corr[a, b] - rho) < 5 * se * (1 - rho**2) + 1e-3, (a, b, corr[a, b])
    residual = y - regression_function(z)
    assert abs(residual.std() - 0.4) < 0.01 and abs(residual.mean()) < 5 * 0.4 * se
    f0 = regression_function(np.zeros((1, 12)))
    np.testing.assert_allclose(f0, 0.8 * np.sin(0.3) + 0.85 * np.cos(0.1))


def test_csv_used_as_given(tmp_path):
    rng = np.random.default_rng(4)
    table = rng.normal(3.0, 2.0, size=(8, 3))
    path = tmp_path / "d.csv"
    lines = ["a,y,b"] + [",".join(repr(float(v)) for v in row) for row in table]
    path.write_text("\n".join(lines) + "\n")
    model = get_model("gp_neal2010", data=str(path))
    np.testing.assert_array_equal(model.data["y"], table[:, 1])
    np.testing.assert_array_equal(model.data["x"], table[:, [0, 2]])
    assert model.dim == 4 and model.splits["eta"].slow_dim == 3
    assert model.attrs["covariates"] == ["a", "b"]
    assert np.isfinite(model.log_density(model.init_position(jax.random.key(0))))


def test_bad_data_is_one_line_error(tmp_path):
    path = tmp_path / "no_y.csv"
    path.write_text("a,b\n1,2\n3,4\n")
    with pytest.raises(UserInputError, match="no column named y"):
        get_model("gp_neal2010", data=str(path))
    with pytest.raises(UserInputError):
        get_model("gp_neal2010", data=str(path), n=10)
    with pytest.raises(UserInputError, match="not found"):
        get_model("gp_neal2010", data=str(tmp_path / "missing.csv"))
