"""The EE / MINTEE warmup pilot (:mod:`tempering.algorithms.equi_energy.warmup`) and the 50-mode
mixture's start.

- The pilot's step-size rule: halve on a window with no move, double on one with every move,
  otherwise ×1.25 / ×0.8 about the target; the count restarts at each window's end.
- From a step size 100× too large, the pilot alone (no start-up, no warmup steps) brings every
  level's local acceptance to within [0.1, 0.7]; without the pilot (``pilot=0``) level 0 stays
  below 0.05 (the control that shows the check can fail).
- Each level starts where its pilot ended: far from a bad start.
- ``mixture`` with ``spike`` starts at the origin (the paper's start), ``start=prior`` at a
  prior draw, and the resolved start is recorded.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tempering import get_model, get_sampler
from tempering.algorithms.equi_energy.warmup import WINDOW, tune_step


def test_tune_step_changes_only_at_window_ends():
    one = jnp.ones(())
    cases = [(0, 0.5), (WINDOW, 2.0), (WINDOW // 2 + 1, 1.25), (1, 0.8)]
    for moves, factor in cases:
        multiplier, count = tune_step(one, jnp.asarray(moves), jnp.asarray(WINDOW - 1), 0.3)
        assert float(multiplier) == pytest.approx(factor) and int(count) == 0
    multiplier, count = tune_step(one, jnp.asarray(3), jnp.asarray(WINDOW - 2), 0.3)
    assert float(multiplier) == 1.0 and int(count) == 3


def _level_acceptance(pilot: int) -> np.ndarray:
    """Each level's mean local acceptance over 200 steps after the pilot alone (a step size
    100× too large, no start-up and no warmup steps)."""
    model = get_model("modes2d")
    algorithm = get_sampler("ee", model, levels=3, t_max=10.0, burnin=0, stagger=0,
                            pilot=pilot, step_size=30.0)
    state = algorithm.init(jax.random.key(0), jnp.zeros(2))
    state, params, _ = algorithm.warmup(jax.random.key(1), state, algorithm.params, 0)

    def body(state, key):
        state, info = algorithm.step(key, state, params)
        return state, info.stats["local_acceptance"]

    _, rates = jax.lax.scan(body, state, jax.random.split(jax.random.key(2), 200))
    return np.nanmean(np.asarray(rates), axis=0)


def test_pilot_tunes_every_level_from_a_far_off_step_size():
    rates = _level_acceptance(pilot=400)
    assert np.all((rates > 0.1) & (rates < 0.7)), rates
    untuned = _level_acceptance(pilot=0)
    assert untuned[0] < 0.05, untuned


def test_levels_start_where_their_pilot_ended():
    model = get_model("modes2d")
    far = jnp.asarray([40.0, -40.0])
    algorithm = get_sampler("ee", model, levels=3, t_max=10.0, burnin=0, stagger=0, pilot=400)
    state = algorithm.init(jax.random.key(0), far)
    state, _, cost = algorithm.warmup(jax.random.key(1), state, algorithm.params, 0)
    for level in state.levels:
        assert float(jnp.linalg.norm(level.kernel.position - far)) > 20.0
        assert np.isfinite(float(level.energy))
    assert float(cost) >= 3 * 400  # every level's pilot is counted


def test_mixture_with_spike_starts_at_the_origin():
    key = jax.random.key(0)
    spiked = get_model("mixture", k=5, n=100, spike=2.0)
    assert spiked.options["start"] == "origin"
    np.testing.assert_array_equal(np.asarray(spiked.init_position(key)), np.zeros(5))
    drawn = get_model("mixture", k=5, n=100, spike=2.0, start="prior")
    assert np.all(np.asarray(drawn.init_position(key)) != 0.0)
    assert get_model("mixture").options["start"] == "prior"
