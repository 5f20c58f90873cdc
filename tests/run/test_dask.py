"""Chains on Dask distributed (tempering.run.distributed): a loopback LocalCluster with 2 worker
processes gives the draws of ``sequential``; a worker killed mid-run is replaced and its chains
go on from their group's checkpoint, and a client killed mid-run is resumed from the run file,
with the same final draws."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import h5py
import jax
import numpy as np
import psutil
import pytest
from test_checkpoint import assert_same_run

import tempering
from tempering import run_and_save
from tempering.run.distributed import chain_groups

ARGS = {"chains": 4, "warmup": 50, "seed": 4, "thin": 1}
CONFIG = {"model": {}, "sampler": {"rungs": 3}}


@pytest.fixture()
def shared_cache(monkeypatch):
    """Worker processes load the session's compiled programs instead of compiling them."""
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", jax.config.jax_compilation_cache_dir)
    monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    monkeypatch.setenv("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")


def test_chain_groups_cover_every_chain_once():
    assert chain_groups(4, 2) == [[0, 1], [2, 3]]
    assert chain_groups(3, 8) == [[0], [1], [2]]
    assert chain_groups(5, 2) == [[0, 1, 2], [3, 4]]


def test_a_dask_run_whose_client_is_killed_resumes_to_the_sequential_draws(tmp_path,
                                                                          shared_cache):
    """The client (``tempering sample --chain-method dask``, its own process group) is killed
    with SIGKILL once a group has committed sampled draws; ``tempering resume`` reads the groups
    from the run file, the tasks go on from their groups' files (the bar fed by the workers),
    and the draws are those of the sequential run; the groups' files are then removed."""
    from tempering.run.resume import resume_run
    from tempering.run.runfile import has_commit, is_finished

    out, draws = tmp_path / "d.nc", 4000
    cli = [sys.executable, "-m", "tempering.cli.main", "sample", "--model", "mixture",
           "--sampler", "rwm", "--chains", "4", "--draws", str(draws), "--warmup", "50",
           "--seed", "4", "--no-progress", "--checkpoint-every", "100", "--chain-method", "dask",
           "--workers", "1", "--out", str(out)]  # one worker: one group, the cheapest cluster
    child = subprocess.Popen(cli, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    killed, deadline = False, time.monotonic() + 120
    while not killed and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.02)
        for group in (tmp_path / ".d.nc.dask").glob("group-*.nc"):
            try:
                with h5py.File(group) as f:
                    done = int(f["checkpoint"]["done"][int(f["checkpoint"]["commit"][()])].max())
            except (OSError, KeyError, ValueError, IndexError):
                continue
            if 0 < done < draws:
                os.killpg(child.pid, signal.SIGKILL)
                killed = True
                break
    child.wait()
    assert killed, "no group committed sampled draws while the client ran"
    assert out.is_file() and not has_commit(out) and not is_finished(out)
    resume_run(out, progress=True)
    seq = run_and_save("mixture", "rwm", {"model": {}, "sampler": {}}, draws=draws,
                       chain_method="sequential", out=tmp_path / "s.nc", progress=False, **ARGS)
    assert_same_run(out, seq)
    assert not (tmp_path / ".d.nc.dask").exists()


@pytest.mark.slow  # a second cluster: ~19 s
def test_run_chains_takes_dask_like_any_chain_method(shared_cache):
    """Objects from the registries need no run file: the workers rebuild them from the spec."""
    model = tempering.get_model("mixture")
    algorithm = tempering.get_sampler("rwm", model)
    runs = {method: tempering.sample(model, algorithm, key=4, chains=2, draws=50, warmup=20,
                                     chain_method=method, progress=False).posterior
            for method in ("sequential", "dask")}
    np.testing.assert_array_equal(runs["sequential"]["mu"].values, runs["dask"]["mu"].values)


