"""Self-tuning PT (issue 15): the equal-barrier placement, the warmup rounds, the pilot that
chooses the rungs and places SPT's subsets, and the frozen schedule's exactness."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from tempering.algorithms.registry import get_sampler
from tempering.ladders import cumulative_barrier, equal_barrier_betas, geometric_betas
from tempering.models.registry import get_model
from tempering.run.driver import run_chains


def test_equal_barrier_betas_spread_the_barrier_evenly():
    betas = geometric_betas(6, 0.01)
    rejection = np.array([0.6, 0.1, 0.05, 0.05, 0.2])
    new = np.asarray(equal_barrier_betas(betas, rejection))
    assert new[0] == 1.0 and new[-1] == betas[-1] and np.all(np.diff(new) < 0)
    # the interpolated Λ̂ at the new rungs is evenly spaced: each pair carries Λ̂ / 5
    at_new = np.interp(-new, -betas, np.asarray(cumulative_barrier(rejection)))
    assert np.allclose(np.diff(at_new), rejection.sum() / 5, atol=1e-6)
    # the heavy first pair gets narrower, the light middle pairs wider
    assert new[1] > betas[1] and (new[2] - new[4]) > (betas[2] - betas[4])
    assert np.array_equal(np.asarray(equal_barrier_betas(betas, np.zeros(5))), betas)
    assert len(equal_barrier_betas(betas, rejection, rungs=9)) == 9


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_interp_is_jnp_interp_bit_for_bit(dtype):
    """The schedule's interpolation (``numerics.interp``: one comparison instead of
    ``searchsorted``'s loop) gives jnp.interp's numbers: inside, at the knots, beyond both ends,
    and where knots repeat (a rung window's free slots)."""
    import jax

    from tempering.numerics import interp

    xp = jnp.asarray([0.0, 0.1, 0.1, 0.35, 0.35, 0.35, 0.9, 1.7], dtype)
    fp = jnp.asarray([1.0, 0.8, 0.8, 0.5, 0.45, 0.45, 0.1, 0.0], dtype)
    x = jnp.asarray([-0.2, 0.0, 0.05, 0.1, 0.2, 0.35, 0.36, 0.9, 1.2, 1.7, 2.5], dtype)
    x = jnp.concatenate([x, jnp.linspace(-0.1, 1.8, 97, dtype=dtype)])
    for run in (lambda f: f, jax.jit):
        ours = np.asarray(run(interp)(x, xp, fp))
        theirs = np.asarray(run(jnp.interp)(x, xp, fp))
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)


def test_stepping_stone_sums_the_pairs_and_knows_the_prior_end():
    from tempering.algorithms.pt.mixing import stepping_stone

    log_up = np.full((2, 40, 3), np.nan)
    log_up[:, ::2, :] = [0.5, -1.0, 2.0]  # proposed every other draw (DEO), constant terms
    out = stepping_stone(log_up, np.array([1.0, 0.5, 0.2, 0.0]))
    assert out["log_z_ratio"] == pytest.approx(1.5) and out["log_z_ratio_se"] == 0.0
    assert out["log_z_is_evidence"]
    log_up[0, ::2, 0] = np.log(np.r_[np.full(10, 1.0), np.full(10, 3.0)])  # mean 2: log 2
    out = stepping_stone(log_up, np.array([1.0, 0.5, 0.2, 0.1]))
    assert out["log_z_ratio_chains"][0] == pytest.approx(np.log(2.0) - 1.0 + 2.0)
    assert out["log_z_ratio_se"] > 0 and not out["log_z_is_evidence"]


def test_stepping_stones_error_counts_the_pairs_covariance():
    """Two pairs whose weights move together (one replica's energy read by both, as swaps make
    adjacent pairs covary): the sum's standard error is twice one pair's, where pairs taken
    as independent give √2 times (the error found too small by a seeded run, 2026-11-29);
    pairs that move oppositely cancel."""
    from tempering.algorithms.pt.mixing import stepping_stone

    w = np.random.default_rng(0).uniform(0.5, 1.5, size=400)
    one = stepping_stone(np.log(w)[None, :, None], None)["log_z_ratio_se"]
    together = np.log(np.stack([w, w], axis=-1))[None]
    assert stepping_stone(together, None)["log_z_ratio_se"] == pytest.approx(2 * one)
    opposite = np.log(np.stack([w, 2 * np.mean(w) - w], axis=-1))[None]
    assert stepping_stone(opposite, None)["log_z_ratio_se"] < 0.1 * one


