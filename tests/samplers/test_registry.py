"""One shape for every sampler: for each registered sampler (a loop over the registry, tiny model,
few draws, no warmup) the run file holds exactly the statistics its spec declares, with the
declared dims, the options round-trip, and ``tempering rerun`` reproduces the posterior bit for
bit. A sampler
defined in this module (one spec, registered at test time) runs through the CLI's ``sample``,
``summary`` and ``rerun`` without any other file changing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from cli_helpers import run_cli
from programs import lowered
from pydantic import PositiveFloat
from samplers_table import SAMPLERS_TABLE, TINY_MVN

from tempering import SAMPLERS, get_model, get_sampler, load_run, rerun, run_and_save, run_chains
from tempering.algorithms import Algorithm, AlgorithmInfo, SamplerSpec, Stat
from tempering.algorithms.base import COMMON_STATS
from tempering.config import Options
from tempering.models import Model
from tempering.numerics import metropolis, select
from tempering.run.output import run_attr

#: No warmup: these checks are about the run file's shape and the rerun, and the warmup program is
#: the larger of a sampler's two compilations (~1 min of the suite); each sampler's own tests run
#: its warmup, and test_rerun_follows_the_recorded_layout_and_thinning reruns one with warmup.
RUN = {"chains": 2, "draws": 12, "warmup": 0, "thin": 1, "seed": 4, "progress": False}


def tiny(name: str) -> tuple[str, dict]:
    return SAMPLERS_TABLE[name].model


def small(name: str) -> dict[str, Any]:
    return SAMPLERS_TABLE[name].options


def test_every_sampler_has_a_row():
    """A sampler registered without a row in ``samplers_table`` fails here."""
    assert sorted(SAMPLERS_TABLE) == sorted(SAMPLERS.names())


@pytest.fixture(scope="module", params=SAMPLERS.names())
def sampled(request, tmp_path_factory):
    """Each registered sampler's run file (one per sampler, shared by the tests below)."""
    name = request.param
    model_name, model_options = tiny(name)
    out = tmp_path_factory.mktemp(name) / "run.nc"
    run_and_save(model_name, name, {"model": model_options, "sampler": small(name)},
                 chain_method="vmap", out=out, **RUN)
    return name, out


def test_run_file_holds_exactly_the_declared_statistics(sampled):
    name, path = sampled
    spec = SAMPLERS.get(name)
    model_name, model_options = tiny(name)
    algorithm = get_sampler(name, get_model(model_name, **model_options), **small(name))
    stats = load_run(path).sample_stats
    declared = {stat.name: stat for stat in COMMON_STATS + algorithm.stats}
    assert set(stats.data_vars) == set(declared)
    assert {stat.name for stat in algorithm.stats} <= {stat.name for stat in spec.stats}
    for stat_name, stat in declared.items():
        assert stats[stat_name].dims == ("chain", "draw", *stat.dims), stat_name
        assert stats[stat_name].attrs["meaning"] == stat.meaning


def test_options_round_trip(sampled):
    name, path = sampled
    idata = load_run(path)
    model = get_model(run_attr(idata, "model"), **run_attr(idata, "model_options"))
    recorded = run_attr(idata, "sampler_options")
    rebuilt = get_sampler(name, model, **recorded)
    assert rebuilt.options.model_dump() == recorded
    spec = SAMPLERS.get(name)
    again = spec.options.model_validate(recorded).resolve(model)
    assert again == rebuilt.options


@pytest.mark.parametrize("name", SAMPLERS.names())
def test_a_run_compiles_its_programs_and_nothing_else(name):
    """A run (no warmup, as in ``RUN``) lowers the chains' start, their init, the sampling chunk
    (``_program`` for a sampler whose warmup and sampling are one program, PT's) and the
    constrained draws — four programs, whatever the sampler: an eager ``jnp`` call in the
    driver or an algorithm's functions would be a fifth (issue 44). The chunk is the fixture's
    program, so the session's compilation cache usually has it."""
    model_name, model_options = tiny(name)
    model = get_model(model_name, **model_options)
    algorithm = get_sampler(name, model, **small(name))
    with lowered() as names:
        run_chains(model, algorithm, key=RUN["seed"], draws=RUN["draws"], chains=RUN["chains"],
                   warmup=0, progress=False)
    chunk = "_program" if algorithm.scans is not None else "_chunk"
    assert len(names) == 4 and {"start", chunk, "constrain"} <= set(names), names


