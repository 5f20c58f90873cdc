"""The warmup of tempered transitions (``tt``, ``stt``, ``tt_approx``) as scans of the run's own
loop body (:class:`~tempering.algorithms.base.Scans`), so that one compiled program runs the
warmup and the sampling (issue 44) and the TT step is compiled once:

- an inner kernel without adaptation (RWM, slice, … — TT's default): the warmup is W tempered
  transitions at the given parameters, each scan the sampling step itself;
- an inner kernel that adapts (``adapt_step_size``, NUTS): ``begin`` adapts every level's kernel
  on its own density from the current level-0 position (:func:`warm_levels`; all rungs as one
  batch on a power ladder) and level 0's adapted state becomes the current one; that is the
  whole warmup (:func:`~tempering.algorithms.base.begin_then_step`: it does all W steps, so no
  warming scan follows), as the adaptation spends the warmup's budget on every level.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tempering.algorithms.base import Scans, begin_then_step, step_scans
from tempering.algorithms.rung_axis import over_rungs, rung_costs
from tempering.algorithms.rungs import rung_slice, warmup_rung
from tempering.kernels.base import BoundKernel
from tempering.ladders import TemperingLadder


def tt_scans(ladder: TemperingLadder, bound: BoundKernel, step: Callable,
             restart: Callable[[Any, Any], Any]) -> Scans:
    """TT's warmup and sampling as one loop body over ``step`` (module docstring); ``restart``
    makes the TT state from level 0's adapted inner state and the old TT state."""
    if bound.warmup is None:
        return step_scans(step)

    def adapt(key, state, params, num_steps):
        current, tuned, cost = warm_levels(ladder, bound, key, state, params, num_steps)
        return restart(current, state), tuned, cost

    return begin_then_step(adapt, step, lambda num_steps: num_steps)


def warm_levels(ladder: TemperingLadder, bound: BoundKernel, key: jax.Array, state: Any,
                params: Any, num_steps: int) -> tuple[Any, Any, jax.Array]:
    """Every level's inner kernel adapted on its own density from the current level-0 position
    of ``state`` (a :class:`~tempering.algorithms.tt.transitions.TTState`; all rungs as one
    batch on a power ladder).

    Returns level 0's adapted inner state, the adapted rung-stacked parameters and the cost,
    Σ_m (1 + n_evals) c_m.
    """
    k_view, k_adapt = jax.random.split(key)
    view = ladder.draw_view(k_view) if ladder.redraw else state.view

    def one_rung(m, log_density, rung_params, k):
        start = bound.make(log_density, rung_params).init(state.current.position)
        return warmup_rung(bound, k, log_density, start, rung_params, num_steps)

    keys = jax.random.split(k_adapt, ladder.num_rungs)
    adapted, tuned, n_evals = over_rungs(ladder, view, one_rung, params, keys)
    cost = jnp.sum((1.0 + n_evals) * rung_costs(ladder))
    return rung_slice(adapted, 0), tuned, cost
