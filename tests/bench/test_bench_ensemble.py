"""``tempering bench ensemble``: the output's shape at tiny sizes, bad inputs, the NumPyro
baseline's log density against the model's, and the compile clock's arithmetic.

The benchmark itself is not a timed test; its figures at the default sizes are reported by running
the command (``make bench-ensemble``).
"""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest
from cli_helpers import run_cli

from tempering import get_model
from tempering.bench import ensemble, numpyro_gp

TINY = ensemble.EssSettings(n=30, chains=1, warmup=10, draws=20, size=4)


def _check_slow_table(rows: list[dict], out: str) -> None:
    """The slow-evaluation rows at n = 20 and their printed table."""
    slow = {row["label"]: row for row in rows}
    assert {label: row["slow_per_iteration"] for label, row in slow.items()} == {
        "Metropolis (Cholesky)": 14, "Metropolis (eigen)": 12, "ensemble (Cholesky)": 13,
        "ensemble (eigen)": 12}
    assert slow["Metropolis (Cholesky)"]["ratio"] == 1.0
    assert all(row["seconds"] > 0 and row["n"] == 20 for row in slow.values())
    assert "| ensemble (eigen) | 20 | 12 |" in out and "| 13.9 | 1.72× | ≤ 1.5× |" in out


@pytest.mark.slow  # ~10 s of compiling on 2 cores (test budget); the table's pieces are below
def test_slow_evaluation_table_and_its_ratios(capsys):
    """The first table alone (make test): K = 4, n = 20, one round, two iterations; the whole
    run with the min-ESS table is ``slow``."""
    rows = ensemble.slow_eval_rows(20, 4, 1, 2)
    ensemble.print_slow_evals(rows, 1, 4)
    out = capsys.readouterr().out
    _check_slow_table(rows, out)


@pytest.mark.slow
def test_prints_both_tables_and_their_ratios(capsys, monkeypatch):
    """K = 4 (a 2 × 2 grid for the eigen ensemble), n = 20, one round; NumPyro taken as absent so
    that the test is the same with and without the ``bench`` extra."""
    monkeypatch.setattr(numpyro_gp, "available", lambda: False)
    result = ensemble.run(n=20, repeats=1, iterations=2, size=4, ess=TINY)
    out = capsys.readouterr().out
    _check_slow_table(result["slow_evals"], out)
    assert re.search(r"ensemble \(Cholesky\) / Metropolis \(Cholesky\) \(K = 4, median of 1\): "
                     r"\d+\.\d\d× at n = 20 \(target ≤ 1\.05×; paper 1\.01×\)", out)
    rows = result["ess"]
    assert [row["label"] for row in rows] == ["ensemble (η fast, K = 4, NUTS slow)", "nuts"]
    assert all(row["min_ess"] > 0 and row["sampling"] > 0 and row["compile"] > 0 for row in rows)
    assert "1 chains × (10 warmup + 20 draws), chains sequential" in out
    assert out.count(numpyro_gp.NOT_INSTALLED) == 2  # above the table and on its row
    assert re.search(r"min-ESS/s \(sampling\): ensemble / nuts \d+\.\d\d×\n", out)


def test_ratio_lines_with_numpyro(capsys):
    rows = [{"label": label, "min_ess": ess, "max_rhat": 1.0, "compile": 1.0, "warmup": 1.0,
             "sampling": 1.0, "per_second": ess, "per_second_all": ess / 2}
            for label, ess in (("ensemble", 600.0), ("nuts", 400.0), ("NumPyro NUTS", 200.0))]
    ensemble.print_ess(rows, ensemble.EssSettings(), "NumPyro x.y")
    out = capsys.readouterr().out
    assert "4 chains × (500 warmup + 1000 draws)" in out
    assert ("min-ESS/s (sampling): ensemble / NumPyro 3.00×, nuts / NumPyro 2.00×, "
            "ensemble / nuts 1.50× (goal: ensemble ≥ 3× NumPyro)") in out
    assert numpyro_gp.NOT_INSTALLED not in out


@pytest.mark.parametrize("args, fragment", [
    (["bench", "ensemble", "--dim", 3], "--dim"),
    (["bench", "ensemble", "--n", 1], "--n must be at least 2"),
    (["bench", "ensemble", "--repeats", 0], "--repeats must be at least 1"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, fragment):
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tempering: error: "), err
    assert fragment in lines[0]


def test_numpyro_model_is_gp_regression():
    """Same log density, Jacobian included, in the same unconstrained coordinates."""
    pytest.importorskip("numpyro")
    model = get_model("gp_regression", n=30, dim=3, data_seed=0)
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    for seed in range(3):
        theta = np.asarray(model.init_position(jax.random.key(seed)))
        assert numpyro_gp.log_density(x, y, theta) == pytest.approx(
            float(model.log_density(theta)), rel=1e-10, abs=1e-9)


def test_compile_clock_counts_overlaps_once():
    clock = numpyro_gp.CompileClock()
    clock.spans = [(1.0, 4.0), (2.0, 3.0), (3.5, 5.0), (7.0, 8.0), (9.5, 12.0)]
    assert clock.within(0.0, 10.0) == pytest.approx(4.0 + 1.0 + 0.5)  # [1, 5], [7, 8], [9.5, 10]
    assert clock.within(2.5, 7.5) == pytest.approx(2.5 + 0.5)
    assert clock.within(5.0, 7.0) == 0.0