# (the reruns of the rows with slow_rerun in samplers_table run in make test-slow)
def test_rerun_reproduces_the_posterior_bit_for_bit(sampled, tmp_path):
    name, path = sampled
    again = rerun(path, tmp_path / "again.nc")
    a, b = load_run(path), load_run(again)
    assert set(a.posterior.data_vars) == set(b.posterior.data_vars)
    for var in a.posterior.data_vars:
        np.testing.assert_array_equal(a.posterior[var].values, b.posterior[var].values)
    np.testing.assert_array_equal(a.sample_stats["lp"].values, b.sample_stats["lp"].values)


def test_rerun_follows_the_recorded_layout_and_thinning(tmp_path):
    """Sequential chains, thinning and a key (not an integer seed) are recorded and repeated."""
    model = get_model(*TINY_MVN[:1], **TINY_MVN[1])
    out = tmp_path / "seq.nc"
    from tempering import run_chains, save_run

    result = run_chains(model, get_sampler("rwm", model, step_size=0.4),
                        key=jax.random.key(11), draws=9, chains=2, warmup=3, thin=2,
                        chain_method="sequential", progress=False)
    save_run(result.idata, out)
    again = load_run(rerun(out, tmp_path / "again.nc"))
    assert again.posterior.attrs["chain_method"] == "sequential"
    assert again.posterior.attrs["thin"] == 2
    np.testing.assert_array_equal(result.idata.posterior["theta"].values,
                                  again.posterior["theta"].values)


def test_a_run_of_a_hand_built_algorithm_cannot_be_rerun(tmp_path, capsys):
    from tempering import run_chains, save_run
    from tempering.algorithms.pt.algorithm import parallel_tempering
    from tempering.kernels import KERNELS
    from tempering.ladders import power_tempering_ladder

    model = get_model(*TINY_MVN[:1], **TINY_MVN[1])
    spec = KERNELS.get("rwm")
    bound = spec.bind(spec.options(), model.dim)
    betas = (1.0, 0.5)
    algorithm = parallel_tempering(power_tempering_ladder(model, np.asarray(betas)), bound,
                                   spec.rung_params(bound, betas))
    out = tmp_path / "hand.nc"
    save_run(run_chains(model, algorithm, key=1, draws=5, chains=1, warmup=0,
                        progress=False).idata, out)
    code, _, err = run_cli(["rerun", out, "--out", tmp_path / "b.nc"], capsys)
    assert code == 2
    assert err.startswith("tempering: error: ") and "cannot be rebuilt (no sampler_options" in err
    assert not (tmp_path / "b.nc").exists()


# --------------------------------------------------------------------------- a sampler of our own

COORDINATE = Stat("coordinate", (), "the coordinate the step updated")
PROPOSAL_SIZE = Stat("proposal_size", ("axis",), "|θ′ − θ| per coordinate of the proposal")


class ScanOptions(Options):
    """Random-scan Metropolis: one coordinate per step, proposal N(θ_j, ``step_size``²)."""

    step_size: PositiveFloat = 0.5


