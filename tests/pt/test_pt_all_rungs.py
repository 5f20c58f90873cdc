"""PT with ``keep_all_rungs`` (importance tempering over MC3, seed 001 §4): the run file's layout,
the weights, the unchanged target chain, the IT estimate and the log evidence with a prior rung."""

from __future__ import annotations

import os

import jax
import numpy as np
import pytest
from support import Z_BOUND

from tempering import get_model, run_chains
from tempering.algorithms import get_sampler
from tempering.models.mvn_mean import analytic_log_evidence, analytic_posterior
from tempering.summary import summarize

pytestmark = pytest.mark.slow  # ~26 s: keep_all_rungs (IMC3) runs in make test-slow

# keep_all_rungs needs fixed β's, so the plain run it is compared with is given the same
# geometric schedule (plain PT's default adapts its β's in warmup)
OPTIONS = {"rungs": 6, "beta_min": 0.02, "prior_rung": True, "step_size": 0.4,
           "schedule": "fixed"}


@pytest.fixture(scope="module")
def small():  # float64: the log-likelihood read off the cached densities is checked to 1e-9
    return get_model("mvn_mean", n=8, dim=2, data_seed=1, precision="float64")


@pytest.fixture(scope="module")
def runs(small):
    """Both runs compiled as the package compiles for its users (XLA's level 1,
    :func:`~tempering.numerics.compiler_options`), not at the suite's level 0: there the two
    builds' warmup programs round differently (seen 2026-11-29: the chains part after 300
    warmup scans when 10 draws follow, not when 5 do), while their mathematics is the same."""
    out = {}
    flags = os.environ.get("XLA_FLAGS", "").replace("--xla_backend_optimization_level=0", "")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XLA_FLAGS", flags)  # read by compiler_options at each compilation
        for keep in (True, False):
            algorithm = get_sampler("pt", small, keep_all_rungs=keep, **OPTIONS)
            out[keep] = algorithm, run_chains(small, algorithm, key=9, chains=2, draws=3000,
                                              warmup=300, progress=False).idata
    return out


def test_layout_weights_and_unchanged_target_chain(small, runs):
    algorithm, idata = runs[True]
    betas = np.asarray(algorithm.facts["betas"])
    assert betas[-1] == 0.0 and len(betas) == 6
    theta = idata.posterior["theta"]
    assert theta.dims == ("chain", "draw", "rung", "theta_dim") and theta.shape[2] == 6
    for name in ("rung", "log_tempered", "log_weight"):
        assert idata.sample_stats[name].dims == ("chain", "draw", "rung")
    np.testing.assert_array_equal(idata.sample_stats["rung"].values[0, 0], np.arange(6))
    values = theta.values[:, ::50]
    log_lik = np.asarray(jax.vmap(jax.vmap(jax.vmap(small.log_lik)))(values))
    np.testing.assert_allclose(idata.sample_stats["log_tempered"].values[:, ::50], log_lik,
                               rtol=1e-9)
    np.testing.assert_allclose(idata.sample_stats["log_weight"].values[:, ::50],
                               (1 - betas) * log_lik, rtol=1e-9)
    # keeping every rung changes nothing in the chain: the target's draws are the same
    _, plain = runs[False]
    np.testing.assert_array_equal(theta.values[:, :, 0], plain.posterior["theta"].values)
    # the prior rung's U is evaluated once per iteration, counted
    cost = idata.sample_stats["cost"].values - plain.sample_stats["cost"].values
    np.testing.assert_array_equal(cost, 1.0)


def test_it_mean_and_log_evidence(small, runs):
    _, idata = runs[True]
    summary = summarize(idata, weights="optimal")
    mean, _ = analytic_posterior(small)
    for d, row in enumerate(summary["params"].values()):
        assert abs(row["mean"] - mean[d]) / row["mcse_mean"] < Z_BOUND, row
    it = summary["it"]
    assert it["bound_holds"] and it["ess_optimal"] > it["ess_st"]
    assert it["n_per_rung"] == [6000.0] * 6
    evidence = summary["evidence"]
    truth = float(analytic_log_evidence(small, 1.0))
    assert evidence["quantity"] == "log_evidence"
    assert abs(evidence["ti"] - truth) / evidence["ti_mcse"] < Z_BOUND, (evidence, truth)
    assert abs(evidence["ss"] - truth) / evidence["ss_mcse"] < Z_BOUND, (evidence, truth)


def test_plain_pt_has_no_rungs_to_weight(runs):
    from tempering.errors import UserInputError

    _, plain = runs[False]
    with pytest.raises(UserInputError, match="no rungs"):
        summarize(plain, weights="optimal")
    assert "it" not in summarize(plain)


def test_a_file_with_the_old_rung_dim_name_summarizes_the_same(runs):
    """The rung dim was called ``ladder`` before issue 33: such a run still summarizes."""
    _, idata = runs[True]
    old = idata.copy()
    for group in ("posterior", "sample_stats"):
        old[group] = old[group].rename_dims({"rung": "ladder"})
    assert summarize(old, weights="optimal")["it"] == summarize(idata, weights="optimal")["it"]