def test_warmup_rounds_move_the_schedule_and_sampling_keeps_it():
    model = get_model("mixture")
    algorithm = get_sampler("pt", model, inner="rwm", rungs=6, rounds=6, reference="prior")
    assert algorithm.options.schedule == "adaptive" and algorithm.options.swap == "deo"
    assert algorithm.options.prior_rung and algorithm.facts["betas"][-1] == 0.0
    # RWM adapts by default: a quarter of warmup tunes it first, a quarter last, so 126 scans
    # leave 64 for the rounds, 6 complete rounds (2^6 − 1 scans)
    result = run_chains(model, algorithm, key=2, chains=2, draws=50, warmup=126,
                        progress=False)
    schedule = np.asarray(result.params["schedule"])  # (chain, round, rung)
    rejection = np.asarray(result.params["rejection"])
    assert schedule.shape == (2, 6, 6) and rejection.shape == (2, 6, 5)
    assert np.all(np.isfinite(schedule)) and np.isnan(rejection[:, 0]).any()  # round 0: DEO
    assert not np.allclose(schedule[:, -1], algorithm.facts["betas"])  # it moved
    final = np.asarray(result.final_state.view[0])
    assert np.array_equal(final, schedule[:, -1])  # sampling ran on the last round's schedule
    assert np.all(final[:, 0] == 1.0) and np.all(final[:, -1] == 0.0)
    # each rung's step size was tuned on the last schedule, not left at σ β^(−1/2)
    tuned = np.asarray(result.params["inner"]["step_size"])[..., 0]  # (chain, rung)
    rule = 0.1 * np.maximum(final, final[:, -2:-1]) ** -0.5
    assert not np.allclose(tuned, rule)


def test_fixed_schedule_options_keep_the_papers_defaults():
    model = get_model("mixture")
    fixed = get_sampler("pt", model, schedule="fixed").options
    assert (fixed.swap, fixed.prior_rung) == ("sweep", False)
    kept = get_sampler("pt", model, keep_all_rungs=True).options
    assert kept.schedule == "fixed"
    for bad, field in (({"keep_all_rungs": True, "schedule": "adaptive"}, "keep_all_rungs"),
                       ({"rungs": "auto", "schedule": "fixed"}, "rungs"),
                       ({"start_betas": [1.0, 0.5], "rungs": 3}, "start_betas")):
        with pytest.raises(Exception, match=field):
            get_sampler("pt", model, **bad)


def test_rungs_auto_and_the_spt_pilot_record_their_schedule():
    model = get_model("mixture")
    auto = get_sampler("pt", model, inner="rwm", rungs="auto", reference="prior").options
    assert isinstance(auto.rungs, int) and auto.rungs == len(auto.start_betas)
    again = get_sampler("pt", model, **auto.model_dump()).options
    assert again == auto  # resolved options rebuild the same sampler, without a new pilot
    with pytest.raises(Exception, match="rounds: the rungs=auto pilot needs 2 rounds or more"):
        get_sampler("pt", model, rungs="auto", rounds=1)  # DEO's first round sees half the pairs
    spt = get_sampler("spt", model, inner="rwm", rungs=5)
    assert spt.options.start_betas is not None and not spt.options.prior_rung
    assert spt.facts["sizes"] == [max(1, round(b * 100)) for b in spt.options.start_betas]
    assert spt.facts["betas"] != list(geometric_betas(5, 0.125))


@pytest.mark.slow
def test_same_seed_same_schedule_whatever_the_layout():
    model = get_model("mixture")
    algorithm = get_sampler("pt", model, inner="rwm", rungs=4, rounds=4)
    runs = [run_chains(model, algorithm, key=5, chains=2, draws=20, warmup=15, progress=False,
                       chain_method=method) for method in ("vmap", "sequential")]
    assert np.allclose(np.asarray(runs[0].params["schedule"]),
                       np.asarray(runs[1].params["schedule"]), equal_nan=True)
    assert jnp.allclose(runs[0].idata.posterior["mu"].values, runs[1].idata.posterior["mu"].values)


def _rejections(result) -> np.ndarray:
    """Sampling's swap rejection rate per chain and pair, (chain, pair)."""
    stats = result.idata.sample_stats
    prob, proposed = stats["swap_accept_prob"].values, stats["swap_proposed"].values
    return 1.0 - prob.sum(axis=1) / np.maximum(proposed.sum(axis=1), 1)


def _barrier_run(schedule: str, **options):
    model = get_model("barrier")  # 1-D, modes at ±20, Λ(0, 1) = 3.949 by quadrature
    algorithm = get_sampler("pt", model, inner="rwm", rungs=12, step_size=0.5, inner_steps=5,
                            beta_min=0.001, prior_rung=True, schedule=schedule,
                            reference="prior", **options)  # Λ of the prior path
    # RWM adapts by default: 2046 warmup scans leave 1024 for the rounds (10 rounds, the last
    # 512 scans), a quarter tuning the kernels before and a quarter after
    return model, run_chains(model, algorithm, key=1, chains=4, draws=4000, warmup=2046,
                             progress=False)


