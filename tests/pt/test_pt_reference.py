"""PT's reference (issue 32): the prior, a Gaussian q fitted to the target in warmup
(``variational``), or both legs joined at the target (``stabilized``);
:mod:`tempering.ladders.reference`.

- q is a normalised Gaussian (diagonal or full) and moment matching recovers a sample's moments.
- The path's ends: the prior path is bit for bit the powered likelihood; from q, log q at β = 0
  and the target at β = 1; an inactive q (before its first fit) leaves the prior path.
- Each leg of a stabilized line is placed on its own and the target stays at s = 1.
- The stepping-stone log evidence on a conjugate target matches the exact log Z within its MCSE
  with ``variational`` and ``stabilized`` references, and a q whose log density is off by a
  constant (not normalised) is caught by the same check.
- Geweke (slow): PT on a frozen q leaves the posterior invariant; a q that keeps being refitted
  in sampling does not, and the same test catches it.
- Λ (slow): on the 1-D barrier model with a frozen q, the sum of swap rejections over an
  adapted schedule matches Λ = ∫ λ(β) dβ by quadrature, for the q path as for the prior path.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats as scipy_stats
from support import cases, check_geweke, conjugate_geweke, conjugate_model

from tempering.algorithms.pt.algorithm import parallel_tempering
from tempering.algorithms.pt.rounds import Rounds
from tempering.algorithms.pt.sampler import PTOptions, build_over
from tempering.algorithms.pt.summary import swap_summary
from tempering.algorithms.rungs import carried_params
from tempering.kernels import KERNELS
from tempering.ladders import adaptive_power_ladder
from tempering.ladders.reference import (
    GaussianReference,
    equal_barrier_legs,
    fitted_reference,
    gaussian_log_density,
    path_density,
    second_moment,
)
from tempering.ladders.tempering import tempered_density
from tempering.run.driver import run_chains

N_OBS, DIM = 4, 2


def _q(mean, scale):
    return GaussianReference(jnp.asarray(mean, float), jnp.asarray(scale, float),
                             jnp.ones((), bool))


def test_gaussian_reference_is_normalised_diagonal_and_full():
    theta = np.array([0.3, -1.2, 2.0])
    mean, sd = np.array([0.1, 0.5, 1.0]), np.array([0.7, 1.5, 2.0])
    diag = float(gaussian_log_density(_q(mean, sd), jnp.asarray(theta)))
    assert diag == pytest.approx(scipy_stats.norm.logpdf(theta, mean, sd).sum(), rel=1e-12)
    cov = np.array([[1.0, 0.3, 0.1], [0.3, 2.0, -0.4], [0.1, -0.4, 1.5]])
    full = float(gaussian_log_density(_q(mean, np.linalg.cholesky(cov)), jnp.asarray(theta)))
    assert full == pytest.approx(scipy_stats.multivariate_normal.logpdf(theta, mean, cov),
                                 rel=1e-12)


def test_moment_matching_recovers_the_draws_moments():
    draws = np.random.default_rng(0).normal(size=(500, 3)) @ np.array(
        [[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [0.0, -0.3, 0.5]]) + 1.5
    for full in (False, True):
        outer = sum(np.asarray(second_moment(jnp.asarray(d), full)) for d in draws)
        q = fitted_reference(jnp.asarray(draws.sum(0)), jnp.asarray(outer),
                             jnp.asarray(float(len(draws))), full)
        np.testing.assert_allclose(q.mean, draws.mean(0), rtol=1e-10)
        cov = np.cov(draws.T, bias=True)
        fitted = (np.asarray(q.scale) @ np.asarray(q.scale).T if full
                  else np.asarray(q.scale) ** 2)
        np.testing.assert_allclose(fitted, cov if full else np.diag(cov), rtol=1e-6)
        assert bool(q.active)


def test_path_ends_and_legs():
    y = jnp.asarray(np.random.default_rng(1).normal(size=(N_OBS, DIM)) + 0.5)
    model = conjugate_model(y, normalised=True)
    q = _q([0.4, 0.2], [0.6, 0.8])
    theta = jnp.asarray([0.3, -0.7])
    log_p, log_l = float(model.log_prior(theta)), float(model.log_lik(theta))
    log_q = float(gaussian_log_density(q, theta))
    for s in (0.0, 0.37, 1.0):  # the prior path is the powered likelihood, bit for bit
        old = float(tempered_density(model, jnp.asarray(s))(theta))
        assert float(path_density(model, jnp.asarray(s), "prior", None)(theta)) == old
        assert old == log_p + s * log_l
    at = {s: float(path_density(model, jnp.asarray(s), "variational", q)(theta))
          for s in (0.0, 0.25, 1.0)}
    assert at[0.0] == pytest.approx(log_q)
    assert at[1.0] == pytest.approx(log_p + log_l)
    assert at[0.25] == pytest.approx(0.75 * log_q + 0.25 * (log_p + log_l))
    stabilized = {s: float(path_density(model, jnp.asarray(s), "stabilized", q)(theta))
                  for s in (1.75, 0.25)}
    assert stabilized[1.75] == pytest.approx(at[0.25])  # s = 2 − β on the variational leg
    assert stabilized[0.25] == pytest.approx(log_p + 0.25 * log_l)  # the prior leg
    inactive = q._replace(active=jnp.zeros((), bool))
    assert float(path_density(model, jnp.asarray(0.25), "variational", inactive)(theta)) \
        == pytest.approx(log_p + 0.25 * log_l)


def test_each_leg_is_placed_on_its_own_and_the_target_stays():
    line = jnp.asarray([2.0, 1.7, 1.3, 1.0, 0.6, 0.3, 0.1, 0.0])
    rejection = jnp.asarray([0.1, 0.3, 0.5, 0.2, 0.2, 0.6, 0.1])
    new = np.asarray(equal_barrier_legs(line, rejection, 3))
    assert new[3] == 1.0 and new[0] == 2.0 and new[-1] == 0.0
    assert np.all(np.diff(new) < 0)
    assert not np.allclose(new, np.asarray(line))


def _exact_log_evidence(y: np.ndarray) -> float:
    n = y.shape[0]
    cov = np.eye(n) + np.ones((n, n))
    return float(sum(scipy_stats.multivariate_normal.logpdf(y[:, d], np.zeros(n), cov)
                     for d in range(y.shape[1])))


def _evidence_run(reference: str, log_q=gaussian_log_density):
    """PT (RWM inner, 7 rungs) on the normalised conjugate model; q fitted in warmup's rounds
    (rounds 5 and 6 of 7); the stepping-stone summary and the exact log Z."""
    y = np.random.default_rng(3).normal(size=(N_OBS, DIM)) + 0.8
    model = conjugate_model(jnp.asarray(y), normalised=True)
    options = PTOptions(inner="rwm", rungs=7, reference=reference).resolve(model)
    ladder = adaptive_power_ladder(model, options.betas(), reference, log_q=log_q)
    algorithm = build_over(model, options, ladder, keep_all_rungs=None, adaptive=True)
    result = run_chains(model, algorithm, key=4, chains=2, draws=3000, warmup=600,
                        progress=False)
    stats = {k: np.asarray(v.values) for k, v in result.idata.sample_stats.data_vars.items()}
    return swap_summary(stats), _exact_log_evidence(y)


@pytest.mark.parametrize("reference", [
    "variational", pytest.param("stabilized", marks=pytest.mark.slow)])  # (~15 s each)
def test_log_evidence_matches_the_exact_one(reference):
    summary, exact = _evidence_run(reference)
    assert summary["reference"] == reference and summary["log_z_is_evidence"]
    error = abs(summary["log_z_ratio"] - exact)
    assert error < 4 * summary["log_z_ratio_se"] + 1e-3, (summary["log_z_ratio"], exact)
    if reference == "stabilized":
        prior_leg = summary["legs"][1]
        assert abs(prior_leg["log_evidence"] - exact) < 4 * prior_leg["log_evidence_se"] + 1e-3


def test_a_wrongly_normalised_q_is_caught():
    summary, exact = _evidence_run("variational", lambda q, t: gaussian_log_density(q, t) + 0.5)
    assert summary["reference"] == "variational"
    assert abs(summary["log_z_ratio"] - exact) > 4 * summary["log_z_ratio_se"]


# ------------------------------------------------------------------------------- Geweke (slow)

Q_FROZEN = ([0.2, -0.1], [0.8, 1.3])
GEWEKE_BETAS = np.array([1.0, 0.0])  # two rungs: the schedule cannot move, only q can


def _geweke_build(model, start):
    spec = KERNELS.get("rwm")
    bound = spec.bind(spec.options(step_size=0.8), DIM)
    ladder = adaptive_power_ladder(model, GEWEKE_BETAS, "variational", start_reference=start)
    return parallel_tempering(
        ladder, bound, spec.rung_params(bound, GEWEKE_BETAS), swap="deo",
        rounds=Rounds(4, lambda b, old, inner: inner, target=0, fit_reference=False,
                      first_fit=0))


def _exact_q_rung(key, q, y):
    """An exact draw from rung 1 (β = 0): q itself."""
    return q.mean + q.scale * jax.random.normal(key, (DIM,))


def _geweke_updater(keeps_fitting: bool):
    """Four PT scans from an exact q-rung replica: on the frozen q, or (BROKEN) with warmup's
    rounds still running, which refit q from the target's draws after scans 1 and 3."""

    def update(key, theta, y):
        k_init, k_hot, k_parity, k_run = jax.random.split(key, 4)
        q = _q(*Q_FROZEN)
        algorithm = _geweke_build(conjugate_model(y), q)
        state = algorithm.init(k_init, jnp.stack([theta, _exact_q_rung(k_hot, q, y)]))
        state = state._replace(iteration=jax.random.bernoulli(k_parity).astype(jnp.int32))
        if keeps_fitting:
            state, _, _ = algorithm.warmup(k_run, state, algorithm.params, 4)
        else:
            for k in jax.random.split(k_run, 4):
                state, _ = algorithm.step(k, state, algorithm.params)
        return algorithm.position(state)

    return update


