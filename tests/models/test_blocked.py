"""The log likelihood in blocks (:mod:`tempering.models.blocked`): the same value, gradient and
Hessian as the model's own, batched or not, with and without a remainder of rows, on constant
or traced rows; small or term-less models keep their own; the tempering ladders' densities (power
and subset) use it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tempering import get_model
from tempering.ladders import (
    adaptive_power_ladder,
    adaptive_subset_ladder,
    power_tempering_ladder,
    subset_tempering_ladder,
)
from tempering.models import blocked
from tempering.models.blocked import blocked_log_lik, blocked_sum

MIXTURE = {"means": [-3.0, 0.0, 3.0], "sigma": 1.0, "prior_sd": 3.0}
MU = np.array([[-2.9, 0.1, 3.05], [0.5, -1.0, 2.0]])


def _mixture(n):
    return get_model("mixture", n=n, **MIXTURE)


@pytest.mark.parametrize("n", [2 * blocked.BLOCK_ROWS, 2 * blocked.BLOCK_ROWS + 1])
def test_blocks_give_the_models_value_gradient_and_hessian(n):
    """Two blocks exactly, and three of 5461 rows with a remainder of 2 (float64: agreement to
    rounding, the sum's order being another)."""
    with jax.enable_x64(True):
        model = _mixture(n)
        ours = blocked_log_lik(model)
        assert ours is not model.log_lik
        mu = jnp.asarray(MU)
        close = {"rtol": 1e-10, "atol": 1e-9}
        np.testing.assert_allclose(jax.vmap(ours)(mu), jax.vmap(model.log_lik)(mu), **close)
        np.testing.assert_allclose(jax.vmap(jax.grad(ours))(mu),
                                   jax.vmap(jax.grad(model.log_lik))(mu), **close)
        np.testing.assert_allclose(jax.hessian(ours)(mu[0]), jax.hessian(model.log_lik)(mu[0]),
                                   **close)
        value, grad = jax.jit(jax.value_and_grad(ours))(mu[1])
        np.testing.assert_allclose(value, model.log_lik(mu[1]), rtol=1e-12)
        np.testing.assert_allclose(grad, jax.grad(model.log_lik)(mu[1]), rtol=1e-10, atol=1e-9)


def test_small_or_termless_models_keep_their_own():
    small = _mixture(blocked.BLOCK_ROWS)
    assert blocked_log_lik(small) == small.log_lik
    gp = get_model("gp_regression")
    assert gp.log_lik_terms_fn is None and blocked_log_lik(gp) == gp.log_lik


def test_non_finite_terms_are_minus_infinity():
    model = _mixture(2 * blocked.BLOCK_ROWS)
    assert float(blocked_log_lik(model)(jnp.array([jnp.nan, 0.0, 0.0]))) == -np.inf


@pytest.mark.parametrize("make", [
    lambda m: adaptive_power_ladder(m, np.array([1.0, 0.3, 0.0])),
    lambda m: adaptive_power_ladder(m, np.array([2.0, 1.0, 0.5, 0.0]), "stabilized"),
    lambda m: power_tempering_ladder(m, np.array([1.0, 0.3, 0.0]))])
def test_tempering_ladders_use_the_blocks(make, monkeypatch):
    """Rung 1's density on a tall model is the prior plus β times the blocked likelihood (the
    ladders call :func:`blocked_log_lik` once, at build)."""
    calls = []
    original = blocked.blocked_log_lik

    def counted(model):
        calls.append(model)
        return original(model)

    monkeypatch.setattr("tempering.ladders.tempering.blocked_log_lik", counted)
    model = _mixture(2 * blocked.BLOCK_ROWS)
    ladder = make(model)
    assert calls == [model]
    view = ladder.draw_view(jax.random.key(0))
    m = 1 if ladder.target == 0 else ladder.target
    mu = jnp.asarray(MU[0], jnp.float32)
    found = ladder.density_at(view, jnp.asarray(m))(mu)
    beta = float(ladder.betas[m]) if ladder.target == 0 else 1.0
    expected = model.log_prior(mu) + beta * model.log_lik(mu)
    np.testing.assert_allclose(float(found), float(expected), rtol=1e-5)


def test_blocks_of_traced_rows_and_their_tangent():
    """Rows passed in (a subset's gather inside a program): the same value and θ-gradient as
    the plain sum; the rows' own tangent is dropped (they are data)."""
    with jax.enable_x64(True):
        model = _mixture(2 * blocked.BLOCK_ROWS + 1)
        total = blocked_sum(model.log_lik_terms_fn)
        mu, rows = jnp.asarray(MU[0]), model.data
        value, grad = jax.jit(jax.value_and_grad(total))(mu, rows)
        np.testing.assert_allclose(value, model.log_lik(mu), rtol=1e-12)
        np.testing.assert_allclose(grad, jax.grad(model.log_lik)(mu), rtol=1e-10, atol=1e-9)
        _, tangent = jax.jvp(total, (mu, rows), (jnp.zeros(3), jax.tree.map(jnp.ones_like,
                                                                               rows)))
        assert float(tangent) == 0.0


def test_subset_ladders_use_the_blocks():
    """SPT's rungs on tall data: the target and a subset rung of at least two blocks' rows (a
    fixed subset ladder), and the pilot's rungs at a traced index and traced β's (an adaptive
    one's ``density_in_turn``: sums over the permutation's first N_m entries in blocks, values
    and gradients), equal to the plain sums over the same points."""
    with jax.enable_x64(True):
        model = _mixture(4 * blocked.BLOCK_ROWS)
        mu = jnp.asarray(MU[1])
        fixed = subset_tempering_ladder(model, np.array([1.0, 0.6, 0.01]),
                                        subsets_key=jax.random.key(3))
        view = fixed.draw_view(jax.random.key(0))
        target, big, small = fixed.rungs(view)
        np.testing.assert_allclose(target.log_density(mu), model.log_density(mu), rtol=1e-12)
        rows = jax.tree.map(lambda a: a[view[0]], model.data)
        plain = model.log_prior(mu) + model.log_lik(mu, rows)
        np.testing.assert_allclose(jax.jit(big.log_density)(mu), plain, rtol=1e-12)
        adaptive = adaptive_subset_ladder(model, np.array([1.0, 0.6, 0.01]))
        view = adaptive.draw_view(jax.random.key(1))
        in_turn = jax.jit(lambda m, x: adaptive.density_in_turn(view, m)(x))
        for m, beta in enumerate((1.0, 0.6, 0.01)):
            first = view[1][0][:round(beta * model.n_data)]

            def plain(x, first=first, m=m):
                rows = model.data if m == 0 else jax.tree.map(lambda a: a[first], model.data)
                return model.log_prior(x) + model.log_lik(x, rows)

            np.testing.assert_allclose(in_turn(m, mu), plain(mu), rtol=1e-12)
            np.testing.assert_allclose(jax.grad(in_turn, argnums=1)(m, mu), jax.grad(plain)(mu),
                                       rtol=1e-10)


def test_float64_rows_with_a_float32_position():
    """Data in float64 and θ in float32 (a model built in float64, a chain's float32 start):
    the value in float64 and the gradient in θ's dtype, as plain autodiff gives them."""
    from tempering.models.base import Model, ParamSpec

    with jax.enable_x64(True):
        x = np.random.default_rng(0).normal(size=2 * blocked.BLOCK_ROWS + 3)

        def terms(t, d):
            return -0.5 * (d["x"] - t[0]) ** 2

        model = Model(name="normal_mean", data={"x": x}, log_prior_fn=lambda t: -0.5 * t @ t,
                      log_lik_fn=lambda t, d: jnp.sum(terms(t, d)), log_lik_terms_fn=terms,
                      alpha=1.0, params=(ParamSpec("t", (1,)),),
                      constrain_fn=lambda t: {"t": t}, init_fn=lambda k: jnp.zeros(1))
        theta = jnp.array([0.3], jnp.float32)
        value, grad = jax.value_and_grad(blocked_log_lik(model))(theta)
        plain_value, plain_grad = jax.value_and_grad(model.log_lik)(theta)
        assert (value.dtype, grad.dtype) == (plain_value.dtype, plain_grad.dtype)
        np.testing.assert_allclose(value, plain_value, rtol=1e-12)
        np.testing.assert_allclose(grad, plain_grad, rtol=1e-5)
