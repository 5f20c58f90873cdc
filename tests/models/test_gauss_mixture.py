"""The ``gauss_mixture`` model: a K-component Gaussian-mixture likelihood in θ under a broad
Gaussian prior, with exactly known posterior mode masses and log evidence.

- The exact masses sum to 1 and match brute force: 1-D and 2-D grid quadrature of the prior
  times each component (scipy densities, not the module's formulas), and in 10 dimensions Monte
  Carlo from the likelihood mixture itself (L is a density in θ, so Z = E_{θ~L}[p(θ)]); log Z
  against the model's own log density summed over the grid and against the same Monte Carlo.
- :func:`mode_of` assigns draws of each exact posterior component to that component, jitted and
  over (chains, draws, d); :func:`mode_mass_table` per chain.
- The log density is the exact posterior mixture plus log Z, finite with a finite gradient at
  init positions and far out; the attrs (and so a run file) carry the masses and log Z.
- Bad options are one-line :class:`UserInputError`\\ s naming the key (exit 2 on the CLI).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_helpers import run_cli
from scipy.special import logsumexp
from scipy.stats import norm

from tempering.errors import UserInputError
from tempering.models import MODELS, get_model
from tempering.models.gauss_mixture import (
    GaussMixtureOptions,
    exact_log_evidence,
    exact_mode_masses,
    mixture_params,
    mode_mass_lines,
    mode_mass_table,
    mode_of,
    posterior_components,
)
from tempering.run.loading import load_run
from tempering.run.output import run_attr

#: Low-dimensional layouts whose masses differ from the weights (unequal widths, a narrow prior).
SMALL = [{"dim": 1, "weights": [0.3, 0.7], "separation": 3.0, "prior_sd": 2.0,
          "widths": "unequal"},
         {"dim": 2, "prior_sd": 3.0, "separation": 4.0, "widths": "unequal"}]


def component_log_mass(theta: np.ndarray, options: dict) -> np.ndarray:
    """log p(θ) + log w_k N(θ; μ_k, σ_k² I) at each row of θ, (n, K), with scipy."""
    p = mixture_params(options)
    prior = norm.logpdf(theta, 0.0, p.prior_sd).sum(axis=1)
    comp = norm.logpdf(theta[:, None, :], p.means[None], p.sds[None, :, None]).sum(axis=-1)
    return prior[:, None] + np.log(p.weights) + comp


@pytest.mark.parametrize("options", SMALL, ids=["dim1", "dim2"])
def test_masses_and_log_evidence_match_grid_quadrature(options):
    masses = exact_mode_masses(options)
    assert masses.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.max(np.abs(masses - mixture_params(options).weights)) > 0.01  # not just w
    h = 0.05  # ≤ posterior sd / 10: the lattice sum of a Gaussian is its integral to ~1e-100
    axis = np.arange(-14.0, 14.0 + h / 2, h)
    theta = np.stack(np.meshgrid(*[axis] * options["dim"], indexing="ij"), -1)
    theta = theta.reshape(-1, options["dim"])
    log_mass = logsumexp(component_log_mass(theta, options), axis=0)
    np.testing.assert_allclose(np.exp(log_mass - logsumexp(log_mass)), masses, atol=1e-9)
    model = get_model("gauss_mixture", **options, precision="float64")
    log_density = np.asarray(jax.jit(jax.vmap(model.log_density))(jnp.asarray(theta)))
    log_z = exact_log_evidence(options)
    assert logsumexp(log_density) + options["dim"] * np.log(h) == pytest.approx(log_z, abs=1e-8)
    assert logsumexp(log_mass) + options["dim"] * np.log(h) == pytest.approx(log_z, abs=1e-8)


@pytest.mark.parametrize("widths", ["equal", "unequal"])
def test_masses_and_log_evidence_match_monte_carlo_in_ten_dimensions(widths):
    """θ ~ N(μ_k, σ_k² I) gives w_k p(θ) with mean Z w'_k: Z_k estimated per component."""
    options = {"prior_sd": 4.0, "widths": widths}
    p = mixture_params(options)
    rng = np.random.default_rng(0)
    n = 20_000
    theta = p.means[:, None, :] + p.sds[:, None, None] * rng.standard_normal((4, n, p.dim))
    values = p.weights[:, None] * np.exp(norm.logpdf(theta, 0.0, p.prior_sd).sum(axis=-1))
    z_k, se_k = values.mean(axis=1), values.std(axis=1) / np.sqrt(n)
    z = z_k.sum()
    assert abs(np.exp(exact_log_evidence(options)) - z) < 5 * np.sqrt(np.sum(se_k**2))
    masses = exact_mode_masses(options)
    np.testing.assert_array_less(np.abs(masses - z_k / z), 5 * se_k / z)


