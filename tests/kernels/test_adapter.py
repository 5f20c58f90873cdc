"""The in-scan adapters (:mod:`tempering.kernels.adapter`) that PT's warmup tunes its rungs'
kernels with: Stan's windows as BlackJAX places them, and the tuned parameters on a Gaussian
with known variances."""

from __future__ import annotations

import blackjax
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from blackjax.adaptation.staged_adaptation import build_schedule

from tempering.kernels.adapter import scale_adapter, stage_at, stages, window_adapter
from tempering.kernels.hmc import make as make_hmc
from tempering.kernels.rwm import make as make_rwm

SD = jnp.array([0.1, 1.0, 10.0])


def log_density(theta):
    return -0.5 * jnp.sum((theta / SD) ** 2)


@pytest.mark.parametrize("num_steps", [5, 19, 20, 37, 150, 250, 1000, 2500])
def test_stages_are_blackjax_windows(num_steps):
    stage = stages(num_steps)
    schedule = np.asarray(build_schedule(num_steps))
    assert stage.slow.tolist() == (schedule[:, 0] == 1).tolist()
    assert stage.window_end.tolist() == schedule[:, 1].astype(bool).tolist()
    restarts = np.flatnonzero(np.concatenate([[True], stage.window_end[:-1]]))
    expected = np.arange(num_steps) - restarts[np.searchsorted(restarts, np.arange(num_steps),
                                                                side="right") - 1] + 1
    assert stage.count.tolist() == expected.tolist()


@pytest.mark.parametrize("num_steps", [0, 1, 5, 19, 20, 37, 149, 150, 151, 250, 1000, 2500])
def test_stage_at_is_the_schedules_entry(num_steps):
    """The traced schedule (one program for every warmup length) entry by entry, with both the
    step and the length traced."""
    steps = np.arange(max(num_steps, 1))
    found = jax.jit(jax.vmap(stage_at, in_axes=(0, None)))(steps, num_steps)
    for got, expected in zip(found, stages(num_steps), strict=True):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


def tuned_run(adapter, make, params, num_steps, key=0):
    """A chain of ``num_steps`` steps run with the adapter's parameters in force, updated after
    each step as PT's warmup does; the tuned parameters."""
    schedule = jax.tree.map(jnp.asarray, stages(num_steps))
    state = make(log_density, **params).init(jnp.ones(3))

    def body(carry, xs):
        state, tuning = carry
        t, k = xs
        in_force = adapter.in_force(tuning, params)
        state, info = make(log_density, **in_force).step(k, state)
        stage = jax.tree.map(lambda a: a[t], schedule)
        return (state, adapter.update(tuning, stage, state.position,
                                      info.acceptance_rate)), None

    (_, tuning), _ = jax.lax.scan(body, (state, adapter.init(params)),
                                  (jnp.arange(num_steps),
                                   jax.random.split(jax.random.key(key), num_steps)))
    return adapter.final(tuning, params)


def acceptance(make, params, num_steps=2000, key=1):
    kernel = make(log_density, **params)

    def body(state, k):
        state, info = kernel.step(k, state)
        return state, info.acceptance_rate

    _, rates = jax.lax.scan(body, kernel.init(jnp.zeros(3)),
                            jax.random.split(jax.random.key(key), num_steps))
    return jnp.mean(rates)


def test_window_adapter_finds_the_variances_and_the_step():
    """Stan's windows over 1000 HMC steps (L = 5), three seeds: the inverse mass matrix's
    geometric mean over the seeds within 20% of the variances (0.01, 1, 100; the last window
    has 500 draws, ESS ≈ 150 per coordinate, so each seed's estimate has sd ≈ √(2/150) ≈ 12%,
    their mean ≈ 7%), and the tuned ε that of BlackJAX's
    ``window_adaptation`` on the same target, the medians within 20% (seed to seed, each
    spread by ±10%); both accept at least 0.8 as targeted (the averaged ε of dual averaging is
    smaller than its last iterate: 0.89–0.96 for either)."""
    params = {"step_size": jnp.asarray(0.01), "inverse_mass_matrix": jnp.ones(3),
              "num_steps": 5}
    ours, theirs, variances = [], [], []
    for key in range(3):
        tuned = tuned_run(window_adapter(0.8), make_hmc, params, 1000, key=key)
        variances.append(np.log(tuned["inverse_mass_matrix"]))
        assert acceptance(make_hmc, tuned) > 0.8
        ours.append(float(tuned["step_size"]))
        adaptation = blackjax.window_adaptation(
            blackjax.hmc, log_density, is_mass_matrix_diagonal=True, initial_step_size=0.01,
            target_acceptance_rate=0.8, num_integration_steps=5)
        (_, found), _ = adaptation.run(jax.random.key(key), jnp.ones(3), 1000)
        theirs.append(float(found["step_size"]))
    np.testing.assert_allclose(np.exp(np.mean(variances, axis=0)), SD ** 2, rtol=0.2)
    assert abs(np.log(np.median(ours) / np.median(theirs))) < np.log(1.2), (ours, theirs)


def test_scale_adapter_reaches_the_target_acceptance():
    """Dual averaging of RWM's scale over 1000 steps, eight seeds at once: the tuned scales
    accept 0.234 on average as targeted (each seed's acceptance spreads by about ±0.03, so
    their mean by ±0.011; the bound is 2.7 of those); the untuned scale (1 on every
    coordinate) does not. A dual averaging restarted at Stan's window ends, as the mass
    matrix's adapter does, ends on the average of the last 50 steps and accepted 0.186 on
    these seeds: this test fails it."""
    params = {"step_size": jnp.ones(3)}
    keys = jnp.arange(8)
    tuned = jax.vmap(lambda k: tuned_run(scale_adapter(0.234), make_rwm, params, 1000,
                                         key=k))(keys)
    rates = jax.vmap(lambda p, k: acceptance(make_rwm, p, key=k))(tuned, keys + 100)
    assert abs(float(jnp.mean(rates)) - 0.234) < 0.03, rates
    assert abs(acceptance(make_rwm, params) - 0.234) > 0.05
