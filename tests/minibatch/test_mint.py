"""MINT (seed 003 Algorithm 1): both readings of line 5 against their exact laws, enumerated.

A data set of n = 12 points and batches of m = 4 (all C(12, 4) = 495 batches enumerable), and θ on
a lattice of five points with a nearest-neighbour proposal (a kernel registered at test time, run
through the production sampler):

- reading (b) shares one fresh batch between θ and θ′: its transition matrix is enumerated,
  P(k → k±1) = ½ E_B[min{1, exp(s(μ̂_B(θ_{k±1}) − μ̂_B(θ_k)))}], and the chain's histogram is tested
  against the matrix's stationary vector;
- reading (a) carries θ's estimate: an exact pseudo-marginal chain for π(θ) ∝ E_B[exp(s μ̂_B(θ))],
  enumerated; a chain that refreshes the current estimate every step (reading b run against
  reading a's law) is caught by the same test.

Plus: batches are uniform m-subsets drawn without replacement, a fresh batch per step, the same key
gives the same draws, cost is exactly 2m/n (b) or m/n (a) per step, and on ``mvn_mean`` with
λ = 0.3τ MINT's variance is π_T's within MC error (the bias at α = 0.99 is reported, not asserted).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_helpers import run_cli
from pydantic import Field
from support import Z_BOUND, z_mean, z_sd

from tempering import get_model, get_sampler
from tempering.algorithms.minibatch.mint import MintOptions
from tempering.config import Options
from tempering.errors import UserInputError
from tempering.kernels import KERNELS, BoundKernel, Kernel, KernelSpec, StepInfo
from tempering.ladders.minibatch import draw_batch, tempered_scaling
from tempering.models import Model
from tempering.models.base import ParamSpec
from tempering.numerics import metropolis, select
from tempering.run.driver import sample

N, M, H = 12, 4, 0.5
GRID = (np.arange(5) - 2) * H
SCALE = 3.5  # s = n^λ < m: λ = log 3.5 / log 12 = 0.504 < τ = log 4 / log 12 = 0.558
X = np.random.default_rng(3).normal(0.0, 4.0, N)


# ------------------------------------------------------------------ the lattice model and kernel

def lattice_model() -> Model:
    """Gaussian terms l_i(θ) = −(x_i − θ)²/2, flat prior on the lattice's span."""
    lo, hi = GRID[0] - H / 2, GRID[-1] + H / 2

    def terms(theta, data):
        return -0.5 * (data["x"] - theta[0]) ** 2

    return Model("lattice", {"x": jnp.asarray(X)},
                 lambda t: jnp.where((t[0] > lo) & (t[0] < hi), 0.0, -jnp.inf),
                 lambda t, d: jnp.sum(terms(t, d)), 1.0, (ParamSpec("theta", (1,)),),
                 lambda t: {"theta": t}, lambda key: jnp.zeros(1), terms)


class LatticeOptions(Options):
    step: float = Field(H, gt=0)


class State(NamedTuple):
    position: jax.Array
    logdensity: jax.Array


def lattice_make(logdensity_fn, params) -> Kernel:
    """θ′ = θ ± h with probability ½ each, Metropolis against the state's cached log density."""

    def init(position):
        return State(position, logdensity_fn(position))

    def step(key, state):
        k_dir, k_acc = jax.random.split(key)
        move = jnp.where(jax.random.bernoulli(k_dir), 1.0, -1.0) * params["step"]
        proposal = state.position + move
        lp = logdensity_fn(proposal)
        accepted, prob = metropolis(k_acc, lp - state.logdensity)
        new = select(accepted, State(proposal, lp), state)
        return new, StepInfo(prob, accepted, jnp.ones(()), jnp.zeros((), bool))

    return Kernel(init, step)


LATTICE = KernelSpec("lattice", LatticeOptions,
                     lambda options, dim: BoundKernel(lattice_make,
                                                      {"step": jnp.asarray(options.step)}, None),
                     "nearest-neighbour lattice walk (test only)", single_proposal=True)


@pytest.fixture(scope="module", autouse=True)
def registered_lattice():
    KERNELS.register(LATTICE)
    yield
    KERNELS.unregister("lattice")


# ------------------------------------------------------------------------------ exact laws

def batch_means() -> np.ndarray:
    """μ̂_B(θ_k) for every lattice point k and every one of the 495 batches."""
    batches = np.array(list(itertools.combinations(range(N), M)))
    terms = -0.5 * (X[None, :] - GRID[:, None]) ** 2
    return terms[:, batches].mean(axis=-1)


def reading_a_law() -> np.ndarray:
    """π(θ_k) ∝ E_B[exp(s μ̂_B(θ_k))] (flat prior)."""
    mu = SCALE * batch_means()
    log_w = np.log(np.mean(np.exp(mu - mu.max()), axis=1))
    w = np.exp(log_w - log_w.max())
    return w / w.sum()


