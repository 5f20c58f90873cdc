"""``tempering bench tall``: the error metric on cases with known answers, the reference and its
cache, the table, skipped and failed rows, the CLI's checks, and the quick run end to end.

- The error is the largest error of a coefficient's mean or sd in the reference's sds: draws
  built to have given means and sds give exactly the expected number (a wrong divisor, a missing
  absolute value or an sd in place of a variance would change it); non-finite draws give ∞.
- The curve is read at prefixes at their times (seconds before the first draw + the share of
  sampling), and "to 0.1 sd" is the first time after which the curve stays at or below 0.1.
- The reference: importance sampling reproduces a target whose answer is known (likelihood
  power 0: the prior, N(0, s²)) and agrees, within its own stated error, with a long exact run
  on a logistic posterior; it is cached and reused only for the same data; a target it cannot
  score is "not scored" with its reason.
- End to end (slow: nine cold child processes): ``--quick`` gives every contender's row with
  the table's columns, its phases, dtype, device, data passes and peak memory, a PNG and the
  cached references.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace

import numpy as np
import pytest
from cli_helpers import run_cli

from tempering.bench.tall import spawn
from tempering.bench.tall.laplace import Target, importance, log_density, mode
from tempering.bench.tall.metrics import curve, error, time_to_reach
from tempering.bench.tall.passes import rows_of
from tempering.bench.tall.plan import (
    CONTENDERS,
    QUICK,
    Contender,
    chosen_contenders,
    chosen_size,
    missing_option,
)
from tempering.bench.tall.reference import reference
from tempering.bench.tall.report import HEADER, table


def exact_draws(means: np.ndarray, sds: np.ndarray, chains: int = 2,
                draws: int = 500) -> np.ndarray:
    """Draws (chains, draws, d) whose pooled mean and sd (divisor K) are exactly ``means`` and
    ``sds``."""
    rng = np.random.default_rng(3)
    z = rng.standard_normal((chains * draws, means.size))
    z = (z - z.mean(axis=0)) / z.std(axis=0)
    return (means + sds * z).reshape(chains, draws, means.size)


def test_the_error_is_the_largest_mean_or_sd_error_in_reference_sds():
    ref_mean, ref_sd = np.array([1.0, -2.0, 0.0]), np.array([0.5, 2.0, 1.0])
    # coefficient 0: mean off by 0.05 = 0.1 sd, sd 1.3× (0.3 sd); coefficient 1: mean off by
    # -0.8 = 0.4 sd; coefficient 2: sd 0.75× (0.25 sd)
    draws = exact_draws(np.array([1.05, -2.8, 0.0]), np.array([0.65, 2.0, 0.75]))
    assert error(draws, ref_mean, ref_sd) == pytest.approx(0.4, abs=1e-9)
    draws = exact_draws(np.array([1.05, -2.0, 0.0]), np.array([0.65, 2.0, 0.75]))
    assert error(draws, ref_mean, ref_sd) == pytest.approx(0.3, abs=1e-9)
    assert error(exact_draws(ref_mean, ref_sd), ref_mean, ref_sd) == pytest.approx(0, abs=1e-9)
    draws[1, 7, 2] = np.nan
    assert error(draws, ref_mean, ref_sd) == float("inf")


def test_the_curve_reads_prefixes_at_their_times_and_to_level_waits_until_it_stays():
    ref_mean, ref_sd = np.zeros(1), np.ones(1)
    good = exact_draws(ref_mean, ref_sd, chains=2, draws=100)
    draws = np.concatenate([good[:, :50] + 5.0, good[:, 50:]], axis=1)  # a bad first half
    seconds, errors = curve(draws, ref_mean, ref_sd, before=10.0, sampling=4.0, points=4)
    assert seconds.tolist() == [11.0, 12.0, 13.0, 14.0]
    assert errors[0] == pytest.approx(5.0, abs=0.5) and errors[-1] > 1.0  # still pulled off
    assert time_to_reach((np.array([1.0, 2, 3, 4]), np.array([0.3, 0.05, 0.2, 0.08]))) == 4.0
    assert time_to_reach((np.array([1.0, 2, 3]), np.array([0.09, 0.05, 0.1]))) == 1.0
    assert time_to_reach((np.array([1.0, 2]), np.array([0.05, 0.2]))) is None
    assert time_to_reach((np.array([1.0, 2]), np.array([0.05, np.nan]))) is None


def logistic_data(n: int, dim: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, dim))
    theta = np.linspace(-1.0, 1.0, dim)
    y = np.where(rng.random(n) < 1.0 / (1.0 + np.exp(-x @ theta)), 1.0, -1.0)
    return x, y


def numpy_log_density(x, y, target, thetas):
    """log π(θ) in plain NumPy, one draw block at a time: the passes' independent check."""
    out = []
    for lo in range(0, thetas.shape[0], 4096):
        block = thetas[lo:lo + 4096]
        like = -np.logaddexp(0.0, -y[:, None] * (x @ block.T)).sum(axis=0)
        out.append(-0.5 * target.prior_weight * np.sum(block**2, axis=1) / target.prior_sd**2
                   + target.beta * like)
    return np.concatenate(out)


