"""The Neal (2010) reproduction (seed 004 §3): its mode bookkeeping and a tiny end-to-end run.

- ``sigma_valley`` finds the valley between two modes of a known bimodal sample (and no valley in
  a unimodal one); ``mode_switches`` counts crossings only beyond its hysteresis band.
- The runs spend the same budget of slow evaluations: a tiny run of the whole pipeline (``slow``:
  eleven samplers compile, 22 s; n = 12,
  a few hundred slow evaluations) writes every table, figure and the README, and every
  Metropolis-type run's recorded slow evaluations are within one chunk (10 iterations) under the
  budget.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from tempering.experiments import EXPERIMENTS
from tempering.experiments.neal2010.experiment import Settings, _run, run
from tempering.experiments.neal2010.runs import mode_switches, runs, sigma_valley


def test_sigma_valley_of_a_known_bimodal_sample():
    rng = np.random.default_rng(0)
    sample = np.concatenate([rng.normal(-2.0, 0.3, 6000), rng.normal(0.0, 0.2, 3000)])
    modes = sigma_valley(sample)
    assert modes is not None
    assert abs(modes["low_peak"] + 2.0) < 0.2 and abs(modes["high_peak"]) < 0.2
    assert -1.6 < modes["valley"] < -0.6
    assert abs(modes["low_share"] - 2 / 3) < 0.01
    assert sigma_valley(rng.normal(0.0, 1.0, 9000)) is None
    stray = np.concatenate([rng.normal(0.0, 0.5, 9000), [-6.0, -6.1]])  # a tail bin is no mode
    assert sigma_valley(stray) is None


def test_mode_switches_count_only_beyond_the_band():
    jitter = np.array([-0.1, 0.1, -0.1, 0.1, -0.1])  # inside ±0.15 of the valley 0
    assert mode_switches(jitter, 0.0) == 0
    path = np.array([-1.0, -0.1, 0.1, 1.0, 0.05, -0.05, 1.0, -1.0, -2.0, 1.0])
    assert mode_switches(path, 0.0) == 3  # −1 → +1 (index 3), +1 → −1 (7), −1 → +1 (9)


def test_runs_cover_the_papers_figures():
    by_figure = {}
    for r in runs(12):
        by_figure.setdefault(r.figure, []).append(r.key)
    assert by_figure == {2: ["joint-0.25", "joint-0.35"], 3: ["single", "single+49"],
                         4: ["independent-eigen", "exchangeable-eigen", "grid-eigen"],
                         5: ["independent-Cholesky", "exchangeable-Cholesky", "grid-Cholesky"],
                         0: ["nuts"]}
    slow = {r.key: r.slow_per_iteration for r in runs(12)}
    assert slow["joint-0.25"] == 1 and slow["grid-eigen"] == 12 and slow["grid-Cholesky"] == 13


@pytest.mark.slow
def test_tiny_end_to_end_run(tmp_path):
    assert EXPERIMENTS.get("neal2010").run is _run
    budget = 260
    run(True, tmp_path, Settings(budget=budget, seeds=1, pilot=100, nuts_warmup=10, n=12),
        log=lambda line: None)
    for name in ("modes.png", "fig2.png", "fig3.png", "fig4.png", "fig5.png", "fig_nuts.png",
                 "runs.md", "runs.csv", "timing.md", "runs_by_seed.csv", "README.md"):
        assert (tmp_path / name).stat().st_size > 0, name
    with (tmp_path / "runs_by_seed.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 11
    per_iteration = {r.key: r.slow_per_iteration for r in runs(12)}
    for row in rows:
        if row["run"] == "nuts":
            continue
        slow = float(row["slow_evals"])
        assert budget - 10 * per_iteration[row["run"]] < slow <= budget, row  # whole chunks
        assert 0.0 <= float(row["rejection_min"]) <= float(row["rejection_max"]) <= 1.0
    readme = (tmp_path / "README.md").read_text()
    assert "--quick" in readme and "n = 12" in readme and "Fig. 5" in readme
