"""PT over the rung axis (issue 31): the compiled program does not grow with the ladder, the
same seed gives the same draws whatever the chain layout, and the rungs=auto pilot is counted."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tempering.algorithms.base import RunLayout
from tempering.algorithms.pt.pilot import pilot_steps
from tempering.algorithms.registry import get_sampler
from tempering.models.registry import get_model
from tempering.run.driver import run_chains


def _step_hlo_size(model, sampler: str, rungs: int, **options) -> int:
    """Characters of the lowered HLO of one step of ``sampler`` with ``rungs`` rungs."""
    algorithm = get_sampler(sampler, model, rungs=rungs, schedule="fixed", **options)
    state = algorithm.init(jax.random.key(0), model.init_position(jax.random.key(1)))
    lowered = jax.jit(lambda k, s: algorithm.step(k, s, algorithm.params)).lower(
        jax.random.key(2), state)
    return len(lowered.as_text())


@pytest.mark.parametrize(("inner", "swap"), [("rwm", "deo"), ("hmc", "sweep")])
def test_compiled_step_does_not_grow_with_the_ladder(inner, swap):
    """4 and 32 rungs lower to programs of the same size (only the shapes' digits differ)."""
    model = get_model("mvn_mean", n=32, dim=2)
    small, large = (_step_hlo_size(model, "pt", r, inner=inner, swap=swap) for r in (4, 32))
    assert large < 1.05 * small, (small, large)


def test_the_size_measure_sees_a_growing_ladder():
    """The same measure on SPT, whose subset rungs each keep a density of their own (a switch's
    branches: 126 799 → 249 199 characters from 4 to 16 rungs; 134 391 → 315 691 when the
    rungs' kernels were unrolled too), grows with the ladder: the check above can fail."""
    model = get_model("mvn_mean", n=32, dim=2)
    growing = [_step_hlo_size(model, "spt", r, inner="rwm", swap="deo") for r in (4, 16)]
    assert growing[1] > 1.5 * growing[0], growing


@pytest.mark.parametrize(("reference", "fewest"), [("prior", 4), ("stabilized", 6)])
def test_warmup_does_not_grow_with_the_ladder(reference, fewest):
    """The default warmup (per-rung tuning around the schedule's rounds; with the stabilized
    reference, two legs and q's fits) lowers to the same size for few rungs and for 32."""
    model = get_model("mvn_mean", n=32, dim=2, precision="float64")  # traced out of its scope

    def size(rungs):
        algorithm = get_sampler("pt", model, rungs=rungs, reference=reference)
        state = algorithm.init(jax.random.key(0), jnp.zeros(model.dim))
        return len(jax.jit(algorithm.warmup, static_argnums=3).lower(
            jax.random.key(1), state, algorithm.params, 40).as_text())

    small, large = size(fewest), size(32)
    assert large < 1.05 * small, (small, large)


@pytest.mark.slow  # ~13 s (budget); tests/run/test_driver.py checks every chain method
def test_same_draws_whatever_the_chain_layout():
    """PT with the adaptive schedule and its inner kernel tuned per rung (RWM: the cheaper
    compile; HMC's default path runs in tests/pt/test_pt_defaults.py): vmap and sequential chains,
    and a one-chain run against chain 0 of two."""
    model = get_model("gauss_mixture", dim=2)
    algorithm = get_sampler("pt", model, rungs=5, inner="rwm")
    runs = {method: run_chains(model, algorithm, key=3, chains=2, draws=30, warmup=40,
                               progress=False, chain_method=method)
            for method in ("vmap", "sequential")}
    one = run_chains(model, algorithm, key=3, chains=1, draws=30, warmup=40, progress=False)
    draws = {k: r.idata.posterior["theta"].values for k, r in runs.items()}
    np.testing.assert_allclose(draws["vmap"], draws["sequential"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(one.idata.posterior["theta"].values[0], draws["vmap"][0],
                               rtol=1e-10, atol=1e-12)


def test_pilot_evaluations_are_counted_in_the_run():
    """rungs=auto with a kernel that does not adapt: the pilot runs the run's warmup of 15 scans
    (4 rounds) on its 16 slots, one chain: the chain's start on the pilot's line (16), 15 DEO
    scans (8 even: 8 pairs, 7 odd: 7 pairs), each with one inner update per rung and two
    evaluations per proposed pair, and after each of the 4 rounds (closed on the host between
    the program's calls, the first moving nothing: it saw no odd pair) the next call
    re-initialising every rung — 16 + 240 + 226 + 64 = 546 evaluations of cost 1. The run file
    records them apart from warmup's."""
    model = get_model("gauss_mixture", dim=2)
    algorithm = get_sampler("pt", model, layout=RunLayout(batch=1, warmup=15, draws=10, chunk=1),
                            inner="rwm", adapt_step_size=False, rungs="auto", rounds=4,
                            reference="prior")
    pilot = algorithm.facts["pilot"]
    assert (pilot["scans"], pilot["rungs"], pilot["chains"]) == (15, 16, 1)
    assert pilot["cost"] == pytest.approx(546.0, rel=1e-12)
    assert pilot["placed_rungs"] == algorithm.options.rungs
    attrs = run_chains(model, algorithm, key=0, chains=2, draws=10, warmup=8,
                       progress=False).idata["posterior"].attrs
    assert attrs["cost_pilot"] == pytest.approx(546.0)
    assert attrs["wall_seconds_pilot"] == pytest.approx(pilot["seconds"])  # compile apart
    assert attrs["wall_seconds_compile"] >= pilot["compile_seconds"]
    assert attrs["wall_seconds_total"] >= attrs["wall_seconds_pilot"] + attrs[
        "wall_seconds_compile"]
    # SPT's pilot (one chain, programs of its own) scans its tuning steps before the rounds
    assert pilot_steps(True, 4) > pilot_steps(False, 4) == 15
