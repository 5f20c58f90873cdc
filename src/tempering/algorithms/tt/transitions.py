"""Tempered transitions (Neal 1996; seed 002 §4, Eqs. 14–15); over redrawn subsets, STT (seed 000).

From the current state x̂_0 = x (level 0, the target): up transitions T̂_1..T̂_M, T̂_m leaving π_m
invariant, give x̂_1..x̂_M; then x̌_M = x̂_M and down transitions Ť_M..Ť_1 give x̌_{M−1}..x̌_0, Ť_m
the mutual reverse of T̂_m (Eq. 14: the same kernel when it is reversible, the reversed coordinate
order for the slice sweep). The candidate x̌_0 is accepted with probability (Eq. 15)

    min(1, Π_{m=1}^{M} π_m(x̂_{m−1}) / π_{m−1}(x̂_{m−1})
           · Π_{m=1}^{M} π_{m−1}(x̌_{m−1}) / π_m(x̌_{m−1})),

computed in log space, and every tempered transition is followed by an ordinary level-0 update
(seed README errata: seed 000's Algorithm 2 prints a sum for this product and moves down at levels
M−1..0; ``down_levels="printed"`` keeps those levels only to show, in the tests, that they are not
exact). The level-0 update is optional (``level0_update``): seed 002 §4's tempered transitions over
cheap approximations have none, since the flip alone leaves π invariant, and ``tt_approx`` follows
it. With a subset ladder whose view is redrawn every iteration — nested subsets X_M ⊂ … ⊂ X_1 ⊂
X, the same subsets on the way up and down — this is STT.

Evaluations per iteration: π_m(x̂_{m−1}) initialises T̂_m (levels 1..M), π_{m−1}(x̌_{m−1})
initialises the next down transition or, at level 0, the candidate (levels M−1..0), plus the
transitions themselves (levels 1..M twice, and the level-0 update).

Levels are an array axis (:mod:`tempering.algorithms.rung_axis`): the up pass is a ``lax.scan``
over m = 1..M and the down pass one over m = M..1 (the printed variant's M−1..0), whose body
builds level m's kernel once from :func:`~tempering.algorithms.rung_axis.density_of` at the traced
m and the m-th slice of the rung-stacked parameters, so the compiled program does not grow with the
ladder. On a power ladder that density is h(θ; β_m); on a ladder without ``density_at`` (STT's
subsets, ``tt_approx``'s approximations) it is a ``lax.switch`` over the unrolled rungs, each of
its own static size — one switch per call site instead of a copy of the whole level per rung,
measured to compile no slower than the unrolled Python loop it replaced (STT, 4 to 16 rungs), so
both kinds of ladder share the scans. Warmup (:mod:`~tempering.algorithms.tt.warmup`) runs
tempered transitions, or adapts every level's kernel through
:func:`~tempering.algorithms.rung_axis.over_rungs` (one ``vmap`` on a power ladder); either way
it and the sampling are one loop body, which the driver compiles into one program.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import PositiveInt

from tempering.algorithms.base import (
    ACCEPTANCE_HEADLINE,
    Algorithm,
    AlgorithmInfo,
    Headline,
    Stat,
    warmup_by_scans,
)
from tempering.algorithms.cost_model import tt_predicted_cost
from tempering.algorithms.options import InnerOptions, TemperingOptions
from tempering.algorithms.rung_axis import density_of, rung_costs
from tempering.algorithms.rungs import ladder_facts, rung_slice
from tempering.algorithms.spec import SamplerSpec, StatArrays
from tempering.algorithms.tt.warmup import tt_scans
from tempering.kernels.base import BoundKernel, evals_and_acceptance
from tempering.ladders import TemperingLadder, power_tempering_ladder
from tempering.models.base import Model
from tempering.numerics import metropolis, run_steps, select

TT_PROB = Stat("tt_accept_prob", (), "acceptance probability of the tempered transition (Eq. 15)")
TT_ACCEPTED = Stat("tt_accepted", (), "whether the tempered transition was accepted")
TT_STATS = (TT_PROB, TT_ACCEPTED)
#: Tempered-transition acceptance (floor 0.05: fewer accepted transitions barely move the
#: chain between modes) and the inner kernels' acceptance.
TT_HEADLINE = (Headline(
    "TT accept", "tt_accepted", floor=0.05,
    advice="the energy changes along an excursion are too large: space the rungs closer (more "
           "rungs, or a higher beta_min), or take smaller inner moves (fewer inner_steps, a "
           "smaller step_size); a unimodal posterior gains nothing from tempering — use nuts"),
    ACCEPTANCE_HEADLINE)


class TTState(NamedTuple):
    current: Any  # inner state at level 0 (density of the target cached)
    view: tuple  # subset indices kept between iterations (unused when redrawn)


def excursion(keys: jax.Array, x: Any, ladder: TemperingLadder, view: tuple, bound: BoundKernel,
              params: Any, inner_steps: int, down_levels: str) -> tuple[Any, jax.Array, jax.Array]:
    """Up and down passes from x (level 0; seed 000 Algorithm 2, down passes as Neal's or as
    printed), each a ``lax.scan`` over the rung axis.

    Parameters
    ----------
    keys
        (2M,) keys: ``keys[m − 1]`` for the up transition at level m, ``keys[M + m − 1]`` for
        Neal's down transition at level m (``keys[M + m]`` for the printed level m).
    x
        The inner state at level 0 (its cached density π_0's).
    params
        Inner-kernel parameters stacked over rungs.

    Returns
    -------
    tuple
        The candidate x̌_0 (density π_0's cached), the log weight of Eq. 15 and the cost.
    """
    top = ladder.num_rungs - 1
    costs = rung_costs(ladder)

    def kernel(factory, m):
        return factory(density_of(ladder, view, m), rung_slice(params, m))

    def visit(factory, m, key, x):
        return run_steps(kernel(factory, m).step, key, x, inner_steps, evals_and_acceptance)

    def up(carry, level):
        x, log_w, cost = carry
        m, key = level
        below = x.logdensity  # π_{m−1}(x̂_{m−1})
        x = kernel(bound.make, m).init(x.position)  # π_m(x̂_{m−1})
        log_w = log_w + x.logdensity - below
        x, (n_evals, _) = visit(bound.make, m, key, x)
        return (x, log_w, cost + costs[m] * (1.0 + n_evals)), None

    def down_neal(carry, level):
        x, log_w, cost = carry
        m, key = level
        x, (n_evals, _) = visit(bound.reverse(), m, key, x)
        above = x.logdensity  # π_m(x̌_{m−1})
        x = kernel(bound.make, m - 1).init(x.position)  # π_{m−1}(x̌_{m−1})
        log_w = log_w + x.logdensity - above
        return (x, log_w, cost + costs[m] * n_evals + costs[m - 1]), None

    def down_printed(carry, level):  # seed 000 Algorithm 2 as printed: levels M−1..0
        x, log_w, cost = carry
        m, key = level
        x = kernel(bound.make, m).init(x.position)
        x, (n_evals, _) = visit(bound.reverse(), m, key, x)
        above = kernel(bound.make, m + 1).init(x.position).logdensity
        log_w = log_w + x.logdensity - above
        return (x, log_w, cost + costs[m] * (1.0 + n_evals) + costs[m + 1]), None

    carry = (x, jnp.zeros(()), jnp.zeros(()))
    carry, _ = jax.lax.scan(up, carry, (jnp.arange(1, top + 1), keys[:top]))
    levels = jnp.arange(top, 0, -1) if down_levels == "neal" else jnp.arange(top - 1, -1, -1)
    carry, _ = jax.lax.scan(down_neal if down_levels == "neal" else down_printed, carry,
                            (levels, keys[top:][::-1]))
    return carry


def tempered_transitions(ladder: TemperingLadder, bound: BoundKernel, params: Any, *,
                         inner_steps: int = 1, level0_update: bool = True,
                         down_levels: Literal["neal", "printed"] = "neal") -> Algorithm:
    """Build TT (power ladder) or STT (subset ladder with ``redraw=True``).

    Parameters
    ----------
    params
        Inner-kernel parameters stacked over rungs (see ``rung_params``).
    inner_steps
        Inner updates per level (and in the level-0 update).
    level0_update
        Whether an ordinary level-0 update follows every tempered transition.
    down_levels
        ``"neal"`` (down transitions at levels M..1, exact) or ``"printed"`` (seed 000 Algorithm
        2's levels M−1..0, kept only to show that they are not exact).
    """
    top = ladder.num_rungs - 1

    def target(view, params):
        return bound.make(ladder.rungs(view)[0].log_density, rung_slice(params, 0))

    def init(key, position):
        view = ladder.draw_view(key)
        return TTState(target(view, params).init(position), view)

    def step(key, state, params):
        k_view, k_moves, k_accept, k_level0 = jax.random.split(key, 4)
        view = ladder.draw_view(k_view) if ladder.redraw else state.view
        candidate, log_w, cost = excursion(jax.random.split(k_moves, 2 * top), state.current,
                                           ladder, view, bound, params, inner_steps,
                                           down_levels)
        accepted, prob = metropolis(k_accept, log_w)
        current = select(accepted, candidate, state.current)
        if level0_update:
            current, (n_evals, accept0) = run_steps(target(view, params).step, k_level0, current,
                                                    inner_steps, evals_and_acceptance)
            accept0 = accept0 / inner_steps
        else:
            n_evals, accept0 = jnp.zeros(()), prob
        stats = {TT_PROB.name: prob, TT_ACCEPTED.name: accepted}
        info = AlgorithmInfo(accept0, cost + n_evals * ladder.costs[0], current.logdensity,
                             stats)
        return TTState(current, state.view), info

    scans = tt_scans(ladder, bound, step, lambda current, old: TTState(current, old.view))
    return Algorithm(init, partial(warmup_by_scans, scans), step,
                     lambda s: s.current.position, params, TT_STATS, headline=TT_HEADLINE,
                     scans=scans)


# --------------------------------------------------------------------------- the sampler


class TTOptions(TemperingOptions):
    """A tempered transition must travel between modes within one excursion, so each level gets
    several inner updates by default (10; the PT family's default is the paper's single update)."""

    inner_steps: PositiveInt = 10


def build_over(model: Model, options: InnerOptions, ladder: TemperingLadder, inner_steps: int,
               level0_update: bool = True) -> Algorithm:
    """TT over ``ladder`` with the inner kernel of ``options`` (shared with STT, TT over
    approximations)."""
    spec, bound = options.bind_inner(model.dim)
    algorithm = tempered_transitions(ladder, bound, spec.rung_params(bound, ladder.betas),
                                     inner_steps=inner_steps,
                                     level0_update=level0_update)
    return algorithm._replace(facts=ladder_facts(ladder))


def build(model: Model, options: TTOptions) -> Algorithm:
    """TT on the powered-likelihood ladder of ``options``."""
    return build_over(model, options, power_tempering_ladder(model, options.betas()),
                      options.inner_steps)


def tt_summary(stats: StatArrays) -> dict[str, Any]:
    """The mean acceptance probability of the tempered transitions."""
    return {"tt_accept_rate": float(np.mean(stats[TT_PROB.name]))}


def tt_lines(summary: Mapping[str, Any]) -> list[str]:
    return [f"tempered-transition acceptance {summary['tt_accept_rate']:.3f}"]


SPEC = SamplerSpec(
    name="tt",
    summary="tempered transitions, powered likelihood (Neal 1996; seed 002 §4); also takes the "
            "inner kernel's options",
    options=TTOptions,
    build=build,
    stats=TT_STATS,
    summarize=tt_summary,
    render=tt_lines,
    predicted_cost=tt_predicted_cost,
)
