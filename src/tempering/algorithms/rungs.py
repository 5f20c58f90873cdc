"""Rung helpers of the tempering family: one rung's parameters out of a rung-stacked pytree,
warmup of one rung, and the facts a ladder records. (``k`` inner updates at a rung are
:func:`tempering.numerics.run_steps` with :func:`~tempering.kernels.base.evals_and_acceptance`.)

Inner-kernel parameters of a ladder are stacked over rungs (leading axis = rung, built by
:meth:`~tempering.kernels.base.KernelSpec.rung_params`); every algorithm with rungs reads and
adapts them through these helpers.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.kernels.base import BoundKernel, evals_and_acceptance
from tempering.ladders import TemperingLadder
from tempering.numerics import array_module, interp, interp_with, run_steps


def rung_slice(params: Any, m: int | jax.Array) -> Any:
    """Rung m's parameters from a rung-stacked pytree."""
    return jax.tree.map(lambda p: p[m], params)


def stack_rungs(per_rung: list[Any]) -> Any:
    """Rung-stacked parameters from a list of one rung's parameters each."""
    return jax.tree.map(lambda *ps: jax.numpy.stack(ps), *per_rung)


def warmup_rung(bound: BoundKernel, key: jax.Array, log_density, state: Any, params: Any,
                num_steps: int) -> tuple[Any, Any, jax.Array]:
    """Adapt one rung's parameters on its own density (warmup only), or just run it; returns the
    state, the parameters and the evaluations made."""
    if bound.warmup is not None:
        return bound.warmup(key, log_density, state.position, num_steps, params)
    kernel = bound.make(log_density, params)
    state, (n_evals, _) = run_steps(kernel.step, key, state, num_steps, evals_and_acceptance)
    return state, params, n_evals


def carried_params(params: Any, old_betas: jax.Array, new_betas: jax.Array) -> Any:
    """Tuned rung-stacked parameters carried to a moved schedule: each positive leaf (step sizes,
    inverse mass matrices) interpolated in log scale, linearly in β, from the rungs of
    ``old_betas`` to those of ``new_betas`` (both decreasing from 1). A schedule moves in small
    steps between warmup rounds, so each rung starts from its neighbours' tuning, not from the
    untuned default. NumPy on a host's numbers (PT's rounds closed between the program's
    calls), ``jax.numpy`` traced."""
    xp = array_module(params, old_betas, new_betas)
    old_x, new_x = xp.asarray(old_betas)[::-1], xp.asarray(new_betas)

    def carry(leaf):
        logs = xp.log(xp.asarray(leaf))[::-1]
        flat = logs.reshape(logs.shape[0], -1)
        if xp is jnp:
            moved = jax.vmap(lambda column: interp(new_x, old_x, column), in_axes=1,
                             out_axes=1)(flat)
        else:
            moved = np.stack([interp_with(np, new_x, old_x, flat[:, j])
                              for j in range(flat.shape[1])], axis=1)
        return xp.exp(moved).reshape(leaf.shape).astype(leaf.dtype)

    return jax.tree.map(carry, params)


def ladder_facts(ladder: TemperingLadder) -> dict[str, list]:
    """What a run file records about a ladder: β per rung, data points per rung, cost of one
    evaluation per rung."""
    return {"betas": list(ladder.betas), "sizes": list(ladder.sizes),
            "rung_costs": list(ladder.costs)}
