"""EE's levels are an array axis (:mod:`tempering.algorithms.equi_energy.algorithm`).

- EE's and MINTEE's compiled step and warmup grow little with the number of levels (one body
  over a traced level; MINTEE's fixed subsets summed as ranges of the permutation, in blocks);
  MINTEE's levels unrolled in Python (``Ladder.unrolled``, as before 2026-11-28) grow with every
  level, so the measure can fail.
- A traced level's truncated density is the static level's bit for bit, scalar or vmapped (the
  draws do not depend on the refactor), and EE gives the same draws whatever the chain layout.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tempering import get_model, get_sampler
from tempering.algorithms.equi_energy.levels import level_log_density
from tempering.ladders.energy import energy_levels, geometric_temperatures
from tempering.run.driver import sample

RUN = {"burnin": 5, "stagger": 5, "capacity": 20, "p_ee": 0.3, "pilot": 20}


def _lowered_sizes(name: str, levels: int, **options) -> tuple[int, int]:
    """Characters of the lowered step and warmup of ``name`` with ``levels`` levels."""
    model = get_model("modes2d")
    algorithm = get_sampler(name, model, levels=levels, **RUN, **options)
    state = algorithm.init(jax.random.key(0), jnp.zeros(2))
    step = jax.jit(lambda k, s: algorithm.step(k, s, algorithm.params)).lower(
        jax.random.key(2), state)
    warmup = jax.jit(algorithm.warmup, static_argnums=3).lower(
        jax.random.key(1), state, algorithm.params, 10)
    return len(step.as_text()), len(warmup.as_text())


def _compiled_step_fusions(name: str, levels: int, **options) -> int:
    """Fused kernels XLA makes of the compiled step of ``name`` with ``levels`` levels."""
    model = get_model("modes2d")
    algorithm = get_sampler(name, model, levels=levels, **RUN, **options)
    state = algorithm.init(jax.random.key(0), jnp.zeros(2))
    step = jax.jit(lambda k, s: algorithm.step(k, s, algorithm.params)).lower(
        jax.random.key(2), state)
    return step.compile().as_text().count(" fusion(")


@pytest.mark.slow  # ~15 s (budget); PT's rung axis is checked in make test (test_pt_rung_axis)
def test_ee_compiled_program_does_not_grow_with_the_levels(monkeypatch):
    """From 3 to 12 levels EE's step and warmup grow only by the jump ratio's ``lax.switch``
    (a few scalar operations per level: about 3 % of the program each). From 3 to 6 levels
    MINTEE's compiled step grows as little (its fixed subsets' sums are one body: 205 → 208
    fused kernels when measured, 2026-11-29; 209 → 253 when they were a ``lax.switch`` over
    the levels' batch energies); unrolled, it more than doubles (485 → 1044), so the measure
    can fail."""
    from tempering.algorithms.equi_energy.algorithm import Ladder

    small, large = _lowered_sizes("ee", 3), _lowered_sizes("ee", 12)
    assert large[0] < 1.35 * small[0] and large[1] < 1.25 * small[1], (small, large)
    mintee = {"batch": 3, "gamma": 1.6}
    scanned = [_compiled_step_fusions("mintee", levels, **mintee) for levels in (3, 6)]
    assert scanned[1] < 1.1 * scanned[0], scanned
    monkeypatch.setattr(Ladder, "unrolled", True)
    unrolled = [_compiled_step_fusions("mintee", levels, **mintee) for levels in (3, 6)]
    assert unrolled[1] > 1.8 * unrolled[0], unrolled


@pytest.mark.parametrize("level", [0, 1, 3])
def test_traced_level_density_is_the_static_ones_bit_for_bit(level):
    temps = geometric_temperatures(5, 40.0)
    levels = energy_levels(-3.0, temps, 10.0)
    model = get_model("modes2d")
    thetas = jax.random.normal(jax.random.key(0), (300, 2)) * 6.0

    def static(theta, k):
        return level_log_density(-model.log_density(theta), level, levels, temps)

    def traced(theta, k):
        return level_log_density(-model.log_density(theta), k, levels, temps)

    k = jnp.asarray(level, jnp.int32)
    batched = [np.asarray(jax.jit(jax.vmap(f, (0, None)))(thetas, k)) for f in (static, traced)]
    np.testing.assert_array_equal(*batched)
    scalar = [np.asarray([jax.jit(f)(theta, k) for theta in thetas[:50]])
              for f in (static, traced)]
    np.testing.assert_array_equal(*scalar)


@pytest.mark.slow  # ~11 s (budget); tests/run/test_driver.py checks every chain method
def test_ee_same_draws_whatever_the_chain_layout():
    model = get_model("modes2d")
    algorithm = get_sampler("ee", model, levels=3, **RUN)
    runs = [sample(model, algorithm, key=2, draws=40, chains=2, warmup=20, progress=False,
                   chain_method=method) for method in ("vmap", "sequential")]
    np.testing.assert_array_equal(runs[0].posterior["theta"].values,
                                  runs[1].posterior["theta"].values)
    assert np.asarray(runs[0].sample_stats["ee_proposed"]).any()
