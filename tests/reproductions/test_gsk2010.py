"""The gsk2010 reproduction (seed 001): its K–S helper, the toy mixture, and a tiny end-to-end run.

- ``weighted_ks`` with equal weights is the one-sample K–S statistic (scipy.stats.kstest), on
  continuous draws and on draws with ties; a hand-built weighted example has a known answer; a
  draw of weight zero is ignored.
- The exact mixture CDF against numerical integration of the mixture density, and against its
  own limits; the density is normalised.
- A tiny run of the whole pipeline (reduced settings) writes every table and the README, and its
  tables hold the facts that hold for any run (optimal IT's ESS is the largest, probabilities sum
  to one).
"""

from __future__ import annotations

import csv

import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate, stats

from tempering.experiments import EXPERIMENTS
from tempering.experiments.gsk2010.experiment import (
    Settings,
    mixture_cdf,
    mixture_log_pdf,
    run,
    weighted_ks,
)


def test_weighted_ks_equal_weights_is_kstest():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    expected = stats.kstest(x, stats.norm.cdf).statistic
    assert weighted_ks(x, np.zeros(200), stats.norm.cdf) == pytest.approx(expected, abs=1e-12)
    # the same with a constant log weight (self-normalised)
    assert weighted_ks(x, np.full(200, -7.3), stats.norm.cdf) == pytest.approx(expected,
                                                                               abs=1e-12)


def test_weighted_ks_ties_equal_duplicated_weight():
    """A repeated draw (a rejected MCMC move) counts as one value of double weight."""
    x = np.array([-1.0, 0.2, 0.2, 1.5])
    tied = weighted_ks(x, np.zeros(4), stats.norm.cdf)
    merged = weighted_ks(np.array([-1.0, 0.2, 1.5]), np.log([1.0, 2.0, 1.0]), stats.norm.cdf)
    assert tied == pytest.approx(merged, abs=1e-15)
    # by hand: steps 1/4, 3/4, 1 at -1, 0.2, 1.5
    f = stats.norm.cdf([-1.0, 0.2, 1.5])
    by_hand = max(0.25 - f[0], f[0], 0.75 - f[1], f[1] - 0.25, 1.0 - f[2], f[2] - 0.75)
    assert tied == pytest.approx(by_hand, abs=1e-15)


def test_weighted_ks_hand_built_uniform():
    """Uniform CDF, draws 0.2 and 0.6 with weights 0.75 and 0.25: F̂ jumps to 0.75 at 0.2, so
    D = 0.75 − 0.2 = 0.55; a third draw with weight zero changes nothing."""
    cdf = stats.uniform.cdf
    assert weighted_ks([0.2, 0.6], np.log([0.75, 0.25]), cdf) == pytest.approx(0.55)
    assert weighted_ks([0.2, 0.6, 0.9], [np.log(0.75), np.log(0.25), -np.inf], cdf) == \
        pytest.approx(0.55)
    # a broken helper that ignored the weights would give max(0.5 − 0.2, 0.6 − 0.5, ...) = 0.4
    assert weighted_ks([0.2, 0.6], np.zeros(2), cdf) == pytest.approx(0.4)


def test_mixture_cdf_matches_integrated_density():
    pdf = lambda t: float(np.exp(mixture_log_pdf(jnp.asarray(t))))  # noqa: E731
    total = integrate.quad(pdf, -10, 10, points=[0.0, 5.0], limit=200)[0]
    assert total == pytest.approx(1.0, abs=1e-8)
    for x in (-1.3, 0.0, 2.5, 4.95, 5.0, 5.2):
        value = integrate.quad(pdf, -12, x, points=[v for v in (0.0, 5.0) if v < x],
                               limit=200)[0]
        assert mixture_cdf(x) == pytest.approx(value, abs=1e-8)
    assert mixture_cdf(-50.0) == pytest.approx(0.0, abs=1e-15)
    assert mixture_cdf(50.0) == pytest.approx(1.0, abs=1e-15)
    assert mixture_cdf(5.0) == pytest.approx(0.75, abs=1e-6)  # half the broad + half the narrow


def _read(path):
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.mark.slow  # ~55 s: the whole reproduction pipeline; make test-slow runs it
def test_tiny_end_to_end_run_writes_tables(tmp_path):
    assert EXPERIMENTS.get("gsk2010").run is run
    cfg = Settings(toy_runs=2, toy_draws=600, toy_warmup=200, gp_chains=1, gp_draws=80,
                   gp_warmup=40, ref_draws=80, cp_chains=1, cp_draws=200, cp_warmup=80,
                   rungs=5)
    run(True, tmp_path, cfg, log=lambda s: None)
    for stem in ("table2_mixture", "table2_runs", "gp_mcycle", "changepoint", "changepoint_ess"):
        assert (tmp_path / f"{stem}.md").is_file() and (tmp_path / f"{stem}.csv").is_file()
    readme = (tmp_path / "README.md").read_text()
    assert "0.5 N(θ; 0, 1²) + 0.5 N(θ; 5, 0.1²)" in readme and "--quick" in readme
    runs = _read(tmp_path / "table2_runs.csv")
    assert len(runs) == 2
    for r in runs:
        # Proposition 2.1: λ* maximises the combination's ESS over the simplex
        assert float(r["ess_optimal"]) >= max(float(r["ess_st"]), float(r["ess_naive"])) - 1e-9
        for kind in ("st", "naive", "optimal"):
            assert 0.0 < float(r[f"ks_{kind}"]) <= 1.0
    cp = _read(tmp_path / "changepoint.csv")
    for kind in ("exact", "st", "naive", "optimal"):
        assert sum(float(r[kind]) for r in cp) == pytest.approx(1.0, abs=1e-9)
    gp = _read(tmp_path / "gp_mcycle.csv")
    assert len(gp) == 3  # lengthscale, sigma_f, sigma_n
