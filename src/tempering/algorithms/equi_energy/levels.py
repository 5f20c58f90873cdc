"""One level of the equi-energy sampler: its energy read-out, its local move and its EE jump
(seed 003 App. D.1, Algorithm 2; Kou, Zhou & Wong 2006).
:mod:`tempering.algorithms.equi_energy.algorithm` runs the levels together.

Energies. Level k sees a batch of m_k of the n data points and reads the energy
ĥ_k(θ) = −log π₀(θ) − n μ̂_k(θ), μ̂_k the mean per-datum log-likelihood over the batch (with
m_k = n, the exact h = −log π; EE uses m_k = n at every level, and then needs no per-datum
terms). The first m_{k+1} points of level k's batch are a batch of level k+1's size, so one
read-out gives both ĥ_k(θ) and ĥ_{k+1}(θ) (the second decides x's ring and the π_{k+1}(x) factor
of the jump ratio). Batches:

- ``fresh_batches=False`` (``subsets=fixed``): nested subsets S_k = perm[:m_k] drawn once per chain
  (S₀ = all data). Every energy is a deterministic surrogate, level k's local kernel is exact MH
  for π_k ∝ exp(−(ĥ_k ∨ H_k)/T_k), the top-up of a ring entry from S_{k+1} to S_k adds exactly
  the points perm[m_{k+1}:m_k], and EE's theory makes level 0 (the full data, T₀ = 1)
  asymptotically exact.
- ``fresh_batches=True`` (``subsets=random``, the paper's): every read-out draws a fresh batch;
  the local move is MINT's reading b (the inner state is re-initialised on the new batch), and the
  top-up draws m_k − m_{k+1} points outside the entry's own batch (re-drawn from its stored key).
  Approximate, like MINT.

Shifts. A fixed subset's surrogate ĥ_k sits a near-constant distance from h (at n = 10⁴,
m₁ = 7937 of the 50-mode mixture: ĥ₁ − h ≈ −68 at every mode, ±1 around them), but the
truncations H_k and the rings form one absolute ladder built from h. Unshifted, level 1 would
be flat (ĥ₁ < H₁) over all of level 0's typical set and deep into the energies above it, and
level 0's jumps would land far above its own energies. So every level reads ĥ_k − s_k, with
constants s_k (``shifts``, one per level, s₀ = 0) fixed in warmup
(:mod:`~tempering.algorithms.equi_energy.warmup`). A constant changes neither the local kernel's
ratios nor the jump ratio's π_{k+1} factor; it moves the truncation and the rings, so each π_k is
still a fixed target and level 0's exactness holds as before.

Costs are counted in full-data evaluations: a batch evaluation costs m_k/n.

The levels' states are one pytree with a leading level axis (:class:`Levels`), and one body
serves every level at a traced index (:mod:`~tempering.algorithms.equi_energy.algorithm`):
:func:`energies_at` gives level k's energies. When every level reads all n points (EE) the levels
differ only in their index (:meth:`LevelEnergy.at`). MINTEE's fixed subsets (its default) are
ranges of the chain's permutation, summed in blocks at a traced level by one body
(:mod:`~tempering.algorithms.equi_energy.prefix`). Its fresh batches (``subsets=random``) have
static sizes m_k, so at a traced level (:class:`TracedLevelEnergy`) each read-out is a
``lax.switch`` over the static levels' own (the batch's energy compiled once per level, not the
level's step), and a batch's indices travel padded to n.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.equi_energy.rings import Entry
from tempering.ladders.energy import truncated_log_density
from tempering.ladders.minibatch import draw_batch, draw_batch_outside
from tempering.models.base import Model
from tempering.numerics import lazy

Array = jax.Array


class LevelState(NamedTuple):
    """A level's chain: the inner kernel's state and the read-out of its current point."""

    kernel: Any
    energy: Array  # ĥ_k(x) on the level's batch
    energy_above: Array  # ĥ_{k+1}(x) on the batch's first m_{k+1} points (ĥ_k at the top)
    mean_log_lik: Array  # μ̂_k(x), what a top-up extends (0 when no batches are used)
    batch_key: Array  # raw key data of the batch (fresh batches), else zeros


@jax.tree_util.register_pytree_node_class
class Levels:
    """Every level's :class:`LevelState`, stacked on a leading level axis (``stacked``);
    ``levels[k]`` and iteration give one level's."""

    def __init__(self, stacked: LevelState):
        self.stacked = stacked

    def __len__(self) -> int:
        return int(self.stacked.energy.shape[0])

    def __getitem__(self, k: int | Array) -> LevelState:
        return jax.tree.map(lambda leaf: leaf[k], self.stacked)

    def __iter__(self) -> Iterator[LevelState]:
        return (self[k] for k in range(len(self)))

    def tree_flatten(self) -> tuple[tuple[LevelState], None]:
        return (self.stacked,), None

    @classmethod
    def tree_unflatten(cls, _aux: None, children: tuple[LevelState]) -> Levels:
        return cls(*children)


