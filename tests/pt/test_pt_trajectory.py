"""PT's jittered leapfrog count (:mod:`tempering.algorithms.pt.trajectory`): scan t runs
⌈h_t · L⌉ steps, h_t the base-2 Halton sequence, on every rung and chain; PT with it stays exact
(a Geweke test on the conjugate Gaussian), and a count read off the chain's state, which the same
test catches, does not."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import cases, check_geweke, conjugate_geweke, conjugate_model

from tempering import get_model, get_sampler
from tempering.algorithms.pt.algorithm import parallel_tempering
from tempering.algorithms.pt.trajectory import jitter_steps, jittered_steps
from tempering.kernels import KERNELS
from tempering.ladders import power_tempering_ladder

# 24 000 iterations: at 6000 the broken count's largest |z| was 3.18, under Z_BOUND, once the
# scan's keys and HMC's draws changed (passing at b861589, failing at 6fcdac8); at 24 000 it is
# 7.12 and the correct count's 1.84 (2026-11-29), about the √4 the power grows by
N_OBS, DIM, CHAINS, ITERATIONS, SCANS, STEPS = 4, 2, 16, 24000, 3, 10
BETAS = np.array([1.0, 0.4, 0.1])


def test_the_counts_are_the_halton_sequence_spread_over_one_to_l() -> None:
    counts = np.asarray(jax.vmap(lambda t: jittered_steps(t, STEPS))(jnp.arange(1024)))
    # h_0, h_1, h_2, h_3 = 1/2, 1/4, 3/4, 1/8 (radical inverses of 1, 2, 3, 4)
    np.testing.assert_array_equal(counts[:4], [5, 3, 8, 2])
    assert counts.min() == 1 and counts.max() == STEPS
    # 1 024 quasi-random points: every count within one of 1024/L, mean (L + 1)/2
    assert np.all(np.abs(np.bincount(counts, minlength=STEPS + 1)[1:] - 1024 / STEPS) <= 1.5)
    assert abs(counts.mean() - (STEPS + 1) / 2) < 0.01


def test_default_pt_runs_the_scans_count_on_every_rung() -> None:
    """A scan's evaluations are rungs × ⌈h_t L⌉ (plus the swaps'), the same whatever the chain:
    HMC with ``num_steps`` 10 counts L_t leapfrog evaluations a rung."""
    model = get_model("mvn_mean", dim=2)  # 2 parameters: HMC named, RWM by default
    fixed = get_sampler("pt", model, inner="hmc", rungs=4, schedule="fixed", jitter_steps=False)
    jittered = get_sampler("pt", model, inner="hmc", rungs=4, schedule="fixed")
    assert jittered.options.jitter_steps is True
    state = jittered.init(jax.random.key(0), jnp.zeros(2))
    for t in range(4):
        at = state._replace(iteration=jnp.asarray(t, state.iteration.dtype))
        _, plain = fixed.step(jax.random.key(t), at, fixed.params)
        _, info = jittered.step(jax.random.key(t), at, jittered.params)
        expected = 4 * (int(jittered_steps(jnp.asarray(t), STEPS)) - STEPS)
        assert float(info.cost) - float(plain.cost) == pytest.approx(expected)


def build(model):
    spec = KERNELS.get("hmc")
    bound = spec.bind(spec.options(step_size=0.6, num_steps=STEPS), DIM)
    return parallel_tempering(power_tempering_ladder(model, BETAS), bound,
                              spec.rung_params(bound, BETAS), swap="sweep",
                              steps_at=jitter_steps(STEPS))


def updater(broken: bool):
    """Scans from exact hot replicas, at a scan index drawn at random (so many counts are
    tested); BROKEN: the index read off the cold replica's position (θ₀ > 0: 1 step, else 5),
    so the count depends on the state the transition leaves."""

    def exact_hot(key, y):
        draws = []
        for m, k in enumerate(jax.random.split(key, len(BETAS) - 1), start=1):
            precision, total = 1.0 + BETAS[m] * N_OBS, BETAS[m] * jnp.sum(y, axis=0)
            draws.append(total / precision + jax.random.normal(k, (DIM,)) / jnp.sqrt(precision))
        return draws

    def update(key, theta, y):
        k_init, k_hot, k_index, k_run = jax.random.split(key, 4)
        algorithm = build(conjugate_model(y))
        state = algorithm.init(k_init, jnp.stack([theta, *exact_hot(k_hot, y)]))
        for k in jax.random.split(k_run, SCANS):
            index = jax.random.randint(k_index, (), 0, 1 << 12)
            if broken:  # h at index 15 is 1/32 (one step), at 0 one half (five)
                index = jnp.where(state.replicas.position[0, 0] > 0, 15, 0)
            state = state._replace(iteration=index.astype(state.iteration.dtype))
            state, _ = algorithm.step(k, state, algorithm.params)
            k_index = jax.random.fold_in(k_index, 1)
        return algorithm.position(state)

    return update


CASES = cases(correct={"jittered_count": False}, broken={"count_from_the_state": True})


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_jittered_pt_geweke(case):
    check_geweke(case, conjugate_geweke(updater(case.build), n_obs=N_OBS, dim=DIM,
                                        chains=CHAINS, iterations=ITERATIONS, seed=7))
