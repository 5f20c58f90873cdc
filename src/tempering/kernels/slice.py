"""Neal's univariate slice sampler with stepping-out and shrinkage, coordinates in sequence.

Seed 002 §6.2 (Neal 2003, Figs. 3 and 5): each coordinate in turn gets a univariate slice update
with initial interval width w, at most ``max_steps`` stepping-out steps (Neal's m, split at random
between the two sides) and shrinkage. BlackJAX's coordinate slice kernel (``blackjax.mcmc.slice``)
does exactly this with ``interval=stepping_out`` and a fixed order; this module only fixes the
order (natural, or reversed with ``reverse=True`` — a tempered transition's down pass applies the
up pass's updates in reverse, seed 002 Eq. 14) and counts evaluations: per coordinate, two for the
initial interval ends, one per outward step and one per shrinkage draw. A shrinkage loop that
exhausts ``max_shrink`` draws leaves the coordinate where it was (BlackJAX's rule; with
stepping-out it never happens in practice).
"""

from __future__ import annotations

import jax.numpy as jnp
from blackjax.mcmc import slice as bj_slice
from pydantic import PositiveFloat, PositiveInt

from tempering.config import Options
from tempering.kernels.base import BoundKernel, Kernel, KernelSpec, LogDensity, StepInfo, as_vector


class SliceOptions(Options):
    """``width``: initial interval width w (scalar or per coordinate); ``max_steps``: Neal's m."""

    width: PositiveFloat | list[PositiveFloat] = 1.0
    max_steps: PositiveInt = 10
    max_shrink: PositiveInt = 100
    reverse: bool = False


def _reversed_order(key, dim):
    del key
    return jnp.arange(dim)[::-1]


def make(logdensity_fn: LogDensity, width, max_steps: int = 10, max_shrink: int = 100,
         reverse: bool = False) -> Kernel:
    """Sequential-coordinate stepping-out slice kernel (BlackJAX), evaluation-counting."""
    order = _reversed_order if reverse else bj_slice.fixed_order
    sweep = bj_slice.build_coordinate_kernel(
        interval=bj_slice.stepping_out, coordinate_order=order, initial_widths=width,
        max_expansions=max_steps, max_shrinkage=max_shrink)

    def init(position):
        return bj_slice.init(position, logdensity_fn)

    def step(key, state):
        state, info = sweep(key, state, logdensity_fn)
        n_evals = 2 * state.position.shape[0] + info.num_expansions + info.num_shrink
        return state, StepInfo(jnp.ones(()), info.is_accepted, n_evals.astype(float),
                               jnp.zeros((), bool))

    return Kernel(init, step)


def bind(options: SliceOptions, dim: int) -> BoundKernel:
    def factory(logdensity_fn, params, reverse=options.reverse):
        return make(logdensity_fn, params["width"], options.max_steps, options.max_shrink,
                    reverse)

    def reverse_factory(logdensity_fn, params):
        return factory(logdensity_fn, params, reverse=not options.reverse)

    return BoundKernel(factory, {"width": as_vector(options.width, dim, "width")}, None,
                       reverse_factory)


SPEC = KernelSpec("slice", SliceOptions, bind,
                  "univariate slice sampling, stepping-out + shrinkage, in turn (BlackJAX)")
