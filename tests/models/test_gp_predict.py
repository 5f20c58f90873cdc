"""Posterior predictive of GP regression (seed 002 Eqs. 25–28) and ``tempering predict``.

The maths is checked against dense NumPy (one draw: Eqs. 25–26 with the noise in v, Eq. 22) and
against a direct loop over draws (the mixture of Eqs. 27–28); the command end to end on tiny runs,
standardised data included (its predictions are recomputed independently from the run file); and
bad inputs give one line, exit code 2 and no file.
"""

from __future__ import annotations

import csv
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_helpers import run_cli

from tempering.cli.main import main
from tempering.gp import predict as gp_predict
from tempering.gp.predict import per_draw_moments, posterior_predictive, predictive_moments
from tempering.models import get_model
from tempering.run.loading import load_run
from tempering.run.output import run_attr

TINY = ["--chains", "2", "--draws", "15", "--warmup", "0", "--seed", "3", "--no-progress"]




def dense_kernel(name: str, c: float, params: dict, x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """Noise-free K in NumPy from the constrained parameters (independent of the JAX code)."""
    d = x1[:, None, :] - x2[None, :, :]
    if name == "gp_const":  # c² + η² exp(−Σ Δ²/ρ²)   (seed 002 Eq. 24)
        return c**2 + params["eta"] ** 2 * np.exp(-np.sum((d / params["rho"]) ** 2, axis=-1))
    return params["sigma_f"] ** 2 * np.exp(  # σ_f² exp(−½ Σ Δ²/ℓ²)   (seed 000 Eq. 21)
        -0.5 * np.sum((d / params["lengthscale"]) ** 2, axis=-1))


def dense_moments(name, c, params, x, y, x_new) -> tuple[np.ndarray, np.ndarray]:
    """Eqs. 25–26: kᵀC⁻¹y and v − kᵀC⁻¹k with v = K(x*, x*) + σ² (Eq. 22)."""
    noise = (params["sigma"] if name == "gp_const" else params["sigma_n"]) ** 2
    cov = dense_kernel(name, c, params, x, x) + noise * np.eye(len(y))
    k = dense_kernel(name, c, params, x, x_new)
    v = np.diag(dense_kernel(name, c, params, x_new, x_new)) + noise
    return k.T @ np.linalg.solve(cov, y), v - np.sum(k * np.linalg.solve(cov, k), axis=0)


MODELS = {"gp_const": dict(n=30, dim=2, kernel="ard", data_seed=1),
          "gp_regression": dict(n=30, dim=2, data_seed=2)}


def setup(name):
    model = get_model(name, **MODELS[name])
    rng = np.random.default_rng(5)
    thetas = jnp.asarray(model.attrs["theta_true"]) + 0.3 * rng.standard_normal((7, model.dim))
    x_new = rng.uniform(-1.0, 2.0, size=(9, 2))
    return model, thetas, x_new


def constrained(model, theta) -> dict:
    return {k: np.asarray(v) for k, v in model.constrain(theta).items()}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_one_draw_matches_dense_numpy(name):
    model, thetas, x_new = setup(name)
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    one = jax.jit(lambda t, xn: predictive_moments(model.gp, t, model.data["x"],
                                                   model.data["y"], xn))
    got = one(thetas[0], jnp.asarray(x_new))
    mean, var = dense_moments(name, model.options.get("c"), constrained(model, thetas[0]), x, y,
                              x_new)
    np.testing.assert_allclose(np.asarray(got.mean), mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(got.var), var, rtol=1e-10)
    # At a training input the variance is about σ² plus a little: the noise is included.
    at_train = one(thetas[0], model.data["x"][:9])
    noise = float(model.gp.noise_var_fn(thetas[0]))
    assert noise < float(at_train.var[0]) < 2 * noise


@pytest.mark.parametrize("name", sorted(MODELS))
def test_mixture_over_draws_matches_a_direct_loop(name, monkeypatch):
    model, thetas, x_new = setup(name)
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    per = [dense_moments(name, model.options.get("c"), constrained(model, t), x, y, x_new)
           for t in thetas]
    means = np.array([m for m, _ in per])
    variances = np.array([v for _, v in per])
    mean = means.mean(axis=0)  # Eq. 27
    var = variances.mean(axis=0) + ((means - mean) ** 2).mean(axis=0)  # Eq. 28, mixture form
    got = posterior_predictive(model.gp, thetas, x, y, x_new)
    np.testing.assert_allclose(np.asarray(got.mean), mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(got.var), var, rtol=1e-10)
    assert np.all(np.asarray(got.var) > variances.mean(axis=0))  # the draws disagree a little
    # Batches of 3 draws (with a remainder of 1) give the same per-draw moments.
    monkeypatch.setattr(gp_predict, "BATCH_ELEMENTS", 3 * (2 * 30 * 30 + 30 * 9))
    batched = per_draw_moments(model.gp, thetas, jnp.asarray(x), jnp.asarray(y),
                               jnp.asarray(x_new))
    np.testing.assert_allclose(np.asarray(batched.mean), means, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------- the command


def write_csv(path: Path, header: list[str] | None, rows: np.ndarray) -> Path:
    lines = ([",".join(header)] if header else []) + [",".join(map(repr, map(float, r)))
                                                       for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A standardised gp_regression run on a CSV file, a synthetic gp_const run, an mvn run."""
    root = tmp_path_factory.mktemp("predict")
    rng = np.random.default_rng(0)
    x = rng.uniform(0.0, 10.0, size=(25, 2))
    y = 3.0 + np.sin(x[:, 0]) + 0.2 * x[:, 1] + 0.1 * rng.standard_normal(25)
    data = write_csv(root / "train.csv", ["a", "b", "y"], np.column_stack([x, y]))
    paths = {"data": data}
    for label, model, extra in (
            ("file", "gp_regression", ["--set", f"model.data={data}"]),
            ("synthetic", "gp_const", ["--set", "model.n=20", "--set", "model.dim=1"]),
            ("mvn", "mvn_mean", ["--set", "model.n=10", "--set", "model.dim=2"])):
        paths[label] = root / f"{label}.nc"
        with pytest.raises(SystemExit) as exc:
            main(["sample", "--model", model, "--sampler", "rwm", *TINY, *extra,
                  "--out", str(paths[label])])
        assert exc.value.code in (0, None)
    return paths


def expected_from_run(path: Path, x_new: np.ndarray, max_draws: int):
    """Independent recomputation: the run's draws thinned evenly, x standardised with the
    recorded constants, Eqs. 25–28 in NumPy, mapped back to the data's scale."""
    idata = load_run(path)
    name = run_attr(idata, "model")
    options, attrs = run_attr(idata, "model_options"), run_attr(idata, "model_attrs")
    model = get_model(name, **options)
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    draws = {k: np.asarray(idata.posterior[k].values) for k in idata.posterior.data_vars}
    total = next(iter(draws.values())).shape[0] * next(iter(draws.values())).shape[1]
    keep = np.round(np.linspace(0, total - 1, min(max_draws, total))).astype(int)
    flat = {k: v.reshape(total, *v.shape[2:])[keep] for k, v in draws.items()}
    scaled = x_new
    if attrs["standardized"]:
        scaled = (x_new - np.asarray(attrs["x_mean"])) / np.asarray(attrs["x_sd"])
    per = [dense_moments(name, options.get("c"), {k: v[i] for k, v in flat.items()}, x, y,
                         scaled) for i in range(len(keep))]
    means = np.array([m for m, _ in per])
    mean = means.mean(axis=0)
    sd = np.sqrt(np.array([v for _, v in per]).mean(axis=0) + ((means - mean) ** 2).mean(axis=0))
    if attrs["standardized"]:
        mean, sd = attrs["y_mean"] + attrs["y_sd"] * mean, attrs["y_sd"] * sd
    return mean, sd


def read_output(path: Path) -> tuple[list[str], np.ndarray]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], np.array(rows[1:], dtype=float)


def test_predict_standardised_file_run_end_to_end(runs, tmp_path, capsys):
    x_new = np.array([[1.0, 2.0], [5.5, 0.5], [9.0, 9.0], [20.0, -3.0]])
    new = write_csv(tmp_path / "new.csv", ["b", "a"], x_new[:, ::-1])  # columns reordered
    out = tmp_path / "pred.csv"
    code, stdout, err = run_cli(["predict", runs["file"], "--x", new, "--out", out,
                                 "--max-draws", 12], capsys)
    assert code == 0, err
    assert stdout.strip() == f"wrote {out} (4 points, 12 draws)"
    header, table = read_output(out)
    assert header == ["a", "b", "mean", "sd"]
    np.testing.assert_array_equal(table[:, :2], x_new)
    mean, sd = expected_from_run(runs["file"], x_new, 12)
    np.testing.assert_allclose(table[:, 2], mean, rtol=1e-9)
    np.testing.assert_allclose(table[:, 3], sd, rtol=1e-9)
    assert abs(table[3, 2] - 3.0) < abs(table[0, 2] - 3.0) + 2.0  # far away: towards the mean
    # A file without a header, columns in training order, gives the same; default output name.
    plain = write_csv(tmp_path / "plain.csv", None, x_new)
    code, stdout, err = run_cli(["predict", runs["file"], "--x", plain, "--max-draws", 12],
                                capsys)
    assert code == 0, err
    header2, table2 = read_output(tmp_path / "plain.pred.csv")
    assert header2 == ["a", "b", "mean", "sd"]
    np.testing.assert_array_equal(table2, table)


def test_predict_synthetic_run_uses_every_draw_up_to_max(runs, tmp_path, capsys):
    x_new = np.linspace(0.0, 1.0, 5)[:, None]
    new = write_csv(tmp_path / "new.csv", None, x_new)
    code, stdout, err = run_cli(["predict", runs["synthetic"], "--x", new], capsys)
    assert code == 0, err
    assert "(5 points, 30 draws)" in stdout  # 2 chains × 15 draws < the default 500
    header, table = read_output(tmp_path / "new.pred.csv")
    assert header == ["x1", "mean", "sd"]
    mean, sd = expected_from_run(runs["synthetic"], x_new, 500)
    np.testing.assert_allclose(table[:, 1], mean, rtol=1e-9)
    np.testing.assert_allclose(table[:, 2], sd, rtol=1e-9)


def _case(run: str, text: str | None, *fragments, extra=()):
    def build(runs, tmp):
        new = tmp / "new.csv"
        if text is not None:
            new.write_text(text, encoding="utf-8")
        return ["predict", runs.get(run, tmp / run), "--x", new, "--out", tmp / "out.csv",
                *extra], fragments

    return build


BAD = {
    "not-a-gp-run": _case("mvn", "1,2\n", "not a GP model"),
    "too-many-columns": _case("file", "1,2,3\n", "3 covariate column(s)", "has 2"),
    "too-few-columns": _case("synthetic", "1,2\n", "2 covariate column(s)", "has 1"),
    "wrong-names": _case("file", "a,c\n1,2\n", "do not match", "a, b"),
    "non-numeric": _case("file", "a,b\n1,2\n3,x\n", "row 3", "is not a number"),
    "empty": _case("file", "", "empty"),
    "missing-x": _case("file", None, "covariate file not found"),
    "missing-run": _case("nope.nc", "1,2\n", "run file not found"),
    "not-a-run-file": _case("data", "1,2\n", "not a tempering run file"),
    "max-draws-zero": _case("file", "1,2\n", "--max-draws must be at least 1",
                            extra=("--max-draws", 0)),
}


@pytest.mark.parametrize("case", BAD.values(), ids=BAD.keys())
def test_bad_input_is_one_line_exit_2_nothing_written(runs, tmp_path, capsys, case):
    args, fragments = case(runs, tmp_path)
    before = set(tmp_path.iterdir())
    code, out, err = run_cli(args, capsys)
    assert code == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tempering: error: "), err
    for fragment in fragments:
        assert fragment in lines[0]
    assert set(tmp_path.iterdir()) == before  # no output, no temporary file


def test_missing_output_directory_and_changed_data(runs, tmp_path, capsys):
    new = write_csv(tmp_path / "new.csv", None, np.zeros((1, 2)))
    code, _, err = run_cli(["predict", runs["file"], "--x", new, "--out",
                            tmp_path / "no" / "out.csv"], capsys)
    assert code == 2 and "output directory does not exist" in err
    # The training file changed after the run: the model cannot be rebuilt faithfully.
    original = runs["data"].read_text(encoding="utf-8")
    try:
        runs["data"].write_text(original.replace("\n", "\n", 1) + "1,1,100\n", encoding="utf-8")
        code, _, err = run_cli(["predict", runs["file"], "--x", new], capsys)
        assert code == 2 and "changed since the run" in err, err
        runs["data"].unlink()
        code, _, err = run_cli(["predict", runs["file"], "--x", new], capsys)
        assert code == 2 and "cannot rebuild model gp_regression" in err
        assert "data file not found" in err
    finally:
        runs["data"].write_text(original, encoding="utf-8")
    assert not (tmp_path / "new.pred.csv").exists()
