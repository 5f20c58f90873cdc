"""The ``barrier`` model (a Gaussian-mixture likelihood under a broad Gaussian prior) and its
communication barrier by quadrature (Syed et al. 2021, JRSS-B, §3).

- The log density is log N(θ; 0, s0² I) + log Σ_j w_j N(θ; μ_j, σ² I) (written here with scipy);
  the closed-form β = 1 weights and evidence against grid quadrature of the model's own log
  density over each mode's basin (``bimodal``) or box (``grid20``); prior draws.
- λ(β) against Monte Carlo from exact i.i.d. draws at β = 1 (the posterior mixture) and β = 0
  (the prior); λ and Λ of one component against their closed forms.
- Λ of the presets as the module documents; additivity over adjacent intervals; λ ≥ 0.
- Options: the presets resolved into the recorded options, which rebuild the same model; bad
  custom layouts are one-line :class:`UserInputError`\\ s naming the key.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import norm

from tempering.errors import UserInputError
from tempering.models.barrier import (
    BarrierOptions,
    barrier_lambda,
    barrier_log_evidence,
    barrier_posterior,
    communication_barrier,
    nearest_mode,
)
from tempering.models.registry import get_model


@pytest.fixture(scope="module")
def bimodal():
    return get_model("barrier")


@pytest.fixture(scope="module")
def grid20():
    return get_model("barrier", layout="grid20")


def energy(theta: np.ndarray, model) -> np.ndarray:
    """V(θ) = −log L(θ) at each row of θ, from the options, with scipy."""
    means, weights = np.asarray(model.options["means"]), np.asarray(model.options["weights"])
    log_comp = norm.logpdf(theta[:, None, :], means[None], model.options["sd"]).sum(axis=-1)
    return -logsumexp(np.log(weights / weights.sum()) + log_comp, axis=1)


def exact_draws(model, beta: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n i.i.d. draws from π_1 (the exact posterior mixture) or π_0 (the prior)."""
    dim = len(model.options["means"][0])
    if beta == 0:
        return model.options["prior_sd"] * rng.standard_normal((n, dim))
    weights, centres, var = barrier_posterior(model)
    return centres[rng.choice(len(weights), size=n, p=weights)] + np.sqrt(var) * \
        rng.standard_normal((n, dim))


@pytest.mark.parametrize("layout", ["bimodal", "grid20"])
def test_log_density_is_log_prior_plus_log_mixture(layout):
    model = get_model("barrier", layout=layout, precision="float64")
    dim, s0 = len(model.options["means"][0]), model.options["prior_sd"]
    rng = np.random.default_rng(0)
    theta = np.concatenate([exact_draws(model, 1, 20, rng), exact_draws(model, 0, 20, rng)])
    ours = np.asarray(jax.vmap(model.log_density)(jnp.asarray(theta)))
    exact = norm.logpdf(theta, 0.0, s0).sum(axis=1) - energy(theta, model)
    np.testing.assert_allclose(ours, exact, rtol=1e-12, atol=1e-9)
    terms = model.log_lik_terms(jnp.asarray(theta[0]))
    assert terms.shape == (model.n_data,) == (1,)
    assert float(terms[0]) == pytest.approx(-energy(theta[:1], model)[0], rel=1e-12)
    assert model.dim == dim and model.params[0].name == "theta"
    draws = np.asarray(jax.vmap(model.init_position)(jax.random.split(jax.random.key(1), 20_000)))
    assert draws.shape == (20_000, dim)
    np.testing.assert_allclose(draws.std(axis=0), s0, rtol=0.03)


def test_bimodal_weights_and_evidence_match_grid_quadrature(bimodal):
    weights, centres, var = barrier_posterior(bimodal)
    h = 0.02  # ≈ √v / 25: the lattice sum of a Gaussian is its integral to ~exp(−2π²v/h²)
    theta = np.arange(-30.0, 30.0 + h / 2, h)[:, None]
    log_density = np.asarray(jax.jit(jax.vmap(bimodal.log_density))(jnp.asarray(theta)))
    basin = np.asarray(nearest_mode(theta, centres))
    log_mass = np.array([logsumexp(log_density[basin == j]) for j in range(len(weights))])
    np.testing.assert_allclose(np.exp(log_mass - logsumexp(log_mass)), weights, atol=1e-6)
    np.testing.assert_allclose(weights, [0.3, 0.7], atol=1e-12)  # symmetric prior: w' = w
    assert logsumexp(log_density) + np.log(h) == pytest.approx(barrier_log_evidence(bimodal),
                                                               abs=1e-6)
    assert bimodal.attrs["log_evidence"] == barrier_log_evidence(bimodal)


