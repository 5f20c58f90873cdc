"""The exact GP likelihood's hand-written gradient (gp/exact_grad.py, gp/cho_inverse.py).

Values must be those of the plain Cholesky likelihood (Eqs. 29–30); gradients must match plain JAX
autodiff through the Cholesky and central finite differences, for both GP models, ARD and
isotropic, on all data and on a subset view, and also with respect to x and y. A failed Cholesky
is −∞ with no exception under ``jax.grad``, and HMC / NUTS reject such proposals.
"""

from __future__ import annotations

import functools

import blackjax
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tempering.gp.cho_inverse import cho_inverse
from tempering.gp.exact import gaussian_log_marginal
from tempering.gp.exact_grad import se_covariance, se_log_marginal
from tempering.kernels import hmc, nuts
from tempering.models import get_model
from tempering.models.gp_regression import gp_regression_model

CASES = {
    "gp_regression-ard": ("gp_regression", dict(n=150, dim=3, data_seed=1)),  # n > one block
    "gp_regression-iso": ("gp_regression", dict(n=40, dim=2, kernel="iso", data_seed=2)),
    "gp_const-ard": ("gp_const", dict(n=40, dim=2, kernel="ard", data_seed=3)),
    "gp_const-iso": ("gp_const", dict(n=40, dim=1, data_seed=4)),
}


@functools.cache
def build(case: str):
    name, options = CASES[case]
    return get_model(name, **options)


def plain_log_lik(model):
    """The same likelihood by plain JAX autodiff through the Cholesky (the reference)."""
    kernel_fn, noise_var_fn = model.gp

    def log_lik(theta, data):
        cov = kernel_fn(theta, data["x"], data["x"]) + noise_var_fn(theta) * jnp.eye(
            data["x"].shape[0])
        return gaussian_log_marginal(cov, data["y"])

    return log_lik


def thetas(model) -> list[jnp.ndarray]:
    rng = np.random.default_rng(7)
    base = jnp.asarray(model.attrs["theta_true"])
    return [base, base + 0.3 * rng.standard_normal(model.dim)]


_COMPILED: dict = {}


def compiled(model, view: str = "all"):
    """Jitted (value, grad) of the fast and the plain likelihood on a view, built once."""
    key = (id(model), view)
    if key not in _COMPILED:
        data = views(model)[view]
        _COMPILED[key] = (
            jax.jit(jax.value_and_grad(lambda t: model.log_lik(t, data))),
            jax.jit(jax.value_and_grad(lambda t: plain_log_lik(model)(t, data))))
    return _COMPILED[key]


def views(model):
    subset = np.sort(np.random.default_rng(0).choice(model.n_data, 25, replace=False))
    return {"all": model.data, "subset": jax.tree.map(lambda a: a[subset], model.data)}


@pytest.mark.parametrize("case, view", [(case, "all") for case in sorted(CASES)]
                         + [("gp_regression-ard", "subset")])
def test_value_and_gradient_match_plain_autodiff(case, view):
    model = build(case)
    fast, plain = compiled(model, view)
    for theta in thetas(model):
        (v1, g1), (v2, g2) = fast(theta), plain(theta)
        assert float(v1) == pytest.approx(float(v2), rel=1e-12)  # values unchanged
        np.testing.assert_allclose(np.asarray(g1), np.asarray(g2), rtol=1e-6,
                                   atol=1e-9 * float(jnp.max(jnp.abs(g2))))


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradient_matches_central_finite_differences(case):
    model = build(case)
    theta = thetas(model)[1]
    value_and_grad = compiled(model)[0]
    grad = np.asarray(value_and_grad(theta)[1])
    h = 1e-5
    for i in range(model.dim):
        e = jnp.zeros(model.dim).at[i].set(h)
        fd = (float(value_and_grad(theta + e)[0]) - float(value_and_grad(theta - e)[0])) / (2 * h)
        assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("kappa, const, n_scale", [(0.5, 0.0, 3), (1.0, 100.0, 1)])
def test_gradient_in_every_argument_matches_autodiff(kappa, const, n_scale):
    """The VJP also returns ∂/∂x and ∂/∂y (so nothing is silently zero), off-centre x included."""
    rng = np.random.default_rng(3)
    n, dim = 140, 3
    args = (jnp.asarray(rng.normal(size=n_scale) * 0.3), jnp.asarray(0.2), jnp.asarray(-1.0),
            jnp.asarray(rng.normal(size=(n, dim)) + 4.0), jnp.asarray(rng.normal(size=n)))

    def plain(*a):
        return gaussian_log_marginal(se_covariance(*a[:4], kappa, const), a[4])

    fast = jax.jit(jax.grad(lambda *a: se_log_marginal(*a, kappa, const), argnums=range(5)))(
        *args)
    slow = jax.jit(jax.grad(plain, argnums=range(5)))(*args)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6,
                                   atol=1e-9 * float(jnp.max(jnp.abs(b))))