@pytest.mark.slow
@pytest.mark.parametrize("case", cases(correct={"frozen_q": False},
                                       broken={"q_refitted_in_sampling": True}),
                         ids=lambda c: c.name)
def test_frozen_reference_geweke(case):
    check_geweke(case, conjugate_geweke(_geweke_updater(case.build), n_obs=N_OBS, dim=DIM,
                                        chains=16, iterations=8000, seed=7))


# ---------------------------------------------------------------------------------- Λ (slow)

def _lambda_by_quadrature(log_gamma, log_ref, grid: np.ndarray, points: int = 201) -> float:
    """Λ = ∫₀¹ λ(β) dβ, λ(β) = ½ E|V(θ) − V(θ′)| for θ, θ′ i.i.d. from π_β ∝ ref^(1−β) γ^β and
    V = log γ − log ref (Syed et al. 2021, Eq. 11), on a 1-D grid, Simpson in β."""
    v = log_gamma - log_ref
    betas = np.linspace(0.0, 1.0, points)
    order = np.argsort(v)
    values = []
    for beta in betas:
        log_w = log_ref + beta * v
        w = np.exp(log_w - log_w.max())
        w = (w / w.sum())[order]
        sorted_v = v[order]
        cdf = np.cumsum(w)
        # E|X − X′| = 2 Σ_j w_j x_j (2 F_j − w_j − 1) for a discrete law sorted by x
        values.append(float(np.sum(w * sorted_v * (2.0 * cdf - w - 1.0))))
    simpson = np.ones(points)
    simpson[1:-1:2], simpson[2:-1:2] = 4.0, 2.0
    return float(np.sum(simpson * np.asarray(values)) * (betas[1] - betas[0]) / 3)


