"""SPT at its defaults on a tall multimodal posterior (issue 46, part 1): label switching on a
3-component 1-D mixture (means −3, 0, 3, σ = 1, prior sd 3), whose 3! orderings hold 1/6 of the
posterior each. The adaptive schedule's hot end is a subset of a few points
(:data:`~tempering.algorithms.pt.spt.HOT_POINTS`), nearly the prior, so every chain crosses
between the orderings; the old default hot end, N/8 points, still holds a barrier that grows
with N, and leaves chains in a few orderings — the control, so that the check can fail."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tempering import get_model, get_sampler
from tempering.algorithms.pt.spt import HOT_POINTS
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