def build_scan(model: Model, options: ScanOptions) -> Algorithm:
    """Random-scan random-walk Metropolis: reversible w.r.t. the posterior for each coordinate,
    so their uniform mixture is too."""
    log_density = model.log_density

    def init(key, position):
        del key
        return position, log_density(position)

    def step(key, state, params):
        theta, lp = state
        k_coord, k_move, k_accept = jax.random.split(key, 3)
        j = jax.random.randint(k_coord, (), 0, theta.shape[0])
        move = params["step_size"] * jax.random.normal(k_move) * jax.nn.one_hot(j, theta.shape[0])
        proposal = theta + move
        new_lp = log_density(proposal)
        accepted, prob = metropolis(k_accept, new_lp - lp)
        theta, lp = select(accepted, (proposal, new_lp), (theta, lp))
        stats = {COORDINATE.name: j, PROPOSAL_SIZE.name: jnp.abs(move)}
        return (theta, lp), AlgorithmInfo(prob, jnp.ones(()), lp, stats)

    def warmup(key, state, params, num_steps):
        keys = jax.random.split(key, num_steps)
        state = jax.lax.scan(lambda s, k: (step(k, s, params)[0], None), state, keys)[0]
        return state, params, jnp.asarray(float(num_steps))

    return Algorithm(init, warmup, step, lambda state: state[0],
                     {"step_size": jnp.asarray(options.step_size)}, (COORDINATE, PROPOSAL_SIZE),
                     facts={"scan": "uniform"})


def coordinate_counts(stats: Mapping[str, np.ndarray]) -> dict[str, Any]:
    counts = np.bincount(stats[COORDINATE.name].ravel().astype(int))
    return {"coordinate_counts": counts.tolist()}


def coordinate_lines(summary: Mapping[str, Any]) -> list[str]:
    return [f"updates per coordinate: {summary['coordinate_counts']}"]


SCAN = SamplerSpec("random_scan", "random-scan Metropolis (a test's own sampler)", ScanOptions,
                   build_scan, (COORDINATE, PROPOSAL_SIZE), coordinate_counts, coordinate_lines)


@pytest.fixture
def registered_scan():
    SAMPLERS.register(SCAN)
    yield SCAN
    SAMPLERS.unregister(SCAN.name)


def test_a_sampler_defined_here_runs_through_the_cli(registered_scan, tmp_path, capsys,
                                                     monkeypatch):
    out = tmp_path / "scan.nc"
    code, stdout, err = run_cli(["sample", "--model", "mvn_mean", "--set", "model.n=20",
                                 "--set", "model.dim=3", "--sampler", "random_scan",
                                 "--set", "sampler.step_size=0.4", "--chains", "2", "--draws",
                                 "50", "--warmup", "10", "--seed", "2", "--no-progress",
                                 "--out", out], capsys)
    assert code == 0, err
    idata = load_run(out)
    assert idata.sample_stats["proposal_size"].dims == ("chain", "draw", "axis")
    assert run_attr(idata, "sampler_facts") == {"scan": "uniform"}
    code, stdout, err = run_cli(["summary", "--json", out], capsys)
    assert code == 0, err
    import json

    counts = json.loads(stdout)["coordinate_counts"]
    assert sum(counts) == 100 and len(counts) == 3
    monkeypatch.setenv("COLUMNS", "200")
    code, stdout, err = run_cli(["summary", out], capsys)
    assert code == 0, err
    assert f"updates per coordinate: {counts}" in stdout
    code, _, err = run_cli(["rerun", out, "--out", tmp_path / "again.nc", "--no-progress"],
                           capsys)
    assert code == 0, err
    np.testing.assert_array_equal(idata.posterior["theta"].values,
                                  load_run(tmp_path / "again.nc").posterior["theta"].values)


def test_an_undeclared_statistic_is_refused(registered_scan):
    def build_leaky(model, options):
        algorithm = build_scan(model, options)
        return algorithm._replace(stats=(*algorithm.stats, Stat("secret", (), "not declared")))

    SAMPLERS.register(SCAN._replace(name="leaky", build=build_leaky))
    try:
        with pytest.raises(RuntimeError, match="does not declare: secret"):
            get_sampler("leaky", get_model(*TINY_MVN[:1], **TINY_MVN[1]))
    finally:
        SAMPLERS.unregister("leaky")


def test_registering_a_taken_name_is_an_error():
    with pytest.raises(ValueError, match="already registered"):
        SAMPLERS.register(SAMPLERS.get("pt"))
    with pytest.raises(ValueError, match="built in"):
        SAMPLERS.unregister("pt")
