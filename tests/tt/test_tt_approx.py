"""Tempered transitions over a ladder of approximations (seed 002 §4) and the standard method of
§6.2 (the coordinate slice sampler) against grid quadrature of a GP posterior; the ladder's subsets,
costs and validation."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from gp_grid import check_grid, grid_model, grid_posterior, run_draws, z_scores
from support import Z_BOUND

from tempering.algorithms import get_sampler
from tempering.errors import UserInputError
from tempering.gp.approx import draw_subset
from tempering.ladders.approximation import (
    approximate_rung,
    approximation_ladder,
    nested_subsets,
)


@pytest.fixture(scope="module")
def model():
    return grid_model()


@pytest.fixture(scope="module")
def grid(model):
    result = grid_posterior(model)
    check_grid(result)
    return result


# the slice sampler (§6.2's standard method, ~7 s) in make test-slow: its exactness is checked on
# analytic posteriors in tests/samplers/test_samplers_mvn.py
@pytest.mark.parametrize("sampler, options", [
    pytest.param("slice", {}, marks=pytest.mark.slow),
    ("tt_approx", {"approx": "sod", "sizes": [24, 16]}),
])
def test_matches_grid_posterior(model, grid, sampler, options):
    algorithm = get_sampler(sampler, model, **options)
    theta, stats = run_draws(algorithm, model, seed=5)
    z = z_scores(theta, grid["mean"])
    extra = (f", TT acceptance {stats['tt_accept_prob'].mean():.3f}"
             if "tt_accept_prob" in stats else "")
    print(f"\n{sampler}: z = {np.round(z, 2)}{extra}")
    if sampler == "tt_approx":  # the flip is sometimes rejected: π_1, π_2 ≠ π
        assert 0.05 < stats["tt_accepted"].mean() < 0.99
    assert np.max(np.abs(z)) < Z_BOUND, z


def test_ladder_is_nested_with_costs_from_the_approximation(model):
    sizes = (20, 10, 4)
    subsets = nested_subsets(3, model.n_data, sizes)
    assert [len(s) for s in subsets] == list(sizes)
    np.testing.assert_array_equal(subsets[0], draw_subset(3, model.n_data, 20))
    for big, small in zip(subsets, subsets[1:], strict=False):
        assert set(small) <= set(big)
    for approx, power in (("sod", 3), ("nystrom", 2)):
        ladder = approximation_ladder(model, approx, sizes, subset_seed=3)
        assert ladder.kind == "approx" and not ladder.redraw
        assert ladder.betas == (1.0,) * 4 and ladder.sizes == (30, *sizes)
        np.testing.assert_allclose(ladder.costs, [1.0, *[(m / 30) ** power for m in sizes]])
        rungs = ladder.rungs(ladder.draw_view(None))
        assert rungs[0].log_density == model.log_density
        theta = np.asarray(model.attrs["theta_true"])
        assert all(np.isfinite(float(jax.jit(r.log_density)(theta))) for r in rungs)


def test_approximate_rungs_are_prior_plus_approximate_likelihood(model):
    theta = np.asarray(model.attrs["theta_true"]) + 0.1
    subset = draw_subset(0, model.n_data, 12)
    view = {k: v[subset] for k, v in model.data.items()}
    sod = approximate_rung(model, "sod", subset, 1e-8)
    assert float(sod.log_density(theta)) == pytest.approx(
        float(model.log_prior(theta) + model.log_lik(theta, view)), rel=1e-12)
    assert sod.cost == pytest.approx((12 / 30) ** 3) and sod.beta is None
    every = approximate_rung(model, "eigen", np.arange(model.n_data), 1e-8)  # all eigenpairs
    assert float(every.log_density(theta)) == pytest.approx(float(model.log_density(theta)),
                                                           rel=1e-6)
    nystrom = approximate_rung(model, "nystrom", subset, 1e-8)
    assert nystrom.cost == pytest.approx((12 / 30) ** 2)
    value = float(nystrom.log_density(theta))  # rank 12 of 30: finite, and not the exact value
    assert np.isfinite(value) and abs(value - float(model.log_density(theta))) > 1e-3


@pytest.mark.parametrize("options, fragment", [
    ({"sizes": [10, 20]}, "sampler.sizes: must be strictly decreasing"),
    ({"sizes": "10,10"}, "sampler.sizes: must be strictly decreasing"),
    ({"sizes": [30, 10]}, "less than the number of data points n = 30 (got 30)"),
    ({"sizes": [20, 0]}, "sampler.sizes.1: Input should be greater than 0"),
    ({"approx": "eigen"}, "sampler.approx: Input should be 'sod' or 'nystrom'"),
    ({"inner": "nuts"}, "sampler.inner"),
    ({"sizes": [20, 10], "width": -1}, "sampler.width"),
])
def test_bad_options_are_one_line_errors(model, options, fragment):
    with pytest.raises(UserInputError) as err:
        get_sampler("tt_approx", model, **options)
    assert fragment in str(err.value) and "\n" not in str(err.value)
