"""Geweke test of the adapted schedule (issue 15): PT on a frozen adapted schedule — the traced-β
ladder that warmup moves (:func:`tempering.ladders.adaptive_power_ladder`) — leaves the posterior
invariant; a schedule that keeps adapting during sampling (the warmup rounds left running) does
not, and the same test catches it.

The harness is ``test_tempering_geweke``'s: the conjugate Gaussian model, hot replicas drawn
exactly from their rungs (at the schedule in force when the step starts), then one PT step.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import cases, check_geweke, conjugate_geweke, conjugate_model

from tempering.algorithms.pt.algorithm import parallel_tempering
from tempering.algorithms.pt.capacity import padded_line
from tempering.algorithms.pt.rounds import Rounds
from tempering.kernels import KERNELS
from tempering.ladders import adaptive_power_ladder, equal_barrier_betas

N_OBS, DIM, CHAINS, ITERATIONS, SCANS = 4, 2, 16, 8000, 4
#: A schedule as warmup leaves it: 4 rungs placed at equal barrier from uneven rejections.
ADAPTED = np.asarray(equal_barrier_betas(np.array([1.0, 0.3, 0.09, 0.02]),
                                         np.array([0.5, 0.2, 0.1])))


def build(model):
    spec = KERNELS.get("rwm")
    bound = spec.bind(spec.options(step_size=0.8), DIM)
    return parallel_tempering(adaptive_power_ladder(model, ADAPTED), bound,
                              spec.rung_params(bound, ADAPTED), swap="deo",
                              rounds=Rounds(4, lambda b, old, inner: spec.rung_params(bound, b)))


def exact_hot(key, betas, y):
    """Exact draws from rungs 1..M at ``betas`` given y (Gaussian tempered posteriors)."""
    draws = []
    for m, k in enumerate(jax.random.split(key, len(betas) - 1), start=1):
        precision, total = 1.0 + betas[m] * N_OBS, betas[m] * jnp.sum(y, axis=0)
        draws.append(total / precision + jax.random.normal(k, (DIM,)) / jnp.sqrt(precision))
    return draws


def updater(keeps_adapting: bool, builder=None):
    """Four PT scans from exact hot replicas (every slot's, with a rung window): on the frozen
    schedule, or (BROKEN) with the warmup rounds still running, so that the schedule moves after
    the third scan by the swap odds the chain has just seen, and the fourth runs on the moved
    schedule. ``builder``: PT on the conjugate model (default :func:`build`)."""

    def update(key, theta, y):
        k_init, k_hot, k_parity, k_run = jax.random.split(key, 4)
        algorithm = (builder or build)(conjugate_model(y))
        state = algorithm.init(k_init, theta)
        state = algorithm.init(k_init, jnp.stack([theta, *exact_hot(k_hot, state.view[0], y)]))
        state = state._replace(iteration=jax.random.bernoulli(k_parity).astype(jnp.int32))
        if keeps_adapting:
            state, _, _ = algorithm.warmup(k_run, state, algorithm.params, SCANS)
        else:
            for k in jax.random.split(k_run, SCANS):
                state, _ = algorithm.step(k, state, algorithm.params)
        return algorithm.position(state)

    return update


CASES = cases(correct={"frozen_adapted_schedule": False},
              broken={"schedule_adapting_in_sampling": True})


# both (~50 s and ~30 s) run in make test-slow; make test checks instead that PT on a frozen
# adapted ladder takes the very steps of PT on the fixed ladder Geweke-tested in
# test_tempering_geweke (test_frozen_adapted_ladder_steps_like_the_fixed_one below)
@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_adapted_schedule_geweke(case):
    check_geweke(case, conjugate_geweke(updater(case.build), n_obs=N_OBS, dim=DIM,
                                        chains=CHAINS, iterations=ITERATIONS, seed=5))


def test_frozen_adapted_ladder_steps_like_the_fixed_one():
    """Same key, same start: PT on the traced-β ladder holding ``ADAPTED`` and PT on the fixed
    power ladder at ``ADAPTED`` make the same moves, swaps and costs for 30 iterations."""
    from tempering.ladders import power_tempering_ladder

    y = jax.random.normal(jax.random.key(0), (N_OBS, DIM)) + 0.5
    model = conjugate_model(y)
    spec = KERNELS.get("rwm")
    bound = spec.bind(spec.options(step_size=0.8), DIM)
    fixed = parallel_tempering(power_tempering_ladder(model, ADAPTED), bound,
                               spec.rung_params(bound, ADAPTED), swap="deo")
    adapted = build(model)

    def run(algorithm):
        state = algorithm.init(jax.random.key(1), jnp.zeros(DIM))

        def body(state, key):
            state, info = algorithm.step(key, state, algorithm.params)
            return state, (state.replicas.position, info.cost,
                           info.stats["swap_accepted"])

        return jax.lax.scan(body, state, jax.random.split(jax.random.key(2), 30))[1]

    for a, b in zip(run(fixed), run(adapted), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)
    assert np.asarray(run(adapted)[2]).any()  # some swaps were accepted


#: ``ADAPTED`` in a line of 6 slots (issue 44's rung window): rungs 0 … 3 in use, slots 4 and 5
#: holding the last β.
WINDOWED_LINE, WINDOW = padded_line(ADAPTED, (6,))


def build_windowed(model):
    spec = KERNELS.get("rwm")
    bound = spec.bind(spec.options(step_size=0.8), DIM)
    return parallel_tempering(adaptive_power_ladder(model, WINDOWED_LINE), bound,
                              spec.rung_params(bound, WINDOWED_LINE), swap="deo",
                              rounds=Rounds(4, lambda b, old, inner: spec.rung_params(bound, b)),
                              window=WINDOW)


WINDOWED_CASES = cases(correct={"frozen_windowed_schedule": False},
                       broken={"windowed_schedule_adapting_in_sampling": True})


@pytest.mark.slow
@pytest.mark.parametrize("case", WINDOWED_CASES, ids=lambda c: c.name)
def test_windowed_schedule_geweke(case):
    """The rung window's masked swaps and free slots leave the posterior invariant; the same
    test catches its rounds left running."""
    check_geweke(case, conjugate_geweke(updater(case.build, build_windowed), n_obs=N_OBS,
                                        dim=DIM, chains=CHAINS, iterations=ITERATIONS, seed=5))
