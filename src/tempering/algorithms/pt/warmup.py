"""PT's warmup: one loop of PT scans that tunes the rungs' kernels and places the schedule, and
the same scans as the sampling steps (:func:`pt_scans`, one compiled program for both).

The warmup's ``num_steps`` scans split in three phases (:func:`tuning_steps`): the rungs'
kernels tune on the starting schedule, the schedule's rounds
(:mod:`~tempering.algorithms.pt.rounds`) move it, and the kernels tune again on the last
schedule. Every scan is one PT scan (``iterate(key, state, params, swaps)``), so the scan — the
inner kernels on every rung and the swaps — is traced and compiled once:

- while the kernels tune, no swap is proposed (``swaps`` false), each rung's kernel runs with
  the parameters its :class:`~tempering.kernels.adapter.Adapter` has in force, and the adapter
  sees the rung's acceptance and position after the scan (Stan's windows for HMC and NUTS, dual
  averaging for RWM and MALA); a tuning phase's last scan freezes the tuned parameters;
- in the rounds, the scans swap and the round's sums grow; a round's last scan moves the
  schedule (the tuned parameters follow, :class:`~tempering.algorithms.pt.rounds.Rounds`).

:func:`pt_scans` is that scan as :class:`~tempering.algorithms.base.Scans`: with ``warming``
false it is a sampling step, exactly ``step``; the driver's one program
(:meth:`~tempering.algorithms.programs.Compiled._program`) runs the warmup and the chunks with
it; :func:`~tempering.algorithms.base.warmup_by_scans` runs the warmup on its own
(``Algorithm.warmup``). The phase of a scan
depends on the loop index alone, which the driver's chain ``vmap`` does not batch: the phase
ends and ``warming`` are real branches (``lax.cond``).

Until 2026-11-27 each tuning phase ran BlackJAX's ``window_adaptation`` on every rung (its own
HMC loop, a second copy of the rungs' kernels in the program, 45% of its equations); the
rounds were a loop of their own after it, and the sampling chunk a program of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tempering.algorithms.base import Scans
from tempering.algorithms.pt.rounds import (
    Rounds,
    RoundSums,
    close_on_host,
    round_step,
    rounds_in,
)
from tempering.algorithms.pt.stats import RUNG_ACCEPTANCE, SWAP_PROB, SWAP_PROPOSED
from tempering.kernels.adapter import Stage, stage_at
from tempering.kernels.base import BoundKernel


def tuning_steps(num_steps: Any, adapts: bool, rounds: Rounds | None) -> tuple[Any, Any, Any]:
    """How PT's warmup of ``num_steps`` scans splits: inner tuning on the starting schedule,
    schedule rounds, inner tuning on the last schedule. Without rounds every step tunes; with
    rounds and an adapting kernel a quarter tunes first (and, with ``final_tune``, a quarter
    last), the rest are rounds. Integer arithmetic, so ``num_steps`` may be traced."""
    if rounds is None:
        return (num_steps, 0, 0) if adapts else (0, num_steps, 0)
    if not adapts:
        return 0, num_steps, 0
    tune = num_steps // 4
    last = tune if rounds.final_tune else 0
    return tune, num_steps - tune - last, last


def pt_scans(bound: BoundKernel, iterate: Callable, reinit: Callable,
             restart: Callable | None, rounds: Rounds | None, on_host: bool = False) -> Scans:
    """PT's warmup and sampling as one loop body (the module's map); ``on_host``, with rounds,
    the rounds are closed between the program's calls (:func:`host_rounds`).

    Parameters
    ----------
    iterate
        (key, state, params, swaps) ↦ (state, info): one PT scan, its swaps proposed only when
        ``swaps``.
    reinit
        (state, params) ↦ the replicas' kernels re-initialised at their rungs, and the cost.
    restart
        ``None``, or (state, params) ↦ (state, cost): the chains moved to the line a warmup
        starts from (a rung window's, :mod:`~tempering.algorithms.pt.capacity`).
    """

    def begin(key, state, params, warming, num_steps):
        del key
        plan = _Plan(num_steps, rounds, bound)
        cost = jnp.zeros(())
        if restart is not None:
            state, cost = jax.lax.cond(warming, lambda: restart(state, params),
                                       lambda: (state, cost))
        return state, params, plan.begin(state, params), cost

    def scan(key, t, state, params, carry, warming, num_steps):
        plan = _Plan(num_steps, rounds, bound)
        tuned = warming & plan.tunes(t)
        state, info = iterate(key, state, plan.in_force(tuned, carry, params), ~tuned)
        state, params, carry, moving = jax.lax.cond(
            warming, lambda: plan.after(t, state, params, carry, info, reinit, on_host),
            lambda: (state, params, carry, jnp.zeros(())))
        return state, params, carry, info._replace(cost=info.cost + moving)

    if not on_host or rounds is None:
        return Scans(begin, scan, steps_traced=True)
    return host_rounds(Scans(begin, scan, steps_traced=True), bound, reinit, restart, rounds)


def host_rounds(scans: Scans, bound: BoundKernel, reinit: Callable, restart: Callable | None,
                rounds: Rounds) -> Scans:
    """``scans`` whose warmup the driver runs in segments, one per schedule round, and closes
    each round on the host between them (:func:`~tempering.algorithms.pt.rounds.close_on_host`:
    the equal-barrier placement and the carried parameters in NumPy), so the compiled program
    holds neither. Segment i ends round i (the first also holds the first tuning); the last
    holds what follows the last round and may be empty: its call re-initialises the replicas at
    the last schedule (``resume``), as every later segment's does.

    Measured (2 cores, 2026-11-29, default PT on ``gauss_mixture``, 31 slots × 4 chains): XLA
    compiled the program in 1.51–1.53 s against 1.83–1.89 s with the rounds closed inside (its
    HLO 289 k characters against 363 k), and tracing and lowering took 0.1 s less."""

    def segments(num_steps: int) -> tuple[int, ...]:
        first, between_tunings, _ = tuning_steps(int(num_steps), bound.adapter is not None,
                                                 rounds)
        ends = [first + 2 ** (r + 1) - 1
                for r in range(rounds_in(int(between_tunings), rounds.max_rounds))]
        bounds = [0, *ends, int(num_steps)]
        return tuple(b - a for a, b in zip(bounds[:-1], bounds[1:], strict=True))

    def between(i: int, state: Any, params: Any) -> tuple[Any, Any]:
        return close_on_host(rounds, i, state, params)

    def resume(state, params, num_steps, warming, first):
        plan = _Plan(num_steps, rounds, bound)
        zero = jnp.zeros(())
        if restart is None:  # the first call's chains were started by the program
            state, cost = jax.lax.cond(warming & ~first, lambda: reinit(state, params),
                                       lambda: (state, zero))
        else:  # one re-initialisation in the program: the line's start, or where it is now
            state, cost = jax.lax.cond(warming, lambda: restart(state, params, first=first),
                                       lambda: (state, zero))
        return state, params, plan.begin(state, params), cost

    return scans._replace(segments=segments, between=between, resume=resume)


class _Plan:
    """The phases of a warmup of ``num_steps`` scans and what each scan does to the parameters
    and the carry (the adapters' states and the round's sums). ``num_steps`` may be traced (the
    program's argument: one executable for every warmup), so the phases' lengths are integers
    of the program and only what the kernel and the rounds declare is static."""

    def __init__(self, num_steps: Any, rounds: Rounds | None, bound: BoundKernel):
        adapts = bound.adapter is not None
        self.first, self.scans, self.last = tuning_steps(num_steps, adapts, rounds)
        self.rounds, self.adapter = rounds, bound.adapter
        self.count = rounds_in(self.scans, rounds.max_rounds) if rounds is not None else 0
        #: the kernels tune first; and again on the last schedule
        self.tuning = adapts
        self.tuning_last = adapts and rounds is not None and rounds.final_tune

    def inner(self, params: Any) -> Any:
        return params if self.rounds is None else params["inner"]

    def with_inner(self, params: Any, inner: Any) -> Any:
        return inner if self.rounds is None else {**params, "inner": inner}

    def begin(self, state: Any, params: Any) -> tuple[Any, Any]:
        """The carry at the warmup's start: the adapters started from the parameters, the
        round's sums empty."""
        tuning = jax.vmap(self.adapter.init)(self.inner(params)) if self.tuning else None
        sums = None
        if self.rounds is not None:
            sums = RoundSums.empty(params["rejection"].shape[1],
                                   state.replicas.position.shape[-1], self.rounds.fit_reference)
        return tuning, sums

    def tunes(self, t: jax.Array) -> jax.Array:
        """Whether warmup scan t is a tuning scan."""
        return (t < self.first) | (t >= self.first + self.scans)

    def in_force(self, tuned: jax.Array, carry: Any, params: Any) -> Any:
        """The parameters a scan runs with: the adapters' while tuning."""
        if not self.tuning:
            return params
        inner = self.inner(params)
        tuning_now = jax.vmap(self.adapter.in_force)(carry[0], inner)
        return self.with_inner(params, _select(tuned, tuning_now, inner))

    def after(self, t: jax.Array, state: Any, params: Any, carry: Any, info: Any,
              reinit: Callable, on_host: bool = False) -> tuple[Any, Any, Any, jax.Array]:
        """Warmup scan t's consequences: the adapters updated (and the tuned parameters frozen
        at a tuning phase's end), the round's sums grown (and the schedule moved at a round's
        end); the cost of re-initialising replicas."""
        tuning, sums = carry
        tuned = self.tunes(t)
        if self.tuning:
            params, tuning = self.tune(t, tuned, tuning, params, state, info)
        moving = jnp.zeros(())
        if self.rounds is not None:
            swaps = info.stats[SWAP_PROB.name], info.stats[SWAP_PROPOSED.name]
            state, params, sums, moving = round_step(
                self.rounds, reinit, self.count, t - self.first, ~tuned, state, params, sums,
                swaps, on_host)
        if self.tuning_last:  # the last tuning starts from the last schedule's
            tuning = jax.lax.cond(t == self.first + self.scans - 1,
                                  lambda: jax.vmap(self.adapter.init)(self.inner(params)),
                                  lambda: tuning)
        return state, params, (tuning, sums), moving

    def tuning_at(self, t: jax.Array) -> tuple[Stage, jax.Array]:
        """Warmup scan t's place in Stan's schedule (both tuning phases run one schedule of
        ``first`` steps) and whether it ends a tuning phase: integers only, so a traced
        ``num_steps`` gives a constant one's (``tests/pt/test_pt_programs.py``)."""
        s = jnp.clip(jnp.where(t < self.first, t, t - self.first - self.scans), 0,
                     self.first - 1)
        ends = (t == self.first - 1) | ((t == self.first + self.scans + self.last - 1)
                                        & (self.last > 0))
        return stage_at(s, self.first), ends

    def tune(self, t: jax.Array, tuned: jax.Array, tuning: Any, params: Any, state: Any,
             info: Any) -> tuple[Any, Any]:
        """The adapters after scan t (rung m's acceptance and position), and at a tuning
        phase's last scan the parameters they tuned."""
        stage, ends = self.tuning_at(t)
        updated = jax.vmap(self.adapter.update, in_axes=(0, None, 0, 0))(
            tuning, stage, state.replicas.position, info.stats[RUNG_ACCEPTANCE.name])
        tuning = _select(tuned, updated, tuning)
        inner = jax.lax.cond(ends, lambda: jax.vmap(self.adapter.final)(tuning,
                                                                         self.inner(params)),
                             lambda: self.inner(params))
        return self.with_inner(params, inner), tuning


def _select(flag: jax.Array, new: Any, old: Any) -> Any:
    return jax.tree.map(lambda a, b: jnp.where(flag, a, b), new, old)