@pytest.mark.slow
def test_sum_of_rejections_matches_the_quadrature_barrier_for_both_references():
    from tempering.models.barrier import communication_barrier
    from tempering.models.registry import get_model

    model = get_model("barrier", precision="float64")  # 1-D, modes at ±20; q below is float64
    q = _q([0.0], [15.0])
    grid = np.linspace(-80.0, 80.0, 8001)
    theta = jnp.asarray(grid)[:, None]
    log_gamma = np.asarray(jax.vmap(lambda t: model.log_prior(t) + model.log_lik(t))(theta))
    log_q = np.asarray(jax.vmap(lambda t: gaussian_log_density(q, t))(theta))
    truth_q = _lambda_by_quadrature(log_gamma, log_q, grid)
    truth_prior = communication_barrier(model, 0.0, 1.0)
    prior_check = _lambda_by_quadrature(
        log_gamma, np.asarray(jax.vmap(model.log_prior)(theta)), grid)
    assert prior_check == pytest.approx(truth_prior, rel=0.01)  # the quadrature itself
    assert truth_q < truth_prior
    options = PTOptions(inner="rwm", rungs=12, step_size=0.5, inner_steps=5,
                        reference="variational").resolve(model)
    spec, bound = options.bind_inner(model.dim)
    ladder = adaptive_power_ladder(model, options.betas(), "variational", start_reference=q)
    frozen = Rounds(options.rounds, lambda new, old, inner: carried_params(inner, old, new),
                    fit_reference=False, first_fit=10**6)  # q never refitted
    algorithm = parallel_tempering(ladder, bound, spec.rung_params(bound, options.betas()),
                                   swap="deo", inner_steps=5, rounds=frozen)
    result = run_chains(model, algorithm, key=1, chains=4, draws=4000, warmup=2046,
                        progress=False)
    stats = result.idata.sample_stats
    prob, proposed = stats["swap_accept_prob"].values, stats["swap_proposed"].values
    estimate = (1.0 - prob.sum(axis=1) / np.maximum(proposed.sum(axis=1), 1)).sum(axis=1)
    assert np.all(np.abs(estimate - truth_q) < 0.1 * truth_q), (estimate, truth_q, truth_prior)


def test_leg_round_trips_count_target_to_end_and_back():
    from tempering.algorithms.pt.legs import leg_round_trips

    # 3 rungs, target 1; the replica id on each rung per draw. Replica 0 walks 1 → 0 → 1 → 2 → 1
    # (one trip on each leg); replica 1 reaches the target once and goes back to rung 0 without
    # returning; replica 2 reaches the target at draw 3 and leaves again.
    index = np.asarray([[1, 0, 2], [0, 1, 2], [1, 0, 2], [1, 2, 0], [1, 0, 2]])[None]
    assert leg_round_trips(index, 1, 0) == 1 and leg_round_trips(index, 1, 2) == 1
    assert leg_round_trips(index[:, :4], 1, 2) == 0  # replica 0 not yet back from rung 2
