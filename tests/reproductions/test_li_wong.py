"""The li-wong reproduction (seed 003 part 1: MINT, CMINT): a tiny end-to-end run and the pieces
whose answers are known.

- A tiny configuration of all three parts writes every table, plot and the README; the tables
  parse, the paper's copied rows are labelled as such, and on substance: every MINT run crosses
  between the tied-means modes, and t at the initial logistic θ is centred, has the
  finite-population CLT's sd and is nearly symmetric.
- The exact grid ratio with a flat prior is 1 (the likelihood's symmetry M(θ₁, θ₂) =
  (θ₁ + θ₂, −θ₂) maps one mode onto the other and preserves area).
- The mode-ratio curve of hand-made counts, and the conversion of the paper's MINT step 0.22 on
  the mean log-likelihood into MALA's ε = √(2·0.22/s), s = m^0.99.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from tempering.experiments import EXPERIMENTS
from tempering.experiments.li_wong import paper
from tempering.experiments.li_wong.bnn import BnnSettings, bnn_models, mint_step
from tempering.experiments.li_wong.ee import EESettings
from tempering.experiments.li_wong.experiment import Settings, run
from tempering.experiments.li_wong.logistic import LogisticSettings
from tempering.experiments.li_wong.tied import TiedSettings, ratio_curve, scaling, tied_model
from tempering.models import mode_mass_ratio

#: Part 2 at a size that only checks the plumbing (tests/reproductions/test_li_wong_ee.py runs it).
TINY_EE = EESettings(n=2000, top_batch=50, burnin=50, stagger=50, warmup=50, draws=300,
                     ee_draws=100, control_draws=100, capacity=200, embed_points=200)

TINY = Settings(
    TiedSettings(n=2000, batch=100, iterations=3000, runs=3, chunks=3, radius=0.3,
                 control_iterations=200, control_runs=2, tempered_runs=2, tempered_iterations=300,
                 pilot=100, grid=11,
                 disc_points=11, keep=20),
    LogisticSettings(data=None, batch=100, epochs=4, runs=2, checkpoints=4, clt_batches=400,
                     pilot=20),
    BnnSettings(data=None, hidden=4, batch=200, epochs=2, round_epochs=1, decay_epochs=1,
                rounds=2, sghmc_steps=2, keep_draws=1),
    TINY_EE,
    quick=True)

TABLES = ("fig1_modes", "fig1_ratio", "fig2_clt", "fig2_accuracy", "fig2_summary", "table1",
          "table2", "fig3_error", "cmint_ensemble")
PLOTS = ("fig1_tied_means.png", "fig2_logistic.png", "fig5_logistic_seconds.png",
         "fig3_bnn.png")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("li_wong")
    return out, run(quick=True, out=out, cfg=TINY, log=lambda line: None,
                    only="tied,logistic,bnn")


def test_registered():
    assert EXPERIMENTS.get("li-wong").run is run


@pytest.mark.slow  # the tiny reproduction takes ~45 s of one core
def test_tiny_run_writes_every_file(tiny):
    out, _ = tiny
    for stem in TABLES:
        assert (out / f"{stem}.md").read_text().startswith("# ")
        assert _rows(out / f"{stem}.csv"), stem
    for name in PLOTS:
        assert (out / name).stat().st_size > 1000
    readme = (out / "README.md").read_text()
    for heading in ("## Fig. 1", "## Fig. 2", "## Fig. 3", "## What holds", "## Decisions"):
        assert heading in readme
    for row in _rows(out / "fig2_accuracy.csv"):
        assert 0.0 <= float(row["accuracy"]) <= 1.0
    for row in _rows(out / "table2.csv"):
        assert 0.0 <= float(row["final_error"]) <= 1.0


@pytest.mark.slow  # the tiny reproduction takes ~45 s of one core
def test_table1_copies_the_paper_and_labels_it(tiny):
    out, _ = tiny
    rows = _rows(out / "table1.csv")
    assert rows[0]["method"] == "MINT (ours)" and float(rows[0]["batch_mean"]) == 100.0
    assert rows[1]["method"] == "MINT (paper's, copied)" and rows[1]["batch_sd"] == ""
    copied = {r["method"]: (float(r["batch_mean"]), float(r["batch_sd"])) for r in rows[2:]}
    assert copied == {f"{r.method} (paper's, copied)": (r.mean, r.sd) for r in paper.TABLE1[1:]}
    assert copied["MHminibatch (paper's, copied)"] == (125.4, 9.2)
    assert copied["MHSubLhd (paper's, copied)"] == (10783.4, 78.9)


@pytest.mark.slow  # the tiny reproduction takes ~45 s of one core
def test_tiny_tied_means_mint_crosses(tiny):
    """At s = n^λ = 10 (T = 200) every MINT run visits both modes within 3000 iterations, and its
    ratio is finite; the exact ratios are near 1 (the tempered prior tilts it by e^(0.05 β))."""
    _, result = tiny
    shares = {r["sampler"]: r for r in result["tied"]["shares"]}
    mint = shares["MINT (b)"]
    assert mint["runs_visiting_both"] == TINY.tied.runs
    assert math.isfinite(mint["pooled_ratio"]) and mint["pooled_ratio"] > 0
    assert math.isfinite(mint["mean_ratio"]) and mint["share_near_mode2"] > 0
    grid = result["tied"]["grid"]
    assert abs(grid["flat_ratio"] - 1.0) < 1e-3 and abs(grid["ratio"] - 1.0) < 1e-2


@pytest.mark.slow  # the tiny reproduction takes ~45 s of one core
def test_tiny_clt_at_the_initial_theta(tiny):
    """t = √m(μ̂ − μ) is exactly centred (μ̂ is unbiased), its sd is σ√((n−m)/(n−1)) and at the
    initial θ (nearly symmetric terms) it is nearly symmetric: |skewness| < 5 × its sd √(6/B)."""
    _, result = tiny
    row = next(r for r in result["logistic"]["clt"] if r["theta"] == "initial θ")
    batches = row["batches"]
    assert abs(row["mean"]) < 5 * row["predicted_sd"] / math.sqrt(batches)
    assert row["sd"] == pytest.approx(row["predicted_sd"], rel=5 / math.sqrt(batches))
    assert abs(row["skewness"]) < 5 * math.sqrt(6 / batches)


def test_flat_prior_grid_ratio_is_one():
    cfg = TINY.tied
    model = tied_model(TiedSettings(**{**cfg.__dict__, "n": 2000}))
    beta = scaling(cfg)["beta"]
    assert mode_mass_ratio(model, beta, 0.0, 0.01, paper.TIED_MODES, 21) == pytest.approx(
        1.0, abs=1e-6)


def test_ratio_curve_by_hand():
    counts = np.zeros((2, 3, 3))
    counts[0, :, :2] = [[2, 1], [1, 1], [0, 0]]
    counts[1, :, :2] = [[2, 3], [3, 1], [5, 0]]
    rows = ratio_curve(counts, 10)
    assert [r["iterations"] for r in rows] == [10, 20]
    assert rows[0]["runs_defined"] == 2 and rows[0]["mean_ratio"] == pytest.approx(1.5)
    assert rows[0]["se"] == pytest.approx(0.5)
    assert rows[1]["mean_ratio"] == pytest.approx((1.0 + 2.0) / 2)
    assert rows[1]["pooled_ratio"] == pytest.approx(13 / 6)


def test_mint_step_conversion():
    """lr = 0.22 on the mean log-likelihood → ε = √(2·0.22/s), s = n^(0.99 τ) = m^0.99."""
    models = bnn_models(TINY.bnn)
    eps, scale = mint_step(models["flat"], TINY.bnn, paper.MINT_STEP)
    assert scale == pytest.approx(200**0.99, rel=1e-12)
    assert eps == pytest.approx(math.sqrt(0.44 / 200**0.99), rel=1e-12)
    assert eps == pytest.approx(0.0482, abs=1e-4)
