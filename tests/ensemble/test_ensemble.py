"""The ``ensemble`` sampler (seed 004) on continuous targets with known answers.

- A correlated 3-D Gaussian (slow x₁ = θ₀, θ₁; fast x₂ = θ₂, correlated with both) through the
  generic split: the grid ensemble, the exchangeable one with shifted members, and NUTS on the
  slow variables give means and sds within Z_BOUND MCSEs of the truth; the other ensembles and
  shifted variants are ``slow`` (every base measure and update is also checked exactly, by
  enumeration, in ``test_ensemble_exact.py``).
- K = 1 is single-variable Metropolis on x₁ with x₂ fixed: the same draws.
- Evaluation counts: slow = slow coordinates updated, fast = K × (1 + slow).
- A model without a split, a grid that is not m^D: one line, exit 2.
(Exact invariance of the update itself, with broken variants, is enumerated in
``test_ensemble_exact.py``.)
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_helpers import run_cli
from support import Z_BOUND, z_mean, z_sd

from tempering import get_model, get_sampler, sample
from tempering.algorithms import SAMPLERS
from tempering.errors import UserInputError
from tempering.models.base import Model, ParamSpec
from tempering.models.fast_slow import generic_split

COV = np.array([[1.0, 0.5, 0.6], [0.5, 2.0, -0.7], [0.6, -0.7, 1.5]])
MEAN = np.array([0.5, -1.0, 2.0])


def gaussian_model() -> Model:
    precision = jnp.asarray(np.linalg.inv(COV))

    def log_prior(theta):
        d = theta - MEAN
        return -0.5 * d @ precision @ d

    model = Model("gauss3", {"x": jnp.zeros((1, 1))}, log_prior, lambda theta, data: 0.0, 1.0,
                  (ParamSpec("theta", (3,)),), lambda theta: {"theta": theta},
                  lambda key: jnp.zeros(3))
    return dataclasses.replace(model, splits={"generic": generic_split(model, (2,), 2.0, 1.2)})


def _check(options: dict, draws: int = 2500, warmup: int = 200) -> float:
    """Means and sds within Z_BOUND MCSEs; returns the mean slow acceptance."""
    model = gaussian_model()
    algorithm = get_sampler("ensemble", model, slow_scale=[1.2, 1.6], **options)
    idata = sample(model, algorithm, key=11, draws=draws, chains=4, warmup=warmup,
                   progress=False)
    theta = np.asarray(idata.posterior["theta"].values)
    sd = np.sqrt(np.diag(COV))
    for i in range(3):
        assert abs(z_mean(theta[..., i], MEAN[i])) < Z_BOUND, (options, i)
        assert abs(z_sd(theta[..., i], sd[i])) < Z_BOUND, (options, i)
    return float(idata.sample_stats["slow_acceptance"].mean())


@pytest.mark.parametrize("options", [
    {"ensemble": "grid", "size": 7},
    pytest.param({"ensemble": "markov", "size": 6}, marks=pytest.mark.slow),
    pytest.param({"ensemble": "exchangeable", "size": 6, "members": "shifted"},
                 marks=pytest.mark.slow),  # (the exact enumeration covers it in make test)
    pytest.param({"ensemble": "grid", "size": 7, "slow_kernel": "nuts", "step_size": 8.0},
                 marks=pytest.mark.slow),  # (~19 s; the ensemble's NUTS path runs in
    # tests/bench/test_bench_ensemble.py's tables in make test)
], ids=["grid", "markov", "exchangeable-shifted", "grid-nuts"])
def test_known_gaussian(options):
    """With NUTS, dual averaging over the ensemble iterations in 400 warmup steps brings the
    acceptance from a far too large ε (8) to its target 0.8 (with adaptation off it stays below 0.5:
    ``test_gradient_slow_kernel_without_adaptation_keeps_its_step_size``)."""
    nuts = options.get("slow_kernel") == "nuts"
    acceptance = _check(options, warmup=400 if nuts else 200)
    if nuts:
        assert 0.7 < acceptance < 0.9, acceptance


@pytest.mark.slow
@pytest.mark.parametrize("options", [
    {"ensemble": "independent", "size": 6},
    {"ensemble": "exchangeable", "size": 6},
    {"ensemble": "grid", "size": 7, "members": "shifted", "slow_kernel": "rwm"},
    {"ensemble": "independent", "size": 6, "members": "shifted", "slow_kernel": "rwm"},
    {"ensemble": "markov", "size": 6, "members": "shifted", "slow_kernel": "rwm"},
], ids=["independent", "exchangeable", "grid-shifted", "independent-shifted", "markov-shifted"])
def test_known_gaussian_more(options):
    _check(options)


def test_one_member_is_single_variable_metropolis_on_the_slow_variables():
    model = gaussian_model()
    algorithm = get_sampler("ensemble", model, ensemble="independent", size=1,
                            slow_scale=[1.2, 1.6])
    key, start = jax.random.key(3), jnp.asarray([0.1, 0.2, 0.3])
    state = algorithm.init(key, start)
    steps = jax.random.split(key, 12)
    theta = np.asarray(start)
    for k in steps:
        state, _ = algorithm.step(k, state, algorithm.params)
        # by hand: the same keys, Metropolis on π(θ₀, θ₁ | θ₂) one coordinate at a time
        (k_sweep,) = jax.random.split(k, 1)
        _, k_slow, _ = jax.random.split(k_sweep, 3)
        for i, kc in enumerate(jax.random.split(k_slow, 2)):
            k_prop, _, k_acc = jax.random.split(kc, 3)
            proposal = theta.copy()
            proposal[i] += [1.2, 1.6][i] * float(jax.random.normal(k_prop))
            log_ratio = float(model.log_density(proposal) - model.log_density(theta))
            if np.log(float(jax.random.uniform(k_acc))) < log_ratio:
                theta = proposal
        np.testing.assert_allclose(np.asarray(algorithm.position(state)), theta, rtol=1e-12)
    assert theta[2] == 0.3 and theta[0] != 0.1  # the fast variable never moves with K = 1


@pytest.mark.parametrize("kernel,slow", [("coordinate_rwm", 2.0), ("rwm", 1.0)])
def test_evaluation_counts(kernel, slow):
    model = gaussian_model()
    algorithm = get_sampler("ensemble", model, size=7, slow_kernel=kernel, sweeps=2)
    state = algorithm.init(jax.random.key(0), jnp.zeros(3))
    _, info = algorithm.step(jax.random.key(1), state, algorithm.params)
    assert float(info.stats["slow_evals"]) == 2 * slow
    assert float(info.stats["fast_evals"]) == 7 * (2 + 2 * slow)
    assert float(info.cost) == 2 * slow


def test_bad_input():
    with pytest.raises(UserInputError, match="declares none"):
        get_sampler("ensemble", get_model("mvn_mean", n=5, dim=2))
    model = gaussian_model()
    two_fast = dataclasses.replace(model, splits={"two": generic_split(model, (1, 2), 0.0, 1.0)})
    with pytest.raises(UserInputError, match="m\\^2"):
        get_sampler("ensemble", two_fast, size=10)
    with pytest.raises(UserInputError, match="2 slow variables"):
        get_sampler("ensemble", model, size=5, slow_scale=[1.0, 1.0, 1.0])
    with pytest.raises(UserInputError, match="step_size: not an option of slow_kernel=rwm"):
        get_sampler("ensemble", model, size=5, slow_kernel="rwm", step_size=0.3)


def test_resolved_options_carry_only_the_slow_kernels_own():
    """A Metropolis slow update has no kernel options; NUTS's ride along; both round-trip."""
    model = gaussian_model()
    spec = SAMPLERS.get("ensemble")
    metropolis = spec.options(size=5).resolve(model).model_dump()
    assert "step_size" not in metropolis and metropolis["inner"] == "rwm"
    nuts = spec.options(size=5, slow_kernel="nuts").resolve(model).model_dump()
    assert nuts["inner"] == "nuts" and nuts["target_accept"] == 0.8
    for dumped in (metropolis, nuts):
        assert spec.options(**dumped).resolve(model).model_dump() == dumped


def test_cli_without_a_split_is_one_line(capsys):
    code, _, err = run_cli(["sample", "--model", "mvn_mean", "--sampler", "ensemble",
                            "--draws", "10", "--out", "/tmp/never.nc"], capsys)
    assert code == 2 and "declares none" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_gradient_slow_kernel_without_adaptation_keeps_its_step_size():
    """The control of ``test_known_gaussian[grid-nuts]``: NUTS with ``adapt=False`` keeps its
    ε = 8 and its acceptance stays low."""
    model = gaussian_model()
    algorithm = get_sampler("ensemble", model, size=7, slow_kernel="nuts", step_size=8.0,
                            adapt=False)
    idata = sample(model, algorithm, key=2, draws=300, chains=2, warmup=400, progress=False)
    assert float(idata.sample_stats["slow_acceptance"].mean()) < 0.5
