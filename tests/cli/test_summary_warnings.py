"""``tempering summary`` warns: R-hat, ESS per chain, stuck chains, divergences, headlines below
their floors, importance-sampling ESS; non-finite diagnostics are strings in ``--json``, never
null. Cheap real runs (rwm on a small Gaussian) go through the CLI; the rest are run files built
by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from cli_helpers import run_cli

from tempering.algorithms.base import Stat, declared_stats
from tempering.cli.app import json_ready
from tempering.run.output import build_inference_data, save_run
from tempering.summary.checks import is_ess_warnings, rhat_warnings

SMALL_MVN = ["--model", "mvn_mean", "--sampler", "rwm", "--set", "model.n=10",
             "--set", "model.dim=2", "--chains", "2", "--seed", "1", "--no-progress"]


def reject(token):
    raise AssertionError(f"not JSON: {token}")


def sample(capsys, out: Path, *args) -> Path:
    """``tempering sample`` a small Gaussian with rwm, in-process."""
    code, _, err = run_cli(["sample", *SMALL_MVN, *args, "--out", out], capsys)
    assert code == 0, err
    return out


def summaries(path: Path, capsys, monkeypatch) -> tuple[dict, str]:
    """The run's ``summary --json`` (strict JSON) and its text output."""
    code, out, err = run_cli(["summary", "--json", path], capsys)
    assert code == 0, err
    result = json.loads(out, parse_constant=reject)
    monkeypatch.setenv("COLUMNS", "200")
    code, text, err = run_cli(["summary", path], capsys)
    assert code == 0, err
    return result, text


def warning_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("warning: ")]


def hand_run(path: Path, theta: np.ndarray, stats: dict | None = None,
             attrs: dict | None = None) -> Path:
    """A run file built by hand: ``theta`` (chain, draw, 2) and per-draw ``stats`` beside the
    common ones (acceptance 0.5 unless given)."""
    chains, draws = theta.shape[:2]
    posterior = xr.Dataset({"theta": (("chain", "draw", "theta_dim"), theta)},
                           coords={"chain": np.arange(chains), "draw": np.arange(draws)})
    record = {"lp": np.zeros((chains, draws)), "cost": np.ones((chains, draws)),
              "acceptance_rate": np.full((chains, draws), 0.5), **(stats or {})}
    declared = declared_stats(tuple(Stat(name, (), "hand-built") for name in stats or {}))
    idata = build_inference_data(posterior, record, declared,
                                 {"sampler": "handmade", "model": "handmade", **(attrs or {})})
    return save_run(idata, path)


def iid(chains: int, draws: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(chains, draws, 2))


# --------------------------------------------------------------------------- real runs

def test_healthy_run_warns_about_nothing(tmp_path, capsys, monkeypatch):
    run = sample(capsys, tmp_path / "ok.nc", "--set", "sampler.step_size=0.5", "--draws", "4000",
                 "--warmup", "200")
    result, text = summaries(run, capsys, monkeypatch)
    assert result["warnings"] == []
    assert 0.1 < result["headline"]["accept"] < 0.9
    assert "headline: accept 0." in text
    assert "warning" not in text


def test_too_few_draws_warn_about_ess(tmp_path, capsys, monkeypatch):
    run = sample(capsys, tmp_path / "short.nc", "--set", "sampler.step_size=0.5", "--draws", "60",
                 "--warmup", "50")
    result, text = summaries(run, capsys, monkeypatch)
    bulk = [w for w in result["warnings"] if w.startswith("bulk ESS ")]
    assert len(bulk) == 1, result["warnings"]
    assert "is below 200 (100 per chain × 2 chains;" in bulk[0]
    worst = min(result["params"], key=lambda name: result["params"][name]["ess_bulk"])
    assert f"bulk ESS {result['ess_bulk_min']:.0f} for {worst} is below" in bulk[0]
    assert f"warning: {bulk[0]}" in warning_lines(text)


def test_chains_that_never_moved(tmp_path, capsys, monkeypatch):
    """A step of 1e8 is never accepted: both chains stay at their first point."""
    run = sample(capsys, tmp_path / "stuck.nc", "--set", "sampler.step_size=1e8", "--draws", "50",
                 "--warmup", "0")
    result, text = summaries(run, capsys, monkeypatch)
    warnings = result["warnings"]
    assert warnings[0].startswith("chains 0, 1 of 2 never moved (every parameter constant over "
                                  "50 draws, mean acceptance_rate 0)")
    assert result["rhat_max"] == "inf"  # not null
    assert result["params"]["theta[0]"]["rhat"] == "inf"
    assert any(w.startswith("R-hat is inf for theta[0] (2 of 2 parameters") for w in warnings)
    assert result["headline"] == {"accept": 0.0}
    assert "R-hat max inf" in text
    assert warning_lines(text) == [f"warning: {w}" for w in warnings]


