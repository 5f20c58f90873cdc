"""Scoring a contender's draws of μ by their label orderings, whose exact masses are 1/3! each.

- **Ordering** of a draw (:func:`orderings`): the rank of ``argsort(μ)`` among
  ``itertools.permutations(range(3))`` (:func:`tempering.models.ordering_index`); a non-finite
  draw has none (−1).
- **Error** (:func:`error`): the largest |frequency of an ordering − 1/6| over the 6 orderings,
  every chain's draws pooled (a weighted population, SMC's: the share of weight); a non-finite
  draw makes it ∞.
- **Orderings per chain** (:func:`visited`): how many of the 6 each chain has at least one draw in
  (a weighted population: the orderings that hold any weight).
- **Error against time** (:func:`curve`): the error of the first k draws of every chain together
  at prefixes (``bench tall``'s :func:`~tempering.bench.tall.metrics.prefixes`), each at the time
  it was reached — the run's seconds before its first draw plus the share k/K of its sampling
  seconds — and whether by then every chain had visited every ordering. A weighted population
  has one point, at its total seconds.
- **Seconds to reach a level** (:func:`time_to_reach`): the first point of the curve after which
  the error stays at or below :data:`LEVEL` with every ordering in every chain (``None``: never
  within the run) — ``bench tall``'s rule, with a point that misses an ordering counted as
  above the level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tempering.bench.tall.metrics import CURVE_POINTS, prefixes
from tempering.bench.tall.metrics import time_to_reach as first_staying
from tempering.models import ordering_index

#: The mixture's components, and its orderings (K!), each of mass 1/K!.
K = 3
ORDERINGS = math.factorial(K)
#: The accuracy the table's "to 0.05" column asks for.
LEVEL = 0.05


def orderings(draws: np.ndarray) -> np.ndarray:
    """The ordering index of each draw μ (..., K): shape ``draws.shape[:-1]``, −1 where a draw
    is not finite."""
    draws = np.asarray(draws, np.float64)
    finite = np.all(np.isfinite(draws), axis=-1)
    return np.where(finite, ordering_index(np.where(finite[..., None], draws, 0.0)), -1)


def counts(orders: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Per chain, the draws (or the weight) in each ordering: (chains, K!) from ``orders``
    (chains, draws) and the draws' ``weights`` (chains, draws) or ``None`` (equal)."""
    w = np.ones(orders.shape) if weights is None else np.asarray(weights, float)
    one_hot = orders[..., None] == np.arange(ORDERINGS)
    return np.sum(one_hot * w[..., None], axis=1)


def error(orders: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The largest |frequency of an ordering − 1/K!| of every chain's draws pooled (module
    docstring); ∞ where a draw is not finite."""
    if np.any(orders < 0):
        return float("inf")
    pooled = counts(orders, weights).sum(axis=0)
    return float(np.max(np.abs(pooled / pooled.sum() - 1.0 / ORDERINGS)))


def visited(orders: np.ndarray, weights: np.ndarray | None = None) -> list[int]:
    """How many orderings each chain visited (holds weight in, for a weighted population)."""
    return [int(v) for v in np.sum(counts(orders, weights) > 0, axis=1)]


def curve(orders: np.ndarray, before: float, sampling: float,
          points: int = CURVE_POINTS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(seconds, errors, complete) at the prefixes of ``orders`` (chains, draws): ``before`` is
    the run's seconds before its first draw, ``sampling`` its sampling seconds; ``complete``:
    every chain has visited every ordering within the prefix."""
    count = orders.shape[1]
    ks = prefixes(count, points)
    so_far = np.cumsum(orders[..., None] == np.arange(ORDERINGS), axis=1)  # (chains, draws, K!)
    broken = np.cumsum(np.any(orders < 0, axis=0))
    errors, complete = [], []
    for k in ks:
        pooled = so_far[:, k - 1].sum(axis=0)
        errors.append(float("inf") if broken[k - 1] else
                      float(np.max(np.abs(pooled / pooled.sum() - 1.0 / ORDERINGS))))
        complete.append(bool(np.all(so_far[:, k - 1] > 0)))
    return before + sampling * ks / count, np.array(errors), np.array(complete)


def time_to_reach(seconds: np.ndarray, errors: np.ndarray, complete: np.ndarray,
                  level: float = LEVEL) -> float | None:
    """The first time after which the error stays ≤ ``level`` with every ordering in every
    chain (``None``: never)."""
    return first_staying((seconds, np.where(complete, errors, np.inf)), level)


@dataclass
class Scored:
    """A contender's metrics (module docstring)."""

    error: float
    visited: list[int]
    curve: tuple[np.ndarray, np.ndarray, np.ndarray]
    to_level: float | None

    def as_json(self) -> dict:
        """The scores as plain JSON values."""
        return {"error": self.error, "visited": self.visited, "to_level": self.to_level,
                "curve": [self.curve[0].tolist(), self.curve[1].tolist()],
                "complete": self.curve[2].tolist()}


def score(draws: np.ndarray, weights: np.ndarray | None, before: float, sampling: float,
          total: float) -> Scored:
    """Every metric of ``draws`` (chains, draws, K): chains read by prefixes from ``before``
    over ``sampling`` seconds, or, with ``weights`` (one population's), one point at
    ``total``."""
    orders = orderings(draws)
    if weights is None:
        found = curve(orders, before, sampling)
        return Scored(error(orders), visited(orders), found, time_to_reach(*found))
    w = np.asarray(weights, float).reshape(orders.shape)
    final = error(orders, w)
    seen = visited(orders, w)
    point = (np.array([total]), np.array([final]), np.array([min(seen) == ORDERINGS]))
    return Scored(final, seen, point, time_to_reach(*point))
