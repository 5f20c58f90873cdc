"""Algorithm contract: what the driver runs, one chain at a time (vmapped over chains by the
driver).

An algorithm is a transition on its own state (for plain MCMC the inner kernel's state; for
parallel tempering the states of every rung, and so on) with tunable parameters that warmup may
adapt and that are frozen during sampling:

- ``init(key, position) -> state``;
- ``warmup(key, state, params, num_steps) -> (state, params, cost)``, run before sampling only;
- ``step(key, state, params) -> (state, AlgorithmInfo)``;
- ``position(state) -> θ`` of the target (rung 0) chain — the only draws that reach ``posterior``.

``AlgorithmInfo.cost`` is the step's likelihood work in full-data-equivalent evaluations
(DESIGN.md, "Info carries cost"); ``stats`` holds further per-draw statistics (swap acceptance,
divergences, ...), each written to ``sample_stats`` under its key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

Array = jax.Array


class AlgorithmInfo(NamedTuple):
    """Per-step report of an algorithm (all scalars per chain unless a stat says otherwise)."""

    acceptance_rate: Array
    cost: Array
    lp: Array
    stats: dict[str, Array]


class Algorithm(NamedTuple):
    """A sampler the driver can run. See the module docstring for the four functions."""

    name: str
    init: Callable[[Array, Array], Any]
    warmup: Callable[[Array, Any, Any, int], tuple[Any, Any, Array]]
    step: Callable[[Array, Any, Any], tuple[Any, AlgorithmInfo]]
    position: Callable[[Any], Array]
    params: Any
    options: dict[str, Any]


def run_steps(step: Callable, key: Array, state: Any, params: Any,
              num_steps: int) -> tuple[Any, Array]:
    """``num_steps`` steps of an algorithm with fixed ``params`` (warmup without adaptation);
    returns the last state and the summed cost."""

    def body(carry, step_key):
        state, cost = carry
        state, info = step(step_key, state, params)
        return (state, cost + info.cost), None

    (state, cost), _ = jax.lax.scan(body, (state, jnp.zeros(())),
                                    jax.random.split(key, num_steps))
    return state, cost