def test_the_passes_over_the_data_give_numpys_sums_whatever_the_blocks(monkeypatch):
    # 1000 rows in blocks of 128 (the last padded with 24 rows of weight 0), 50 draws in blocks
    # of 7: the sums, the gradient and the Hessian equal plain NumPy's; padding rows that
    # counted (weight 1) would move the log-likelihood by 24 log 2
    from tempering.bench.tall import passes

    monkeypatch.setattr(passes, "ROWS", 128)
    monkeypatch.setattr(passes, "DRAWS", 7)
    x, y = logistic_data(1000, 4)
    rows = rows_of(x, y)
    assert rows.x.shape == (8, 128, 4)
    thetas = np.random.default_rng(5).standard_normal((50, 4))
    target = Target(prior_sd=2.0, beta=0.5, prior_weight=0.7)
    assert np.allclose(log_density(rows, target, thetas),
                       numpy_log_density(x, y, target, thetas), rtol=1e-12, atol=1e-9)
    theta = thetas[0]
    s = 1.0 / (1.0 + np.exp(y * (x @ theta)))
    grad, hess = passes.gradient_hessian(rows, theta)
    assert np.allclose(grad, x.T @ (y * s), rtol=1e-12, atol=1e-9)
    assert np.allclose(hess, (x.T * (s * (1 - s))) @ x, rtol=1e-12, atol=1e-9)


def test_importance_sampling_reproduces_known_answers():
    x, y = logistic_data(400, 3)
    rows = rows_of(x, y)
    prior = Target(prior_sd=5.0, beta=0.0)  # no likelihood: N(0, 25 I) exactly
    centre, hessian = mode(rows, prior)
    found = importance(rows, prior, centre, hessian, draws=512)
    assert np.allclose(centre, 0.0) and np.allclose(found.mean, 0.0, atol=1e-12)
    assert np.allclose(found.sd, 5.0) and found.ess == pytest.approx(512)
    posterior = Target(prior_sd=5.0)
    centre, hessian = mode(rows, posterior)
    steps = np.concatenate([np.eye(3), -np.eye(3)]) * 1e-3  # the mode: every step goes down
    assert np.all(log_density(rows, posterior, centre + steps)
                  < log_density(rows, posterior, centre)[0])
    found = importance(rows, posterior, centre, hessian, draws=4096)
    assert found.ess > 0.8 * 4096 and found.error() < 0.05
    # an independent estimate: self-normalised importance sampling from a wider Gaussian
    rng = np.random.default_rng(9)
    wide = np.linalg.cholesky(4 * np.linalg.inv(hessian))
    thetas = centre + rng.standard_normal((200_000, 3)) @ wide.T
    z = np.linalg.solve(wide, (thetas - centre).T).T
    log_w = numpy_log_density(x, y, posterior, thetas) + 0.5 * np.sum(z**2, axis=1)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    mean = w @ thetas
    sd = np.sqrt(w @ (thetas - mean) ** 2)
    assert np.all(np.abs(found.mean - mean) / sd < 4 * found.mean_se / sd + 0.01)
    assert np.all(np.abs(found.sd - sd) / sd < 4 * found.sd_se / sd + 0.01)