def when(pred: bool | Array, fn: Callable[[], Any], otherwise: Any) -> Any:
    """``fn()`` if ``pred`` else ``otherwise``: decided now when ``pred`` is a Python bool (a
    static level), lazily (:func:`~tempering.numerics.lazy`) when it is traced."""
    if isinstance(pred, bool):
        return fn() if pred else otherwise
    return lazy(pred, fn, otherwise)


def level_log_density(energy: Array, level: int | Array, levels: Array,
                      temperatures: np.ndarray) -> Array:
    """:func:`~tempering.ladders.energy.truncated_log_density` at a static ``level``, or the
    same arithmetic at a traced one: H_k gathered, level 0 untruncated, and a product with 1/T_k
    (XLA compiles the static level's division by the constant T_k so, and the draws then do not
    depend on whether the level is traced)."""
    if isinstance(level, int):
        return truncated_log_density(energy, level, levels, temperatures)
    bounded = jnp.where(level == 0, energy, jnp.maximum(energy, levels[level]))
    value = -bounded * jnp.asarray(1.0 / np.asarray(temperatures, dtype=float))[level]
    return jnp.where(jnp.isnan(value), -jnp.inf, value)


class Reading(NamedTuple):
    energy: Array
    energy_above: Array
    mean_log_lik: Array


def as_energy(value: Array) -> Array:
    """Non-finite energies (NaN, overflow) read as +∞: a zero density, a rejected proposal."""
    return jnp.where(jnp.isfinite(value), value, jnp.inf)


class LevelEnergy:
    """Batches and energies of level k of ``model`` with batch sizes ``batches``.

    ``perm`` is the chain's permutation of the data (fixed subsets; unused with fresh batches
    or when every level sees all the data).
    """

    def __init__(self, model: Model, batches: tuple[int, ...], level: int,
                 fresh_batches: bool):
        self.model, self.fresh = model, fresh_batches
        self.level: Any = level  # an int, or a traced index (:meth:`at`)
        self.n = batches[0]
        self.m = batches[level]
        self.m_above = batches[level + 1] if level + 1 < len(batches) else self.m
        self.exact = all(m == self.n for m in batches)

    def at(self, level: Array) -> LevelEnergy:
        """These energies at a traced ``level``: only when every level reads all the data
        (``exact``), so that the levels differ in nothing else."""
        if not self.exact:
            raise ValueError("LevelEnergy.at: the levels' batch sizes differ")
        moved = copy.copy(self)
        moved.level = level
        return moved

    @property
    def cost(self) -> float:
        return self.m / self.n

    @property
    def refreshes(self) -> bool:
        """Whether a read-out's fresh batch changes the density, so that the inner kernel
        restarts on it (MINT's reading b; level 0 of MINTEE reads all n points)."""
        return self.fresh and self.m < self.n

    @property
    def top_up_cost(self) -> float:
        return (self.m - self.m_above) / self.n

    def batch(self, perm: Array, key: Array) -> Array | None:
        """The indices of a read-out's batch (``None``: all the data, in order)."""
        if self.m == self.n:
            return None
        return draw_batch(key, self.n, self.m) if self.fresh else perm[:self.m]

    def _terms(self, theta: Array, indices: Array | None) -> Array:
        if indices is None:
            return self.model.log_lik_terms(theta)
        view = jax.tree.map(lambda a: jnp.take(a, indices, axis=0), self.model.data)
        return self.model.log_lik_terms(theta, view)

    def energy(self, theta: Array, indices: Array | None) -> Array:
        """ĥ_k(θ) on the batch."""
        if self.exact:
            return as_energy(-self.model.log_density(theta))
        mean = jnp.mean(self._terms(theta, indices))
        return as_energy(-self.model.log_prior(theta) - self.n * mean)

    def read(self, theta: Array, indices: Array | None, perm: Array, key: Array,
             shifts: Array) -> Reading:
        """ĥ_k − s_k, ĥ_{k+1} − s_{k+1} (on the batch's first m_{k+1} points) and μ̂_k at θ."""
        if self.exact:
            energy = self.energy(theta, indices)
            return Reading(energy, energy, jnp.zeros(()))
        terms = self._terms(theta, indices)
        if indices is None and self.m_above < self.n:  # level 0 of MINTEE: a sub-batch of all
            sub_indices = draw_batch(key, self.n, self.m_above) if self.fresh \
                else perm[:self.m_above]
            sub = terms[sub_indices]
        else:
            sub = terms[:self.m_above]
        log_prior = self.model.log_prior(theta)
        mean = jnp.mean(terms)
        above = min(self.level + 1, shifts.shape[0] - 1)
        return Reading(as_energy(-log_prior - self.n * mean - shifts[self.level]),
                       as_energy(-log_prior - self.n * jnp.mean(sub) - shifts[above]), mean)

    def density(self, indices: Array | None, levels: Array, temperatures: np.ndarray,
                shifts: Array):
        """θ ↦ log π_k(θ) = −((ĥ_k(θ) − s_k) ∨ H_k)/T_k on the batch: what the inner kernel
        samples."""
        return lambda theta: level_log_density(self.energy(theta, indices) - shifts[self.level],
                                               self.level, levels, temperatures)

    def top_up(self, entry: Entry, perm: Array, key: Array, shifts: Array) -> Array:
        """ĥ_k(y) − s_k of a ring entry of level k+1: its μ̂ over m_{k+1} points extended by
        m_k − m_{k+1} more (App. D.1; the seeds' errata)."""
        extra = self.m - self.m_above
        if extra == 0:
            return entry.energy + shifts[self.level + 1] - shifts[self.level]
        if self.fresh:
            own = draw_batch(jax.random.wrap_key_data(entry.batch_key), self.n, self.m_above)
            indices = draw_batch_outside(key, self.n, extra, own)
        else:
            indices = perm[self.m_above:self.m]
        total = self.m_above * entry.mean_log_lik + jnp.sum(self._terms(entry.position, indices))
        return as_energy(-self.model.log_prior(entry.position) - self.n * total / self.m
                          - shifts[self.level])


