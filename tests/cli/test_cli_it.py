"""The command line for simulated tempering and importance tempering: ``sample --sampler st``,
``summary --weights``, and the one-line errors (exit code 2, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_cli

from tempering.cli.main import main

TINY = ["--chains", "2", "--draws", "30", "--warmup", "40", "--seed", "1", "--no-progress"]
SMALL_MVN = ["--set", "model.n=10", "--set", "model.dim=2"]




@pytest.fixture(scope="module")
def st_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("st") / "st.nc"
    with pytest.raises(SystemExit) as exc:
        main(["sample", "--model", "mvn_mean", "--sampler", "st", *TINY, *SMALL_MVN,
              "--set", "sampler.rungs=4", "--set", "sampler.spacing=harmonic", "--out", str(out)])
    assert exc.value.code in (0, None)
    return out


def test_summary_json_has_the_it_block(st_file, capsys):
    code, out, _ = run_cli(["summary", st_file, "--weights", "optimal", "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    it = result["it"]
    for key in ("ess_optimal", "ess_naive", "ess_st"):
        assert isinstance(it[key], float) and it[key] > 0
    assert len(it["ess_per_rung"]) == 4 and len(it["lambda"]) == 4
    assert it["bound_holds"] is True and it["weights"] == "optimal"
    assert sum(it["lambda"]) == pytest.approx(1.0)
    assert set(result["evidence"]) >= {"ti", "ti_mcse", "ss", "ss_mcse", "quantity"}
    assert result["params"]["theta[0]"]["ess_is"] == pytest.approx(it["ess_optimal"])


def test_summary_weights_choose_the_combination(st_file, capsys):
    code, out, _ = run_cli(["summary", st_file, "--weights", "st", "--json"], capsys)
    assert code == 0
    it = json.loads(out)["it"]
    assert it["lambda"] == [1.0, 0.0, 0.0, 0.0] and it["weights"] == "st"
    code, out, _ = run_cli(["summary", st_file], capsys)
    assert code == 0 and "importance tempering (optimal weights" in out


def test_weights_on_a_run_without_rungs_is_one_line(tmp_path, capsys):
    run = tmp_path / "rwm.nc"
    code, _, _ = run_cli(["sample", "--model", "mvn_mean", "--sampler", "rwm", *TINY, *SMALL_MVN,
                          "--out", run], capsys)
    assert code == 0
    code, out, err = run_cli(["summary", run, "--weights", "optimal"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("tempering: error: --weights optimal: this run has no rungs")
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("extra, fragment", [
    (["--set", "sampler.prior_rung=true", "--set", "sampler.tempering=posterior"],
     "sampler.prior_rung: needs tempering = likelihood"),
    (["--set", "sampler.spacing=linear"], "sampler.spacing"),
    (["--set", "sampler.rungs=1"], "sampler.rungs"),
    (["--set", "sampler.c0=-1"], "sampler.c0"),
    (["--set", "sampler.step_sise=0.1"], "sampler.step_sise: unknown option"),
])
def test_bad_st_options_are_one_line(tmp_path, capsys, extra, fragment):
    out_file = tmp_path / "run.nc"
    code, out, err = run_cli(["sample", "--model", "mvn_mean", "--sampler", "st", *TINY,
                              *SMALL_MVN, *extra, "--out", out_file], capsys)
    assert code == 2 and fragment in err and err.count("\n") == 1, err
    assert not out_file.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("sampler, extra, fragment", [
    ("spt", ["--set", "sampler.keep_all_rungs=true"], "sampler.keep_all_rungs: only pt"),
    ("stt", ["--set", "sampler.prior_rung=true"], "sampler.prior_rung: only power ladders"),
])
def test_rungs_options_on_subset_ladders_are_one_line(tmp_path, capsys, sampler, extra, fragment):
    code, _, err = run_cli(["sample", "--model", "mvn_mean", "--sampler", sampler, *TINY,
                            *SMALL_MVN, *extra, "--out", tmp_path / "run.nc"], capsys)
    assert code == 2 and fragment in err and err.count("\n") == 1, err


def test_unknown_weights_is_one_line(st_file, capsys):
    code, _, err = run_cli(["summary", st_file, "--weights", "best"], capsys)
    assert code == 2 and err.startswith("tempering: error:") and "best" in err
