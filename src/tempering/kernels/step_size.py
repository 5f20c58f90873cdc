"""Step-size adaptation by dual averaging during warmup only (Hoffman & Gelman 2014, §3.2.1).

BlackJAX provides the dual-averaging update; this module only runs it over a fixed-parameter kernel
(RWM's scale or HMC's ε with L fixed). After warmup the final averaged step size is frozen, so the
sampling phase runs a fixed kernel and stays exact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from blackjax.adaptation.step_size import dual_averaging_adaptation

from tempering.kernels.base import Kernel


def dual_averaging_warmup(key: jax.Array, make: Callable[[jax.Array], Kernel], position: jax.Array,
                          step_size: jax.Array, num_steps: int,
                          target_accept: float, initial_state: Any = None
                          ) -> tuple[Any, jax.Array, jax.Array]:
    """Adapt a scalar multiplier of ``step_size`` towards ``target_accept``.

    Parameters
    ----------
    make
        Multiplier ↦ kernel built with ``step_size * multiplier``.
    step_size
        Initial step size (scalar or per-coordinate vector; its shape is kept).
    initial_state
        The kernel state to start from (default: ``init(position)`` of the kernel with the
        initial step size); a chain whose state carries more than its position passes it here.

    Returns
    -------
    The last warmup state, the adapted step size and the log-density evaluations made.
    """
    da_init, da_update, da_final = dual_averaging_adaptation(target_accept)
    state = make(jnp.ones(())).init(position) if initial_state is None else initial_state

    def body(carry, step_key):
        state, da_state, n_evals = carry
        kernel = make(jnp.exp(da_state.log_step_size))
        state, info = kernel.step(step_key, state)
        rate = jnp.where(jnp.isfinite(info.acceptance_rate), info.acceptance_rate, 0.0)
        return (state, da_update(da_state, rate), n_evals + info.n_evals), None

    (state, da_state, n_evals), _ = jax.lax.scan(
        body, (state, da_init(jnp.ones(())), jnp.zeros(())), jax.random.split(key, num_steps))
    return state, step_size * da_final(da_state), n_evals
