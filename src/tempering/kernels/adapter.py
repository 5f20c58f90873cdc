"""Warmup adaptation one step at a time, for a sampler that runs the steps itself (PT).

A kernel's ``warmup`` (:class:`~tempering.kernels.base.BoundKernel`) runs its own loop of
kernel steps. Parallel tempering instead runs every rung's kernel inside its own scan, and tunes
each rung's parameters between the scan's steps: an :class:`Adapter` is that tuning as
``init`` / ``in_force`` / ``update`` / ``final``, so the rung's kernel step is traced and compiled
once, in the scan PT already runs, not a second time inside a library's adaptation loop (BlackJAX's
``window_adaptation`` was 45% of PT's warmup program, issue 44).

Two adapters:

- :func:`scale_adapter`: dual averaging (Hoffman & Gelman 2014, §3.2.1, Eq. 6; :func:`da_update`)
  of a multiplier of the step size towards a target acceptance, as
  :func:`~tempering.kernels.step_size.dual_averaging_warmup` does with BlackJAX's;
- :func:`window_adapter`: Stan's windows (:func:`stages`): dual averaging of ε throughout, and
  in the slow windows Welford variances (BlackJAX's ``mass_matrix_adaptation``) that become the
  diagonal inverse mass matrix at each window's end, where dual averaging restarts from the
  averaged ε (as BlackJAX's window adaptation does).

Each step's :class:`Stage` comes from :func:`stages`, a NumPy schedule the caller indexes with its
loop counter, so it is the same number for every rung and chain. Dual averaging is written here,
not taken from BlackJAX, for that reason: BlackJAX's carries its iteration count in each chain's
state, so its step-dependent factors (t^(−κ), √t) were computed per rung and chain, and XLA
rounded one of them differently for a batch of two chains than for one — a 1-ulp difference in
a tuned step size that made PT's draws depend on the chain layout. Here those factors are
computed once per step from the schedule's count, and each chain's arithmetic is + − × ÷ only.
After warmup the parameters are frozen, so sampling stays exact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from blackjax.adaptation.mass_matrix import mass_matrix_adaptation

from tempering.numerics import like, select

Params = dict[str, Any]


class Adapter(NamedTuple):
    """One rung's tuning, a step at a time (all functions pure and ``vmap``-able over rungs).

    Attributes
    ----------
    init
        params ↦ the tuning state, started from these parameters.
    in_force
        (tuning, params) ↦ the parameters the next step runs with.
    update
        (tuning, stage, position, acceptance) ↦ tuning after a step that ended at ``position``
        with ``acceptance``; ``stage`` is the step's :class:`Stage` (:func:`stages`).
    final
        (tuning, params) ↦ the tuned parameters, frozen for what follows.
    """

    init: Callable[[Params], Any]
    in_force: Callable[[Any, Params], Params]
    update: Callable[[Any, Stage, jax.Array, jax.Array], Any]
    final: Callable[[Any, Params], Params]


class Stage(NamedTuple):
    """Where a warmup step is in Stan's schedule: in a slow window (the mass matrix is
    estimated), the last step of one, the dual-averaging iteration (1, 2, …; it restarts
    after each slow window) and the step's own number (1, 2, …, never restarted: an adapter
    of the step alone runs one dual averaging over the whole warmup, as Stan does when the
    metric is fixed)."""

    slow: Any
    window_end: Any
    count: Any
    step: Any


def stages(num_steps: int, initial_buffer: int = 75, first_window: int = 25,
           final_buffer: int = 50) -> Stage:
    """Stan's schedule of ``num_steps`` warmup steps, as arrays over the steps (at least one
    entry, so that a traced index into it is valid).

    The windows of BlackJAX's ``build_schedule`` (``tests/kernels`` checks they agree), in
    NumPy: that function returns a ``jnp`` array, whose conversion compiles a program of its
    own when called while a program is traced."""
    size = max(num_steps, 1)
    slow, ends = np.zeros(size, bool), np.zeros(size, bool)
    if num_steps >= 20:
        if initial_buffer + first_window + final_buffer > num_steps:
            initial_buffer, final_buffer = int(0.15 * num_steps), int(0.1 * num_steps)
            first_window = num_steps - initial_buffer - final_buffer
        final_start = num_steps - final_buffer
        width, start = first_window, initial_buffer
        while start < final_start:
            current = width
            if 3 * current <= final_start - start:
                width = 2 * current
            else:
                current = final_start - start
            slow[start:start + current] = True
            ends[start + current - 1] = True
            start += current
    count = np.ones(size, np.int32)
    for i in range(1, size):
        count[i] = 1 if ends[i - 1] else count[i - 1] + 1
    return Stage(slow, ends, count, np.arange(1, size + 1, dtype=np.int32))


#: The most windows :func:`stage_at` considers: the windows double from 25 steps, so 24 cover any
#: warmup up to 2²⁸ steps in int32.
MAX_WINDOWS = 24


def stage_at(s: jax.Array, num_steps: jax.Array, initial_buffer: int = 75,
             first_window: int = 25, final_buffer: int = 50) -> Stage:
    """Step ``s``'s entry of :func:`stages` (``num_steps``), both traced integers, so that a
    program takes the warmup's length as an argument and one executable serves every warmup
    (``tests/kernels`` checks it against :func:`stages` entry by entry).

    Closed form, in integers over :data:`MAX_WINDOWS` candidate windows (no loop): the slow
    windows tile [I, n − F) (I, F the buffers); window k starts at I + w(2ᵏ − 1) and is w·2ᵏ
    long while w(2ᵏ⁺² − 1) ≤ n − F − I (then the next fits three times over), and the first
    window that does not is the last and runs to n − F. The count is ``s`` less the last window
    end before it (−1 where none)."""
    n = jnp.asarray(num_steps, jnp.int32)
    s = jnp.clip(jnp.asarray(s, jnp.int32), 0, jnp.maximum(n, 1) - 1)
    short = initial_buffer + first_window + final_buffer > n
    initial = jnp.where(short, (15 * n) // 100, initial_buffer)
    final_start = n - jnp.where(short, n // 10, final_buffer)
    width = jnp.where(short, final_start - initial, first_window)
    windows = (n >= 20) & (initial < final_start)
    k = jnp.arange(MAX_WINDOWS, dtype=jnp.int32)
    # w(2ᵏ⁺² − 1) ≤ D as 2ᵏ⁺² − 1 ≤ ⌊D / w⌋: no int32 overflow (the windows past the last
    # are computed and dropped)
    regular = 2 ** (k + 2) - 1 <= (final_start - initial) // jnp.maximum(width, 1)
    last = jnp.sum(regular)  # the last window's index: every earlier one is regular
    ends = jnp.where(k < last, initial + width * (2 ** (k + 1) - 1) - 1, final_start - 1)
    ends = jnp.where(windows & (k <= last), ends, -1)
    slow = windows & (initial <= s) & (s < final_start)
    return Stage(slow, jnp.any(ends == s) & (s >= 0) & windows,
                 s - jnp.max(jnp.where(ends < s, ends, -1)), s + 1)


#: Dual averaging's constants (Hoffman & Gelman 2014's recommendations, BlackJAX's defaults).
T0, GAMMA, KAPPA = 10.0, 0.05, 0.75


class DualAveraging(NamedTuple):
    """Dual averaging of a log step size x: x_t, its weighted average x̄_t, the averaged error
    H̄_t and the shrinkage point μ = log(10 x_0)."""

    log_step: jax.Array
    log_step_avg: jax.Array
    avg_error: jax.Array
    mu: jax.Array


def da_start(step: jax.Array) -> DualAveraging:
    """Dual averaging started at ``step`` (μ = log(10 step))."""
    log_step = jnp.log(step)
    zero = jnp.zeros_like(log_step)
    return DualAveraging(log_step, zero, zero, jnp.log(10.0) + log_step)


def da_update(state: DualAveraging, count: jax.Array, error: jax.Array) -> DualAveraging:
    """Iteration t = ``count`` with error (target − acceptance) (Hoffman & Gelman 2014, Eq. 6):
    H̄_t = (1 − 1/(t + t₀)) H̄_{t−1} + error/(t + t₀), x_t = μ − √t/γ H̄_t,
    x̄_t = t^(−κ) x_{t−1} + (1 − t^(−κ)) x̄_{t−1} (BlackJAX's update, which averages the
    previous iterate). ``count`` is the same for every chain: the factors that depend on it are
    computed once."""
    dtype = state.log_step.dtype
    t = jnp.asarray(count, dtype)
    reg = t + T0
    eta = t ** -KAPPA
    avg_error = (1.0 - 1.0 / reg) * state.avg_error + error / reg
    return DualAveraging(state.mu - (jnp.sqrt(t) / GAMMA) * avg_error,
                         eta * state.log_step + (1.0 - eta) * state.log_step_avg,
                         avg_error, state.mu)


def da_final(state: DualAveraging) -> jax.Array:
    """The averaged step size exp(x̄)."""
    return jnp.exp(state.log_step_avg)


def _finite(acceptance: jax.Array) -> jax.Array:
    return jnp.where(jnp.isfinite(acceptance), acceptance, 0.0)


def scale_adapter(target_accept: float) -> Adapter:
    """Dual averaging of a multiplier of ``params["step_size"]`` (a scalar or a vector, whose
    shape is kept), from 1, over the whole warmup (``stage.step``): with no mass matrix to
    estimate there are no windows to restart at, and restarting anyway left the tuned scale
    the average of the last 50 steps only (RWM on a Gaussian then accepted 0.12–0.25 over
    eight seeds where 0.234 was targeted; over the whole warmup, 0.18–0.26, as BlackJAX's
    ``dual_averaging_adaptation``)."""

    def init(params: Params) -> DualAveraging:
        return da_start(jnp.ones((), jnp.asarray(params["step_size"]).dtype))

    def in_force(tuning: DualAveraging, params: Params) -> Params:
        return {**params, "step_size": params["step_size"] * jnp.exp(tuning.log_step)}

    def update(tuning: DualAveraging, stage: Stage, position, acceptance) -> DualAveraging:
        del position
        return da_update(tuning, stage.step, target_accept - _finite(acceptance))

    def final(tuning: DualAveraging, params: Params) -> Params:
        return {**params, "step_size": params["step_size"] * da_final(tuning)}

    return typed(Adapter(init, in_force, update, final))


class WindowTuning(NamedTuple):
    """Stan's tuning state: dual averaging of log ε, the slow window's Welford sums (with the
    inverse mass matrix in force)."""

    step: DualAveraging
    variances: Any


def window_adapter(target_accept: float) -> Adapter:
    """Stan's window adaptation of ``params["step_size"]`` (ε) and a diagonal
    ``params["inverse_mass_matrix"]``, started from the parameters' values."""
    mm_init, mm_update, mm_final = mass_matrix_adaptation(is_diagonal_matrix=True)

    def init(params: Params) -> WindowTuning:
        imm = jnp.asarray(params["inverse_mass_matrix"])
        return WindowTuning(da_start(jnp.asarray(params["step_size"], imm.dtype)),
                            mm_init(imm.shape[-1], imm))

    def in_force(tuning: WindowTuning, params: Params) -> Params:
        return {**params, "step_size": jnp.exp(tuning.step.log_step),
                "inverse_mass_matrix": tuning.variances.inverse_mass_matrix}

    def update(tuning: WindowTuning, stage: Stage, position, acceptance) -> WindowTuning:
        step = da_update(tuning.step, stage.count, target_accept - _finite(acceptance))
        counted = mm_update(tuning.variances, position)
        variances = select(stage.slow, counted, tuning.variances)
        # a slow window's end: its variances become the inverse mass matrix, and dual
        # averaging restarts from the averaged step size
        step = select(stage.window_end, da_start(da_final(step)), step)
        variances = select(stage.window_end, mm_final(variances), variances)
        return WindowTuning(step, variances)

    def final(tuning: WindowTuning, params: Params) -> Params:
        imm = tuning.variances.inverse_mass_matrix
        return {**params, "step_size": da_final(tuning.step), "inverse_mass_matrix": imm}

    return typed(Adapter(init, in_force, update, final))


def typed(adapter: Adapter) -> Adapter:
    """``adapter`` whose tuning keeps its dtypes through ``update`` and whose parameters keep
    theirs through ``in_force`` and ``final``: a float32 step size with float64 positions or
    acceptances (a hand-run chain in a float64 process) must stay float32, or a ``lax.cond``
    between tuned and untuned parameters has branches of two types."""

    def update(tuning, stage, position, acceptance):
        return like(adapter.update(tuning, stage, position, acceptance), tuning)

    def in_force(tuning, params):
        return like(adapter.in_force(tuning, params), params)

    def final(tuning, params):
        return like(adapter.final(tuning, params), params)

    return Adapter(adapter.init, in_force, update, final)


