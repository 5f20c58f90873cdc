"""PT, SPT, TT and STT: tempered marginals, the cold chain's posterior, mode weights, counted cost
against the cost model, acceptance rates and round trips."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support import Z_BOUND, z_mean, z_sd

from tempering import get_model, run_chains, sample
from tempering.algorithms import get_sampler
from tempering.algorithms.cost_model import (
    paper_cost_ratios,
    pt_iteration_costs,
    tt_iteration_cost,
)
from tempering.algorithms.pt.algorithm import AT_BOTTOM, AT_TOP
from tempering.models.base import Model, ParamSpec
from tempering.models.mvn_mean import analytic_posterior

TEMPERING = ["pt", "spt", "tt", "stt"]


def gaussian_likelihood_model(prior: bool = False) -> Model:
    """θ ∈ R with log-likelihood log N(θ | 0, 1) (one datum, x = 0) and a flat (or no) prior, so
    the rung at inverse temperature β is N(0, 1/β)."""
    return Model(
        name="unit_gaussian", data={"x": jnp.zeros((1,))},
        log_prior_fn=lambda theta: -0.5 * jnp.sum(theta**2) * 1e-12 if prior else 0.0 * theta[0],
        log_lik_fn=lambda theta, data: jnp.sum(-0.5 * (theta[0] - data["x"]) ** 2),
        alpha=1.0, params=(ParamSpec("theta", (1,)),),
        constrain_fn=lambda theta: {"theta": theta}, init_fn=lambda key: jnp.zeros(1))


def replica_draws(algorithm, key, position, draws):
    """Positions of every rung (draw, rung, dim) from one PT chain, after 200 warmup steps."""
    state = algorithm.init(key, position)

    def body(state, k):
        state, _ = algorithm.step(k, state, algorithm.params)
        return state, state.replicas.position

    keys = jax.random.split(jax.random.fold_in(key, 1), draws + 200)
    _, out = jax.jit(lambda s, ks: jax.lax.scan(body, s, ks))(state, keys)
    return np.asarray(out[200:])


def test_pt_replicas_have_variance_one_over_beta():
    model = gaussian_likelihood_model()
    algorithm = get_sampler("pt", model, rungs=5, beta_min=0.1, step_size=1.5,
                            schedule="fixed")
    betas = np.asarray(algorithm.facts["betas"])
    runs = np.stack([replica_draws(algorithm, jax.random.key(s), jnp.zeros(1), 6000)
                     for s in range(4)])  # (chain, draw, rung, 1)
    for m, beta in enumerate(betas):
        draws = runs[:, :, m, 0]
        assert abs(z_mean(draws, 0.0)) < Z_BOUND, (m, "mean")
        assert abs(z_mean(draws**2, 1.0 / beta)) < Z_BOUND, (m, beta, np.mean(draws**2))


def test_the_variance_check_can_fail():
    """Replicas drawn at the wrong temperature (β·1.2) fail the same z-test."""
    rng = np.random.default_rng(0)
    draws = rng.standard_normal((4, 6000)) / np.sqrt(0.3 * 1.2)
    assert abs(z_mean(draws**2, 1.0 / 0.3)) > Z_BOUND


@pytest.fixture(scope="module")
def mvn():
    return get_model("mvn_mean", n=64, dim=2, data_seed=5)


# In make test-slow (~34 s): every tempering sampler's exactness stays in the default suite
# through its Geweke test (test_tempering_geweke.py) and PT's defaults through tests/pt.
@pytest.mark.slow
@pytest.mark.parametrize("name", TEMPERING)
def test_cold_chain_matches_analytic_posterior(mvn, name):
    algorithm = get_sampler(name, mvn, rungs=4, beta_min=0.25, step_size=0.12)
    idata = sample(mvn, algorithm, key=31, chains=4, draws=1500, warmup=200, progress=False)
    theta = idata.posterior["theta"].values
    mean, cov = analytic_posterior(mvn)
    for d in range(2):
        assert abs(z_mean(theta[:, :, d], mean[d])) < Z_BOUND, (name, d)
        assert abs(z_sd(theta[:, :, d], np.sqrt(cov[d, d]))) < Z_BOUND, (name, d)


MODE_CASES = {
    "pt": {"rungs": 7, "beta_min": 0.05},
    "pt_deo": {"rungs": 7, "beta_min": 0.05, "swap": "deo"},
    "spt": {"rungs": 7, "beta_min": 0.05},
    "tt": {"rungs": 7, "beta_min": 0.05, "inner_steps": 10},
    "stt": {"rungs": 7, "beta_min": 0.05, "inner_steps": 10},
}


@pytest.fixture(scope="module")
def mixture():
    return get_model("mixture", n=100, means=[-1.0, 1.0], data_seed=2)


# ~25 s each: all five in make test-slow (the cold chains' analytic tests stay in make test)
@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) for c in MODE_CASES])
def test_tempering_visits_both_label_orderings_equally(mixture, case):
    name = case.removesuffix("_deo")
    algorithm = get_sampler(name, mixture, **MODE_CASES[case])
    idata = sample(mixture, algorithm, key=8, chains=4, draws=2000, warmup=200,
                   init=np.array([-1.0, 1.0]), progress=False)
    mu = idata.posterior["mu"].values
    ordered = (mu[:, :, 0] < mu[:, :, 1]).astype(float)
    assert 0.0 < ordered.mean() < 1.0
    assert abs(z_mean(ordered, 0.5)) < Z_BOUND, (case, ordered.mean())
    # Swap and tempered-transition acceptance probabilities are probabilities, and not all zero.
    stats = idata.sample_stats
    key = "swap_accept_prob" if name in ("pt", "spt") else "tt_accept_prob"
    assert np.all((stats[key].values >= 0.0) & (stats[key].values <= 1.0))
    assert stats[key].values.max() > 0.0
    rates = stats["acceptance_rate"].values
    assert np.all((rates >= 0.0) & (rates <= 1.0))


def test_untempered_sampler_stays_in_its_starting_mode(mixture):
    idata = sample(mixture, get_sampler("rwm", mixture), key=8, chains=4, draws=2000, warmup=200,
                   init=np.array([-1.0, 1.0]), progress=False)
    mu = idata.posterior["mu"].values
    assert np.all(mu[:, :, 0] < mu[:, :, 1])


# SPT with HMC and DEO (~14 s) and STT with HMC (~16 s: five unrolled subset rungs of HMC) run in
# make test-slow; tests/reproductions/test_vdm2014.py checks SPT's counted cost (with MH)
# against the cost model
# in make test, and STT's is checked there with RWM
COST_CASES = [("pt", "rwm", "sweep"),
              pytest.param("spt", "hmc", "deo", marks=pytest.mark.slow), ("tt", "rwm", None),
              pytest.param("stt", "rwm", None, marks=pytest.mark.slow),  # STT's cost: tt's
              pytest.param("stt", "hmc", None, marks=pytest.mark.slow)]


@pytest.mark.parametrize(("name", "inner", "swap"), COST_CASES)
def test_counted_cost_equals_cost_model(mvn, name, inner, swap):
    # a fixed inner kernel: its warmup is plain scans, whose DEO parity the sampling costs follow
    options = {"rungs": 5, "beta_min": 0.125, "inner": inner, "inner_steps": 2,
               "adapt_step_size": False}
    evals = 1.0
    if inner == "hmc":
        options |= {"step_size": 0.02, "num_steps": 3}
        evals = 3.0
        if name in ("pt", "spt"):  # a fixed count: the jittered one's cost is
            options["jitter_steps"] = False  # tests/pt/test_pt_trajectory.py's
    if swap:
        options["swap"] = swap
    algorithm = get_sampler(name, mvn, **options)
    warmup, draws = 3, 10
    idata = sample(mvn, algorithm, key=1, chains=2, draws=draws, warmup=warmup, progress=False)
    costs = algorithm.facts["rung_costs"]
    if name in ("pt", "spt"):
        expected = pt_iteration_costs(costs, evals, 2, swap, draws, start=warmup)
    else:
        expected = np.full(draws, tt_iteration_cost(costs, evals, 2))
    for chain in range(2):
        np.testing.assert_allclose(idata.sample_stats["cost"].values[chain], expected, rtol=1e-12)
    if name.startswith("s"):  # subset ladders really are cheaper than the full data
        assert costs[-1] == pytest.approx((round(0.125 * 64) / 64) ** 1.0)


def test_cost_model_reproduces_the_papers_closed_forms():
    """Eqs. 15–16 at M = 6, β_* = 1/8 (the paper's 1.55/1.74 for α = 3 and 3.11/4.52 for α = 1)."""
    gp, iid = paper_cost_ratios(6, 0.125, 3.0), paper_cost_ratios(6, 0.125, 1.0)
    assert (round(gp["spt"], 2), round(gp["stt"], 2)) == (1.55, 1.74)
    assert (round(iid["spt"], 2), round(iid["stt"], 2)) == (3.11, 4.52)
    # Our SPT schedule with exact powers β_m^α and no swap cost is Eq. 15's geometric sum.
    betas = 0.125 ** (np.arange(7) / 6)
    sampling_only = pt_iteration_costs(betas**3, 1.0, 1, "sweep", 1)[0] - np.sum(
        betas[1:] ** 3 + betas[:-1] ** 3)
    assert sampling_only == pytest.approx(gp["spt"], rel=1e-12)


def simulate_round_trips(rungs: int, iterations: int, swap: str) -> int:
    """Pure-Python index process when every proposed swap is accepted."""
    index = list(range(rungs))
    last = [0] * rungs
    last[0] = AT_BOTTOM
    trips = 0
    for t in range(iterations):
        for m in range(rungs - 1, 0, -1):
            if swap == "sweep" or (m - 1) % 2 == t % 2:
                index[m - 1], index[m] = index[m], index[m - 1]
        if last[index[-1]] == AT_BOTTOM:
            last[index[-1]] = AT_TOP
        if last[index[0]] == AT_TOP:
            trips += 1
        last[index[0]] = AT_BOTTOM
    return trips


@pytest.mark.parametrize("swap", [pytest.param("sweep", marks=pytest.mark.slow), "deo"])
def test_round_trips_are_counted_exactly_with_a_deterministic_swapper(swap):
    """Every rung has the same density (zero likelihood), so every swap is accepted."""
    model = gaussian_likelihood_model()
    flat = Model(name="flat", data=model.data, log_prior_fn=lambda t: -0.5 * jnp.sum(t**2),
                 log_lik_fn=lambda t, d: 0.0 * t[0], alpha=1.0, params=model.params,
                 constrain_fn=model.constrain_fn, init_fn=model.init_fn)
    algorithm = get_sampler("pt", flat, rungs=5, swap=swap)
    result = run_chains(flat, algorithm, key=0, chains=1, draws=37, warmup=0, progress=False)
    stats = result.idata.sample_stats
    assert np.all(stats["swap_accepted"].values == stats["swap_proposed"].values)
    expected = [simulate_round_trips(5, t + 1, swap) for t in range(37)]
    np.testing.assert_array_equal(stats["round_trips"].values[0], expected)
    assert expected[-1] > 2
