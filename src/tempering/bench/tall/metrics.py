"""Scoring a contender's draws against the reference.

- **Error** (:func:`error`): the largest error of a mean or a standard deviation over the
  coefficients, in the reference's standard deviations,

      max_j max(|m̂_j − m_j|, |ŝ_j − s_j|) / s_j,

  with m̂, ŝ the mean and sd (divisor K) of every chain's draws together and m, s the
  reference's; non-finite draws give ∞.
- **Error against time** (:func:`curve`): the error of the first k draws of every chain together
  at :data:`CURVE_POINTS` prefixes, each at the time it was reached — the run's seconds before
  its first draw (start-up, compile, optimiser, warmup) plus the share k/K of its sampling
  seconds. The drivers' work after the last draw (the library's InferenceData, with ArviZ's
  import) is not in it: it is in the tables' ``other`` and ``total``.
- **Seconds to reach a level** (:func:`time_to_reach`): the first point of the curve after which
  the error stays at or below :data:`LEVEL` (``None``: never within the run).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CURVE_POINTS = 24
#: The accuracy the table's "to 0.1 sd" column asks for.
LEVEL = 0.1


def error(draws: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> float:
    """The error of ``draws`` (chains, draws, d) against a reference ``mean`` and ``sd``."""
    flat = np.asarray(draws, np.float64).reshape(-1, draws.shape[-1])
    if not np.all(np.isfinite(flat)):
        return float("inf")
    centred = flat - mean
    shift = centred.mean(axis=0)
    spread = np.sqrt(np.maximum((centred**2).mean(axis=0) - shift**2, 0.0))
    return float(max(np.max(np.abs(shift) / sd), np.max(np.abs(spread - sd) / sd)))


def prefixes(draws_per_chain: int, points: int = CURVE_POINTS) -> np.ndarray:
    """The prefix lengths k at which the curve is read (at most ``points``, the last all)."""
    return np.unique(np.ceil(np.linspace(0, draws_per_chain, points + 1)[1:]).astype(int))


def curve(draws: np.ndarray, mean: np.ndarray, sd: np.ndarray, before: float,
          sampling: float, points: int = CURVE_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """(seconds, errors) of the prefixes (module docstring); ``before`` is the run's seconds
    before its first draw, ``sampling`` its sampling seconds."""
    count = draws.shape[1]
    ks = prefixes(count, points)
    errors = np.array([error(draws[:, :k], mean, sd) for k in ks])
    return before + sampling * ks / count, errors


def time_to_reach(curve_: tuple[np.ndarray, np.ndarray], level: float = LEVEL) -> float | None:
    """The first time after which the curve's error stays ≤ ``level`` (``None``: never)."""
    seconds, errors = curve_
    above = np.nonzero(~(errors <= level))[0]
    first = 0 if above.size == 0 else int(above[-1]) + 1
    return None if first >= len(errors) else float(seconds[first])


@dataclass
class Scored:
    """A contender's metrics: its final error, its error-against-time curve and the seconds it
    took to reach :data:`LEVEL` (``None``: never)."""

    error: float
    curve: tuple[np.ndarray, np.ndarray]
    to_level: float | None


def score(draws: np.ndarray, mean: np.ndarray, sd: np.ndarray, before: float,
          sampling: float) -> Scored:
    """Every metric of ``draws`` against the reference ``mean`` and ``sd``."""
    found = curve(draws, mean, sd, before, sampling)
    return Scored(error(draws, mean, sd), found, time_to_reach(found))
