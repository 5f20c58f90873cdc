"""The approximation samplers from the command line: sampling, the summary's evaluation counts,
and bad options as one line with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_cli

from tempering.run.loading import load_run
from tempering.run.output import run_attr

GP = ["--model", "gp_regression", "--set", "model.n=40", "--set", "model.dim=2"]
RUN = ["--chains", "2", "--draws", "30", "--seed", "4", "--no-progress"]


@pytest.fixture(scope="module")
def dc_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dc") / "d.nc"
    with pytest.raises(SystemExit) as exc:
        from tempering.cli.main import main

        main(["sample", *GP, "--sampler", "discretizing_chain", "--set", "sampler.approx=sod",
              "--set", "sampler.m=10", "--set", "sampler.r=2", "--set", "sampler.inner=rwm",
              *RUN, "--warmup", "0",
              "--out", str(out)])
    assert exc.value.code in (0, None)
    return out


def test_discretizing_run_records_counts(dc_run):
    idata = load_run(dc_run)
    stats = idata.sample_stats
    for key in ("n_pi_evals", "n_approx_evals", "cache_hits", "mark_accept"):
        assert stats[key].shape == (2, 30)
    assert ((stats["n_pi_evals"] + stats["cache_hits"]) == 2).all()  # r = 2 moves each
    options = run_attr(idata, "sampler_options")
    assert options["m"] == 10 and options["r"] == 2 and options["inner"] == "rwm"
    assert run_attr(idata, "sampler_facts")["approx_cost"] == pytest.approx((10 / 40) ** 3)
    cost = stats["n_pi_evals"] + stats["n_approx_evals"] * (10 / 40) ** 3
    assert float(abs(stats["cost"] - cost).max()) < 1e-9


def test_summary_reports_counts(dc_run, capsys, monkeypatch):
    code, out, err = run_cli(["summary", "--json", dc_run], capsys)
    assert code == 0, err
    evaluations = json.loads(out)["evaluations"]
    stats = load_run(dc_run).sample_stats
    for key in ("n_pi_evals", "n_approx_evals", "cache_hits"):
        assert evaluations[key]["total"] == pytest.approx(float(stats[key].sum()))
        assert evaluations[key]["per_iteration"] == pytest.approx(float(stats[key].mean()))
    moves = evaluations["n_pi_evals"]["total"] + evaluations["cache_hits"]["total"]
    assert moves == 2 * 60
    assert evaluations["cache_hit_rate"] == pytest.approx(evaluations["cache_hits"]["total"]
                                                          / moves)
    assert evaluations["mark_accept_rate"] == pytest.approx(float(stats["mark_accept"].mean()))
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(["summary", dc_run], capsys)
    assert code == 0, err
    assert f"π evaluations {evaluations['n_pi_evals']['total']:.0f}" in out
    assert "π* evaluations" in out and "cache hits" in out and "mark acceptance" in out


def test_tt_approx_from_the_cli(tmp_path, capsys):
    out = tmp_path / "t.nc"
    code, _, err = run_cli(["sample", *GP, "--sampler", "tt_approx", "--set", "sampler.sizes=20,10",
                            "--set", "sampler.approx=nystrom", "--set", "sampler.inner=rwm",
                            "--set", "sampler.step_size=0.2", *RUN, "--warmup", "0",
                            "--out", out], capsys)
    assert code == 0, err
    idata = load_run(out)
    facts = run_attr(idata, "sampler_facts")  # the ladder's sizes, rung 0 = all n = 40 points
    assert facts["sizes"] == [40, 20, 10]
    assert facts["rung_costs"] == pytest.approx([1.0, 0.25, 0.0625])
    assert run_attr(idata, "sampler_options")["sizes"] == [20, 10]  # the option, as given
    assert "tt_accept_prob" in idata.sample_stats
    code, stdout, err = run_cli(["summary", out], capsys)
    assert code == 0 and "tempered-transition acceptance" in stdout


@pytest.mark.parametrize("extra, fragments", [
    (["--sampler", "discretizing_chain", "--set", "sampler.m=40"],
     ["sampler.m", "less than the number of data points n = 40 (got 40)"]),
    (["--sampler", "discretizing_chain", "--set", "sampler.m=41", "--set",
      "sampler.approx=nystrom"], ["sampler.m", "n = 40 (got 41)"]),
    (["--sampler", "discretizing_chain", "--set", "sampler.m=big"],
     ["sampler.m", "positive integer or auto"]),
    (["--sampler", "discretizing_chain", "--set", "sampler.pilot_accept=1.5"],
     ["sampler.pilot_accept"]),
    (["--sampler", "discretizing_chain", "--set", "sampler.r=0"],
     ["sampler.r", "greater than 0"]),
    (["--sampler", "discretizing_chain", "--set", "sampler.s=-1"], ["sampler.s"]),
    (["--sampler", "discretizing_chain", "--set", "sampler.approx=fitc"],
     ["sampler.approx", "'fitc'"]),
    (["--sampler", "discretizing_chain", "--set", "sampler.inner=nuts"], ["sampler.inner"]),
    (["--sampler", "discretizing_chain", "--set", "sampler.step_size=0.1"],
     ["sampler.step_size", "unknown option"]),  # slice has no step_size
    (["--sampler", "tt_approx", "--set", "sampler.sizes=10,20"],
     ["sampler.sizes", "strictly decreasing"]),
    (["--sampler", "tt_approx", "--set", "sampler.sizes=50,20"],
     ["sampler.sizes", "n = 40 (got 50)"]),
    (["--sampler", "tt_approx", "--set", "sampler.sizes=20,ten"], ["sampler.sizes"]),
])
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, extra, fragments):
    out = tmp_path / "run.nc"
    code, stdout, err = run_cli(["sample", *GP, *extra, *RUN, "--out", out], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tempering: error:"), err
    assert all(f in lines[0] for f in fragments), lines[0]
    assert not out.exists()


def test_nystrom_needs_a_gp_model(tmp_path, capsys):
    out = tmp_path / "run.nc"
    code, _, err = run_cli(["sample", "--model", "mvn_mean", "--set", "model.n=10",
                            "--sampler", "discretizing_chain", "--set", "sampler.approx=nystrom",
                            "--set", "sampler.m=3", *RUN, "--out", out], capsys)
    assert code == 2 and "needs a GP model" in err and len(err.strip().splitlines()) == 1
