"""Inner-kernel contract (DESIGN.md "Kernel", BlackJAX's shape).

An inner kernel is built by a *factory* ``make(logdensity_fn, **params) -> Kernel`` so that a
tempering algorithm can build one per rung with per-rung parameters. ``Kernel.init(position)``
returns a state with at least ``position`` and ``logdensity`` (the cached log density, which
belongs to the ``logdensity_fn`` the kernel was built with: after a swap or a change of rung, call
``init`` again); ``Kernel.step(key, state)`` returns ``(state, StepInfo)``. Both are pure and
jittable.

``StepInfo.n_evals`` counts log-density evaluations the step made (a value-and-gradient evaluation
counts as one). Multiplying by the rung's relative cost gives the step's likelihood work in
full-data-equivalent evaluations, the ``cost`` that the driver reports.

Each kernel module also provides a :class:`KernelSpec`: its pydantic options and ``bind(options,
dim)``, which fixes the static settings and returns a :class:`BoundKernel` (factory, initial
tunable parameters, optional warmup adaptation). Tunable parameters (step sizes, mass matrices,
slice widths) are arrays that may differ between chains and rungs; static settings (numbers of
leapfrog steps, caps) are Python values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from pydantic import BaseModel

from tempering.errors import UserInputError

Array = jax.Array
LogDensity = Callable[[Array], Array]


class StepInfo(NamedTuple):
    """What one inner step reports.

    Attributes
    ----------
    acceptance_rate
        Metropolis acceptance probability of the step (1 for slice sampling).
    is_accepted
        Whether the state moved to the proposal.
    n_evals
        Log-density evaluations made (value and gradient together count as one).
    diverging
        Whether a gradient-based trajectory diverged (always ``False`` for other kernels).
    """

    acceptance_rate: Array
    is_accepted: Array
    n_evals: Array
    diverging: Array


class Kernel(NamedTuple):
    """A pure, jittable transition: ``init(position)`` and ``step(key, state)``."""

    init: Callable[[Array], Any]
    step: Callable[[Array, Any], tuple[Any, StepInfo]]


class BoundKernel(NamedTuple):
    """An inner kernel with its options applied, ready for any log density.

    Attributes
    ----------
    make
        (logdensity_fn, params) ↦ Kernel; ``params`` are the tunable arrays.
    params
        Initial tunable parameters (step size, mass matrix, slice widths) as arrays.
    warmup
        ``None``, or the warmup-only adaptation
        (key, logdensity_fn, position, num_steps, params) ↦ (state, adapted params, n_evals).
    make_reverse
        For a kernel that is a composition S_1 ⋯ S_k of reversible updates (the coordinate slice
        sweep), the factory of S_k ⋯ S_1, so that ``make`` and ``make_reverse`` are mutually
        reversible (seed 002 Eq. 14) as tempered transitions need; ``None`` when the kernel is
        reversible itself (RWM, HMC, NUTS), in which case ``make`` serves both ways.
    """

    make: Callable[[LogDensity, dict[str, Array]], Kernel]
    params: dict[str, Array]
    warmup: Callable[..., tuple[Any, dict[str, Array], Array]] | None
    make_reverse: Callable[[LogDensity, dict[str, Array]], Kernel] | None = None

    def reverse(self) -> Callable[[LogDensity, dict[str, Array]], Kernel]:
        """The factory of the mutually reversible partner of ``make``."""
        return self.make if self.make_reverse is None else self.make_reverse


class KernelSpec(NamedTuple):
    """A registered inner kernel: its options class, how options bind, and a one-line summary."""

    name: str
    options: type[BaseModel]
    bind: Callable[[Any, int], BoundKernel]
    summary: str


def as_vector(value: float | list[float], dim: int, name: str) -> Array:
    """A scalar or length-``dim`` list as a float64 vector of length ``dim``.

    Raises
    ------
    UserInputError
        A list whose length is not ``dim`` (``name`` is the option, for the message).
    """
    if isinstance(value, list) and len(value) not in (1, dim):
        raise UserInputError(f"sampler.{name}: expected one value or {dim} (one per coordinate), "
                             f"got {len(value)}")
    return jnp.broadcast_to(jnp.asarray(value, dtype=jnp.float64), (dim,))


def run_kernel(key: Array, kernel: Kernel, state: Any, num_steps: int) -> tuple[Any, Array]:
    """Run ``num_steps`` steps, keeping only the last state; returns it and the evaluations made."""

    def body(carry, step_key):
        state, n_evals = carry
        state, info = kernel.step(step_key, state)
        return (state, n_evals + info.n_evals), None

    (state, n_evals), _ = jax.lax.scan(body, (state, jnp.zeros(())),
                                       jax.random.split(key, num_steps))
    return state, n_evals
