"""The equi-energy sampler (Kou, Zhou & Wong 2006) and MINTEE, its mini-batch version (seed 003
§5.2, App. D.1, Algorithm 2): one algorithm over :mod:`~tempering.ladders.energy`'s ladder.

Levels k = 0, …, L−1 (temperatures T_k, truncations H_k, batch sizes m_k; EE: m_k = n) each run
a chain for π_k ∝ exp(−(h ∨ H_k)/T_k). Level k starts once the clock reaches
(L−1−k)(B + S) — B the burn-in, S the stagger (the ring-building period; Algorithm 2 uses N for
both this and the output length, the seeds' errata) — and, after its own B steps, deposits every
draw in its energy rings (:mod:`~tempering.algorithms.equi_energy.rings`). Each step visits the
levels from the top down (Algorithm 2's order, so a level sees the deposit its upper neighbour just
made); an active level k < L−1 whose current ring of level k+1 is not empty makes, with probability
p_ee, an EE jump to a uniform entry of that ring (topped up to m_k points, then accepted with
:func:`~tempering.ladders.energy.jump_log_ratio`), and otherwise a local move of the inner kernel
(:mod:`~tempering.algorithms.equi_energy.levels`). Only level 0's draws reach ``posterior``.

The ladder. With ``levels=auto`` (the default) a pilot run once per run, before any chain
(:mod:`~tempering.algorithms.equi_energy.pilot`: parallel tempering on the untruncated tempered
targets), places the number of levels, the temperatures (EE; MINTEE's batches), the truncations H_k
(``energies``) and the point every chain's levels start from (``start_point``, the lowest it
found); :mod:`~tempering.algorithms.equi_energy.sampler` and
:mod:`~tempering.algorithms.equi_energy.mintee` turn it into options, and :class:`EESettings`
carries it here, fixed for the whole run. An explicit ladder keeps the rules below.

Warmup. Each chain's pilot (:mod:`~tempering.algorithms.equi_energy.warmup`) runs ``pilot`` local
moves per level, level 0 from the start and each level above from where the one below ended, tuning
each level's step size; every level starts the run where its pilot ended. Unless ``energies``
are given, H₀ is the lowest energy level 0 read (unless ``h0`` is given) and H_{k+1} = H_k +
c T_k; with shifted fixed subsets, the shifts s_k are read at that point. Then the ladder
starts up: (L−1)(B + S) steps bring level 0 in, and the driver's warmup steps follow;
throughout them, each level's step size is adapted by BlackJAX's dual averaging
towards ``target_accept`` on its own local moves (the paper keeps acceptance within
[0.2, 0.5]), and is frozen for sampling. The rings keep filling while sampling (EE is
self-interacting: its levels are exact only as the rings converge, Kou et al. §3).

Work is skipped where it is not needed (:func:`~tempering.numerics.lazy`, which also holds under
``vmap``): an idle level (start-up) computes nothing, a jump's top-up and re-initialisation run
only when a jump is made and accepted, and with deterministic energies (``subsets=fixed``, EE) a
point that did not move keeps its read-out. The local move is computed every step (it is needed
with probability 1 − p_ee). ``cost`` counts what ran: a local move (the kernel's evaluations,
plus one re-initialisation per step on a fresh batch) or a jump (the top-up, plus re-initialising
the kernel at an accepted point), and the read-out of a new point, each batch evaluation at m_k/n.
The rings live outside the lazy steps, so no step copies them.

Levels are an array axis: their states are one pytree with a leading level axis
(:class:`~tempering.algorithms.equi_energy.levels.Levels`). EE's levels all read the n points and
differ only in T_k and H_k, so one body is built at a traced level (:meth:`Ladder.energy`): the step
is a ``lax.scan`` over the levels from the top down, in the order above (the rings are carried from
level to level), the pilot a ``lax.scan`` up the levels, and the independent per-level work
(initialisation, the restart after the pilot) a ``vmap``. The compiled program then grows with L
only by the jump ratio's ``lax.switch`` over the levels (``jump_ratio`` takes a static level; a
few scalar operations each): compiling a 200 + 200-step run on modes2d took 24, 44 and 71 s at
5, 10 and 15 levels unrolled, about 7 s at each scanned (2 CPU cores), with the same draws.
The number of levels the pilot places is static, like an explicit ``levels``: it changes the
arrays' level axis, not the program's structure.
MINTEE's levels run in the same scan. With fixed subsets (the default) level k's batch is the
first m_k entries of the chain's permutation, and every read-out is a sum over a range of it at
the traced k, in blocks of rows (:mod:`~tempering.algorithms.equi_energy.prefix`): one body for
every level, as EE's. A default ``mintee`` on ``mvn_mean`` (7 levels, 4 chains × (1000 + 1000),
2 cores, 2026-11-29): XLA compile 6.0–6.5 → 4.4 s, tracing 1.17 → 0.7 s, sampling as fast; on the
3-component ``mixture`` at n = 10⁴ (9 levels): compile 10.3 → 5.7 s, warmup 18.2 → 11.8 s,
sampling 3.95 → 2.33 s (blocks of tens of rows beat one sum over thousands). Before, each
read-out was a ``lax.switch`` over the static levels' batch energies, which fresh batches
(``subsets=random``) still are
(:class:`~tempering.algorithms.equi_energy.levels.TracedLevelEnergy`); with the levels unrolled
in Python the program grew with every level (1 046 against 438 fused kernels;
``Ladder.unrolled`` keeps that layout for the compile-size test).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from blackjax.adaptation.step_size import dual_averaging_adaptation

from tempering.algorithms.base import Algorithm, AlgorithmInfo, warmup_by_scans
from tempering.algorithms.equi_energy.levels import (
    LevelEnergy,
    Levels,
    LevelState,
    Reading,
    energies_at,
    flag_value,
    when,
)
from tempering.algorithms.equi_energy.prefix import PrefixLevelEnergy
from tempering.algorithms.equi_energy.rings import Entry, Rings, deposit, empty_rings, pick
from tempering.algorithms.equi_energy.stats import EE_HEADLINE, EE_STATS
from tempering.algorithms.equi_energy.warmup import make_scans
from tempering.algorithms.rungs import rung_slice, stack_rungs
from tempering.kernels.base import BoundKernel
from tempering.ladders.energy import energy_levels, jump_log_ratio, ring_index
from tempering.models.base import Model
from tempering.models.blocked import RangeSums
from tempering.numerics import lazy, metropolis, select


class EESettings(NamedTuple):
    """The static shape of an EE / MINTEE run (the options resolved)."""

    temperatures: np.ndarray
    batches: tuple[int, ...]
    c: float
    p_ee: float
    burnin: int
    stagger: int
    capacity: int
    fresh_batches: bool
    h0: float | None
    pilot: int
    adapt: bool
    target_accept: float
    rebase: bool = True
    energies: tuple[float, ...] | None = None  # H_0 … H_{L−1} given (the run's pilot's)
    origin: tuple[float, ...] | None = None  # every chain's levels start here (the run pilot's)

    @property
    def levels(self) -> int:
        return len(self.temperatures)

    @property
    def shifted(self) -> bool:
        """Whether the levels read shifted energies ĥ_k − s_k: fixed subsets smaller than the
        data, unless ``rebase`` is off (:mod:`~tempering.algorithms.equi_energy.levels`)."""
        return self.rebase and not self.fresh_batches and min(self.batches) < self.batches[0]

    def start(self, level: int) -> int:
        """The clock tick at which ``level`` starts."""
        return (self.levels - 1 - level) * (self.burnin + self.stagger)


class EEState(NamedTuple):
    levels: Levels  # every level's LevelState on a leading level axis, level 0 first
    rings: Rings  # of levels 1 … L−1 (index k − 1)
    clock: jax.Array
    perm: jax.Array  # the chain's permutation of the data (fixed subsets), else (0,)


def ee_jump(keys: tuple, level: LevelState, lk: Any, kernel: Any, picked: tuple,
            perm: jax.Array, wants: jax.Array, shifts: jax.Array, ratio: Callable):
    """Level k's EE jump to ``picked`` = (entry, held): a uniform entry y of level k+1's ring
    that holds x's energy (at level k+1; :func:`~tempering.algorithms.equi_energy.rings.pick`),
    topped up to m_k points and accepted with ``ratio`` (:meth:`Ladder.ratio_at`); when the ring is
    empty there is no jump. The top-up and the kernel's re-initialisation run only when needed
    (:func:`~tempering.numerics.lazy`). Returns the kernel state after it, whether it was made
    and accepted, its acceptance probability and its cost."""
    k_top, k_acc = keys
    entry, held = picked
    do_jump = wants & held
    here = lazy(do_jump, lambda: lk.top_up(entry, perm, k_top, shifts), entry.energy)
    log_a = ratio(level.energy, here, entry.energy, level.energy_above)
    accepted, prob = metropolis(k_acc, log_a)
    accepted = do_jump & accepted
    jumped = lazy(accepted, lambda: kernel.init(entry.position), level.kernel)
    return jumped, do_jump, accepted, prob, lk.top_up_cost + jnp.where(accepted, lk.cost, 0.0)


class Ladder:
    """The levels of one EE / MINTEE run (static: the model, inner kernel, settings and jump
    ratio); its methods are the pure functions the sampler is built from, each parameter pytree
    ``all_params`` holding the inner kernel's stacked parameters, the truncations H_k
    (``levels``) and the energy shifts s_k. A level k is a traced index (``batched``: one body
    over every level, EE's and MINTEE's), or a Python int when the class's ``unrolled`` is set
    (the levels unrolled in Python: what the compile-size test compares with)."""

    unrolled = False

    def __init__(self, model: Model, bound: BoundKernel, settings: EESettings,
                 jump_ratio: Callable):
        self.cfg, self.bound, self.jump_ratio = settings, bound, jump_ratio
        self.L = settings.levels
        self.temps = np.asarray(settings.temperatures, dtype=float)
        self.energies = [LevelEnergy(model, settings.batches, k, settings.fresh_batches)
                         for k in range(self.L)]
        self.batched = not self.unrolled
        self.needs_perm = not settings.fresh_batches and min(settings.batches) < \
            settings.batches[0]
        self.model = model
        self.sums = RangeSums(model) if self.needs_perm else None

    def energy(self, k: int | jax.Array) -> Any:
        """Level k's energies: at a traced k with fixed subsets (MINTEE's default), one body
        for every level (:class:`~tempering.algorithms.equi_energy.prefix.PrefixLevelEnergy`);
        else :func:`~tempering.algorithms.equi_energy.levels.energies_at`."""
        if self.sums is not None and not isinstance(k, int):
            return PrefixLevelEnergy(self.model, self.cfg.batches, self.sums, k)
        return energies_at(self.energies, k)

    def over_levels(self, fn: Callable, *stacked: Any) -> Any:
        """``fn(k, *x_k)`` for every level k, stacked on a leading level axis (x_k: level k's
        slice of each of ``stacked``): ``vmap``ped over a traced k when ``batched``, else
        unrolled."""
        if self.batched:
            return jax.vmap(fn)(jnp.arange(self.L, dtype=jnp.int32), *stacked)
        return stack_rungs([fn(k, *rung_slice(stacked, k)) for k in range(self.L)])

    def scan_levels(self, fn: Callable, carry: Any, *stacked: Any, down: bool = False
                    ) -> tuple[Any, Any]:
        """``fn(k, carry, *x_k) -> (carry, y_k)`` for k = 0, …, L−1 in turn (L−1, …, 0 when
        ``down``): the last carry and the y_k stacked in level order. A ``lax.scan`` over a
        traced k when ``batched``, else unrolled."""
        if self.batched:
            def body(c, x):
                return fn(x[0], c, *x[1])
            return jax.lax.scan(body, carry, (jnp.arange(self.L, dtype=jnp.int32), stacked),
                                reverse=down)
        ys: dict[int, Any] = {}
        for k in (range(self.L - 1, -1, -1) if down else range(self.L)):
            carry, ys[k] = fn(k, carry, *rung_slice(stacked, k))
        return carry, stack_rungs([ys[k] for k in range(self.L)])

    def ratio_at(self, k: int | jax.Array) -> Callable:
        """Level k's jump ratio, (ĥ_k(x), ĥ_k(y), ĥ_{k+1}(y), ĥ_{k+1}(x)) ↦ log α, H_k from
        ``levels``. ``jump_ratio`` takes a static level: at a traced k, a ``lax.switch`` over
        levels 0 … L−2 (a few scalar operations each)."""
        def at(j: int) -> Callable:
            return lambda levels, *energies: self.jump_ratio(*energies, j, levels, self.temps)
        if isinstance(k, int):
            return at(k)
        branches = [at(j) for j in range(self.L - 1)]
        return lambda levels, *energies: jax.lax.switch(jnp.minimum(k, self.L - 2), branches,
                                                        levels, *energies)

    def params(self, kernel_params: Any) -> dict[str, Any]:
        return {"kernel": kernel_params, "levels": self.truncations(),
                "shifts": jax.device_put(np.zeros(self.L))}  # jnp.zeros: a program

    def truncations(self, low: jax.Array | float | None = None) -> jax.Array:
        """H₀ … H_{L−1}: the given ``energies``, else H_{k+1} = H_k + c T_k from H₀ = ``h0``,
        else from ``low`` (a chain's lowest pilot energy; 0 before its pilot)."""
        if self.cfg.energies is not None:
            return jax.device_put(np.asarray(self.cfg.energies, np.float64))
        h0 = self.cfg.h0 if self.cfg.h0 is not None else (0.0 if low is None else low)
        return energy_levels(h0, self.temps, self.cfg.c)

    def kernel_at(self, k, indices, all_params, multiplier=1.0):
        """Level k's inner kernel on ``indices``, its step size times ``multiplier``."""
        p = rung_slice(all_params["kernel"], k)
        if "step_size" in p:
            p = {**p, "step_size": p["step_size"] * multiplier}
        density = self.energy(k).density(indices, all_params["levels"], self.temps,
                                         all_params["shifts"])
        return self.bound.make(density, p)

    def init(self, key, position, all_params):
        L, cfg = self.L, self.cfg
        k_perm, k_levels = jax.random.split(key)
        if cfg.origin is not None:  # the run's pilot's lowest point, not the chain's own start
            position = jnp.asarray(cfg.origin, position.dtype)
        perm = (jax.random.permutation(k_perm, cfg.batches[0]).astype(jnp.int32)
                if self.needs_perm else jnp.zeros((0,), jnp.int32))
        positions = position if position.ndim == 2 else jnp.broadcast_to(position,
                                                                        (L, position.shape[-1]))

        def one(k, key, start):
            lk = self.energy(k)
            k_batch, k_read = jax.random.split(key)
            indices = lk.batch(perm, k_batch)
            kernel = self.kernel_at(k, indices, all_params).init(start)
            reading = lk.read(start, indices, perm, k_read, all_params["shifts"])
            return LevelState(kernel, *reading, jax.random.key_data(k_batch))

        levels = self.over_levels(one, jax.random.split(k_levels, L), positions)
        rings = empty_rings(L - 1, L, cfg.capacity, position.shape[-1])
        return EEState(Levels(levels), rings, jnp.zeros((), jnp.int32), perm)

    def pick_above(self, key, k, level, rings, levels_h):
        """The entry of level k+1's ring holding x's energy that level k may jump to, and
        whether that ring holds any; ``None`` at the top (static k), never held at a traced
        top."""
        if isinstance(k, int) and k == self.L - 1:
            return None
        entry, held = pick(key, rings, jnp.minimum(k, self.L - 2),
                           ring_index(level.energy_above, levels_h))
        return entry, held & (k < self.L - 1)

    def deposit_own(self, key, k, new, active, clock, rings, levels_h):
        """Level k's new point deposited in its rings once it is past its burn-in (level 0
        keeps no rings)."""
        if isinstance(k, int) and k == 0:
            return rings
        after_burnin = active & (clock >= self.cfg.start(k) + self.cfg.burnin) & (k >= 1)
        return deposit(key, rings, jnp.maximum(k - 1, 0), ring_index(new.energy, levels_h),
                       Entry(new.kernel.position, new.energy, new.mean_log_lik, new.batch_key),
                       after_burnin)

    def level_step(self, key, k, level, state, rings, all_params, multiplier):
        """Level k's step: the ring entry it may jump to is picked, the level moves (nothing is
        computed while it is idle in the start-up), and its new point is deposited in its rings
        after its burn-in. The rings stay outside the lazy step (no copy of them per step)."""
        k_move, k_pick, k_dep = jax.random.split(key, 3)
        levels_h = all_params["levels"]
        active = state.clock >= self.cfg.start(k)
        picked = self.pick_above(k_pick, k, level, rings, levels_h)
        run = partial(self.active_level_step, k_move, k, level, state, picked, all_params,
                      multiplier)
        real = level.energy.dtype  # the idle outputs are typed by hand: no second trace
        idle = {"energy_ring": jnp.asarray(-1, jnp.int32), "energy": jnp.asarray(jnp.nan, real),
                "ee_proposed": jnp.asarray(False), "ee_accepted": jnp.asarray(False),
                "ee_accept_prob": jnp.zeros((), real),
                "local_acceptance": jnp.asarray(jnp.nan, real)}
        new, cost, report = lazy(active, run, (level, jnp.zeros((), real), idle))
        rings = self.deposit_own(k_dep, k, new, active, state.clock, rings, levels_h)
        return new, rings, cost, report

    def active_level_step(self, key, k, level, state, picked, all_params, multiplier):
        """A running level's local move or EE jump, and the read-out of its new point."""
        lk, cfg, shifts = self.energy(k), self.cfg, all_params["shifts"]
        k_batch, k_read, k_local, k_choose, k_top, k_acc = jax.random.split(key, 6)
        indices = lk.batch(state.perm, k_batch)
        kernel = self.kernel_at(k, indices, all_params, multiplier)
        # a fresh batch changes the density, so the kernel restarts on it (MINT's reading b);
        # level 0 of MINTEE reads all n points, whose density no batch changes
        fresh = lk.refreshes
        start = when(fresh, lambda: kernel.init(level.kernel.position), level.kernel)
        moved, info = kernel.step(k_local, start)
        local_cost = (info.n_evals + flag_value(fresh)) * lk.cost
        levels_h = all_params["levels"]
        do_jump, accepted, prob, jump_cost = (jnp.asarray(False), jnp.asarray(False),
                                              jnp.zeros(()), jnp.zeros(()))
        if picked is not None:
            jumped, do_jump, accepted, prob, jump_cost = ee_jump(
                (k_top, k_acc), level, lk, kernel, picked, state.perm,
                jax.random.uniform(k_choose) < cfg.p_ee, shifts,
                partial(self.ratio_at(k), levels_h))
            moved = select(do_jump, jumped, moved)
        if cfg.fresh_batches:
            reading = lk.read(moved.position, indices, state.perm, k_read, shifts)
            read_cost = lk.cost
        else:  # deterministic energies: a point that did not move keeps its read-out
            changed = jnp.any(moved.position != level.kernel.position)
            old = Reading(level.energy, level.energy_above, level.mean_log_lik)
            reading = lazy(changed, lambda: lk.read(moved.position, indices, state.perm, k_read,
                                                    shifts), old)
            read_cost = jnp.where(changed, lk.cost, 0.0)
        new = LevelState(moved, *reading, jax.random.key_data(k_batch))
        cost = jnp.where(do_jump, jump_cost, local_cost) + read_cost
        report = {"energy_ring": ring_index(new.energy, levels_h), "energy": new.energy,
                  "ee_proposed": do_jump, "ee_accepted": accepted,
                  "ee_accept_prob": jnp.where(do_jump, prob, 0.0),
                  "local_acceptance": jnp.where(~do_jump, info.acceptance_rate, jnp.nan)}
        return new, cost, report

    def step_with(self, key, state, all_params, multipliers):
        """One step of every level, from the top down (:meth:`scan_levels`), each with its
        step-size multiplier; the rings and the cost are carried from level to level."""
        L = self.L

        def one(k, carry, key, level, multiplier):
            rings, cost = carry
            new, rings, c, report = self.level_step(key, k, level, state, rings, all_params,
                                                    multiplier)
            return (rings, cost + c), (new, report)

        (rings, cost), (levels, stats) = self.scan_levels(
            one, (state.rings, jnp.zeros(())), jax.random.split(key, L),
            state.levels.stacked, multipliers, down=True)
        stats = dict(stats)
        stats["ring_deposits"] = jnp.concatenate([jnp.zeros((1, L), jnp.int32),
                                                  rings.deposits])
        new = EEState(Levels(levels), rings, state.clock + 1, state.perm)
        acceptance = jnp.where(stats["ee_proposed"][0], stats["ee_accept_prob"][0],
                               stats["local_acceptance"][0])
        return new, AlgorithmInfo(jnp.nan_to_num(acceptance), cost, -levels.energy[0], stats)


def equi_energy(model: Model, bound: BoundKernel, params: Any, settings: EESettings,
                jump_ratio: Callable = jump_log_ratio) -> Algorithm:
    """Build the sampler. ``params``: the inner kernel's parameters stacked over levels;
    ``jump_ratio`` is replaceable only to show that a wrong one breaks the sampler (tests)."""
    ladder = Ladder(model, bound, settings, jump_ratio)
    all_params = ladder.params(params)
    ones = jax.device_put(np.ones(ladder.L))  # jnp.ones: a program of its own
    scans = make_scans(ladder, dual_averaging_adaptation)
    return Algorithm(lambda key, position: ladder.init(key, position, all_params),
                     partial(warmup_by_scans, scans),
                     lambda key, state, p: ladder.step_with(key, state, p, ones),
                     lambda s: s.levels.stacked.kernel.position[0], all_params, EE_STATS,
                     headline=EE_HEADLINE, scans=scans)
