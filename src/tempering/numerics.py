"""Small numerical helpers every layer shares: NaN-safe log densities, the Metropolis test, a
tree-wise select, "run a transition n steps", and how the package compiles (XLA's options, a
loop body traced once).

This module sits below ``models``, ``gp``, ``kernels`` and ``algorithms`` and imports nothing from
the package. Its rules are the package's conventions (docs/architecture.md): numerical trouble
inside a chain (NaN, a failed Cholesky, overflow) is a rejected proposal, never a crash, so a log
density that is not finite is read as −∞ and a NaN acceptance log-ratio rejects.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)

Array = jax.Array
State = TypeVar("State")


def float_dtype() -> np.dtype:
    """The floating-point dtype arrays take in the precision in force
    (:mod:`tempering.precision`): float64 inside a float64 scope, float32 otherwise."""
    return np.dtype(jnp.result_type(float))


def finite_or_neg_inf(value: Array) -> Array:
    """Map NaN and ±inf to −inf: numerical trouble is a rejected proposal, never a crash."""
    return jnp.where(jnp.isfinite(value), value, -jnp.inf)


def accept_probability(log_ratio: Array) -> Array:
    """min(1, e^r), with a NaN log-ratio read as 0 (a rejection)."""
    return jnp.where(jnp.isnan(log_ratio), 0.0, jnp.minimum(1.0, jnp.exp(log_ratio)))


def metropolis(key: Array, log_ratio: Array) -> tuple[Array, Array]:
    """The Metropolis test: accept when log U < r with U ~ U(0, 1) — for an array of ratios,
    one U per ratio, drawn at once (one copy of Threefry's rounds in a compiled program, not
    one per key split off).

    Returns
    -------
    accepted, probability
        Whether the proposal is accepted (a NaN ratio never is) and min(1, e^r)
        (:func:`accept_probability`), the Rao–Blackwellised acceptance the samplers report.
    """
    accepted = jnp.log(jax.random.uniform(key, jnp.shape(log_ratio))) < log_ratio
    return accepted, accept_probability(log_ratio)


def select(flag: Array, new: Any, old: Any) -> Any:
    """``new`` where ``flag`` else ``old``, leaf by leaf (an accepted or rejected proposal)."""
    return jax.tree.map(lambda a, b: jnp.where(flag, a, b), new, old)


def interp_with(xp: Any, x: Array, xp_: Array, fp: Array) -> Array:
    """:func:`interp` in the array module ``xp`` (``numpy`` on a host's numbers, ``jax.numpy``
    traced): the bracketing index found by a right-sided search, the ends held constant."""
    x, xs, fp = xp.asarray(x), xp.asarray(xp_), xp.asarray(fp)
    i: Any = (jnp.searchsorted(xs, x, side="right", method="compare_all") if xp is jnp
              else np.searchsorted(xs, x, side="right"))
    i = xp.clip(i, 1, len(xs) - 1)
    df = fp[i] - fp[i - 1]
    dx = xs[i] - xs[i - 1]
    delta = x - xs[i - 1]
    epsilon = np.spacing(np.finfo(xs.dtype).eps)
    flat = xp.abs(dx) <= epsilon  # as jnp.interp: no NaN gradients where xp repeats
    f = xp.where(flat, fp[i - 1], fp[i - 1] + (delta / xp.where(flat, 1, dx)) * df)
    f = xp.where(x < xs[0], fp[0], f)
    return xp.where(x > xs[-1], fp[-1], f)


@jax.jit
def interp(x: Array, xp: Array, fp: Array) -> Array:
    """``jnp.interp(x, xp, fp)`` (ends held constant), the same numbers, with the bracketing
    indices found by comparing every x with every xp in one fused operation: ``jnp.interp``
    searches with a loop (``searchsorted``'s ``scan``), which made ~20 of the kernels XLA
    compiles for PT's program. For the short axes of a schedule (tens of rungs), inside a
    traced program: jitted, so that its calls of one shape are traced once
    (:func:`interp_with` ``numpy`` is the same on a host)."""
    return interp_with(jnp, x, xp, fp)


def like(new: Any, old: Any) -> Any:
    """``new`` in ``old``'s dtypes, leaf by leaf (leaves of ``old`` without a dtype keep
    ``new``'s): the two branches of a ``lax.cond`` must agree, and a float32 parameter tuned
    from float64 numbers must stay float32."""
    return jax.tree.map(lambda a, b: jnp.asarray(a).astype(b.dtype) if hasattr(b, "dtype")
                        else a, new, old)


def array_module(*values: Any) -> Any:
    """``jax.numpy`` when any leaf of ``values`` is traced, else ``numpy``: a builder's arithmetic
    on numbers (a schedule, a kernel's per-rung rule) then compiles nothing — an eager ``jnp``
    call compiles a program of its own, 10–300 ms each on a CPU. Transfer the NumPy result with
    ``jax.device_put`` where it becomes a constant of a traced function."""
    traced = any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree.leaves(values))
    return jnp if traced else np


def lazy(pred: Array, fn: Callable[[], Any], otherwise: Any) -> Any:
    """``fn()`` if ``pred`` else ``otherwise`` (pytrees of one structure), computing ``fn`` only
    when needed — also under ``vmap``, where ``lax.cond`` computes both branches: a
    ``while_loop`` that runs at most once (batched, it runs while any member needs it)."""
    _, value = jax.lax.while_loop(lambda c: c[0], lambda c: (jnp.zeros((), bool), fn()),
                                  (jnp.asarray(pred), otherwise))
    return value


def run_steps(step: Callable[[Array, State], tuple[State, Any]], key: Array, state: State,
              num_steps: int, tally: Callable[[Any], Any] = lambda info: info
              ) -> tuple[State, Any]:
    """``num_steps`` steps of ``step(key, state) -> (state, info)`` with keys
    ``split(key, num_steps)``; returns the last state and the sum over steps of ``tally(info)``
    (a pytree of scalars: evaluations made, acceptance, cost).

    The one "run n steps" of the package: inner-kernel visits, warmup without adaptation and
    fixed-parameter stretches of an algorithm all go through it. One step (PT's inner move by
    default) is a plain call with ``key`` itself: no loop, no split (a copy of Threefry's
    rounds: XLA compiled default PT's program in 2.04 s without it, 2.21 s with, 2026-11-29), and
    the step traced once rather than twice (once for its shapes, once by ``scan``).
    """
    if isinstance(num_steps, int) and num_steps == 1:
        state, info = step(key, state)
        return state, tally(info)

    def body(carry, step_key):
        state, total = carry
        state, info = step(step_key, state)
        return (state, jax.tree.map(jnp.add, total, tally(info))), None

    _, first_info = jax.eval_shape(step, key, state)
    zero = jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), jax.eval_shape(tally, first_info))
    (state, total), _ = jax.lax.scan(body, (state, zero), jax.random.split(key, num_steps))
    return state, total


#: Data of at least this many numbers make a run's warmup compute-bound: logistic regression on
#: 10⁵ rows × 10 features (10⁶ numbers), NUTS, 4 chains, 200 warmup steps, 2 cores: the warmup
#: compiled with XLA's older CPU emitters ran in 40-47 s, with its fusion emitters in 21-31 s, for
#: 2-7 s more compilation; on small data the older emitters save seconds of compilation and the
#: warmup takes a fraction of one (:func:`compiler_options`).
TALL_DATA = 2**20


def data_numbers(model: Any) -> int:
    """How many numbers ``model``'s data hold."""
    return sum(int(np.size(leaf)) for leaf in jax.tree.leaves(model.data))


def tall_data(model: Any) -> bool:
    """Whether ``model``'s data hold at least :data:`TALL_DATA` numbers."""
    return data_numbers(model) >= TALL_DATA


#: A brief run (:func:`brief_run`): at most this many chains, chains × scans under
#: :data:`BRIEF_SCANS`, and data of at most :data:`BRIEF_NUMBERS` numbers.
BRIEF_CHAINS = 4
BRIEF_SCANS = 80_000
BRIEF_NUMBERS = 64


def brief_run(model: Any, chains: int, scans: int) -> bool:
    """Whether a run's sampling is so brief that its one program (an algorithm with scans,
    :class:`~tempering.algorithms.programs.Compiled`) is compiled as a program that runs once —
    XLA's older CPU emitters (:func:`compiler_options`) — rather than for throughput: no
    Gaussian process, data of at most :data:`BRIEF_NUMBERS` numbers, at most
    :data:`BRIEF_CHAINS` chains, and ``chains`` × ``scans`` under :data:`BRIEF_SCANS`. A count
    of the whole run's chains and scans, nothing of the chain layout or the rungs, so a seed
    gives the same draws in every layout and whether a pilot ran or its rungs were given; a
    brief run and a longer or wider one of the same seed are compiled differently, so on CPU
    their shared chains and draws may differ in the last bits (the test suite, at XLA's level
    0, compiles them alike).

    Measured (2 cores, 2026-11-28): default PT on ``gauss_mixture`` (4 chains, 31 slots) compiled
    its program in 2.3–2.4 s instead of 3.3–3.6 s and sampled 8000 draws a chain at 9 700–9 900
    draws/s against 9 700–10 400; with 16 chains × 16 rungs 2.3 s against 3.1 s, but sampling
    9% slower (20 300–20 900 against 21 800–23 600 draws/s), and `bench pt-scale` at 16 and 64
    chains 13–33% slower on most cells with RWM, hence the chain bound. With data the older
    emitters lose more than they save: label switching's 150 points (`bench multimodal`,
    4 × (1000 + 4000)) sampled in 7.4 s against 5.9 s, its pilot and warmup took 6.8 s
    against 5.8 s, and the run 19.1 s against 16.7 s — hence the data bound. The
    scan bound is where sampling's ~10% would cost about what the older emitters save:
    ``gauss_mixture``'s PT samples a chain-scan in about 0.1 ms, so 80 000 are about 8 s. A
    default run (4 × 1500 scans) and `bench multimodal`'s 4 × 5000 are brief."""
    if getattr(model, "gp", None) is not None or chains > BRIEF_CHAINS:
        return False
    return data_numbers(model) <= BRIEF_NUMBERS and chains * scans < BRIEF_SCANS


def compiler_options(sampling: bool = True) -> dict[str, Any]:
    """XLA options for the package's ahead-of-time compilations (the driver's warmup and chunk
    functions, the pilots): on CPU, LLVM's optimisation level 1 instead of XLA's default 2, and
    for a program that runs once (``sampling=False``: a warmup, a pilot) XLA's older CPU
    emitters as well (``xla_cpu_use_fusion_emitters=false``).

    Measured on 2 cores (PT on a 10-D mixture, 16 rungs × 16 chains): level 1 against 2,
    compile 15.8 s → 5.6 s (RWM) and 18.0 s → 7.5 s (HMC), with sampling as fast or faster
    (17 600 → 31 800 and 11 000 → 16 300 scans/s); level 0 compiles in 3.7 s but samples at
    half the speed. The older emitters (2026-11-27, same machine, busy): default PT's warmup
    program compiled in 3.8–4.1 s instead of 5.8–6.3 s and ran as fast (0.14–0.21 s against
    0.15–0.18 s for 1000 scans × 4 chains); a sampling chunk compiled in 1.5–1.9 s instead of
    2.2–3.1 s but sampled 8–12% slower with HMC inside (21 900 against 25 000 scans/s; RWM
    even; NUTS on ``gp_regression`` 3 000 against 3 460), so the chunk keeps the fusion
    emitters. Compilation is most of a short run's wall time, so the trade pays for every
    sampler on small data; on tall data the warmup is compute-bound and the driver compiles it
    like a chunk (:func:`tall_data`). GPUs keep XLA's defaults, and so
    does a process whose ``XLA_FLAGS`` name the level itself (the test suite sets 0).
    """
    if "xla_backend_optimization_level" in os.environ.get("XLA_FLAGS", ""):
        return {}
    if jax.default_backend() != "cpu":
        return {}
    once = {} if sampling else {"xla_cpu_use_fusion_emitters": False}
    return {"xla_backend_optimization_level": 1, **once}


def jit_once(fn: Callable, **kwargs: Any) -> Any:
    """``jax.jit(fn)`` compiled with the options of a program that runs once
    (:func:`compiler_options` with ``sampling=False``): the driver's chains' start, the
    constrained draws. A chains' start (keys and initial positions: threefry code) compiled in
    0.61 s with XLA's defaults, 0.18 s so."""
    return jax.jit(fn, compiler_options=compiler_options(sampling=False) or None, **kwargs)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off inside the block (as it was after it), for a phase
    that allocates millions of short-lived objects and frees them by reference counting: JAX
    tracing and lowering a program. A full collection walks every object the imports left
    (JAX, BlackJAX, SciPy), and tracing triggers many: the default PT program traced in
    0.53–0.61 s with the collector off against 0.64–0.66 s on (2 cores, 2026-11-28)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def compile_lowered(lowered: Any, sampling: bool = True) -> Any:
    """``lowered.compile()`` with :func:`compiler_options` (``sampling=False`` for a program
    that runs once: a warmup, a pilot)."""
    return lowered.compile(compiler_options=compiler_options(sampling) or None)


def traced_once(fn: Any, *args: Any) -> tuple[Any, Any]:
    """``fn`` traced once at ``args``: a function of arguments shaped like them that replays the
    trace, and the shapes of its results. A loop body whose results' shapes must be known
    before the loop (the records a chunk fills) is traced once this way, not once by
    ``jax.eval_shape`` and again by the loop (0.2–0.5 s of a cold PT run's tracing)."""
    closed, shapes = jax.make_jaxpr(fn, return_shape=True)(*args)
    tree = jax.tree.structure(shapes)

    def replay(*xs: Any) -> Any:  # jax.core's: jax.extend would import Pallas (40 ms)
        leaves = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *jax.tree.leaves(xs))
        return jax.tree.unflatten(tree, leaves)

    return replay, shapes