def _equal_within_round_error(rejection: np.ndarray) -> bool:
    """Every chain's pairs within 4 binomial standard errors of that chain's mean rejection,
    the error of the last warmup round's estimate (512 scans: 256 proposals per pair)."""
    mean = rejection.mean(axis=1, keepdims=True)
    return bool(np.all(np.abs(rejection - mean) < 4 * np.sqrt(mean * (1 - mean) / 256)))


@pytest.mark.slow
def test_adapted_schedule_measures_the_quadrature_barrier_with_equal_rejections():
    from tempering.models.barrier import communication_barrier

    model, adapted = _barrier_run("adaptive")
    truth = communication_barrier(model, 0.0, 1.0)
    rejection = _rejections(adapted)
    estimate = rejection.sum(axis=1)  # Λ̂ per chain
    assert np.all(np.abs(estimate - truth) < 0.1 * truth), (estimate, truth)
    assert _equal_within_round_error(rejection), rejection
    # stepping stone over the swaps on the adapted schedule (its last rung is the prior)
    from tempering.algorithms.pt.summary import swap_summary
    from tempering.models.barrier import barrier_log_evidence

    stats = {k: np.asarray(v.values) for k, v in adapted.idata.sample_stats.data_vars.items()}
    summary = swap_summary(stats)
    assert summary["log_z_is_evidence"]
    error = abs(summary["log_z_ratio"] - barrier_log_evidence(model))
    assert error < 4 * summary["log_z_ratio_se"], (summary["log_z_ratio"], error)
    _, fixed = _barrier_run("geometric", swap="deo")  # control: same rungs, no adaptation
    assert not _equal_within_round_error(_rejections(fixed))


@pytest.mark.slow
def test_deo_round_trips_reach_the_optimal_rate_and_seo_falls_short():
    """Syed et al. Theorem 3 with dense rungs: DEO's round-trip rate → 1/(2 + 2Λ); the
    reversible SEO's is about N times lower."""
    from tempering.models.barrier import communication_barrier

    model = get_model("barrier")
    optimal = 1.0 / (2.0 + 2.0 * communication_barrier(model, 0.0, 1.0))
    rates = {}
    for swap in ("deo", "seo"):
        algorithm = get_sampler("pt", model, inner="rwm", rungs=30, step_size=0.5,
                                inner_steps=3, beta_min=0.001, swap=swap, reference="prior")
        result = run_chains(model, algorithm, key=4, chains=2, draws=3000, warmup=1023,
                            progress=False)
        trips = result.idata.sample_stats["round_trips"].values
        rates[swap] = float(np.mean(trips[:, -1] - trips[:, 0]) / (trips.shape[1] - 1))
    assert abs(rates["deo"] - optimal) < 0.25 * optimal, (rates, optimal)
    assert rates["seo"] < 0.5 * optimal, (rates, optimal)


def _mode_masses_within_mcse(result, model) -> bool:
    """Every chain visits every mode, and each mode's share of its draws lies within 4 MCSE of
    the exact weight (MCSE from the ESS of the mode's indicator). A chain that never reached a
    mode has no ESS to widen the bound with: it fails (on 5000 draws the lightest of the 20
    modes, weight 0.004, is expected 20 times)."""
    import arviz as az

    from tempering.models.barrier import barrier_posterior, nearest_mode

    weights, centres, _ = barrier_posterior(model)
    theta = result.idata.posterior["theta"].values  # (chain, draw, 2)
    modes = np.asarray(nearest_mode(theta, centres))
    for chain in modes:
        for j, w in enumerate(weights):
            hits = (chain == j).astype(float)
            if hits.std() == 0:
                return False
            ess = max(float(az.ess(hits[None, :])), 1.0)
            if abs(hits.mean() - w) > 4 * np.sqrt(w * (1 - w) / ess) + 1e-3:
                return False
    return True


@pytest.mark.slow
def test_adaptive_pt_weighs_twenty_unequal_modes_and_a_short_ladder_does_not():
    model = get_model("barrier", layout="grid20")  # 2-D, weights ∝ j, Λ(0, 1) = 2.48
    adaptive = get_sampler("pt", model, inner="rwm", rungs=10, step_size=0.5, inner_steps=3,
                           beta_min=0.001, reference="prior")
    result = run_chains(model, adaptive, key=3, chains=4, draws=5000, warmup=1023,
                        progress=False)
    assert _mode_masses_within_mcse(result, model)
    # the control as written, before inner kernels adapted by default (tuned, RWM on this short
    # ladder weighs the modes within their MCSE too: the check can fail, shown on the untuned one)
    short = get_sampler("pt", model, inner="rwm", rungs=3, beta_min=0.2, step_size=0.5,
                        inner_steps=3, schedule="fixed", adapt_step_size=False)
    control = run_chains(model, short, key=3, chains=4, draws=5000, warmup=1023,
                         progress=False)
    assert not _mode_masses_within_mcse(control, model)
