"""The run spec (tempering.run.spec): what a run file records and everything rebuilds from.
Round trips through the run file's attributes, one-line errors for what cannot be rebuilt, and a
rerun from the recorded spec that gives the same draws."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest

import tempering
from tempering import RunSpec, UserInputError, load_run, run_spec, save_run
from tempering.run.files import recorded_spec

TINY = dict(chains=2, draws=30, warmup=10, seed=3, chain_method="vmap")


@pytest.mark.parametrize("seed", [7, jax.random.key(7)], ids=["int", "key"])
def test_attrs_round_trip(seed):
    spec = RunSpec("mvn_mean", "rwm", {"dim": 2, "name": "ignored"}, {"step_size": 0.5},
                   seed=seed, chains=3, draws=20, warmup=5, thin=2, init=np.zeros(2))
    assert spec.model_options == {"dim": 2}  # a TOML table's name key is dropped
    again = RunSpec.from_attrs(spec.to_attrs())
    assert again.to_attrs() == spec.to_attrs()
    assert again.replace(draws=40).draws == 40 and again.draws == 20  # frozen: a new spec


def test_missing_attributes_are_one_line():
    attrs = RunSpec("mvn_mean", "rwm").to_attrs()
    del attrs["thin"]
    with pytest.raises(UserInputError, match="cannot be rebuilt \\(no thin recorded"):
        RunSpec.from_attrs(attrs)
    with pytest.raises(UserInputError, match="table of options"):
        RunSpec("mvn_mean", "rwm", model_options=[1])  # type: ignore[arg-type]


def test_a_hand_built_sampler_cannot_be_rebuilt():
    model = tempering.get_model("mvn_mean", dim=2)
    algorithm = tempering.get_sampler("rwm", model)._replace(options=None)
    spec = RunSpec.of(model, algorithm, seed=0)
    assert spec.to_attrs()["sampler_options"] is None
    with pytest.raises(UserInputError, match="built by hand"):
        spec.build()
    with pytest.raises(UserInputError, match="only registered ones"):
        tempering.run_chains(model, algorithm, key=0, chains=2, draws=10, warmup=0,
                             chain_method="dask", progress=False)


def test_the_file_records_the_resolved_spec_and_reruns_from_it(tmp_path):
    spec = RunSpec("mvn_mean", "rwm", {"dim": 2}, **TINY)
    path = run_spec(spec, out=tmp_path / "a.nc")
    recorded = recorded_spec(path)
    assert recorded.sampler_options["step_size"] is not None  # resolved: every default explicit
    assert recorded.replace(sampler_options={}, model_options={"dim": 2}) == spec
    again = tempering.rerun(path, tmp_path / "b.nc")
    np.testing.assert_array_equal(load_run(path).posterior["theta"].values,
                                  load_run(again).posterior["theta"].values)


def test_a_run_file_from_before_a_rename_reruns_bit_for_bit(tmp_path):
    """``ladder`` became ``spacing`` (issue 33): a file that records the old name still reruns,
    with a warning naming the new one, and gives the same draws."""
    spec = RunSpec("mvn_mean", "st", {"dim": 2}, {"rungs": 3, "spacing": "harmonic"}, **TINY)
    new = run_spec(spec, out=tmp_path / "new.nc")
    idata = load_run(new)
    for group in ("posterior", "sample_stats"):  # the file as the release before wrote it
        options = json.loads(idata[group].attrs["sampler_options"])
        options["ladder"] = options.pop("spacing")
        idata[group].attrs["sampler_options"] = json.dumps(options)
    old = save_run(idata, tmp_path / "old.nc")
    with pytest.warns(FutureWarning, match="'ladder' is now called 'spacing'"):
        again = tempering.rerun(old, tmp_path / "again.nc")
    np.testing.assert_array_equal(load_run(new).posterior["theta"].values,
                                  load_run(again).posterior["theta"].values)
    with pytest.raises(UserInputError, match="ladder: renamed spacing"):
        tempering.get_sampler("st", tempering.get_model("mvn_mean"), ladder="harmonic",
                              spacing="harmonic")


def test_an_old_option_value_means_the_new_one():
    """``schedule=geometric`` became ``schedule=fixed``: the old value builds the same sampler,
    with a warning (what an old run file's rerun gets)."""
    model = tempering.get_model("mvn_mean", dim=2)
    with pytest.warns(FutureWarning, match="schedule=geometric is now called schedule=fixed"):
        old = tempering.get_sampler("pt", model, inner="rwm", rungs=3, schedule="geometric")
    new = tempering.get_sampler("pt", model, inner="rwm", rungs=3, schedule="fixed")
    assert old.options == new.options and old.options.schedule == "fixed"
    assert old.facts["betas"] == new.facts["betas"]
