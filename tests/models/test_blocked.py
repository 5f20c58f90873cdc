"""The full-data log likelihood in blocks (:mod:`tempering.models.blocked`): the same value,
gradient and Hessian as the model's own, batched or not, with and without a remainder of rows;
small or term-less models keep their own; the tempering ladders' densities use it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tempering import get_model
from tempering.ladders import adaptive_power_ladder, power_tempering_ladder
from tempering.models import blocked
from tempering.models.blocked import blocked_log_lik

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