def reading_b_law() -> np.ndarray:
    """Stationary vector of the enumerated reading-(b) transition matrix."""
    mu = batch_means()
    k = len(GRID)
    matrix = np.zeros((k, k))
    for i in range(k):
        for j in (i - 1, i + 1):
            if 0 <= j < k:
                matrix[i, j] = 0.5 * np.mean(np.minimum(1.0, np.exp(SCALE * (mu[j] - mu[i]))))
        matrix[i, i] = 1.0 - matrix[i].sum()
    values, vectors = np.linalg.eig(matrix.T)
    vector = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
    return vector / vector.sum()


def lattice_histogram_z(reading: str, law: np.ndarray, seed: int) -> np.ndarray:
    """z-scores of the chain's state frequencies against ``law`` (MCSE from ArviZ)."""
    model = lattice_model()
    lam = math.log(SCALE) / math.log(N)
    algorithm = get_sampler("mint", model, inner="lattice", batch=M, lam=lam, reading=reading)
    idata = sample(model, algorithm, key=seed, draws=6000, chains=4, warmup=200,
                   init=jnp.zeros(1), progress=False)
    theta = idata.posterior["theta"].values[..., 0]
    states = np.rint(theta / H).astype(int) + 2
    return np.array([z_mean((states == k).astype(float), law[k]) for k in range(len(GRID))])


def test_the_two_readings_have_different_laws():
    """The test below can tell the readings apart: their exact laws differ by far more than the
    chains' MC error (≈ 0.01)."""
    assert np.max(np.abs(reading_a_law() - reading_b_law())) > 0.2


def test_reading_b_matches_its_enumerated_transition_matrix():
    z = lattice_histogram_z("b", reading_b_law(), seed=11)
    assert np.all(np.abs(z) < Z_BOUND), z


def test_reading_a_matches_its_enumerated_pseudo_marginal_target():
    z = lattice_histogram_z("a", reading_a_law(), seed=12)
    assert np.all(np.abs(z) < Z_BOUND), z


def test_refreshing_the_current_estimate_is_caught():
    """Re-estimating the current state on every step (reading b's move) is a different chain:
    against reading (a)'s law the same test fails."""
    z = lattice_histogram_z("b", reading_a_law(), seed=13)
    assert np.max(np.abs(z)) > Z_BOUND, z


# ------------------------------------------------------------------------------ batches

@pytest.mark.parametrize("n,m,first", [(6, 3, 3), (24, 3, 3), (6, 4, 3)])
def test_batches_are_uniform_subsets_without_replacement(n, m, first):
    """Distinct indices; every 3-subset equally likely as the batch's first ``first`` entries
    (the sub-batch MINTEE's level reads for the level above) — C(6, 3) = 20 or C(24, 3) = 2024
    cells — by the largest-keys path (m > n/8) and the redraw path (24, 3); chi-square over
    20 000 draws against its 99.99% quantile."""
    from scipy.stats import chi2 as chi2_dist

    keys = jax.random.split(jax.random.key(0), 20_000)
    batches = np.asarray(jax.vmap(lambda k: draw_batch(k, n, m))(keys))
    assert all(len(set(b)) == m for b in batches)
    assert batches.min() >= 0 and batches.max() <= n - 1
    counts = Counter(tuple(sorted(b[:first])) for b in batches)
    cells = math.comb(n, first)
    expected = len(batches) / cells
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    chi2 += (cells - len(counts)) * expected  # the cells never drawn
    assert chi2 < chi2_dist.ppf(0.9999, cells - 1), chi2


@pytest.mark.slow  # ~8 s
def test_a_fresh_batch_every_step_and_the_same_key_gives_the_same_draws():
    model = get_model("mvn_mean", n=50, dim=2, data_seed=1)
    algorithm = get_sampler("mint", model, batch=10, step_size=0.3)
    target = MintOptions(batch=10).target(model)
    keys = jax.random.split(jax.random.key(5), 200)
    batches = np.asarray(jax.vmap(target.draw)(keys))
    assert len({tuple(sorted(b)) for b in batches}) > 190  # C(50, 10) ≈ 10¹⁰: repeats are rare
    first = sample(model, algorithm, key=3, draws=40, chains=2, warmup=5, progress=False)
    again = sample(model, algorithm, key=3, draws=40, chains=2, warmup=5, progress=False)
    np.testing.assert_array_equal(first.posterior["theta"].values,
                                  again.posterior["theta"].values)
    moved = np.any(np.diff(first.posterior["theta"].values, axis=1) != 0, axis=-1)
    assert moved.mean() > 0.1


@pytest.mark.parametrize(("reading", "inner", "batch_evals"),
                         [("b", "rwm", 2), ("a", "rwm", 1), ("b", "mala", 2), ("a", "mala", 1)])
def test_cost_per_step_is_exact(reading, inner, batch_evals):
    model = get_model("mvn_mean", n=80, dim=2, data_seed=2, precision="float64")
    algorithm = get_sampler("mint", model, batch=8, reading=reading, inner=inner)
    idata = sample(model, algorithm, key=1, draws=10, chains=2, warmup=0, thin=3,
                   progress=False)
    np.testing.assert_allclose(idata.sample_stats["cost"].values, 3 * batch_evals * 8 / 80,
                               rtol=1e-12)
    assert np.all(idata.sample_stats["batch_size"].values == 8)
    assert ("mean_log_lik" in idata.sample_stats) == (reading == "a")


