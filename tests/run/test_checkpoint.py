"""Checkpoints, resume and extend (tempering.run.checkpoint / resume): a run killed after a
checkpoint and resumed, and a finished run extended, give draws bitwise identical to one
uninterrupted run; a damaged checkpoint is one line and exit 2, and a write that fails leaves
the last checkpoint to resume from. (Kills at any byte: tests/run/test_runfile.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import arviz as az
import h5py
import jax
import numpy as np
import pytest
from cli_helpers import run_cli

from tempering import run_and_save
from tempering.run.checkpoint import committed_slot
from tempering.run.resume import extend_run, resume_run
from tempering.run.runfile import RunFile
from tempering.run.sink import FileSink


def assert_same_run(a: Path, b: Path) -> None:
    """Every posterior variable and sample statistic of the two run files is bitwise equal."""
    x, y = az.from_netcdf(a), az.from_netcdf(b)
    for group in ("posterior", "sample_stats"):
        names = set(x[group].data_vars)
        assert names == set(y[group].data_vars)
        for name in names:
            np.testing.assert_array_equal(x[group][name].values, y[group][name].values,
                                          err_msg=f"{group}.{name}")


class Killed(Exception):
    """Stands for the process dying right after a checkpoint was written."""


def interrupted(model_name: str, sampler_name: str, options: dict, out: Path, *, every: int,
                kill_after: int, key: int, chains: int, draws: int, warmup: int,
                chain_method: str = "vmap") -> None:
    """Run with a checkpoint every ``every`` draws and die after the ``kill_after``-th commit."""
    commits = []
    commit = FileSink.commit

    def dies(self, ledger):
        commit(self, ledger)
        commits.append(int(ledger.done.max()))
        if len(commits) == kill_after:
            raise Killed

    with mock.patch.object(FileSink, "commit", dies), pytest.raises(Killed):
        run_and_save(model_name, sampler_name, {"model": {}, "sampler": options}, chains=chains,
                     draws=draws, warmup=warmup, seed=key, thin=1, chain_method=chain_method,
                     out=out, progress=False, checkpoint_every=every)
    assert 0 < commits[-1] < draws or kill_after == 1


RUNS = {
    # plain RWM, sequential layout: the second chain has not started when killed
    "rwm": ("mvn_mean", "rwm", {}, {"chain_method": "sequential"}),
    # ST: rung moves and the adapted pseudo-prior in its params (make test-slow)
    "st": ("mvn_mean", "st", {"rungs": 3}, {"chain_method": "vmap"}),
    # the discretizing chain, sequential layout: the second chain has not started when killed
    "discretizing": ("gp_regression", "discretizing_chain", {"m": 2},
                     {"chain_method": "sequential"}),
}


@pytest.mark.parametrize("name", ["rwm", pytest.param("st", marks=pytest.mark.slow),
                                  pytest.param("discretizing", marks=pytest.mark.slow)])
def test_resume_after_a_crash_equals_an_uninterrupted_run(name, tmp_path):
    model_name, sampler_name, options, layout = RUNS[name]
    run = {"key": 3, "chains": 2, "draws": 60, "warmup": 30, **layout}
    out = tmp_path / "r.nc"
    # kill after warmup's checkpoint and two sampling ones (chain 0 of a sequential run: 40 done)
    interrupted(model_name, sampler_name, options, out, every=20, kill_after=3, **run)
    assert committed_slot(out).done.max() < run["draws"]
    resume_run(out)
    whole = run_and_save(model_name, sampler_name, {"model": {}, "sampler": options},
                         chains=2, draws=60, warmup=30, seed=3, thin=1, out=tmp_path / "w.nc",
                         chain_method=layout["chain_method"], progress=False)
    assert_same_run(out, whole)


def test_extend_equals_one_longer_run(tmp_path):
    args = {"chains": 2, "warmup": 20, "seed": 5, "thin": 1, "chain_method": "vmap",
            "progress": False}
    config = {"model": {}, "sampler": {}}
    short = run_and_save("mvn_mean", "rwm", config, draws=30, out=tmp_path / "s.nc", **args)
    extend_run(short, 25)
    long = run_and_save("mvn_mean", "rwm", config, draws=55, out=tmp_path / "l.nc", **args)
    assert_same_run(short, long)
    assert az.from_netcdf(short).posterior.sizes["draw"] == 55


@pytest.mark.slow  # three compilations of PT-HMC, ~50 s; the in-process crash test is in make test
def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path):
    """PT with HMC inner in a child process, killed with SIGKILL after its first sampling
    checkpoint, then resumed: bitwise the uninterrupted run. The child shares the session's
    compilation cache, so the resumed and the uninterrupted run load its programs."""
    out = tmp_path / "r.nc"
    args = ["--model", "mvn_mean", "--sampler", "pt", "--set", "sampler.inner=hmc",
            "--chains", "2", "--draws", "1200", "--warmup", "50", "--seed", "1",
            "--no-progress", "--checkpoint-every", "300"]
    env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": jax.config.jax_compilation_cache_dir,
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
           "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}
    child = subprocess.Popen([sys.executable, "-m", "tempering.cli.main", "sample", *args,
                              "--out", str(out)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    done = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.02)
        try:
            with h5py.File(out) as f:
                done = int(f["checkpoint"]["done"][:].min())
        except (OSError, KeyError):
            continue
        if done > 0:
            break
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert 0 < done < 1200, f"no checkpoint while the child ran (done {done})"
    resume_run(out)
    whole = run_and_save("mvn_mean", "pt", {"model": {}, "sampler": {"inner": "hmc"}},
                         chains=2, draws=1200, warmup=50, seed=1, thin=1, chain_method="vmap",
                         out=tmp_path / "w.nc", progress=False, checkpoint_every=0)
    assert_same_run(out, whole)


def test_a_damaged_checkpoint_is_one_line_and_exit_2(tmp_path, capsys):
    out = tmp_path / "r.nc"
    interrupted("mvn_mean", "rwm", {}, out, every=10, kill_after=2, key=0, chains=2, draws=40,
                warmup=10)
    broken = tmp_path / "broken.nc"
    data = out.read_bytes()
    broken.write_bytes(data[: len(data) // 2])
    code, _, err = run_cli(["resume", broken, "--no-progress"], capsys)
    assert code == 2 and err.count("\n") == 1 and "no readable checkpoint" in err
    code, shown, _ = run_cli(["summary", out], capsys)
    assert code == 0 and "10 of 40 draws per chain" in shown


def test_a_failed_write_leaves_the_last_checkpoint_to_resume_from(tmp_path, monkeypatch):
    """The disk fills while a resumed run appends draws: the error reaches the caller, the
    committed checkpoint is the one before, and resuming again ends as one uninterrupted run."""
    out = tmp_path / "r.nc"
    interrupted("mvn_mean", "rwm", {}, out, every=10, kill_after=2, key=0, chains=2, draws=40,
                warmup=10)
    before = committed_slot(out)
    write_draws = RunFile.write_draws
    calls = []

    def fills_up(self, *args):
        calls.append(1)
        if len(calls) == 2:
            raise OSError("disk full")
        write_draws(self, *args)

    monkeypatch.setattr(RunFile, "write_draws", fills_up)
    with pytest.raises(OSError, match="disk full"):
        resume_run(out)
    monkeypatch.undo()
    after = committed_slot(out)
    assert after.done.max() <= 20 and after.done.max() >= before.done.max()
    resume_run(out)
    whole = run_and_save("mvn_mean", "rwm", {"model": {}, "sampler": {}}, chains=2, draws=40,
                         warmup=10, seed=0, thin=1, chain_method="vmap", out=tmp_path / "w.nc",
                         progress=False)
    assert_same_run(out, whole)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.nc", "w.nc"]  # no temporary file


def test_a_killed_first_write_is_cleaned_up_and_resume_says_there_is_nothing(tmp_path, capsys):
    """kill -9 during the first checkpoint's write leaves only a temporary file: ``resume`` says
    in one line that there is nothing to resume, and the next write to that run file removes
    the leftover."""
    out = tmp_path / "r.nc"
    (tmp_path / ".r.nc.abc123.tmp").write_bytes(b"CDF half")  # what the killed writer left
    code, _, err = run_cli(["resume", out, "--no-progress"], capsys)
    assert code == 2 and err.count("\n") == 1 and "nothing to resume" in err
    interrupted("mvn_mean", "rwm", {}, out, every=10, kill_after=1, key=0, chains=2, draws=40,
                warmup=10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.nc"]