def test_defaults_are_as_documented():
    model = get_model("gauss_mixture")
    assert model.dim == 10 and model.n_data == 1 and model.alpha == 1.0
    assert "gauss_mixture" in MODELS.names()
    np.testing.assert_allclose(exact_mode_masses(model), [0.1, 0.2, 0.3, 0.4], atol=1e-14)
    assert exact_log_evidence(model) == pytest.approx(
        -5 * np.log(2 * np.pi * 101) - 18 / 101, abs=1e-12)
    assert exact_log_evidence(model) == pytest.approx(-32.4432, abs=1e-4)
    unequal = GaussMixtureOptions(widths="unequal")
    np.testing.assert_allclose(exact_mode_masses(unequal), [0.1110, 0.2142, 0.3028, 0.3720],
                               atol=1e-4)
    assert exact_log_evidence(unequal) == pytest.approx(-32.5118, abs=1e-4)
    np.testing.assert_allclose(mixture_params(unequal).sds, [0.5, 1.0, 1.5, 2.0])
    assert model.attrs["exact_mode_masses"] == exact_mode_masses(model).tolist()
    assert model.attrs["log_evidence"] == exact_log_evidence(model)
    rebuilt = get_model("gauss_mixture", **model.options)
    assert rebuilt.options == model.options and rebuilt.attrs == model.attrs


@pytest.mark.parametrize("widths", ["equal", "unequal"])
def test_mode_of_assigns_each_exact_component_to_itself(widths):
    options = {"widths": widths}
    masses, centres, var = posterior_components(options)
    rng = np.random.default_rng(1)
    n = 500
    draws = centres[:, None, :] + np.sqrt(var)[:, None, None] * rng.standard_normal((4, n, 10))
    modes = np.asarray(jax.jit(lambda t: mode_of(t, options))(jnp.asarray(draws)))
    assert modes.shape == (4, n)
    right = modes == np.arange(4)[:, None]
    if widths == "equal":
        assert right.all()
    else:  # σ = 2 reaches its neighbours: ~0.1% of its draws are more probably theirs
        assert right[:3].all() and right[3].mean() >= 0.995
    assert int(mode_of(draws[2, 0], options)) == 2  # one θ: a scalar index


def test_mode_mass_table_per_chain():
    options = {"weights": [0.4, 0.1, 0.3, 0.2]}
    masses, centres, var = posterior_components(options)
    rng = np.random.default_rng(2)
    n = 4000
    k = rng.choice(4, size=n, p=masses)
    mixed = centres[k] + np.sqrt(var)[k, None] * rng.standard_normal((n, 10))
    stuck = centres[2] + np.sqrt(var[2]) * rng.standard_normal((n, 10))
    rows = mode_mass_table(np.stack([mixed, stuck]), options)
    assert rows[0]["modes_visited"] == 4 and rows[1]["modes_visited"] == 1
    assert rows[0]["max_abs_error"] < 5 * np.sqrt(0.25 / n)
    assert rows[1]["masses"] == [0.0, 0.0, 1.0, 0.0]
    assert rows[1]["max_abs_error"] == pytest.approx(1 - masses[2])
    assert mode_mass_table(mixed, options) == rows[:1]  # (draws, d): one chain
    lines = mode_mass_lines(np.stack([mixed, stuck]), options)
    assert lines[1] == f"chain 1: 1/4 modes visited, largest |mode-mass error| {1 - masses[2]:.4f}"


