"""The ``ensemble`` sampler (seed 004, Neal 2010) on a tiny Gaussian-process regression (issue 13).

Model: ``gp_neal2010`` (seed 004 Eq. 28 and its priors) with one covariate, so θ = (log ν, log η,
log σ), on both of its exact fast/slow splits: ``"eta"`` (Cholesky; slow log ν and
log ψ = log σ − log η, fast log η) and ``"eta_sigma"`` (eigendecomposition, Eq. 26; slow log ν,
fast log η and log σ).

Grid quadrature
    n = 30 points of Eq. 27 (data seed 3), covariate z₁ only. The posterior means are integrated on
    a 128³ grid over the mean ± 14 sd of a coarse pass (:func:`gp_grid.grid_posterior`), the
    (log η, log σ) planes from one eigendecomposition per log ν (the ``eta_sigma`` split's own
    formula, checked here against the model's Cholesky log density at random points to 1e-10).
    The marginals are skewed and log σ has a plateau tail (σ ≪ η r: the jitter takes the noise's
    place), hence the wide grid; :func:`gp_grid.check_grid` asserts that the edges are below 1e-5
    of the peaks and that the means move by < 1e-4 with every other point or the outer slabs
    dropped. The mass beyond the grid's log σ edge is about 1e-5 (measured on a grid to
    log σ = −14): it moves E[log σ] by ~3e-5. MCSEs of the MCMC means are 1.5e-3–1e-2, so the
    grid means are exact for this purpose. Each of the 4 ensembles × 2 splits runs 4 chains × 6000
    draws (200 burn-in, from the grid mean; coordinate-wise Metropolis on the slow variables with
    sd 0.8, about twice their posterior sds, acceptance ≈ 0.45; K = 10 for the one fast variable
    of ``eta``, the paper's K = 49 = 7 × 7 for ``eta_sigma``); every posterior mean and sd must be
    within :data:`~support.Z_BOUND` = 4 MCSEs (ArviZ) of the grid's (ESS ≈ 2000–14000). The sds
    matter: mapping back uniformly (broken) keeps the means but inflates the sds. Heavy tails make
    a short run's sd and its MCSE low together (z(sd) of −3.3 at 3000 draws, where longer runs show
    no bias), hence 6000 draws. Grid × ``eta_sigma`` runs by default; the other seven are
    ``slow`` (the Cholesky split's formulas are checked against the exact likelihood in
    ``test_gp_neal2010.py``, and the ensemble machinery does not depend on the split).

Geweke (2004), successive conditionals
    n = 6 points (covariate z₁ of Eq. 27, seed 5). Each iteration applies one ensemble transition
    θ | y and then draws y | θ ~ N(0, Σ(θ)); the model and split are rebuilt from the traced y in
    the jitted loop (:func:`traced_split`, which must match ``gp_neal2010_model``'s own splits).
    If the transition leaves p(θ | y) invariant, θ's marginal is the prior, known exactly: the
    records are the standardised θ_i and their squares minus one (E = 0), and the data fit
    yᵀΣ(θ′)⁻¹y / n − 1 of the new θ′ with the y it was drawn from ((θ′, y) ~ p(θ, y), so the fit is
    χ²_n / n − 1, E = 0): a transition that ignored y would keep the prior marginal but fail the
    fit. z-scores use ArviZ's MCSE of the 16 chains × 4000 iterations (ESS ≈ 1200–5000 for θ's
    moments) and must stay within :data:`~support.Z_BOUND`. Two deliberately broken transitions,
    patched in here only (not in ``src``), must leave it: mapping back to a member chosen
    uniformly (ignoring π/ξ_j: the fast variables random-walk; caught mainly by the fit, z ≈ 80),
    and the ensemble density with the mean of log π/ξ_j in place of the log of the mean of π/ξ_j
    (the slow log ν is pulled off its prior, z ≈ 18). Grid × ``eta_sigma`` and its uniform
    mapping back run by default (the mean-of-log density is also caught by the enumeration in
    ``test_ensemble_exact.py``); the other seven ensemble × split pairs and the other broken
    runs are ``slow``.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gp_grid import check_grid, grid_posterior, run_draws, z_scores
from support import Z_BOUND, GewekeCase, check_geweke, geweke_records, geweke_z_scores, z_sd

import tempering.algorithms.ensemble.algorithm as ensemble_module
import tempering.algorithms.ensemble.sampler as sampler_module
from tempering import get_sampler
from tempering.algorithms.ensemble.algorithm import EnsembleState, effective_members
from tempering.models.base import Model
from tempering.models.gp_neal2010 import (
    LOG_ETA_PRIOR,
    LOG_NU_PRIOR,
    LOG_SIGMA_PRIOR,
    gp_neal2010_model,
    log_normal_pdf,
    log_nu_prior,
    prior_draw,
    simulate,
    upsilon,
)
from tempering.models.gp_splits import ScaledGP, eta_sigma_split, eta_split

#: Ensemble size per split: K = m^D for a grid (D = 1 for ``eta``, 2 for ``eta_sigma``).
SIZE = {"eta": 10, "eta_sigma": 49}
#: Proposal sd of each slow variable: (log ν, log ψ) for ``eta``, log ν for ``eta_sigma``.
SLOW_SCALE = {"eta": [0.8, 0.8], "eta_sigma": [0.8]}
ENSEMBLES = ("grid", "independent", "exchangeable", "markov")

# --------------------------------------------------------------------------- grid quadrature

N_GRID, DATA_SEED_GRID = 30, 3
#: Where the coarse pass looks for the posterior of (log ν, log η, log σ).
COARSE = ((-8.0, 5.0), (-6.0, 5.0), (-8.0, 3.0))
GRID_CHAINS, GRID_DRAWS, GRID_SEED = 4, 6000, 11
DEFAULT_GRID_CASES = {("eta_sigma", "grid")}


def _grid_case(fast: str, ensemble: str):
    marks = () if (fast, ensemble) in DEFAULT_GRID_CASES else (pytest.mark.slow,)
    return pytest.param(fast, ensemble, marks=marks, id=f"{ensemble}-{fast}")


GRID_CASES = [_grid_case(fast, ensemble) for fast in ("eta", "eta_sigma") for ensemble in ENSEMBLES]


def eigen_on_grid(model: Model):
    """log π on a whole (log ν, log η, log σ) grid: one eigendecomposition of Υ'(ν) per log ν,
    then O(n) per (log η, log σ) (the ``eta_sigma`` split's formula, Eq. 26)."""
    split = model.splits["eta_sigma"]

    @jax.jit
    def plane(log_nu, fast):
        x1 = log_nu[None]
        return split.fast_log_density(split.prepare(x1), x1, fast)

    def on_grid(axes: list[np.ndarray]) -> np.ndarray:
        fast = np.stack(np.meshgrid(axes[1], axes[2], indexing="ij"), axis=-1).reshape(-1, 2)
        fast = jnp.asarray(fast)
        return np.stack([np.asarray(plane(jnp.asarray(a), fast)) for a in axes[0]])

    return on_grid


@pytest.fixture(scope="module")
def grid_model() -> Model:
    z, y = simulate(N_GRID, DATA_SEED_GRID)
    return gp_neal2010_model(z[:, :1], y)


@pytest.fixture(scope="module")
def grid(grid_model):
    on_grid = eigen_on_grid(grid_model)
    rng = np.random.default_rng(0)  # the grid's formula is the model's density
    axes = [rng.uniform(lo, hi, 3) for lo, hi in COARSE]
    points = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    full = np.asarray(jax.vmap(grid_model.log_density)(jnp.asarray(points)))
    np.testing.assert_allclose(on_grid(axes).reshape(-1), full, rtol=1e-10)
    result = grid_posterior(grid_model, points=128, coarse=COARSE, coarse_points=64, width=14.0,
                            on_grid=on_grid)
    check_grid(result)
    return result


@pytest.mark.parametrize("fast,ensemble", GRID_CASES)
def test_matches_grid_posterior(grid_model, grid, fast, ensemble):
    """Posterior means and sds of θ within Z_BOUND MCSEs of the grid's (module docstring)."""
    algorithm = get_sampler("ensemble", grid_model, fast=fast, ensemble=ensemble,
                            size=SIZE[fast], slow_scale=SLOW_SCALE[fast])
    theta, stats = run_draws(algorithm, grid_model, seed=GRID_SEED, chains=GRID_CHAINS,
                             draws=GRID_DRAWS, start=grid["mean"])
    z = z_scores(theta, grid["mean"])
    z_sds = np.array([z_sd(theta[..., i], grid["sd"][i]) for i in range(3)])
    acceptance = stats["slow_acceptance"].mean(axis=(0, 1))
    print(f"\n{ensemble}-{fast}: z(mean) = {np.round(z, 2)}, z(sd) = {np.round(z_sds, 2)}, "
          f"slow acceptance {np.round(acceptance, 2)}, "
          f"effective members {stats['effective_members'].mean():.2f}")
    assert np.all((acceptance > 0.15) & (acceptance < 0.85)), acceptance
    assert np.max(np.abs(z)) < Z_BOUND, z
    assert np.max(np.abs(z_sds)) < Z_BOUND, z_sds


# --------------------------------------------------------------------------- Geweke

N_GEWEKE, DATA_SEED_GEWEKE = 6, 5
Z_GEWEKE = simulate(N_GEWEKE, DATA_SEED_GEWEKE)[0][:, :1]
GEWEKE_CHAINS, GEWEKE_ITERATIONS, GEWEKE_SEED = 16, 4000, 1
#: Slow sd of the Geweke runs: p(θ | y) from six points is nearly as wide as the prior.
GEWEKE_SLOW_SCALE = 1.0
#: The prior of θ = (log ν, log η, log σ) for one covariate: log ν's sd is √(1.5² + 1²).
PRIOR_MEAN = np.array([LOG_NU_PRIOR[0], LOG_ETA_PRIOR[0], LOG_SIGMA_PRIOR[0]])
PRIOR_SD = np.array([np.hypot(LOG_NU_PRIOR[1], LOG_NU_PRIOR[2]), LOG_ETA_PRIOR[1],
                     LOG_SIGMA_PRIOR[1]])
SPLITS = {"eta": eta_split, "eta_sigma": eta_sigma_split}


def traced_split(y: jax.Array, fast: str):
    """The split ``fast`` of ``gp_neal2010`` on ``Z_GEWEKE`` for responses ``y``, which may be
    traced (``gp_neal2010_model`` turns y into a NumPy array; this builds its ScaledGP as it
    does)."""
    z = jnp.asarray(Z_GEWEKE)
    gp = ScaledGP(y, lambda log_nu: upsilon(log_nu, z), log_nu_prior,
                  lambda u: log_normal_pdf(u, *LOG_ETA_PRIOR),
                  lambda u: log_normal_pdf(u, *LOG_SIGMA_PRIOR),
                  ("log_nu[0]",), LOG_ETA_PRIOR, LOG_SIGMA_PRIOR)
    return SPLITS[fast](gp)


def cholesky_sigma(theta: jax.Array) -> jax.Array:
    """Cholesky factor of Σ(θ) = η² Υ'(ν) + σ² I (Eq. 28) on ``Z_GEWEKE``."""
    cov = (jnp.exp(2.0 * theta[1]) * upsilon(theta[:1], jnp.asarray(Z_GEWEKE))
           + jnp.exp(2.0 * theta[2]) * jnp.eye(N_GEWEKE))
    return jnp.linalg.cholesky(cov)


def uniform_back_to_state(key, ensemble):
    """BROKEN on purpose: map back to a member chosen uniformly, ignoring π/ξ_j (Eq. 15)."""
    size = ensemble.log_pi.shape[0]
    j = jax.random.randint(key, (), 0, size)
    state = EnsembleState(ensemble.x1, ensemble.members[j], ensemble.cache, ensemble.log_pi[j])
    return state, j, effective_members(jnp.full(size, 1.0 / size))


def mean_log_ensemble_density(log_pi, log_xi, log_joint=0.0):
    """BROKEN on purpose: the mean of log π/ξ_j in place of log of the mean of π/ξ_j (Eq. 20)."""
    return log_joint + jnp.mean(log_pi - log_xi)


#: Broken variant ↦ (module, attribute, replacement) patched while the simulator is traced.
BROKEN = {
    "uniform-map-back": (sampler_module, "back_to_state", uniform_back_to_state),
    "mean-log-density": (ensemble_module, "log_ensemble_density", mean_log_ensemble_density),
}


def geweke_scores(fast: str, ensemble: str) -> list[float]:
    """z-scores of the successive-conditional simulator (see the module docstring)."""
    template = gp_neal2010_model(Z_GEWEKE, np.zeros(N_GEWEKE))
    mean, sd = jnp.asarray(PRIOR_MEAN), jnp.asarray(PRIOR_SD)

    def init(key):
        k_theta, k_y = jax.random.split(key)
        theta = prior_draw(k_theta, 1)
        return theta, cholesky_sigma(theta) @ jax.random.normal(k_y, (N_GEWEKE,))

    def iterate(key, carry):
        theta, y = carry
        model = dataclasses.replace(template, splits={fast: traced_split(y, fast)})
        algorithm = get_sampler("ensemble", model, fast=fast, ensemble=ensemble,
                                size=SIZE[fast], slow_scale=GEWEKE_SLOW_SCALE)
        k_init, k_step, k_y = jax.random.split(key, 3)
        state, _ = algorithm.step(k_step, algorithm.init(k_init, theta), algorithm.params)
        new = algorithm.position(state)
        chol = cholesky_sigma(new)
        fit = jnp.sum(jax.scipy.linalg.solve_triangular(chol, y, lower=True) ** 2) / N_GEWEKE
        u = (new - mean) / sd
        record = jnp.concatenate([u, u**2 - 1.0, (fit - 1.0)[None]])
        return (new, chol @ jax.random.normal(k_y, (N_GEWEKE,))), record

    records = geweke_records(init, iterate, chains=GEWEKE_CHAINS, iterations=GEWEKE_ITERATIONS,
                             seed=GEWEKE_SEED)
    return geweke_z_scores(records)


def _geweke_case(fast: str, ensemble: str, broken: str | None = None, slow: bool = False):
    name = f"{ensemble}-{fast}" + (f"-{broken}" if broken else "")
    case = GewekeCase(name, (fast, ensemble, broken), broken is not None)
    return pytest.param(case, marks=(pytest.mark.slow,) if slow else (), id=name)


GEWEKE_CASES = (
    [_geweke_case(fast, ensemble, slow=(fast, ensemble) != ("eta_sigma", "grid"))
     for fast in ("eta", "eta_sigma") for ensemble in ENSEMBLES]
    + [_geweke_case("eta_sigma", "grid", broken, slow=broken != "uniform-map-back")
       for broken in BROKEN]
    + [_geweke_case("eta", "exchangeable", broken, slow=True) for broken in BROKEN])


def _members_density(split):
    return jax.jit(lambda x1, members: split.fast_log_density(split.prepare(x1), x1, members))


def test_traced_split_is_the_models_split():
    """The Geweke loop's splits (built from a traced y) are ``gp_neal2010_model``'s own."""
    y = simulate(N_GEWEKE, DATA_SEED_GEWEKE)[1]
    model = gp_neal2010_model(Z_GEWEKE, y)
    rng = np.random.default_rng(1)
    for fast in SPLITS:
        ours, theirs = traced_split(jnp.asarray(y), fast), model.splits[fast]
        assert (ours.slow_names, ours.fast_names) == (theirs.slow_names, theirs.fast_names)
        x1 = jnp.asarray(rng.normal(size=ours.slow_dim))
        members = jnp.asarray(rng.normal(size=(5, ours.fast_dim)))
        np.testing.assert_allclose(_members_density(ours)(x1, members),
                                   _members_density(theirs)(x1, members), rtol=1e-12)


@pytest.mark.parametrize("case", GEWEKE_CASES)
def test_geweke_prior_marginal(case, monkeypatch):
    """θ's marginal is the prior and the data fit is χ²_n/n for a correct transition; a broken
    one (patched in for this test only) is caught."""
    fast, ensemble, broken = case.build
    if broken is not None:
        monkeypatch.setattr(*BROKEN[broken])
    check_geweke(case, geweke_scores(fast, ensemble))
