"""Inner-kernel contract (docs/architecture.md, "Contracts"; BlackJAX's shape).

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
tunable parameters, optional warmup adaptation), and its rule for the parameters of hotter rungs
(:meth:`KernelSpec.rung_params`). Tunable parameters (step sizes, mass matrices, slice widths) are
arrays that may differ between chains and rungs; static settings (numbers of leapfrog steps,
caps) are Python values. Run a kernel n steps with :func:`tempering.numerics.run_steps` and
:func:`evals_and_acceptance`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.config import Options
from tempering.errors import UserInputError
from tempering.numerics import array_module

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
    adapter
        ``warmup``'s tuning one step at a time (:class:`~tempering.kernels.adapter.Adapter`),
        for a sampler that runs the kernel's steps in its own loop (PT); ``None`` exactly when
        ``warmup`` is.
    """

    make: Callable[[LogDensity, dict[str, Array]], Kernel]
    params: dict[str, Array]
    warmup: Callable[..., tuple[Any, dict[str, Array], Array]] | None
    make_reverse: Callable[[LogDensity, dict[str, Array]], Kernel] | None = None
    adapter: Any = None

    def reverse(self) -> Callable[[LogDensity, dict[str, Array]], Kernel]:
        """The factory of the mutually reversible partner of ``make``."""
        return self.make if self.make_reverse is None else self.make_reverse


class KernelSpec(NamedTuple):
    """A registered inner kernel: its options class, how options bind, a one-line summary, and how
    its tunable parameters vary over the rungs of a ladder.

    Attributes
    ----------
    name, summary
        Registry name and one line for ``tempering samplers``.
    options
        The pydantic options class (unknown keys are errors).
    bind
        (options, dim) ↦ :class:`BoundKernel`.
    scale_for_rung
        ``None`` (the same parameters on every rung), or (params stacked over rungs, β per rung)
        ↦ params, the kernel's own rule for hotter rungs; see :meth:`rung_params`.
    gradient
        Whether the kernel's state caches a gradient (HMC, NUTS): a sampler that moves a state to
        another density must then re-initialise it, at the cost of one evaluation.
    single_proposal
        Whether a step evaluates the log density once, at one proposal θ′ drawn from the state
        alone (its position and cached value and gradient), and accepts by Metropolis–Hastings
        against the cached value (RWM, MALA). Only such a kernel may carry the current point's
        noisy estimate from step to step: a pseudo-marginal chain (MINT's reading a, seed 003
        §3.2) stays exact on its extended space; HMC's trajectory would use the new batch
        between the two end points, and slice or NUTS evaluate many points.
    """

    name: str
    options: type[Options]
    bind: Callable[[Any, int], BoundKernel]
    summary: str
    scale_for_rung: Callable[[dict[str, Array], Array], dict[str, Array]] | None = None
    gradient: bool = False
    single_proposal: bool = False

    def rung_params(self, bound: BoundKernel, betas: Sequence[float] | np.ndarray | Array
                    ) -> dict[str, Array]:
        """``bound``'s tunable parameters stacked over rungs (leading axis = rung), with the
        kernel's per-rung rule applied (RWM: σ_m = σ β_m^(−1/2), seed 000 §4.3; HMC's ε, slice
        widths and NUTS's start are the same on every rung — warmup may adapt each rung's own)."""
        xp = array_module(betas, bound.params)  # traced while a schedule adapts
        beta = xp.asarray(betas, dtype=float)
        stacked = jax.tree.map(lambda p: xp.stack([xp.asarray(p)] * beta.shape[0]), bound.params)
        scaled = stacked if self.scale_for_rung is None else self.scale_for_rung(stacked, beta)
        return scaled if xp is jnp else jax.device_put(scaled)


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
    return jax.device_put(np.broadcast_to(np.asarray(value, dtype=np.float64), (dim,)))


def evals_and_acceptance(info: StepInfo) -> tuple[Array, Array]:
    """What :func:`tempering.numerics.run_steps` sums over inner steps: evaluations made and
    acceptance (divide by the number of steps for the mean)."""
    return info.n_evals, info.acceptance_rate
