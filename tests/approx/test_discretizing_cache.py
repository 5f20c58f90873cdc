"""Caching and lazy simulation in the discretizing chain (seed 002 §§2.2, 3).

With r = 4 mark moves of s = 1 step, a move often proposes a step whose π is already known (the
mark's own neighbours); with ``cache=True`` those cost nothing. The π evaluations actually
executed are counted from outside (a host callback in π), and must equal the reported
``n_pi_evals``: fewer than the mark moves with the cache, exactly one per move without it. The
acceptances and π* counts must be identical either way, and the draws equal to the last bits of
rounding: the two settings are two programs, which XLA may round differently (at backend
optimisation level 0 with the legacy CPU emitters — the suite's setting — they differ by ≤ 2 ulp;
fully optimised, not at all). Also: warmup with an adapting inner kernel.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gp_grid import grid_model, run_draws

from tempering import get_model
from tempering.algorithms import get_sampler
from tempering.algorithms.approx.discretizing import discretizing_chain
from tempering.gp.approx import draw_subset
from tempering.kernels import KERNELS
from tempering.ladders import target_rung
from tempering.ladders.approximation import approximate_rung

R, S, CHAINS, DRAWS = 4, 1, 2, 300


@pytest.fixture(scope="module")
def runs():
    model = grid_model()
    approx = approximate_rung(model, "sod", draw_subset(0, model.n_data, 20), 1e-8)
    spec = KERNELS.get("slice")
    bound = spec.bind(spec.options(), model.dim)
    out = {}
    for cache in (True, False):
        calls = []

        def counted(theta, calls=calls):
            jax.debug.callback(lambda t: calls.append(1), theta)
            return model.log_density(theta)

        target = target_rung(model)._replace(log_density=counted)
        algorithm = discretizing_chain(target, approx, bound, r=R, s=S, cache=cache)
        theta, stats = run_draws(algorithm, model, seed=2, chains=CHAINS, draws=DRAWS, burn_in=0)
        out[cache] = (theta, stats, len(calls))
    return out


def test_cache_saves_pi_evaluations(runs):
    _, stats, _ = runs[True]
    moves = R * stats["n_pi_evals"].size
    assert np.all(stats["n_pi_evals"] + stats["cache_hits"] == R)  # each move: hit or evaluation
    assert stats["n_pi_evals"].sum() < moves  # revisited steps were not evaluated again
    assert stats["cache_hits"].sum() > 0.2 * moves
    print(f"\ncache on: π evaluations per iteration {stats['n_pi_evals'].mean():.2f} of {R} "
          f"moves, hit rate {stats['cache_hits'].sum() / moves:.3f}, "
          f"mark acceptance {stats['mark_accept'].mean():.3f}, "
          f"π* evaluations per iteration {stats['n_approx_evals'].mean():.1f}")


def test_without_cache_every_proposal_is_evaluated(runs):
    _, stats, _ = runs[False]
    assert np.all(stats["n_pi_evals"] == R) and np.all(stats["cache_hits"] == 0)


@pytest.mark.parametrize("cache", [True, False])
def test_reported_counts_are_the_evaluations_executed(runs, cache):
    _, stats, executed = runs[cache]
    assert executed == stats["n_pi_evals"].sum() + CHAINS  # + π at each chain's start


def test_cache_changes_counts_not_draws(runs):
    (theta_on, stats_on, _), (theta_off, stats_off, _) = runs[True], runs[False]
    np.testing.assert_allclose(theta_on, theta_off, rtol=1e-13, atol=1e-13)  # rounding only
    np.testing.assert_array_equal(stats_on["mark_accept"], stats_off["mark_accept"])
    np.testing.assert_array_equal(stats_on["n_approx_evals"], stats_off["n_approx_evals"])
    assert stats_on["n_pi_evals"].sum() < stats_off["n_pi_evals"].sum()
    assert np.mean(stats_on["mark_accept"]) > 0.05  # the marks moved: the comparison has teeth


def test_warmup_adapts_the_inner_kernel_on_pi_star():
    """With ``adapt_step_size`` the RWM step size is tuned on π* in the first half of warmup (R's
    own invariant density), then fixed steps follow; the cost counts both halves."""
    model = get_model("gp_regression", n=40, dim=2)
    algorithm = get_sampler("discretizing_chain", model, m=10, inner="rwm", step_size=0.05,
                            adapt_step_size=True)
    state = algorithm.init(jax.random.key(0), model.init_position(jax.random.key(1)))
    warm = jax.jit(algorithm.warmup, static_argnums=3)
    state, params, cost = warm(jax.random.key(2), state, algorithm.params, 40)
    assert not jnp.allclose(params["step_size"], algorithm.params["step_size"])
    # 20 adaptation steps of one π* evaluation each, one π at the switch, then 20 iterations
    # with at least one π* and one π evaluation each
    approx_cost = (10 / 40) ** 3
    assert float(cost) >= 20 * approx_cost + 1 + 20 * (1 + approx_cost) - 1e-9
    assert jnp.isfinite(state.log_pi)
    assert float(state.log_pi) == pytest.approx(float(model.log_density(state.current.position)))
