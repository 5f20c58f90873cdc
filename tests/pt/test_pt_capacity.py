"""PT's rung window (issue 44, :mod:`tempering.algorithms.pt.capacity`): a line of slots of which a
window of rungs is in use, so that the ``rungs=auto`` pilot and the run share one program.

The window changes which pairs swap, where round trips end, what is counted and what is kept; it
must not change what is sampled. Checked here: the line and its window, the placement inside a
window against the placement of the window's rungs alone, a windowed run against the conjugate
posterior (and a wrong swap ratio caught by the same check), the record and the cost of a scan,
the pilot's choice to share its programs, and that a run whose pilot placed its rungs gives the
draws of a run given them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tempering.algorithms.base import RunLayout
from tempering.algorithms.pt.algorithm import parallel_tempering, swap_log_ratio
from tempering.algorithms.pt.capacity import RungWindow, padded_line, trimmed
from tempering.algorithms.pt.pilot import (
    PilotRecord,
    SharedPilot,
    pilot_rounds,
    pilot_steps,
    sharing_pays,
)
from tempering.algorithms.pt.rounds import Rounds
from tempering.algorithms.pt.sampler import costly
from tempering.algorithms.pt.stats import PT_STATS
from tempering.algorithms.registry import get_sampler
from tempering.kernels import KERNELS
from tempering.ladders import adaptive_power_ladder
from tempering.ladders.reference import equal_barrier_legs
from tempering.models import get_model
from tempering.models.mvn_mean import analytic_posterior
from tempering.precision import scope
from tempering.run.driver import run_chains


def test_a_line_of_slots_holds_each_leg_beside_the_target_slot():
    line, window = padded_line(np.array([1.0, 0.4, 0.0]), (5,))
    np.testing.assert_array_equal(line, [1.0, 0.4, 0.0, 0.0, 0.0])
    assert window == RungWindow(0, 2, 5, 0) and window.rungs == 3
    line, window = padded_line(np.array([2.0, 1.5, 1.0, 0.3, 0.0]), (4, 4))
    np.testing.assert_array_equal(line, [2.0, 2.0, 1.5, 1.0, 0.3, 0.0, 0.0])
    assert window == RungWindow(1, 5, 7, 3)
    with pytest.raises(ValueError, match="capacity: legs of 3 and 4 rungs do not fit 4 and 3"):
        padded_line(np.array([2.0, 1.5, 1.0, 0.5, 0.2, 0.0]), (4, 3))


def test_the_record_keeps_the_windows_rungs_and_pairs():
    window = RungWindow(1, 3, 6, 2)
    record = {"beta": np.zeros((2, 5, 6)), "swap_accept_prob": np.zeros((2, 5, 5)),
              "round_trips": np.zeros((2, 5)), "position": np.zeros((2, 5, 6))}
    kept = trimmed(record, 2, stats=PT_STATS, window=window)
    assert kept["beta"].shape == (2, 5, 3) and kept["swap_accept_prob"].shape == (2, 5, 2)
    assert kept["position"].shape == (2, 5, 6)  # not a rung statistic: its dim is the model's
    shapes = trimmed({"beta": jax.ShapeDtypeStruct((6,), jnp.float32)}, 0, stats=PT_STATS,
                     window=window)
    assert shapes["beta"].shape == (3,)


def test_a_windows_placement_is_the_placement_of_its_rungs_alone():
    """Equal barrier inside the window of a two-leg line: the free slots keep the ends, and the
    rungs in use move exactly as the same rungs would on a line of their own."""
    rungs = jnp.array([2.0, 1.6, 1.0, 0.5, 0.2, 0.05, 0.0])
    rejection = jnp.array([0.3, 0.1, 0.5, 0.2, 0.4, 0.1])
    alone = equal_barrier_legs(rungs, rejection, target=2)
    line, window = padded_line(np.asarray(rungs), (5, 6))
    padded_rejection = jnp.zeros(len(line) - 1).at[window.lo:window.hi].set(rejection)
    placed = equal_barrier_legs(jnp.asarray(line), padded_rejection, window.target,
                                jnp.asarray(window.as_array()))
    np.testing.assert_allclose(placed[window.lo:window.hi + 1], alone, atol=1e-6)
    np.testing.assert_array_equal(placed[:window.lo], 2.0)
    np.testing.assert_array_equal(placed[window.hi + 1:], 0.0)


def _windowed_pt(model, log_ratio=swap_log_ratio):
    """RWM PT on 4 rungs of the prior path in a line of 7 slots (window 0 … 3), built in the
    model's precision as the registry builds."""
    with scope(model.precision):
        return _windowed_pt_here(model, log_ratio)


