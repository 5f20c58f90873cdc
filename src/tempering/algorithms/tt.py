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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from pydantic import PositiveInt

from tempering.algorithms.base import ACCEPTANCE_HEADLINE, Algorithm, AlgorithmInfo, Headline, Stat
from tempering.algorithms.cost_model import tt_predicted_cost
from tempering.algorithms.options import InnerOptions, TemperingOptions
from tempering.algorithms.rungs import ladder_facts, rung_slice, stack_rungs, warmup_rung
from tempering.algorithms.spec import SamplerSpec, StatArrays
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


def excursion(keys: jax.Array, x: Any, rungs: Sequence, up: Sequence, down: Sequence,
              inner_steps: int, down_levels: str) -> tuple[Any, jax.Array, jax.Array]:
    """Up and down passes from x (level 0; seed 000 Algorithm 2, down passes as Neal's or as
    printed); returns the candidate, its log weight and the cost."""
    top = len(rungs) - 1
    tally = evals_and_acceptance
    log_w, cost = jnp.zeros(()), jnp.zeros(())
    for m in range(1, top + 1):
        below = x.logdensity  # π_{m−1}(x̂_{m−1})
        x = up[m].init(x.position)  # π_m(x̂_{m−1})
        log_w = log_w + x.logdensity - below
        x, (n_evals, _) = run_steps(up[m].step, keys[m - 1], x, inner_steps, tally)
        cost = cost + rungs[m].cost * (1.0 + n_evals)
    if down_levels == "neal":
        for m in range(top, 0, -1):
            x, (n_evals, _) = run_steps(down[m].step, keys[top + m - 1], x, inner_steps, tally)
            above = x.logdensity  # π_m(x̌_{m−1})
            x = up[m - 1].init(x.position)  # π_{m−1}(x̌_{m−1})
            log_w = log_w + x.logdensity - above
            cost = cost + rungs[m].cost * n_evals + rungs[m - 1].cost
    else:  # seed 000 Algorithm 2 as printed: down transitions at levels M−1..0
        for m in range(top - 1, -1, -1):
            x = up[m].init(x.position)
            x, (n_evals, _) = run_steps(down[m].step, keys[top + m], x, inner_steps, tally)
            above = up[m + 1].init(x.position).logdensity
            log_w = log_w + x.logdensity - above
            cost = cost + rungs[m].cost * (1.0 + n_evals) + rungs[m + 1].cost
    return x, log_w, cost


def tempered_transitions(ladder: TemperingLadder, bound: BoundKernel, params: Any, *,
                         name: str = "tt", inner_steps: int = 1, level0_update: bool = True,
                         down_levels: Literal["neal", "printed"] = "neal") -> Algorithm:
    """Build TT (power ladder) or STT (subset ladder with ``redraw=True``)."""
    top = ladder.num_rungs - 1
    tally = evals_and_acceptance

    def kernels(view, params):
        rungs = ladder.rungs(view)
        up = [bound.make(r.log_density, rung_slice(params, m)) for m, r in enumerate(rungs)]
        down = [bound.reverse()(r.log_density, rung_slice(params, m))
                for m, r in enumerate(rungs)]
        return rungs, up, down

    def init(key, position):
        view = ladder.draw_view(key)
        _, up, _ = kernels(view, params)
        return TTState(up[0].init(position), view)

    def step(key, state, params):
        k_view, k_moves, k_accept, k_level0 = jax.random.split(key, 4)
        view = ladder.draw_view(k_view) if ladder.redraw else state.view
        rungs, up, down = kernels(view, params)
        candidate, log_w, cost = excursion(jax.random.split(k_moves, 2 * top), state.current,
                                           rungs, up, down, inner_steps, down_levels)
        accepted, prob = metropolis(k_accept, log_w)
        current = select(accepted, candidate, state.current)
        if level0_update:
            current, (n_evals, accept0) = run_steps(up[0].step, k_level0, current, inner_steps,
                                                    tally)
            accept0 = accept0 / inner_steps
        else:
            n_evals, accept0 = jnp.zeros(()), prob
        stats = {TT_PROB.name: prob, TT_ACCEPTED.name: accepted}
        info = AlgorithmInfo(accept0, cost + n_evals * rungs[0].cost, current.logdensity, stats)
        return TTState(current, state.view), info

    def warmup(key, state, params, num_steps):
        if bound.warmup is None:
            state, cost = run_steps(lambda k, s: step(k, s, params), key, state, num_steps,
                                    lambda info: info.cost)
            return state, params, cost
        k_view, k_adapt = jax.random.split(key)
        rungs = ladder.rungs(ladder.draw_view(k_view) if ladder.redraw else state.view)
        tuned, cost, current = [], jnp.zeros(()), state.current
        for m, k in enumerate(jax.random.split(k_adapt, top + 1)):
            start = bound.make(rungs[m].log_density, rung_slice(params, m)).init(
                state.current.position)
            adapted, p, n_evals = warmup_rung(bound, k, rungs[m].log_density, start,
                                              rung_slice(params, m), num_steps)
            tuned.append(p)
            cost = cost + (1.0 + n_evals) * rungs[m].cost
            if m == 0:
                current = adapted
        return TTState(current, state.view), stack_rungs(tuned), cost

    return Algorithm(name, init, warmup, step, lambda s: s.current.position, params, TT_STATS,
                     headline=TT_HEADLINE)


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
    "tt", "tempered transitions, powered likelihood (Neal 1996; seed 002 §4); also takes the "
    "inner kernel's options", TTOptions, build, TT_STATS, tt_summary, tt_lines,
    predicted_cost=tt_predicted_cost)