def flag_value(flag: bool | Array) -> float | Array:
    """1.0 where ``flag`` else 0.0: a Python float for a static flag (the static level's
    arithmetic unchanged), an array for a traced one."""
    return float(flag) if isinstance(flag, bool) else jnp.where(flag, 1.0, 0.0)


class TracedLevelEnergy:
    """MINTEE's level energies at a traced level k (``levels``: every level's static
    :class:`LevelEnergy`), what its fresh batches use (fixed subsets sum ranges of the
    permutation instead: :mod:`~tempering.algorithms.equi_energy.prefix`). Each read-out is a
    ``lax.switch`` over the static levels' own, so the batch's energy is compiled once per level
    and the rest of a level's step once; the costs and flags are gathered at k. A batch
    (:meth:`batch`) is carried as n indices whose first m_k are level k's: the chain's
    permutation itself with fixed subsets (S_k = perm[:m_k]), a fresh batch padded with zeros
    otherwise (level 0: all the data in order). In the step and the pilot the switch computes
    one branch: k indexes the scan over levels, the same for every chain of a batch; in the
    one-time start and restart, vmapped over the levels, every branch runs (and its result is
    selected)."""

    def __init__(self, levels: list[LevelEnergy], level: Array):
        self.levels, self.level = levels, level
        self.n, self.fresh, self.exact = levels[0].n, levels[0].fresh, False

    def _at(self, values: list) -> Array:
        return jnp.asarray(values)[self.level]

    @property
    def cost(self) -> Array:
        return self._at([lk.cost for lk in self.levels])

    @property
    def top_up_cost(self) -> Array:
        return self._at([lk.top_up_cost for lk in self.levels])

    @property
    def refreshes(self) -> Array:
        return self._at([lk.refreshes for lk in self.levels])

    def _switch(self, fn: Callable, *args: Any) -> Any:
        return jax.lax.switch(self.level, [partial(fn, lk) for lk in self.levels], *args)

    @staticmethod
    def _own(lk: LevelEnergy, indices: Array) -> Array | None:
        """Level ``lk``'s batch out of the carried indices (``None``: all the data)."""
        return None if lk.m == lk.n else indices[:lk.m]

    def batch(self, perm: Array, key: Array) -> Array:
        if not self.fresh:
            return perm

        def padded(lk: LevelEnergy) -> Array:
            own = lk.batch(perm, key)
            if own is None:
                return jnp.arange(self.n, dtype=jnp.int32)
            return jnp.zeros(self.n, jnp.int32).at[:lk.m].set(own.astype(jnp.int32))

        return self._switch(padded)

    def energy(self, theta: Array, indices: Array) -> Array:
        return self._switch(lambda lk, t, i: lk.energy(t, self._own(lk, i)), theta, indices)

    def read(self, theta: Array, indices: Array, perm: Array, key: Array,
             shifts: Array) -> Reading:
        return self._switch(lambda lk, t, i, p, k, s: lk.read(t, self._own(lk, i), p, k, s),
                            theta, indices, perm, key, shifts)

    def density(self, indices: Array, levels: Array, temperatures: np.ndarray,
                shifts: Array) -> Callable:
        def at(lk: LevelEnergy, theta: Array, i: Array, h: Array, s: Array) -> Array:
            return lk.density(self._own(lk, i), h, temperatures, s)(theta)
        return lambda theta: self._switch(at, theta, indices, levels, shifts)

    def top_up(self, entry: Entry, perm: Array, key: Array, shifts: Array) -> Array:
        return self._switch(lambda lk, e, p, k, s: lk.top_up(e, p, k, s),
                            entry, perm, key, shifts)


def energies_at(levels: list[LevelEnergy], k: int | Array) -> Any:
    """Level k's energies: the static level's :class:`LevelEnergy` for an int k; at a traced
    k, :meth:`LevelEnergy.at` when every level reads all the data (EE), else a
    :class:`TracedLevelEnergy` (MINTEE's fresh batches; its fixed subsets:
    :class:`~tempering.algorithms.equi_energy.prefix.PrefixLevelEnergy`, chosen by the
    ladder)."""
    if isinstance(k, int):
        return levels[k]
    return levels[0].at(k) if levels[0].exact else TracedLevelEnergy(levels, k)