# --------------------------------------------------------------------------- hand-built runs

def test_one_stuck_chain_is_named(tmp_path, capsys, monkeypatch):
    theta, rate = iid(4, 300), np.full((4, 300), 0.5)
    theta[2] = theta[2, 0]
    rate[2] = 0.0
    rate[1] = 0.0  # moving draws but no acceptance recorded: named for its acceptance only
    run = hand_run(tmp_path / "one.nc", theta, {"acceptance_rate": rate})
    result, text = summaries(run, capsys, monkeypatch)
    stuck = [w for w in result["warnings"] if "never moved" in w]
    assert stuck == ["chains 1, 2 of 4 never moved (every parameter constant over 300 draws in "
                     "chain 2; mean acceptance_rate 0 in chains 1, 2): their draws say nothing "
                     "about the posterior; check the step size and the initial point"]
    assert f"warning: {stuck[0]}" in warning_lines(text)


def test_all_chains_stuck_at_one_value_give_a_nan_rhat(tmp_path, capsys, monkeypatch):
    run = hand_run(tmp_path / "flat.nc", np.full((4, 100, 2), 0.25))
    result, text = summaries(run, capsys, monkeypatch)
    assert result["rhat_max"] == "nan" and result["params"]["theta[1]"]["rhat"] == "nan"
    warnings = result["warnings"]
    assert warnings[0].startswith("chains 0, 1, 2, 3 of 4 never moved (every parameter constant")
    assert warnings[1].startswith("R-hat is nan for theta[0] (2 of 2 parameters without a "
                                  "finite R-hat)")
    assert len(warning_lines(text)) == len(warnings)


def test_divergences_are_counted(tmp_path, capsys, monkeypatch):
    diverging = np.zeros((4, 500))
    diverging[1, [3, 50, 51, 400]] = 1
    diverging[3, [7, 8, 9]] = 1
    run = hand_run(tmp_path / "div.nc", iid(4, 500), {"diverging": diverging})
    result, text = summaries(run, capsys, monkeypatch)
    assert result["warnings"] == [
        "7 divergent transitions (0.4% of 2000 draws): the sampler could not follow the "
        "posterior's curvature and the draws may be biased; use a smaller step size (a higher "
        "target acceptance) or reparametrise"]
    assert warning_lines(text) == [f"warning: {result['warnings'][0]}"]


def test_no_divergence_no_warning(tmp_path, capsys, monkeypatch):
    run = hand_run(tmp_path / "calm.nc", iid(4, 500), {"diverging": np.zeros((4, 500))})
    result, text = summaries(run, capsys, monkeypatch)
    assert result["warnings"] == [] and warning_lines(text) == []


TT_HEADLINE = [{"label": "TT accept", "stat": "tt_accepted", "floor": 0.05},
               {"label": "accept", "stat": "acceptance_rate"}]


@pytest.mark.parametrize("share, warns", [(0.0125, True), (0.25, False)])
def test_headline_below_its_floor(tmp_path, capsys, monkeypatch, share, warns):
    accepted = (np.arange(4 * 400).reshape(4, 400) % round(1 / share) == 0).astype(float)
    run = hand_run(tmp_path / "tt.nc", iid(4, 400), {"tt_accepted": accepted},
                   {"headline": TT_HEADLINE})
    result, text = summaries(run, capsys, monkeypatch)
    assert result["headline"] == pytest.approx({"TT accept": share, "accept": 0.5})
    assert f"headline: TT accept {share:.3g}, accept 0.5" in text
    expected = [f"TT accept {share:.3g} is below 0.05: these moves are seldom accepted, so the "
                "chains may not mix; see `tempering samplers` for the sampler's options"]
    assert result["warnings"] == (expected if warns else [])
    assert warning_lines(text) == ([f"warning: {expected[0]}"] if warns else [])