@pytest.mark.parametrize("widths", ["equal", "unequal"])
def test_log_density_is_the_exact_posterior_times_the_evidence(widths):
    model = get_model("gauss_mixture", widths=widths, precision="float64")
    masses, centres, var = posterior_components(model)
    rng = np.random.default_rng(3)
    theta = np.concatenate([centres[rng.integers(0, 4, 50)] + rng.standard_normal((50, 10)),
                            rng.uniform(-8, 8, (50, 10))])
    ours = np.asarray(jax.vmap(model.log_density)(jnp.asarray(theta)))
    comp = norm.logpdf(theta[:, None, :], centres[None], np.sqrt(var)[None, :, None])
    exact = logsumexp(np.log(masses) + comp.sum(axis=-1), axis=1) + exact_log_evidence(model)
    np.testing.assert_allclose(ours, exact, rtol=1e-12, atol=1e-9)
    terms = model.log_lik_terms(jnp.asarray(theta[0]))
    assert terms.shape == (1,) and float(terms[0]) == pytest.approx(
        float(model.log_lik(jnp.asarray(theta[0]))), rel=1e-14)


def test_log_density_and_gradient_are_finite_at_init_and_far_out():
    model = get_model("gauss_mixture", widths="unequal")
    init = jax.vmap(model.init_position)(jax.random.split(jax.random.key(0), 8))
    far = jnp.full((1, 10), 1e3)
    theta = jnp.concatenate([init, far])
    value_and_grad = jax.jit(jax.vmap(jax.value_and_grad(model.log_density)))
    values, grads = value_and_grad(theta)
    assert theta.shape == (9, 10)
    assert np.all(np.isfinite(np.asarray(values))) and np.all(np.isfinite(np.asarray(grads)))


@pytest.mark.parametrize(("options", "message"), [
    ({"dim": 1}, r"^model\.dim: 4 modes need dim ≥ 2"),
    ({"widths": "wide"}, r"^model\.widths: "),
    ({"weights": []}, r"^model\.weights: "),
    ({"weights": [0.5, -1.0]}, r"^model\.weights\.1: "),
    ({"prior_sd": 0.0}, r"^model\.prior_sd: "),
    ({"separation": float("nan")}, r"^model\.separation: "),
    ({"dim": 2.5}, r"^model\.dim: "),
    ({"sd": 1.0}, r"^model\.sd: "),
])
def test_bad_options_are_one_line_errors(options, message):
    with pytest.raises(UserInputError, match=message) as err:
        get_model("gauss_mixture", **options)
    assert "\n" not in str(err.value)


def test_cli_exit_2_and_run_file_carries_the_exact_masses(tmp_path, capsys):
    tiny = ["--chains", "2", "--draws", "10", "--warmup", "5", "--seed", "1", "--no-progress"]
    base = ["sample", "--model", "gauss_mixture", "--sampler", "rwm", *tiny]
    code, out, err = run_cli([*base, "--set", "model.dim=1", "--out", tmp_path / "bad.nc"],
                             capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "model.dim: 4 modes" in err
    assert not (tmp_path / "bad.nc").exists()
    path = tmp_path / "run.nc"
    code, out, err = run_cli([*base, "--set", "model.dim=2", "--out", path], capsys)
    assert code == 0, err
    attrs = run_attr(load_run(path), "model_attrs")
    options = {"dim": 2}
    assert attrs["exact_mode_masses"] == pytest.approx(exact_mode_masses(options).tolist())
    assert attrs["log_evidence"] == pytest.approx(exact_log_evidence(options))