def test_the_reference_is_cached_for_the_same_data_and_a_target_it_cannot_score_says_why(
        tmp_path):
    x, y = logistic_data(600, 2)
    size = replace(QUICK, reference_draws=256)
    first, cached = reference(x, y, Target(5.0), size, tmp_path)
    assert not cached and first.scored and "importance sampling" in first.method
    again, cached = reference(x, y, Target(5.0), size, tmp_path)
    assert cached and again == first
    _, cached = reference(x, y[::-1].copy(), Target(5.0), size, tmp_path)
    assert not cached  # other data: recomputed
    # 12 separable points under a weak prior: a posterior skewed along the separating
    # direction, far from its Laplace approximation, and past the NUTS limit (n ≤ 10)
    small = replace(size, nuts_reference_max_n=10)
    x, _ = logistic_data(12, 2)
    found, _ = reference(x, np.sign(x[:, 0]), Target(20.0), small, tmp_path)
    assert not found.scored and found.unscored.startswith("not scored: importance sampling")
    assert "n = 12 is past this run's limit (n ≤ 10)" in found.unscored


def test_rows_whose_sampler_lacks_an_option_are_skipped_with_a_note():
    assert missing_option(Contender("nuts", "library", "nuts")) is None
    absent = Contender("x", "library", "sgld", (("no_such_option", 1),))
    assert missing_option(absent).startswith("skipped: sgld has no option no_such_option")
    labels = [c.label for c in CONTENDERS]
    assert labels[-2:] == ["numpyro nuts", "numpyro hmcecs"] and "mint" in labels


def test_the_table_has_its_columns_ratios_and_notes():
    phases = {"startup": 1.0, "compile": 2.0, "optimise": 0.0, "warmup": 0.5,
              "sampling": 1.5, "other": 0.25}
    base = {"label": "numpyro nuts", "ok": True, "phases": phases, "total": 5.25,
            "draws_dtype": "float32", "passes": 3000.0, "peak_rss_bytes": 600 * 2**20,
            "reference": {"target": "posterior"},
            "scored": {"error": 0.05, "to_level": 4.0}}
    faster = {**base, "label": "nuts", "total": 2.625, "passes": 1500.0,
              "scored": {"error": 0.02, "to_level": 2.0}}
    never = {**base, "label": "hmc", "scored": {"error": 3.0, "to_level": None}}
    unscored = {**base, "label": "mint", "scored": None,
                "reference": {"target": "likelihood^(1/316)", "unscored": "not scored: why"}}
    failed = {"label": "sghmc", "ok": False, "error": "RuntimeError: boom"}
    skipped = {"label": "sgld", "ok": False, "skipped": "skipped: no option"}
    lines = table([faster, never, unscored, failed, skipped, base])
    assert lines[0] == "| " + " | ".join(HEADER) + " |"
    assert HEADER[:6] == ["contender", "target", "dtype", "to 0.1 sd, s", "×numpyro nuts",
                          "final error, sd"]
    assert HEADER[-4:] == ["total, s", "total ×numpyro nuts", "data passes", "peak RSS, MB"]
    assert lines[2] == ("| nuts | posterior | float32 | 2.00 | 0.50× | 0.020 | 1.00 | 2.00 | "
                        "0.00 | 0.50 | 1.50 | 0.25 | 2.62 | 0.50× | 1,500 | 600 |")
    assert "| hmc | posterior | float32 | not reached | – | 3.000 |" in lines[3]
    assert "| mint | likelihood^(1/316) | float32 | not scored | – | not scored |" in lines[4]
    assert all(line.count("|") == lines[0].count("|") for line in lines[2:8])
    assert "| sghmc | – | failed |" in lines[5] and "| sgld | – | skipped |" in lines[6]
    notes = lines[9:]
    assert notes == ["  mint: not scored: why", "  sghmc: failed: RuntimeError: boom",
                     "  sgld: skipped: no option"]


def test_the_bench_environment_is_set_where_unset_and_restored(monkeypatch):
    monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE", raising=False)
    monkeypatch.setenv("JAX_DEFAULT_MATMUL_PRECISION", "default")  # a user's own setting stays
    with spawn.bench_environment():
        assert os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
        assert os.environ["JAX_DEFAULT_MATMUL_PRECISION"] == "default"
        child = spawn.environment()
        assert child["TEMPERING_COMPILE_CACHE"] == "off"
        assert child["JAX_DEFAULT_MATMUL_PRECISION"] == "default"
    assert "XLA_PYTHON_CLIENT_PREALLOCATE" not in os.environ
    monkeypatch.delenv("JAX_DEFAULT_MATMUL_PRECISION")
    assert spawn.environment()["JAX_DEFAULT_MATMUL_PRECISION"] == "highest"


