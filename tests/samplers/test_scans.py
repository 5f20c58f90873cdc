"""The generic warmups as scans (``base.step_scans``, ``base.begin_then_step``), on a toy
algorithm whose state counts its steps and sums their keys' first word: a warmup of W steps is
``begin``'s work (the first ``done(W)`` steps) and then exactly the W − done(W) steps left, each
with the key the program gives scan t, and a sampling scan is the step."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from tempering.algorithms.base import (
    AlgorithmInfo,
    begin_then_step,
    step_scans,
    warmup_by_scans,
)


def _step(key, state, params):
    steps, keys = state
    word = jax.random.key_data(key).ravel()[0].astype(jnp.float32)
    info = AlgorithmInfo(jnp.ones(()), params["cost"], jnp.zeros(()), {})
    return (steps + 1, keys + word), info


def _begin(key, state, params, num_steps):
    del key
    steps, keys = state
    return (steps + 100 * num_steps, keys), {"cost": params["cost"] * 2}, jnp.asarray(7.0)


def _expected(key, state, params, first, last):
    for t in range(first, last):
        state, _ = _step(jax.random.fold_in(key, t), state, params)
    return state


START = (jnp.zeros((), jnp.int32), jnp.zeros(()))


def test_step_scans_warm_up_with_the_step_itself():
    key, params = jax.random.key(3), {"cost": jnp.asarray(0.5)}
    state, out, cost = warmup_by_scans(step_scans(_step), key, START, params, 6)
    expected = _expected(key, START, params, 0, 6)
    assert int(state[0]) == 6 and float(state[1]) == float(expected[1])
    assert float(out["cost"]) == 0.5 and float(cost) == pytest.approx(3.0)


@pytest.mark.parametrize("idle", [0, 3, 6])
def test_begin_then_step_runs_begin_then_the_steps_it_did_not_do(idle):
    key, params = jax.random.key(5), {"cost": jnp.asarray(0.5)}
    scans = begin_then_step(_begin, _step, lambda num_steps: min(idle, num_steps))
    state, out, cost = warmup_by_scans(scans, key, START, params, 6)
    began = 0 if idle == 0 else 600  # begin runs only when it stands for some scans
    tuned = params["cost"] * (1 if idle == 0 else 2)
    expected = _expected(key, (START[0] + began, START[1]), {"cost": tuned}, 0, 6 - idle)
    assert scans.warming_scans(6) == 6 - idle
    assert int(state[0]) == began + 6 - idle and float(state[1]) == float(expected[1])
    assert float(out["cost"]) == float(tuned)
    assert float(cost) == pytest.approx((7.0 if idle else 0.0) + (6 - idle) * float(tuned))


def test_a_sampling_scan_is_the_step():
    key, params = jax.random.key(7), {"cost": jnp.asarray(0.5)}
    scans = begin_then_step(_begin, _step, lambda num_steps: num_steps)
    state, out, _, info = scans.scan(key, jnp.asarray(0), START, params, (),
                                     jnp.asarray(False), 6)
    assert int(state[0]) == 1 and float(out["cost"]) == 0.5 and float(info.cost) == 0.5