def _windowed_pt_here(model, log_ratio):
    spec = KERNELS.get("rwm")
    bound = spec.bind(spec.options(step_size=0.6), model.dim)
    line, window = padded_line(np.array([1.0, 0.3, 0.08, 0.0]), (7,))
    ladder = adaptive_power_ladder(model, line)
    return parallel_tempering(ladder, bound, spec.rung_params(bound, line), swap="deo",
                              log_ratio=log_ratio, window=window,
                              rounds=Rounds(4, lambda b, old, inner: spec.rung_params(bound, b)))


def _transposed(hi_at_lo, lo_at_hi, hi, lo):
    return hi + lo - hi_at_lo - lo_at_hi  # BROKEN: the ratio upside down


@pytest.mark.parametrize(("log_ratio", "exact"), [(swap_log_ratio, True), (_transposed, False)],
                         ids=["windowed", "broken_swap_ratio"])
def test_a_windowed_run_samples_the_conjugate_posterior(log_ratio, exact):
    """mvn_mean's posterior is Gaussian (known mean and sd); 4 chains × 3000 draws of windowed
    PT: the mean within 5 MC standard errors, the sd within 10%. The transposed swap ratio
    (the same test) pulls the target rung towards the prior."""
    model = get_model("mvn_mean", n=20, dim=2, data_seed=3)
    algorithm = _windowed_pt(model, log_ratio)
    result = run_chains(model, algorithm, key=4, chains=4, draws=3000, warmup=300,
                        progress=False)
    theta = result.idata.posterior["theta"].values.reshape(-1, 2)
    mean, cov = analytic_posterior(model)
    sd = np.sqrt(np.diag(cov))
    ess = 3000 * 4 / 10  # RWM on 2-D: a conservative effective size
    ok = bool(np.all(np.abs(theta.mean(axis=0) - mean) < 5 * sd / np.sqrt(ess))
              and np.all(np.abs(theta.std(axis=0) / sd - 1) < 0.1))
    assert ok == exact, (theta.mean(axis=0), mean, theta.std(axis=0), sd)
    stats = result.idata.sample_stats
    assert stats["beta"].shape[-1] == 4 and stats["swap_proposed"].shape[-1] == 3


def test_a_scan_counts_only_the_windows_evaluations():
    """RWM: one evaluation per rung in use, two per proposed pair inside the window (DEO: pairs
    0 and 2 on even scans, pair 1 on odd ones): 4 + 4 and 4 + 2, not the 7 slots' 7 + 6."""
    model = get_model("mvn_mean", n=20, dim=2, data_seed=3)
    algorithm = _windowed_pt(model)
    state = algorithm.init(jax.random.key(0), jnp.zeros(2))
    costs = []
    for k in jax.random.split(jax.random.key(1), 2):
        state, info = jax.jit(algorithm.step)(k, state, algorithm.params)
        costs.append(float(info.cost))
        assert not np.any(np.asarray(info.stats["swap_proposed"])[3:])
    assert costs == [8.0, 6.0]


def test_the_pilot_shares_its_programs_when_the_rungs_fit_whatever_the_clock():
    """The choice depends on no timing (a seed's draws must not) and on no chain layout, only
    on the fit, the warmup and the free slots' work (free slots × a chain's scans × the data's
    numbers); dear models are kept off the shared pilot before it runs (``costly``)."""
    record = PilotRecord(500, 31, 16, 7.0, 0.2, 6.0, 1.0)
    cheap = SharedPilot(np.zeros(16), record)
    run = RunLayout(batch=4, warmup=500, draws=1000)
    assert cheap.worth_sharing(True, run, free=15, numbers=0)  # no data (gauss_mixture)
    assert not cheap.worth_sharing(False, run, free=15, numbers=0)
    assert not cheap.worth_sharing(True, run._replace(warmup=0), free=15, numbers=0)
    slow = record._replace(seconds=20.0, compile_seconds=0.1)  # a slow run, a cached compile
    assert cheap._replace(record=slow).worth_sharing(True, run, free=15, numbers=0)
    # label switching's 150 points: shared for 1000 draws, its own program for 4000
    assert cheap.worth_sharing(True, run, free=14, numbers=150)
    longer = run._replace(warmup=1000, draws=4000)
    assert not cheap.worth_sharing(True, longer, free=14, numbers=150)
    assert cheap.worth_sharing(True, longer, free=0, numbers=150)  # no free slot: no waste
    for batch in (1, 2, 16):  # the same choice in every chain layout
        assert not cheap.worth_sharing(True, longer._replace(batch=batch), free=14, numbers=150)


