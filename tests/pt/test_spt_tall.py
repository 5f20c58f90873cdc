"""SPT at its defaults on a tall multimodal posterior (issue 46, part 1): label switching on a
3-component 1-D mixture (means −3, 0, 3, σ = 1, prior sd 3), whose 3! orderings hold 1/6 of the
posterior each. The adaptive schedule's hot end is a subset of a few points
(:data:`~tempering.algorithms.pt.spt.HOT_POINTS`), nearly the prior, so every chain crosses
between the orderings; the old default hot end, N/8 points, still holds a barrier that grows
with N, and leaves chains in a few orderings — the control, so that the check can fail.

Every chain and the pilot run on the same subsets (``shared_subsets``): a subset path's barrier
is lumpy and its own, so a schedule placed on the pilot's subsets fits only those (tall mixture,
4 × 4000 draws, seeds 0–3: error 0.067, 0.108, 0.043, 0.081 against 0.091, 0.109, 0.088, 0.127
with each chain's own subsets). The check is structural: the run's ladder gives every chain the
pilot's subsets, and each chain's own subsets are the control."""

from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest

from tempering import get_model, get_sampler
from tempering.algorithms.pt.spt import HOT_POINTS, subsets_key
from tempering.ladders import adaptive_subset_ladder, subset_tempering_ladder
from tempering.run.driver import run_chains

TALL = {"n": 1000, "means": [-3.0, 0.0, 3.0], "sigma": 1.0, "prior_sd": 3.0}
RUN = {"key": 0, "chains": 4, "warmup": 1000, "draws": 3000, "progress": False}


def _orderings_per_chain(options: dict) -> np.ndarray:
    model = get_model("mixture", **TALL)
    run = run_chains(model, get_sampler("spt", model, **options), **RUN)
    order = np.argsort(run.idata.posterior["mu"].values, axis=-1)  # (chain, draw, K)
    visited = [np.any(np.all(order == np.asarray(p), axis=-1), axis=1)
               for p in itertools.permutations(range(3))]
    return np.sum(visited, axis=0)


def test_the_default_hot_end_is_a_few_points():
    model = get_model("mixture", **TALL)
    options = get_sampler("spt", model).options
    assert options.beta_min == pytest.approx(HOT_POINTS / TALL["n"])
    fixed = get_sampler("spt", model, schedule="fixed").options
    assert fixed.beta_min == 0.125


# ~20 s of one core for both runs (budget): the check, in make test
def test_default_spt_visits_every_ordering_in_every_chain():
    assert _orderings_per_chain({}).tolist() == [6, 6, 6, 6]
    old = _orderings_per_chain({"beta_min": 0.125})  # the old default hot end: N/8 points
    assert old.min() < 6, old


def test_every_chain_and_the_pilot_run_on_the_runs_subsets():
    model = get_model("mixture", **{**TALL, "n": 200})
    options = get_sampler("spt", model).options
    betas = options.betas()
    sizes = [max(1, round(b * 200)) for b in betas[1:]]
    shared = subset_tempering_ladder(model, betas, subsets_key=subsets_key(options))
    first, second = (shared.draw_view(jax.random.PRNGKey(k)) for k in (1, 2))
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    pilot = adaptive_subset_ladder(model, betas, subsets_key=subsets_key(options))
    order = np.asarray(pilot.draw_view(jax.random.PRNGKey(3))[1][0])
    assert all(np.array_equal(a, order[:size]) for a, size in zip(first, sizes, strict=True))
    own = options.model_copy(update={"shared_subsets": False})
    assert subsets_key(own) is None
    each = subset_tempering_ladder(model, betas, subsets_key=None)
    first, second = (each.draw_view(jax.random.PRNGKey(k)) for k in (1, 2))
    assert not np.array_equal(first[0], second[0])