# ------------------------------------------------------------------------------ options

def test_scaling_follows_the_paper():
    """m = n^τ, λ = α τ, s = n^λ, T = n^(1−λ); the paper's logistic case n = 13 000, m = 100."""
    scaling = tempered_scaling(13_000, batch=100, alpha=0.99)
    assert scaling.tau == pytest.approx(math.log(100) / math.log(13_000))
    assert scaling.lam == pytest.approx(0.99 * scaling.tau)
    assert scaling.scale * scaling.temperature == pytest.approx(13_000)
    assert scaling.temperature > 13_000 / 100  # T > n/m always


def test_options_round_trip_and_refuse_what_the_paper_does_not_allow():
    model = get_model("mvn_mean", n=100, dim=2, data_seed=0)
    resolved = get_sampler("mint", model, tau=0.5).options
    assert resolved.batch == 10 and resolved.alpha == 0.99 and resolved.tau is None
    again = MintOptions.model_validate(resolved.model_dump()).resolve(model)
    assert again == resolved
    with pytest.raises(UserInputError, match=r"sampler\.lam: .*must be below"):
        get_sampler("mint", model, batch=10, lam=0.6)
    with pytest.raises(UserInputError, match=r"sampler\.reading: .*rwm or mala, not hmc"):
        get_sampler("mint", model, reading="a", inner="hmc")
    with pytest.raises(UserInputError, match="per-datum"):
        get_sampler("mint", get_model("gp_regression", n=20, dim=1), batch=5)


def test_cli_refuses_reading_a_with_hmc_in_one_line(tmp_path, capsys):
    out = tmp_path / "x.nc"
    code, stdout, stderr = run_cli(["sample", "--model", "mvn_mean", "--sampler", "mint", "--set",
                                    "sampler.reading=a", "--set", "sampler.inner=hmc", "--out",
                                    out], capsys)
    assert code == 2
    lines = [line for line in (stdout + stderr).strip().splitlines() if line]
    assert len(lines) == 1 and "sampler.reading" in lines[0], stdout + stderr
    assert not out.exists()


# ------------------------------------------------------------------------------ against π_T

def tempered_variance(model: Model, beta: float) -> np.ndarray:
    """Posterior covariance diagonal of π_T ∝ π₀ L^β for ``mvn_mean`` (prior untempered)."""
    x = np.asarray(model.data["x"])
    prior_var = float(model.options["prior_sd"]) ** 2
    return np.full(x.shape[1], 1.0 / (1.0 / prior_var + beta * x.shape[0]))


@pytest.mark.slow  # ~14 s (budget); MINT's exactness is checked by enumeration in make test
def test_small_alpha_matches_the_tempered_posterior_and_reports_the_bias_at_099(capsys):
    """λ = 0.3τ (α < ½, Theorem 1's regime): MINT's sd within MC error of π_T's. At α = 0.99
    the relative variance error is printed with the step size that produced it."""
    model = get_model("mvn_mean", n=2000, dim=2, data_seed=4)
    rows = []
    for alpha, step in ((0.3, 1.2), (0.99, 0.15)):
        algorithm = get_sampler("mint", model, batch=100, alpha=alpha, step_size=step)
        idata = sample(model, algorithm, key=7, draws=4000, chains=4, warmup=300,
                       progress=False)
        theta = idata.posterior["theta"].values
        beta = algorithm.facts["beta"]
        truth = np.sqrt(tempered_variance(model, beta))
        z = [z_sd(theta[..., d], truth[d]) for d in range(2)]
        ratio = np.var(theta.reshape(-1, 2), axis=0) / truth**2
        rows.append((alpha, step, algorithm.facts["temperature"], ratio, z,
                     float(idata.sample_stats["acceptance_rate"].mean())))
    with capsys.disabled():
        for alpha, step, temp, ratio, z, acc in rows:
            print(f"\nMINT alpha={alpha} step={step} T={temp:.1f} acceptance={acc:.2f}: "
                  f"var/var_T = {np.round(ratio, 3)}, z(sd) = {np.round(z, 2)}")
    assert np.all(np.abs(rows[0][4]) < Z_BOUND), rows[0]


def test_the_whole_data_set_as_batch_is_tempered_mcmc():
    """m = n: μ̂ = μ exactly, so reading a is full-data MH on π_T (one evaluation per step) —
    the paper's "tempered MCMC"; its sd matches π_T's within MC error."""
    model = get_model("mvn_mean", n=200, dim=2, data_seed=5)
    algorithm = get_sampler("mint", model, batch=200, lam=0.5, reading="a", step_size=0.4)
    idata = sample(model, algorithm, key=2, draws=3000, chains=4, warmup=200, progress=False)
    np.testing.assert_allclose(idata.sample_stats["cost"].values, 1.0)
    truth = np.sqrt(tempered_variance(model, algorithm.facts["beta"]))
    theta = idata.posterior["theta"].values
    z = [z_sd(theta[..., d], truth[d]) for d in range(2)]
    assert np.all(np.abs(z) < Z_BOUND), z