def test_a_run_that_could_not_keep_the_shared_programs_gets_the_one_chain_pilot():
    """Told before the pilot, from the run's scans and the data's numbers only: label switching
    (150 points) shares at the CLI's 4 × (500 + 1000) and at ``bench multimodal``'s, not at
    4 × (1000 + 4000), where even 8 free slots would cost more than a program of its own (the
    shared pilot ran 5.8 s there, for nothing). Then the pilot is one chain on a program of its
    own, and no chain layout enters the choice."""
    assert sharing_pays(RunLayout(warmup=500, draws=1000), numbers=150)
    assert sharing_pays(RunLayout(warmup=1000, draws=4000), numbers=0)  # no data
    assert not sharing_pays(RunLayout(warmup=1000, draws=4000), numbers=150)
    for batch in (1, 4, 16):
        assert not sharing_pays(RunLayout(batch=batch, warmup=1000, draws=4000), numbers=150)
    model = get_model("mvn_mean", n=20, dim=2, data_seed=3)  # 40 numbers
    short, long = RunLayout(warmup=40, draws=30), RunLayout(warmup=40, draws=20_000)
    assert sharing_pays(short, 40) and not sharing_pays(long, 40)
    shared = get_sampler("pt", model, layout=short)
    alone = get_sampler("pt", model, layout=long)
    assert shared.facts["pilot"]["shared_programs"] and shared.options.capacity is not None
    assert "shared_programs" not in alone.facts["pilot"] and alone.options.capacity is None
    assert alone.facts["pilot"]["chains"] == 1


def test_a_run_placed_by_the_pilot_draws_as_a_run_given_its_rungs():
    """The pilot's run (its programs, its algorithm's functions) and a run built from the
    resolved options (no pilot: ``start_betas``, ``rungs`` and ``capacity`` given) give the same
    draws, bit for bit."""
    model = get_model("mvn_mean", n=20, dim=2, data_seed=3)
    layout = RunLayout(batch=2, warmup=40, draws=30, chunk=2)
    piloted = get_sampler("pt", model, layout=layout)
    assert piloted.options.capacity == [16, 16] and piloted.facts["pilot"]["shared_programs"]
    given = get_sampler("pt", model, **piloted.options.model_dump())
    assert "pilot" not in given.facts and given.facts["rung_window"] == piloted.facts[
        "rung_window"]
    runs = [run_chains(model, algorithm, key=3, chains=2, draws=30, warmup=40, progress=False)
            for algorithm in (piloted, given)]
    for name in ("theta",):
        np.testing.assert_array_equal(runs[0].idata.posterior[name].values,
                                      runs[1].idata.posterior[name].values)
    np.testing.assert_array_equal(runs[0].idata.sample_stats["beta"].values,
                                  runs[1].idata.sample_stats["beta"].values)
    assert runs[0].idata.sample_stats["beta"].shape[-1] == piloted.options.rungs


def test_a_costly_models_pilot_keeps_a_program_of_its_own():
    """A GP's O(n³) evaluations, or 10⁴ data points: the shared pilot's 4 chains × 31 slots
    would cost more than one chain on 19 rungs (gp_regression: 165 s against 65 s; mixture,
    n = 10⁴: 51.5 s against 33.2 s), so it is not used; the benchmark's label switching
    (n = 150) and the data-free targets keep it."""
    assert costly(get_model("gp_regression")) and costly(get_model("mixture", n=10_000))
    assert not costly(get_model("gauss_mixture")) and not costly(get_model("mixture", n=150))


def test_a_costly_models_pilot_fits_in_one_chains_warmup():
    """The one-chain pilot runs as many rounds as fit in the run's warmup (8 rounds, 339 scans,
    for 500 warmup steps; the full 10 rounds are 1363 scans, 20% of a tall run's seconds)."""
    assert [pilot_rounds(10, True, w) for w in (100, 500, 2000, 10**6)] == [6, 8, 10, 10]
    assert pilot_rounds(10, True, 1) == 2  # Λ̂ needs a round that sees every pair
    model = get_model("mixture", n=2500, means=[-1.0, 1.0])
    assert costly(model)
    pilot = get_sampler("pt", model, layout=RunLayout(warmup=150)).facts["pilot"]
    assert pilot["scans"] == pilot_steps(True, 6) <= 150
