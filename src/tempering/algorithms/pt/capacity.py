"""The rung window: one PT program with room for more rungs than a run uses (issue 44).

``rungs=auto`` chooses the number of rungs from a pilot, and a compiled program's rung axis has a
static length. So that the pilot and the run share one program (compiled once, before the pilot),
the run's ladder is a line of *slots* of fixed capacity — :data:`~tempering.algorithms.pt.pilot.
SLOTS`: 16 per leg — of which the
rungs in use are a contiguous window ``lo … hi`` around the target's slot (static: the last slot
of the variational leg, or slot 0 on a one-leg line). The window is data (``params["window"]``),
so the pilot runs every slot and the run only the rungs it placed, on the same executables:

- the slots outside the window hold their leg's end coordinate (s = 2, q, before ``lo``; the
  last β after ``hi``), so each is a valid rung of the path, and the placement keeps them there
  (:func:`~tempering.ladders.reference.equal_barrier_legs` with a window);
- no swap is proposed across or outside the window's ends, round trips are counted between the
  window's ends, and only the window's evaluations are counted as cost;
- the record keeps the window's rungs and pairs only (:func:`trimmed`), so a run file reads as a
  run on its placed rungs, and ``summary`` needs nothing new.

The slots outside the window still run their (vmapped) inner moves, the price of the shared
program; a model whose evaluations are dear keeps a pilot and a program of its own instead
(:func:`~tempering.algorithms.pt.sampler.costly`).
Written by hand: no JAX library has a ladder of variable length.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.base import Stat
from tempering.ladders.reference import target_index


class RungWindow(NamedTuple):
    """The rungs in use, slots ``lo`` … ``hi`` of a line of ``slots`` (target at ``target``)."""

    lo: int
    hi: int
    slots: int
    target: int

    @property
    def rungs(self) -> int:
        return self.hi - self.lo + 1

    def as_array(self) -> np.ndarray:
        """``params["window"]``: (lo, hi) as int32."""
        return np.asarray([self.lo, self.hi], np.int32)


def padded_line(active: np.ndarray, capacity: tuple[int, ...]) -> tuple[np.ndarray, RungWindow]:
    """The line of slots holding the schedule coordinates ``active`` (one leg: ``capacity`` =
    (slots,); two legs, target at s = 1: (variational slots, prior slots), sharing the target),
    and its window; each leg's free slots hold the leg's end coordinate."""
    active = np.asarray(active, dtype=float)
    target = target_index(active)
    if len(capacity) == 1:
        (slots,) = capacity
        if len(active) > slots:
            raise ValueError(f"capacity: {len(active)} rungs do not fit {slots} slots")
        line = np.concatenate([active, np.full(slots - len(active), active[-1])])
        return line, RungWindow(0, len(active) - 1, slots, 0)
    upper, lower = capacity
    above, below = target + 1, len(active) - target
    if above > upper or below > lower:
        raise ValueError(f"capacity: legs of {above} and {below} rungs do not fit "
                         f"{upper} and {lower} slots")
    line = np.concatenate([np.full(upper - above, active[0]), active,
                           np.full(lower - below, active[-1])])
    lo = upper - above
    return line, RungWindow(lo, lo + len(active) - 1, upper + lower - 1, upper - 1)


def window_in(params: Any) -> jax.Array | None:
    """The rung window (lo, hi) PT's parameters carry, if any."""
    return params.get("window") if isinstance(params, dict) else None


def inside_pairs(window: Any, pairs: int, xp: Any = jnp) -> Any:
    """Whether pair (i, i + 1) lies in the window, (pairs,); every pair without a window
    (``xp``: ``numpy`` on a host's numbers, as PT's rounds closed between calls have them)."""
    i = xp.arange(pairs)
    if window is None:
        return i >= 0
    return (i >= window[0]) & (i + 1 <= window[1])


def inside_rungs(window: jax.Array | None, rungs: int) -> jax.Array:
    """Whether each slot is a rung in use, (rungs,); every slot without a window."""
    m = jnp.arange(rungs)
    if window is None:
        return m >= 0
    return (m >= window[0]) & (m <= window[1])


def trimmed(record: dict[str, Any], axis: int = 2, *, stats: tuple[Stat, ...],
            window: RungWindow | None) -> dict[str, Any]:
    """The record with each rung- or pair-dimensioned statistic cut to the window (host arrays
    or shapes; the per-draw dims start at ``axis``, after chain and draw)."""
    if window is None:
        return record
    cuts = {"rung": slice(window.lo, window.hi + 1), "pair": slice(window.lo, window.hi)}
    out = dict(record)
    for stat in stats:
        if stat.name in out and stat.dims and stat.dims[0] in cuts:
            index = (slice(None),) * axis + (cuts[stat.dims[0]],)
            out[stat.name] = _cut(out[stat.name], index)
    return out


def _cut(leaf: Any, index: tuple) -> Any:
    if not isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf[index]
    shape = list(leaf.shape)  # a ShapeDtypeStruct
    axis = len(index) - 1
    cut = index[-1]
    shape[axis] = len(range(*cut.indices(shape[axis])))
    return type(leaf)(tuple(shape), leaf.dtype)
