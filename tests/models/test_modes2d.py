"""The ``modes2d`` model (unequal modes of exactly known mass) and the ``mixture`` model's ``spike``
spelling of seed 003's 50-mode experiment (Appendix D.2).

- ``modes2d``: the closed-form posterior weights against 2-D grid quadrature of the model's own
  log density over each mode's basin; the log density against the closed-form mixture density
  (their difference is the closed-form log evidence); prior draws per mode; CSV data; options.
- ``mixture`` with ``spike``: the data, the recorded options rebuilding the same model, the
  permutation invariance that gives each of the K modes mass 1/K, and :func:`mode_index`.
- Bad options are one-line :class:`UserInputError`\\ s naming the key.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.special import logsumexp

from tempering.errors import UserInputError
from tempering.models import get_model
from tempering.models.mixture import MixtureOptions, mode_index
from tempering.models.modes2d import (
    Modes2dOptions,
    modes2d_log_evidence,
    modes2d_posterior,
    nearest_mode,
)


@pytest.fixture(scope="module")
def model():
    return get_model("modes2d", precision="float64")


def closed_form_log_density(theta, weights, centres, var):
    """log Σ_j w'_j N(θ; c_j, v I₂) at each row of θ."""
    d2 = np.sum((theta[:, None, :] - centres[None]) ** 2, axis=-1)
    return logsumexp(np.log(weights) - 0.5 * d2 / var - np.log(2 * np.pi * var), axis=1)


def test_exact_weights_match_grid_quadrature_over_each_basin(model):
    weights, centres, var = modes2d_posterior(model)
    h = 0.05  # ≈ √v / 6: the lattice sum of a Gaussian is its integral up to ~exp(−2π²v/h²)
    axis = np.arange(-6.5, 6.5 + h / 2, h)
    g1, g2 = np.meshgrid(axis, axis, indexing="ij")
    points = jnp.asarray(np.stack([g1.ravel(), g2.ravel()], axis=1))
    log_density = np.asarray(jax.jit(jax.vmap(model.log_density))(points))
    basin = np.asarray(nearest_mode(points, centres))
    log_mass = np.array([logsumexp(log_density[basin == j]) for j in range(len(weights))])
    grid_weights = np.exp(log_mass - logsumexp(log_mass))
    np.testing.assert_allclose(grid_weights, weights, rtol=0, atol=1e-6)
    assert logsumexp(log_density) + 2 * np.log(h) == pytest.approx(
        modes2d_log_evidence(model), abs=1e-6)


def test_default_weights_are_unequal_and_sizeable(model):
    weights, centres, var = modes2d_posterior(model)
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(np.sort(weights)) > 0.1)
    assert weights.min() > 0.1
    separation = min(np.linalg.norm(a - b) for a, b in itertools.combinations(centres, 2))
    assert separation / np.sqrt(var) > 20
    assert model.attrs["posterior_weights"] == pytest.approx(weights.tolist(), abs=1e-15)


def test_log_density_is_the_closed_form_mixture_times_the_evidence(model):
    weights, centres, var = modes2d_posterior(model)
    rng = np.random.default_rng(0)
    near = (centres[:, None, :] + 3 * np.sqrt(var) * rng.standard_normal((3, 50, 2))).reshape(-1, 2)
    theta = np.concatenate([near, rng.uniform(-8, 8, size=(100, 2))])
    ours = np.asarray(jax.vmap(model.log_density)(jnp.asarray(theta)))
    exact = closed_form_log_density(theta, weights, centres, var) + modes2d_log_evidence(model)
    np.testing.assert_allclose(ours, exact, rtol=1e-12, atol=1e-8)


def test_terms_sum_to_the_likelihood_and_prior_draws_follow_the_weights(model):
    theta = jnp.asarray([0.3, -1.2])
    terms = model.log_lik_terms(theta)
    assert terms.shape == (model.n_data,)
    assert float(jnp.sum(terms)) == pytest.approx(float(model.log_lik(theta)), rel=1e-12)
    draws = jax.vmap(model.init_position)(jax.random.split(jax.random.key(1), 20_000))
    means = np.asarray(model.options["means"])
    counts = np.bincount(np.asarray(nearest_mode(draws, means)), minlength=len(means))
    prior = np.asarray(model.options["weights"]) / np.sum(model.options["weights"])
    z = (counts / 20_000 - prior) / np.sqrt(prior * (1 - prior) / 20_000)
    assert np.all(np.abs(z) < 5), z


