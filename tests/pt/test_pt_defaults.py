"""PT at its defaults (issue 31): `tempering sample --sampler pt` with no sampler options finds
every mode of the 10-D, 4-mode mixture in every chain — the pilot placing the rungs, each rung's
HMC tuned — with no rung cut off; SPT's default schedule falls back where it cannot apply."""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import run_cli

from tempering.algorithms.registry import get_sampler
from tempering.errors import UserInputError
from tempering.models import get_model
from tempering.models.gauss_mixture import mode_mass_table
from tempering.run.loading import load_run
from tempering.run.output import run_attr


# pilot, warmup and 4 × 1000 draws at the defaults (~15 s of one core; budget): make test resolves
# the default PT and runs its pilot in tests/pt/test_pt_adaptive
@pytest.mark.slow
def test_default_pt_from_the_cli_finds_every_mode_in_every_chain(tmp_path, capsys):
    path = tmp_path / "pt.nc"
    code, out, err = run_cli(["sample", "--model", "gauss_mixture", "--sampler", "pt",
                              "--chains", "4", "--seed", "0", "--no-progress", "--out", path],
                             capsys)
    assert code == 0, err
    idata = load_run(path)
    rows = mode_mass_table(idata["posterior"]["theta"].values, get_model("gauss_mixture"))
    assert [row["modes_visited"] for row in rows] == [4, 4, 4, 4], rows
    facts = run_attr(idata, "sampler_facts")
    assert facts["pilot"]["placed_rungs"] == len(facts["betas"]) >= 5
    # the prior rung is not cut off: the last pair swaps about as often as the others
    stats = idata["sample_stats"]
    prob, proposed = stats["swap_accept_prob"].values, stats["swap_proposed"].values
    rates = prob.sum(axis=(0, 1)) / np.maximum(proposed.sum(axis=(0, 1)), 1)
    assert rates[-1] > 0.5 * np.mean(rates), rates
    code, out, err = run_cli(["summary", path], capsys)
    assert code == 0 and "pilot: " in out, out


def test_spt_defaults_fall_back_on_a_model_without_per_datum_terms():
    """gp_regression's likelihood on a subset is no sum over points: the default adaptive
    schedule (whose pilot masks per-datum terms) gives way to the geometric one, and the facts
    say why; asked for by name, the adaptive schedule is still refused in one line."""
    model = get_model("gp_regression")
    algorithm = get_sampler("spt", model)
    assert algorithm.options.schedule == "fixed" and algorithm.options.rungs == 7
    assert "per-datum likelihood terms" in algorithm.facts["notes"][0]
    with pytest.raises(UserInputError, match="sampler.schedule: spt places an adaptive"):
        get_sampler("spt", model, schedule="adaptive")


def test_pt_runs_rwm_inside_a_small_model_unless_a_kernel_option_is_given():
    """At most RWM_DIMS parameters: RWM with RWM_STEPS steps a scan (the resolved options say so,
    and rebuild the same sampler); more parameters, or any inner-kernel option named, keep HMC's
    defaults; a kernel named is the kernel run."""
    from tempering.algorithms.pt.sampler import RWM_DIMS, RWM_STEPS

    small = get_model("mixture")
    assert small.dim <= RWM_DIMS
    fixed = {"rungs": 4, "schedule": "fixed"}  # no pilot
    resolved = get_sampler("pt", small, **fixed).options
    assert (resolved.inner, resolved.inner_steps) == ("rwm", RWM_STEPS)
    again = get_sampler("pt", small, **resolved.model_dump()).options
    assert (again.inner, again.inner_steps) == ("rwm", RWM_STEPS)
    larger = get_model("mvn_mean", dim=RWM_DIMS + 1)
    assert (get_sampler("pt", larger, **fixed).options.inner,
            get_sampler("pt", larger, **fixed).options.inner_steps) == ("hmc", 1)
    for named in ({"num_steps": 5}, {"inner_steps": 2}, {"jitter_steps": False},
                  {"inner": "hmc"}):
        options = get_sampler("pt", small, **fixed, **named).options
        assert options.inner == "hmc" and options.inner_steps == named.get("inner_steps", 1)
    assert get_sampler("pt", small, inner="mala", **fixed).options.inner == "mala"