def test_grid20_mode_masses_match_grid_quadrature(grid20):
    weights, centres, var = barrier_posterior(grid20)
    assert len(weights) == 20 and np.all(np.diff(np.sort(weights)) > 0)
    h = 0.1  # boxes of half-width 4 (8 posterior sds; the next mode is 16 sds away)
    axis = np.arange(-4.0, 4.0 + h / 2, h)
    box = np.stack(np.meshgrid(axis, axis, indexing="ij"), axis=-1).reshape(-1, 2)
    log_z = barrier_log_evidence(grid20)
    density = jax.jit(jax.vmap(grid20.log_density))
    for j in (0, 9, 17):  # the lightest mode, a middle one, the heaviest
        log_density = np.asarray(density(jnp.asarray(centres[j] + box)))
        mass = np.exp(logsumexp(log_density) + 2 * np.log(h) - log_z)
        assert mass == pytest.approx(weights[j], abs=1e-6), j


@pytest.mark.parametrize("layout", ["bimodal", "grid20"])
def test_lambda_matches_monte_carlo_from_exact_draws(layout):
    model = get_model("barrier", layout=layout)
    rng = np.random.default_rng(2)
    n = 200_000
    grid_lambda = barrier_lambda(model, [0.0, 1.0])
    for k, beta in enumerate((0, 1)):
        v = energy(exact_draws(model, beta, 2 * n, rng), model)
        gap = 0.5 * np.abs(v[:n] - v[n:])
        se = gap.std() / np.sqrt(n)
        assert abs(grid_lambda[k] - gap.mean()) < 4 * se, (beta, grid_lambda[k], gap.mean(), se)


@pytest.mark.parametrize(("mean", "kappa", "rtol"),
                         [([0.0], 1 / np.pi, 1e-4), ([0.0, 0.0], 0.5, 1e-3)])
def test_one_component_has_the_closed_form_barrier(mean, kappa, rtol):
    """One component at 0: λ(β) = κ/(β + σ²/s0²), Λ(a, b) = κ log((b + σ²/s0²)/(a + σ²/s0²))."""
    model = get_model("barrier", layout="custom", means=[mean], sd=0.5, prior_sd=20.0)
    shift = 0.5**2 / 20.0**2
    betas = np.array([0.0, 1e-4, 1e-3, 0.01, 0.1, 1.0])
    np.testing.assert_allclose(barrier_lambda(model, betas), kappa / (betas + shift), rtol=rtol)
    assert communication_barrier(model, 0.0) == pytest.approx(
        kappa * np.log(1 + 1 / shift), rel=rtol / 10)


def test_preset_barriers_are_as_documented_additive_and_lambda_is_nonnegative(bimodal, grid20):
    whole = communication_barrier(bimodal, 1e-3)
    assert whole == pytest.approx(3.846, abs=1e-3)
    assert communication_barrier(bimodal, 0.0) == pytest.approx(3.949, abs=1e-3)
    assert 3 < whole < 5
    split = communication_barrier(bimodal, 1e-3, 0.02) + communication_barrier(bimodal, 0.02)
    assert split == pytest.approx(whole, rel=1e-6)
    lam = barrier_lambda(bimodal, np.linspace(0.0, 1.0, 101))
    assert np.all(lam >= 0) and np.all(lam > 0.1)
    assert communication_barrier(grid20, 0.0) == pytest.approx(2.483, abs=1e-3)


def test_options_resolve_round_trip_and_bad_layouts_are_one_line_errors(bimodal):
    assert bimodal.options == {"layout": "bimodal", "means": [[-20.0], [20.0]],
                               "weights": [0.3, 0.7], "sd": 0.5, "prior_sd": 5.0}
    for options in ({}, {"layout": "grid20", "sd": 0.7},
                    {"layout": "custom", "means": [[0.0, 1.0], [3.0, 2.0]]}):
        model = get_model("barrier", **options)
        assert BarrierOptions.model_validate(model.options).model_dump() == model.options
        rebuilt = get_model("barrier", **model.options)
        assert rebuilt.options == model.options and rebuilt.attrs == model.attrs
    assert get_model("barrier", layout="grid20", sd=0.7).options["sd"] == 0.7
    assert get_model("barrier", layout="custom", means=[[1.0]]).options["weights"] == [1.0]
    for options, message in [
        ({"layout": "custom", "means": [[0.0], [1.0]], "weights": [1.0]},
         r"^model.weights: 1 weights for 2 means"),
        ({"layout": "custom", "means": [[0.0], [1.0, 2.0]]}, "^model.means: all means"),
        ({"layout": "custom"}, "^model.means: layout custom needs means"),
        ({"means": [[1.0], [2.0]]}, "^model.means: set by layout bimodal"),
        ({"layout": "grid20", "weights": [1.0]}, "^model.weights: set by layout grid20"),
        ({"means": [[0.0, 1.0, 2.0]], "layout": "custom"}, r"^model.means.0: "),
        ({"layout": "grid30"}, "^model.layout: "),
    ]:
        with pytest.raises(UserInputError, match=message) as err:
            get_model("barrier", **options)
        assert "\n" not in str(err.value)