def test_a_child_that_fails_is_a_failed_row(tmp_path):
    request = {"kind": "no_such_kind", "label": "broken", "draws_path": str(tmp_path / "d")}
    row = spawn.measure(request, timeout=120)
    assert not row["ok"] and row["label"] == "broken" and row["process"] > 0
    assert row["error"] == "KeyError: 'no_such_kind'"


@pytest.mark.parametrize("args, fragment", [
    (["bench", "tall", "--rows", "0"], "--rows: '0' must be a whole number ≥ 100"),
    (["bench", "tall", "--dims", "ten"], "--dims: 'ten' is not a number"),
    (["bench", "tall", "--only", "nope"], "--only: unknown contender nope"),
    (["bench", "tall", "--n", "5"], "--n and --dim do not apply (use --rows and --dims)"),
    (["bench", "tall", "--repeats", "2"], "bench tall: --repeats does not apply"),
    (["bench", "startup", "--rows", "100"], "bench startup: --rows does not apply"),
    (["bench", "startup", "--json", "x.json"], "bench startup: --json does not apply"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, fragment):
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and fragment in lines[0], err


def test_rows_and_dims_choose_the_cases():
    size = chosen_size(False, "1e6", "10, 50,10")
    assert size.rows == (1_000_000,) and size.dims == (10, 50)
    assert chosen_size(True, None, None).rows == QUICK.rows


def test_quick_bench_runs_in_the_suite(capsys, tmp_path):
    """``bench tall --quick`` end to end on three contenders (one library sampler, an SG-MCMC one
    and the NumPyro baseline the ratios divide by): each a cold child with its row."""
    code, stdout, err = run_cli(["bench", "tall", "--quick", "--only", "hmc,sgld,numpyro nuts",
                                 "--out", tmp_path / "tall", "--json", tmp_path / "t.json"],
                                capsys)
    assert code == 0, err
    rows = json.loads((tmp_path / "t.json").read_text())["cases"][0]["rows"]
    assert [r["label"] for r in rows] == ["hmc", "sgld", "numpyro nuts"]
    for row in rows:
        assert row["ok"], row.get("error")
        assert row["draws_dtype"] == "float32" and np.isfinite(row["scored"]["error"])
        assert f"| {row['label']} | posterior | float32 |" in stdout
    assert "1.00×" in stdout  # NumPyro NUTS against itself


@pytest.mark.slow  # ~1-2 min on 2 cores: nine child processes compiling from nothing
def test_quick_bench_has_every_contender_with_the_tables_columns(capsys, tmp_path):
    out, json_file = tmp_path / "tall", tmp_path / "tall.json"
    code, stdout, err = run_cli(["bench", "tall", "--quick", "--out", out, "--json", json_file],
                                capsys)
    assert code == 0, err
    found = json.loads(json_file.read_text())
    (case,) = found["cases"]
    rows = case["rows"]
    assert [r["label"] for r in rows] == [c.label for c in CONTENDERS]
    assert "| " + " | ".join(HEADER) + " |" in stdout
    for row in rows:
        if row.get("skipped"):
            assert missing_option(next(c for c in CONTENDERS if c.label == row["label"]))
            continue
        assert row["ok"], row.get("error")
        assert row["draws_dtype"] in ("float32", "float64") and row["draws_shape"] == [2, 200, 2]
        assert row["device"]["platform"] and row["peak_rss_bytes"] > 50 * 2**20
        assert row["passes"] > 0 and all(v >= 0 for v in row["phases"].values())
        assert sum(row["phases"].values()) == pytest.approx(row["total"], rel=1e-6)
        assert row["phases"]["compile"] > 0 and np.isfinite(row["scored"]["error"])
        assert f"| {row['label']} | {row['reference']['target']} |" in stdout
    mint = next(r for r in rows if r["label"] == "mint")
    assert mint["reference"]["target"].startswith("likelihood^(1/")
    assert (out / "tall-n2000-d2.png").is_file()
    assert len(list((out / "reference").glob("*.json"))) == 2


def test_only_reads_labels_that_hold_commas():
    """``--only`` splits at commas, yet a label with a comma in it is read whole."""
    chosen = chosen_contenders("nuts, sgld, no control variates,sghmc")
    assert [c.label for c in chosen] == ["nuts", "sgld, no control variates", "sghmc"]
    assert [c.label for c in chosen_contenders("sgld")] == ["sgld"]
