"""Cyclic MINT (seed 003 §4.3.1): the schedule against a literal simulation of the paper's
description, snapshot flags, and the ensemble helper on a real run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tempering import get_model, get_sampler, run_chains
from tempering.algorithms.minibatch.cmint import (
    CmintOptions,
    CyclicSchedule,
    cmint_summary,
    snapshot_draws,
)
from tempering.errors import UserInputError


def literal_schedule(steps_per_epoch, round_epochs, decay_epochs, rho_down, rho_up, rounds):
    """The paper's words as a loop: run R epochs, the step × ρ_down every r epochs; after R
    epochs take a snapshot, then × ρ_up; repeat. Returns (multiplier, snapshot) per step."""
    h, mults, snaps = 1.0, [], []
    for _ in range(rounds):
        for epoch in range(round_epochs):
            if epoch > 0 and epoch % decay_epochs == 0:
                h *= rho_down
            for s in range(steps_per_epoch):
                mults.append(h)
                snaps.append(epoch == round_epochs - 1 and s == steps_per_epoch - 1)
        h *= rho_up
    return np.array(mults), np.array(snaps)


@pytest.mark.parametrize("round_epochs, decay_epochs", [(4, 2), (5, 2), (3, 3), (6, 1)])
def test_schedule_is_the_papers_loop(round_epochs, decay_epochs):
    # n = 20, m = 7: an epoch is ⌈20/7⌉ = 3 steps (⌊20/7⌋ = 2 would shift everything)
    options = CmintOptions(batch=7, round_epochs=round_epochs, decay_epochs=decay_epochs,
                           rho_down=0.5, rho_up=2.0)
    schedule = options.schedule(20)
    assert schedule.steps_per_epoch == 3
    mults, snaps = literal_schedule(3, round_epochs, decay_epochs, 0.5, 2.0, 3)
    round_, mult, snapshot = schedule.at(np.arange(len(mults)))
    np.testing.assert_allclose(mult, mults, rtol=1e-12)
    np.testing.assert_array_equal(snapshot, snaps)
    np.testing.assert_array_equal(round_, np.arange(len(mults)) // (3 * round_epochs))
    assert np.flatnonzero(snaps).tolist() == [(j + 1) * 3 * round_epochs - 1 for j in range(3)]


def test_papers_settings():
    schedule = CyclicSchedule(300, 50, 5, 0.9, 2.0)  # n = 60000, m = 200
    assert schedule.decays_per_round == 9
    mults, snaps = literal_schedule(1, 50, 5, 0.9, 2.0, 10)
    _, mult, snapshot = schedule.at(np.arange(500) * 300 + 299)  # each epoch's last step
    np.testing.assert_allclose(mult, mults, rtol=1e-12)
    np.testing.assert_allclose(float(mult[50]), 2 * 0.9**9, rtol=1e-12)
    np.testing.assert_array_equal(snapshot, snaps)
    assert int(np.sum(snaps)) == 10


def test_a_run_records_the_schedule_and_its_snapshots():
    """Two rounds on mvn_mean (n = 20, m = 5: 4 steps an epoch, R = 2 epochs: 8 steps a round);
    warmup does not advance the schedule's clock."""
    model = get_model("mvn_mean", n=20, dim=2, data_seed=3)
    algorithm = get_sampler("cmint", model, batch=5, round_epochs=2, decay_epochs=1,
                            rho_down=0.5, rho_up=4.0, snapshots=1)
    assert algorithm.facts["round_steps"] == 8 and algorithm.facts["snapshots"] == 1
    idata = run_chains(model, algorithm, key=5, draws=16, chains=2, warmup=5,
                       progress=False).idata
    stats = idata.sample_stats
    mults, snaps = literal_schedule(4, 2, 1, 0.5, 4.0, 2)
    for chain in range(2):
        np.testing.assert_allclose(stats["step_scale"].values[chain], mults, rtol=1e-12)
        np.testing.assert_array_equal(stats["snapshot"].values[chain], snaps.astype(float))
        np.testing.assert_array_equal(stats["round"].values[chain], np.arange(16) // 8)
    summary = cmint_summary({name: stats[name].values for name in stats.data_vars})["cmint"]
    assert (summary["rounds"], summary["snapshots"], summary["batch_size"]) == (2, 2, 5)
    theta = idata.posterior["theta"].values
    np.testing.assert_array_equal(snapshot_draws(theta, stats["snapshot"].values, 10),
                                  theta[:, [7, 15]])
    np.testing.assert_array_equal(snapshot_draws(theta, stats["snapshot"].values, 1),
                                  theta[:, [15]])
    np.testing.assert_array_equal(snapshot_draws(theta[0], stats["snapshot"].values[0], 2),
                                  theta[0, [7, 15]])


def test_snapshot_draws_refuses_what_it_cannot_pair():
    values = np.zeros((2, 6, 3))
    flags = np.zeros((2, 6))
    flags[0, 2] = 1.0
    with pytest.raises(ValueError, match="different draws"):
        snapshot_draws(values, flags, 2)
    with pytest.raises(ValueError, match="do not match"):
        snapshot_draws(values, np.zeros((2, 5)), 2)
    assert snapshot_draws(values, np.zeros((2, 6)), 3).shape == (2, 0, 3)


def test_option_errors():
    model = get_model("mvn_mean", n=20, dim=2, data_seed=3)
    with pytest.raises(UserInputError, match="^sampler.decay_epochs: r must not exceed"):
        get_sampler("cmint", model, round_epochs=2, decay_epochs=3)
    with pytest.raises(UserInputError, match="^sampler.inner: this sampler takes rwm or mala or"):
        get_sampler("cmint", model, inner="slice")
    with pytest.raises(UserInputError, match="^sampler: cmint needs a model with per-datum"):
        get_sampler("cmint", dataclasses.replace(model, log_lik_terms_fn=None))
