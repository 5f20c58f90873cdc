"""Energy rings as fixed-capacity reservoirs: the equi-energy sampler's memory of past draws
(seed 003 App. D.1; Kou, Zhou & Wong 2006), with static shapes under JIT.

Kou et al.'s rings keep every past draw of a level, binned by energy; a jump picks one uniformly
from a ring. Here each ring holds at most ``capacity`` entries and is a uniform random sample of
all the draws ever deposited in it (reservoir sampling, Vitter's Algorithm R): the c-th deposit
(c counted from 0) fills slot c while c < capacity, and afterwards replaces a uniformly chosen slot
with probability capacity/(c + 1). A uniform pick from the reservoir is then a uniform pick from
all the ring's deposits, as in the paper, and memory stays at
levels × rings × capacity × (dim + 2) floats plus two 32-bit words per entry for the batch key.

Hand-written: no library keeps JAX reservoirs. An entry is (θ, h, μ̂, key): the position, its
energy at the depositing level, the mean per-datum log-likelihood over that level's batch (what a
top-up extends) and the raw key of that batch (MINTEE with fresh batches re-draws it to exclude
its points).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

Array = jax.Array


class Rings(NamedTuple):
    """The rings of several levels: leading axes (level, ring), then the slot."""

    position: Array  # (levels, rings, capacity, dim)
    energy: Array  # (levels, rings, capacity)
    mean_log_lik: Array  # (levels, rings, capacity)
    batch_key: Array  # (levels, rings, capacity, 2) uint32, raw key data
    deposits: Array  # (levels, rings) int32: every deposit ever made


class Entry(NamedTuple):
    """One ring entry (see the module docstring)."""

    position: Array
    energy: Array
    mean_log_lik: Array
    batch_key: Array


def empty_rings(levels: int, rings: int, capacity: int, dim: int) -> Rings:
    """Rings with no deposits."""
    shape = (levels, rings, capacity)
    return Rings(jnp.zeros((*shape, dim)), jnp.zeros(shape), jnp.zeros(shape),
                 jnp.zeros((*shape, 2), jnp.uint32), jnp.zeros((levels, rings), jnp.int32))


def occupancy(rings: Rings) -> Array:
    """Entries held per (level, ring): min(deposits, capacity)."""
    return jnp.minimum(rings.deposits, rings.energy.shape[-1])


def deposit(key: Array, rings: Rings, level: int, ring: Array, entry: Entry,
            where: Array) -> Rings:
    """Deposit ``entry`` in ``ring`` of ``level`` when ``where`` (Algorithm R, module docstring)."""
    capacity = rings.energy.shape[-1]
    count = rings.deposits[level, ring]
    slot = jnp.where(count < capacity, count,
                     jax.random.randint(key, (), 0, jnp.maximum(count, 1) + 1, jnp.int32))
    write = where & (slot < capacity)
    slot = jnp.minimum(slot, capacity - 1)

    def put(array, value):
        return array.at[level, ring, slot].set(jnp.where(write, value, array[level, ring, slot]))

    return Rings(put(rings.position, entry.position), put(rings.energy, entry.energy),
                 put(rings.mean_log_lik, entry.mean_log_lik), put(rings.batch_key, entry.batch_key),
                 rings.deposits.at[level, ring].add(where.astype(jnp.int32)))


def pick(key: Array, rings: Rings, level: int, ring: Array) -> tuple[Entry, Array]:
    """A uniform entry of ``ring`` of ``level`` and whether the ring holds any."""
    held = occupancy(rings)[level, ring]
    slot = jax.random.randint(key, (), 0, jnp.maximum(held, 1), jnp.int32)
    entry = Entry(rings.position[level, ring, slot], rings.energy[level, ring, slot],
                  rings.mean_log_lik[level, ring, slot], rings.batch_key[level, ring, slot])
    return entry, held > 0