def test_a_stuck_discretizing_chain_is_told_what_to_change(tmp_path, capsys, monkeypatch):
    """The sampler's own advice rides in its headline: a discretizing chain below its mark floor
    is told to enlarge m (issue 16: the Nyström chain on GP-ARD that never moved)."""
    from tempering.algorithms.approx.discretizing import DC_HEADLINE

    run = hand_run(tmp_path / "dc.nc", iid(4, 400), {"mark_accept": np.zeros((4, 400))},
                   {"headline": [h._asdict() for h in DC_HEADLINE]})
    result, text = summaries(run, capsys, monkeypatch)
    mark = [w for w in result["warnings"] if w.startswith("mark accept 0 is below 0.05")]
    assert len(mark) == 1 and "use a larger m, m=auto" in mark[0]
    assert f"warning: {mark[0]}" in warning_lines(text)


def test_a_run_file_without_headlines_gets_the_acceptance(tmp_path, capsys, monkeypatch):
    rate = np.full((2, 300), 0.3)
    run = hand_run(tmp_path / "old.nc", iid(2, 300), {"acceptance_rate": rate})
    result, text = summaries(run, capsys, monkeypatch)
    assert result["headline"] == pytest.approx({"accept": 0.3})
    assert "headline: accept 0.3" in text


def test_three_draws_have_no_diagnostics(tmp_path, capsys, monkeypatch):
    run = hand_run(tmp_path / "three.nc", iid(2, 3))
    result, _ = summaries(run, capsys, monkeypatch)
    assert result["rhat_max"] == "nan" and result["ess_bulk_min"] == "nan"
    assert result["warnings"] == ["R-hat and ESS are undefined with 3 draws per chain (they "
                                  "need at least 4): run longer"]


# --------------------------------------------------------------------------- thresholds

def summary_with(rhats: list[float], chains: int = 4, draws: int = 1000) -> dict:
    params = {f"x[{i}]": {"rhat": r, "ess_bulk": 4000.0, "ess_tail": 4000.0}
              for i, r in enumerate(rhats)}
    return {"params": params, "chains": chains, "draws": draws}


def test_rhat_threshold_is_1_01():
    assert rhat_warnings(summary_with([1.0, 1.009])) == []
    assert rhat_warnings(summary_with([1.0, 1.011, 1.02])) == [
        "R-hat 1.020 for x[2] is above 1.01 (2 of 3 parameters above): the chains disagree; run "
        "longer, or look for modes some chains have not reached"]
    assert rhat_warnings(summary_with([1.0, math.inf]))[0].startswith("R-hat is inf for x[1] ")


def test_one_chain_is_told_that_rhat_needs_two():
    """ArviZ's R-hat needs two chains; one chain must not read as "the chains do not mix"."""
    assert rhat_warnings(summary_with([math.nan, math.nan], chains=1)) == [
        "R-hat is undefined with one chain: run at least two (e.g. --chains 4) to check that "
        "they agree"]


def it_block(ess: float, n_per_rung: list[float], weights: str = "optimal") -> dict:
    return {"it": {"weights": weights, f"ess_{weights}": ess, "n_per_rung": n_per_rung}}


def test_importance_sampling_ess_collapse():
    # README's st example: 3268 of 8000 weighted draws, 2 chains: healthy
    assert is_ess_warnings({"chains": 2, **it_block(3268.0, [800.0] * 10)}) == []
    assert is_ess_warnings({"chains": 1, **it_block(57.0, [60.0, 60.0, 60.0])}) == [
        "importance-sampling ESS 57 (optimal weights) is below 100 (100 per chain × 1 chain): a "
        "few draws carry most of the weight and the weighted estimates are unreliable; run "
        "longer or use closer rungs"]
    collapsed = is_ess_warnings({"chains": 1, **it_block(150.0, [10000.0, 10000.0], "naive")})
    assert collapsed == [
        "importance-sampling ESS 150 (naive weights) is 0.75% of the 20000 weighted draws, below "
        "1%: a few draws carry most of the weight and the weighted estimates are unreliable; run "
        "longer or use closer rungs"]
    assert is_ess_warnings({"chains": 4}) == []  # no importance tempering, nothing to check


def test_json_ready_writes_non_finite_floats_as_strings():
    value = {"rhat_max": math.inf, "x": [math.nan, -math.inf, 1.5], "n": 3, "s": "a"}
    ready = json_ready(value)
    assert ready == {"rhat_max": "inf", "x": ["nan", "-inf", 1.5], "n": 3, "s": "a"}
    text = json.dumps(ready, allow_nan=False)
    assert float(json.loads(text)["rhat_max"]) == math.inf
