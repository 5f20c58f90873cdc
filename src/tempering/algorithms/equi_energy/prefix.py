"""MINTEE's fixed-subset energies at a traced level, through one body for every level.

With ``subsets=fixed`` level k reads the first m_k entries of the chain's permutation of the data
(S_k = perm[:m_k], nested: S₀ = all n ⊃ S₁ ⊃ …), so each of its read-outs is a sum of per-datum
terms over a range of that permutation (:mod:`tempering.algorithms.equi_energy.levels` for the
energies, the top-up and the shifts):

- ĥ_k(θ) = −log π₀(θ) − n μ̂_k(θ), μ̂_k = (Σ_{j < m_k} ℓ_{perm[j]}(θ)) / m_k;
- a read-out gives ĥ_k and ĥ_{k+1} from the sums over [0, m_{k+1}) and [m_{k+1}, m_k);
- a ring entry of level k+1 is topped up by the sum over [m_{k+1}, m_k).

:class:`PrefixLevelEnergy` computes them at a traced k with
:class:`~tempering.models.blocked.RangeSums` (the bounds gathered at k), where
:class:`~tempering.algorithms.equi_energy.levels.TracedLevelEnergy` switches over the static
levels' own (a batch energy compiled per level, and per use: the inner kernel's
density, the read-out, the top-up). Mathematically the energies are the static levels'; the sums'
order differs, so they agree to rounding.

The sums run in blocks of :data:`~tempering.models.blocked.RANGE_BLOCK` rows (its docstring has
the measurements: blocks of tens of rows beat one sum over thousands).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.equi_energy.levels import Reading, as_energy, level_log_density
from tempering.algorithms.equi_energy.rings import Entry
from tempering.models.base import Model
from tempering.models.blocked import RangeSums

Array = jax.Array


class PrefixLevelEnergy:
    """Level k's fixed-subset energies at a traced ``level`` (the module docstring), with the
    interface of :class:`~tempering.algorithms.equi_energy.levels.LevelEnergy`; ``sums`` is
    shared by every level."""

    fresh, exact = False, False

    def __init__(self, model: Model, batches: tuple[int, ...], sums: RangeSums, level: Array):
        self.model, self.sums, self.level = model, sums, level
        self.n = int(batches[0])
        sizes = np.asarray(batches, np.int32)
        above = np.append(sizes[1:], sizes[-1])
        self.m, self.m_above = jnp.asarray(sizes)[level], jnp.asarray(above)[level]
        # means multiply by 1/m gathered: a division by a gathered m compiles differently
        # where XLA can fold the gather (one chain's program) and where not (a batch of
        # chains), 1 ulp apart, and the draws would then depend on the chain layout
        self.inv_m, self.inv_m_above = (jnp.asarray(1.0 / sizes)[level],
                                        jnp.asarray(1.0 / above)[level])
        self.above = jnp.minimum(level + 1, len(batches) - 1)
        self._costs = np.stack([sizes, sizes - above]) / self.n

    @property
    def cost(self) -> Array:
        """m_k/n: a read-out's cost in full-data evaluations."""
        return jnp.asarray(self._costs[0])[self.level]

    @property
    def top_up_cost(self) -> Array:
        """(m_k − m_{k+1})/n: a top-up's."""
        return jnp.asarray(self._costs[1])[self.level]

    @property
    def refreshes(self) -> bool:
        """Never: a fixed subset's density does not change between read-outs (a static
        ``False``, so no step carries a lazy restart for it)."""
        return False

    def batch(self, perm: Array, key: Array) -> Array:
        """The chain's permutation: level k's batch is its first m_k entries."""
        return perm

    @staticmethod
    def _mean(total: Array, inverse: Array) -> Array:
        return total * inverse.astype(total.dtype)

    def _energy(self, theta: Array, mean: Array) -> Array:
        return as_energy(-self.model.log_prior(theta) - self.n * mean)

    def energy(self, theta: Array, indices: Array) -> Array:
        """ĥ_k(θ) on perm[:m_k] (``indices``: the permutation), differentiable in θ."""
        total = self.sums.total(theta, indices, 0, self.m_above, self.m)
        return self._energy(theta, self._mean(total, self.inv_m))

    def read(self, theta: Array, indices: Array, perm: Array, key: Array,
             shifts: Array) -> Reading:
        """ĥ_k − s_k, ĥ_{k+1} − s_{k+1} (on the first m_{k+1} points) and μ̂_k at θ."""
        low, high = self.sums.split(theta, indices, 0, self.m_above, self.m)
        mean = self._mean(low + high, self.inv_m)
        return Reading(self._energy(theta, mean) - shifts[self.level],
                       self._energy(theta, self._mean(low, self.inv_m_above))
                       - shifts[self.above], mean)

    def density(self, indices: Array, levels: Array, temperatures: np.ndarray,
                shifts: Array) -> Callable[[Array], Array]:
        """θ ↦ log π_k(θ) = −((ĥ_k(θ) − s_k) ∨ H_k)/T_k: what the inner kernel samples."""
        return lambda theta: level_log_density(self.energy(theta, indices) - shifts[self.level],
                                               self.level, levels, temperatures)

    def top_up(self, entry: Entry, perm: Array, key: Array, shifts: Array) -> Array:
        """ĥ_k(y) − s_k of a ring entry of level k+1: its μ̂ over m_{k+1} points extended by the
        sum over perm[m_{k+1}:m_k] (App. D.1; the seeds' errata)."""
        extra, _ = self.sums.split(entry.position, perm, self.m_above, self.m, self.m)
        total = self.m_above.astype(extra.dtype) * entry.mean_log_lik + extra
        topped = self._energy(entry.position, self._mean(total, self.inv_m)) - shifts[self.level]
        # the top level has no level above (its batch is its own): the entry as it is
        return jnp.where(self.m == self.m_above,
                         entry.energy + shifts[self.above] - shifts[self.level], topped)