@pytest.mark.slow  # a cluster, a kill and a replacement worker: ~1 min
def test_a_killed_worker_is_replaced_and_the_draws_do_not_change(tmp_path, shared_cache):
    out = tmp_path / "d.nc"
    cli = [sys.executable, "-m", "tempering.cli.main", "sample", "--model", "mixture",
           "--sampler", "pt", "--set", "sampler.rungs=3", "--chains", "4", "--draws", "3000",
           "--warmup", "50", "--seed", "4", "--no-progress", "--checkpoint-every", "100"]
    child = subprocess.Popen([*cli, "--chain-method", "dask", "--workers", "2", "--out",
                              str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    scratch = tmp_path / ".d.nc.dask"
    killed = None
    deadline = time.monotonic() + 180
    while killed is None and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
        for group in scratch.glob("group-*.nc"):
            try:
                with h5py.File(group) as f:
                    done = int(f["checkpoint"]["done"][:].max())
            except (OSError, KeyError):
                continue
            if 0 < done < 3000:
                workers = [p for p in psutil.Process(child.pid).children(recursive=True)
                           if "spawn_main" in " ".join(p.cmdline())]
                if workers:
                    killed = workers[0].pid
                    os.kill(killed, signal.SIGKILL)
                break
    try:
        _, err = child.communicate(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        child.kill()
    assert killed is not None, "no worker was killed mid-run"
    assert child.returncode == 0, err.decode()[-2000:]
    whole = run_and_save("mixture", "pt", CONFIG, draws=3000, chain_method="sequential",
                         out=tmp_path / "s.nc", progress=False, **ARGS)
    assert_same_run(out, whole)


def test_makespan_takes_the_longest_runs_first():
    from tempering.experiments.vdm2014.runtime import makespan

    assert makespan([5, 4, 3, 3, 2, 1], 1) == 18
    assert makespan([5, 4, 3, 3, 2, 1], 2) == 9  # 5+3+1 | 4+3+2
    assert makespan([5, 4, 3, 3, 2, 1], 8) == 5  # never below the longest run


def test_reproduce_workers_only_where_the_runs_fan_out(tmp_path, capsys):
    from cli_helpers import run_cli

    code, _, err = run_cli(["reproduce", "gsk2010", "--quick", "--workers", "2", "--out",
                            tmp_path / "g"], capsys)
    assert code == 2 and "does not spread its runs" in err and err.count("\n") == 1
    assert not (tmp_path / "g").exists()


@pytest.mark.slow  # a cluster and one vdm2014 run on it: ~30 s
def test_vdm2014_runs_on_workers_give_the_local_draws(shared_cache):
    from tempering import dask_client
    from tempering.experiments.vdm2014.runs import Runner, timed_run

    config = ("mvn_mean", 64, 3, "pt", "rwm")
    runner = Runner(draws=20, chunks=2, log=lambda line: None)
    with dask_client(workers=1) as client:
        runner.fan_out([config], client)
    np.testing.assert_array_equal(runner.cache[config].draws, timed_run(*config, 20, 2).draws)


@pytest.mark.slow  # a second cluster: ~15 s
def test_an_existing_scheduler_gives_the_same_draws(tmp_path, shared_cache, capsys):
    from cli_helpers import run_cli
    from distributed import LocalCluster

    plain = {"model": {}, "sampler": {}}
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        remote = run_and_save("mixture", "rwm", plain, draws=100, chain_method="dask",
                              scheduler=cluster.scheduler_address, out=tmp_path / "d.nc",
                              progress=False, **ARGS)
    seq = run_and_save("mixture", "rwm", plain, draws=100, chain_method="sequential",
                       out=tmp_path / "s.nc", progress=False, **ARGS)
    assert_same_run(seq, remote)
    code, _, err = run_cli(["sample", "--model", "mixture", "--sampler", "rwm", "--chains", "2",
                            "--draws", "5", "--chain-method", "dask", "--scheduler",
                            "tcp://127.0.0.1:9", "--out", tmp_path / "x.nc", "--no-progress"],
                           capsys)
    assert code == 2 and "cannot connect" in err and err.count("\n") == 1
    assert not (tmp_path / "x.nc").exists()