def test_options_round_trip_and_csv_data(model, tmp_path):
    again = Modes2dOptions.model_validate(model.options)
    assert again.model_dump() == model.options
    rebuilt = get_model("modes2d", **model.options, precision=model.precision)
    np.testing.assert_array_equal(rebuilt.data["x"], model.data["x"])
    path = tmp_path / "points.csv"
    np.savetxt(path, np.asarray(model.data["x"]), delimiter=",")
    from_csv = get_model("modes2d", data=str(path), precision=model.precision)
    np.testing.assert_allclose(modes2d_posterior(from_csv)[0], modes2d_posterior(model)[0],
                               rtol=1e-12)
    np.savetxt(path, np.ones((4, 3)), delimiter=",")
    with pytest.raises(UserInputError, match="expected two values per row"):
        get_model("modes2d", data=str(path))


def test_nearest_mode_is_batched():
    centres = jnp.asarray([[0.0, 0.0], [5.0, 0.0]])
    theta = jnp.asarray([[[0.1, 0.2], [4.0, -1.0]], [[2.6, 0.0], [2.4, 9.0]]])
    np.testing.assert_array_equal(jax.jit(nearest_mode)(theta, centres), [[0, 1], [1, 0]])


# --------------------------------------------------------------------------- mixture spike


def test_spike_puts_n_over_k_points_at_the_spike_and_the_rest_at_zero():
    k, n = 5, 1000
    mix = get_model("mixture", k=k, n=n, spike=2.0, sigma=0.01, data_seed=1)
    x = np.asarray(mix.data["x"])
    assert x.shape == (n,)
    assert np.sum(np.abs(x - 2.0) < 0.1) == n // k
    assert np.sum(np.abs(x) < 0.1) == n - n // k
    assert mix.attrs["means"] == [2.0, 0.0, 0.0, 0.0, 0.0]
    assert mix.options["spike"] == 2.0 and mix.options["k"] == k


def test_spike_options_round_trip():
    mix = get_model("mixture", k=4, n=200, spike=-1.5, data_seed=3)
    assert MixtureOptions.model_validate(mix.options).model_dump() == mix.options
    rebuilt = get_model("mixture", **mix.options)
    np.testing.assert_array_equal(rebuilt.data["x"], mix.data["x"])


def test_spike_posterior_is_permutation_invariant():
    k = 6
    mix = get_model("mixture", k=k, n=300, spike=2.0, data_seed=2)
    rng = np.random.default_rng(5)
    log_density = jax.jit(mix.log_density)
    for _ in range(5):
        mu = rng.normal(0.0, 2.0, size=k)
        perm = rng.permutation(k)
        assert float(log_density(jnp.asarray(mu[perm]))) == pytest.approx(
            float(log_density(jnp.asarray(mu))), rel=1e-12, abs=1e-9)
    # the permutation invariance is not vacuous: moving one coordinate changes the density
    mu = rng.normal(0.0, 2.0, size=k)
    assert float(log_density(jnp.asarray(mu + np.eye(k)[0]))) != pytest.approx(
        float(log_density(jnp.asarray(mu))), abs=1e-3)


def test_mode_index_finds_the_spike_coordinate():
    k = 50
    rng = np.random.default_rng(0)
    js = rng.integers(0, k, size=20)
    mu = 2.0 * np.eye(k)[js] + 0.3 * rng.standard_normal((20, k))
    np.testing.assert_array_equal(jax.jit(mode_index)(mu, 2.0), js)
    np.testing.assert_array_equal(mode_index(-mu, -2.0), js)
    assert int(mode_index(mu[0], 2.0)) == js[0]


# --------------------------------------------------------------------------- bad options


@pytest.mark.parametrize(("name", "options", "message"), [
    ("mixture", {"spike": 2.0}, "^model.spike: needs k"),
    ("mixture", {"spike": 2.0, "k": 2, "means": [1.0, 0.0]},
     "^model.spike: cannot be combined with means"),
    ("mixture", {"spike": 2.0, "k": 2, "data": "x.csv"},
     "^model: .*spike describe synthetic data; they cannot be combined with data"),
    ("modes2d", {"weights": [1.0, 2.0]}, r"^model.weights: 2 weights for 3 means"),
    ("modes2d", {"means": [[0.0, 0.0]]}, r"^model.weights: 3 weights for 1 means"),
    ("modes2d", {"weights": [1.0, 0.0, 2.0]}, r"^model.weights.1: .*greater than 0"),
    ("modes2d", {"means": [[0.0, 0.0, 1.0], [1.0, 1.0], [2.0, 2.0]]}, r"^model.means.0: "),
    ("modes2d", {"theta_true": [0.0]}, r"^model.theta_true: "),
    ("modes2d", {"n": 10, "data": "x.csv"}, "^model: n describe synthetic data"),
])
def test_bad_options_are_one_line_errors(name, options, message):
    with pytest.raises(UserInputError, match=message) as err:
        get_model(name, **options)
    assert "\n" not in str(err.value)