def test_gradient_under_vmap_matches_per_theta():
    model = build("gp_regression-ard")
    stacked = jnp.stack(thetas(model))
    batched = jax.jit(jax.vmap(jax.grad(model.log_lik)))(stacked)
    for theta, row in zip(stacked, batched, strict=True):  # batched BLAS rounds differently
        np.testing.assert_allclose(np.asarray(row), np.asarray(compiled(model)[0](theta)[1]),
                                   rtol=1e-8)


@pytest.mark.parametrize("n, block", [(5, 4), (37, 8), (129, 16), (300, 128)])
def test_cho_inverse_matches_numpy_inverse(n, block):
    """Sizes below, at and across the block size, odd halves included; batched on 2 matrices
    with ``vmap`` — the supported way: a hand-stacked batch reaches jaxlib's blocking batched
    LAPACK kernels, and the concurrent triangular solves then hung this test about one run in five
    (:mod:`tempering.lapack_batching`)."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n))
    cov = a @ a.T / n + 0.1 * np.eye(n)
    batch = jnp.asarray(np.stack([cov, 2.0 * cov]))
    inverse = jax.vmap(lambda c: cho_inverse(jnp.linalg.cholesky(c), block))
    both = np.asarray(jax.jit(inverse)(batch))
    inv = np.linalg.inv(cov)
    np.testing.assert_allclose(both[0], inv, rtol=0, atol=1e-10 * np.abs(inv).max())
    np.testing.assert_allclose(both[1], 0.5 * inv, rtol=0, atol=1e-10 * np.abs(inv).max())
    np.testing.assert_allclose(both[0], both[0].T, rtol=0, atol=1e-14 * np.abs(inv).max())


def duplicated_model():
    x = np.repeat(np.linspace(0.0, 1.0, 10)[:, None], 3, axis=0)  # each point three times
    return gp_regression_model(x, np.random.default_rng(0).standard_normal(30), "iso")


def test_failed_cholesky_is_minus_infinity_and_grad_does_not_raise():
    model = duplicated_model()
    bad = [jnp.asarray([2.0, 0.0, -40.0]),  # σ_n = e⁻⁴⁰: K singular, Cholesky fails
           jnp.asarray([np.nan, 0.0, 0.0])]
    value_and_grad = jax.jit(jax.value_and_grad(model.log_density))
    for theta in bad:
        value, grad = value_and_grad(theta)
        assert float(value) == -np.inf
        assert grad.shape == theta.shape  # any content (NaN here), but no exception
    batched = jax.jit(jax.vmap(jax.value_and_grad(model.log_density)))(
        jnp.stack([bad[0], jnp.asarray([0.0, 0.0, -1.0])]))
    assert float(batched[0][0]) == -np.inf and np.isfinite(float(batched[0][1]))
    assert np.all(np.isfinite(np.asarray(batched[1][1])))  # the healthy row is unaffected


def test_hmc_and_nuts_reject_proposals_where_the_cholesky_fails():
    """From σ_n = e² the likelihood pulls log σ_n down hard (gradient ≈ −42), so one leapfrog
    step of size 2 lands where σ_n ≈ e⁻⁸⁰ and C is singular (the prior is still finite there):
    the proposal's log density is −∞ (its gradient NaN), BlackJAX maps the NaN energy change to
    −∞, and the step is rejected — the chain stays put, no exception."""
    model = duplicated_model()
    start = jnp.asarray([0.0, 0.0, 2.0])
    logdensity = model.log_density
    algorithm = blackjax.hmc(logdensity, 2.0, jnp.ones(3), 1)
    step = jax.jit(algorithm.step)
    state = algorithm.init(start)
    failed = 0
    for seed in range(16):
        new_state, info = step(jax.random.key(seed), state)
        if not bool(jnp.isfinite(info.proposal.logdensity)):
            position = info.proposal.position
            if np.isfinite(float(model.log_prior(position))):  # the likelihood failed
                failed += 1
            assert not bool(info.is_accepted)
            assert float(info.acceptance_rate) == 0.0
            np.testing.assert_array_equal(np.asarray(new_state.position), np.asarray(start))
        assert np.isfinite(float(new_state.logdensity))
    assert failed >= 8  # every proposal did visit the region where the Cholesky fails

    # The project's HMC wrapper (kernels/hmc.py) reports the rejections; NUTS (BlackJAX) marks
    # such trajectories divergent. Finite states, no exception.
    kernel = hmc.make(logdensity, 2.0, 1)
    wrapped_step = jax.jit(kernel.step)
    infos = [wrapped_step(jax.random.key(seed), kernel.init(start))[1] for seed in range(16)]
    assert sum(float(i.acceptance_rate) == 0.0 for i in infos) >= failed
    kernel = nuts.make(logdensity, 2.0, jnp.ones(3), max_tree_depth=3)
    nuts_step = jax.jit(kernel.step)
    divergent = 0
    for seed in range(8):
        state, info = nuts_step(jax.random.key(seed), kernel.init(start))
        assert np.all(np.isfinite(np.asarray(state.position)))
        assert np.isfinite(float(state.logdensity))
        divergent += bool(info.diverging)
    assert divergent >= 1
