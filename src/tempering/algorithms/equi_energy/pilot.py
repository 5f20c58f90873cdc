"""The pilot that places an equi-energy ladder before the run (``levels=auto``, the default of
``ee`` and ``mintee``): the number of levels K, the top temperature T_max, the energy ladder
H₀ < … < H_{K−1} and where the levels start (seed 003 §5.2, App. D.1; Kou, Zhou & Wong 2006).

What a compiled EE warmup cannot change — the number of levels is a static shape — is measured
once per run, from its own ``pilot_seed``, so every chain (and every chain layout) gets the same
ladder, which the resolved options record (``levels``, ``temperatures`` or MINTEE's ``batch``
and ``gamma``, ``energies``, ``start_point``). Nothing of it changes a level's target after the
pilot: level 0 stays π, and the ladder is frozen before any chain's warmup begins.

The pilot is one chain of parallel tempering on EE's untruncated tempered targets
π_T ∝ exp(−h/T), h = −log π (full data), at ``PILOT_RUNGS`` temperatures geometric from 1 to
``pilot_t_max``, each rung a random-walk Metropolis chain whose step is tuned in the first
quarter (:func:`~tempering.algorithms.equi_energy.warmup.tune_step`), with non-reversible even/odd
swaps accepted with exp((1/T_i − 1/T_{i+1})(h_i − h_{i+1})) (seed 000 Eq. 2). The hot rungs carry
states across barriers and the swaps bring them down, so the pilot reads the lowest energy of
*every* basin its hot rungs reach — where a chain's own pilot at T = 1 from a poor start (a
mixture component stranded in the prior's tail) sets H₀ on a plateau tens of nats up, and
level 0 then never accepts a jump (the failure this pilot was written for, see
:mod:`tempering.algorithms.equi_energy.sampler`). Over 12 pilot seeds on that mixture it read the
modes' energy every time. From the pilot:

- H₀ = the lowest energy it read (any rung, any scan), and ``start_point`` = where: every
  chain's levels start there (each chain's own warmup pilot then takes its levels up from it).
  A level that starts on the plateau stays there — EE jumps keep the energy ring, and a
  component in the prior's tail comes back to the data by a slow random walk: with the
  pilot's ladder but each chain's own prior draw, level 0 never changed ordering in 4 and 3 of
  16 chains (seeds 1, 2); from the pilot's point, in none of 16 × 3 seeds;

and from its second half, per rung j:

- the local barrier λ(β) = ½ E|h − h′| (h, h′ independent draws of π_T, β = 1/T; Syed et al.
  2021's λ for a path of tempered targets, here the whole posterior tempered), estimated by half
  the Gini mean difference of the rung's energies, and Λ̂(β) = ∫_β^1 λ (trapezoid in ln β);
- the heat capacity C(T) = Var_T(h)/T² (d/2 at every T for a d-dimensional Gaussian).

Placement (:func:`place_ladder`):

1. T_max (unless given): a posterior whose basins are separated by a barrier "melts" at some T —
   its tempered energy distribution moves from the basins to the broad region that joins them,
   and the heat capacity peaks there, where the two coexist. T_max is the hottest pilot rung
   whose C exceeds ``MELT_FACTOR`` × the median C over the grid, and at least ``TOP_FLOOR`` (a
   target with no transition: its barriers are within the thermal energy of moderate T). On
   the label-switching mixture of :mod:`tempering.algorithms.equi_energy.sampler` the melted rungs
   are T 11.7 and 21.5, and T_max = 21.5; a sixth level one rung hotter (T 39.8) lived on the
   plateau and never changed ordering (median of 16 chains, 4000 draws), adding a level's cost and
   nothing to level 0's 123 changes of ordering.
2. K = max(2, ⌈2Λ̂⌉ + 1) with Λ̂ = Λ̂(1/T_max) (Syed et al. 2021 §5.3's advice for PT's rungs,
   as ``rungs=auto`` uses), the temperatures placed at equal Λ̂ between 1 and T_max (EE); MINTEE
   keeps its geometric batches (seed 003 App. D.2), the top batch giving T_max.
3. H_k for k ≥ 1 is the ``RING_QUANTILE`` quantile of the pilot's energies at T_{k−1}
   (interpolated in log T between pilot rungs): level k is flat below where level k−1 mostly
   lives, so level k−1's energy rings are the ones level k fills. (Kou et al.'s
   H_{k+1} = H_k + c T_k, which an explicit ladder keeps, spaces them by T_k alone, whatever the
   dimension.) Measured on that mixture (median changes of ordering at level 0 in 4000 draws,
   16 chains): quantile 0.5: 168, 0.9: 122–128, 0.99: 76, the fixed ladder (c = 10, T_max
   20, 5 levels, from the pilot's point) 40; 0.5 also on the n = 300 mixture of
   ``tests/equi_energy/test_ee_auto.py`` (164 against 132), but on ``modes2d`` its shares were
   further from the exact weights (mode 0: 0.263 against 0.142; 0.9: 0.123).

The pilot is counted: :class:`EEPilotRecord` goes into the sampler's facts as ``pilot``, and the
driver adds its seconds and cost (full-data evaluations) to the run's (``wall_seconds_pilot``,
``cost_pilot``), as it does for PT's pilot (:mod:`tempering.algorithms.pt.pilot`).
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms.equi_energy.warmup import tune_step
from tempering.models.base import Model
from tempering.numerics import compile_lowered

Array = jax.Array

#: Temperatures of the pilot's grid (geometric from 1 to ``pilot_t_max``).
PILOT_RUNGS = 16
#: A rung "melts" when its heat capacity exceeds this many times the grid's median.
MELT_FACTOR = 2.0
#: The lowest top temperature the pilot places (the fixed ladder's default was 20).
TOP_FLOOR = 10.0
#: H_k (k ≥ 1) is this quantile of the energies at T_{k−1}.
RING_QUANTILE = 0.9
#: Acceptance the pilot's random-walk steps are tuned towards.
PILOT_ACCEPT = 0.3


class EEPilotRecord(NamedTuple):
    """What an EE pilot did: it is part of the run, shown and counted.

    Attributes
    ----------
    scans
        Parallel-tempering scans of the pilot's one chain (tuning included).
    rungs, placed_rungs
        Temperatures of its grid, and levels it placed (K).
    barrier
        Λ̂ from T = 1 to T_max.
    t_max, melt
        The top temperature placed, and the hottest rung that melted (NaN: none did).
    h0
        The lowest energy the pilot read (H₀).
    seconds, compile_seconds
        Wall seconds of its run and of its compilation.
    cost
        Its likelihood work, full-data evaluations.
    """

    scans: int
    rungs: int
    placed_rungs: int
    barrier: float
    t_max: float
    melt: float
    h0: float
    seconds: float
    compile_seconds: float
    cost: float

    def as_fact(self) -> dict[str, Any]:
        fact: dict[str, Any] = {k: (float(v) if isinstance(v, float) else int(v))
                                for k, v in self._asdict().items()}
        return {**fact, "unit": "levels"}


class PilotState(NamedTuple):
    """The pilot's chain: one state per rung (rungs swap states, not temperatures)."""

    position: Array  # (J, d)
    energy: Array  # (J,)
    step: Array  # (J,) random-walk scale per rung
    moves: Array  # (J,) accepted moves in the current tuning window
    lowest: Array  # () the lowest energy read so far
    lowest_at: Array  # (d,) where


def energy_of(model: Model):
    """h(θ) = −log π(θ), +∞ where the density is not finite."""
    def energy(theta: Array) -> Array:
        value = -model.log_density(theta)
        return jnp.where(jnp.isfinite(value), value, jnp.inf)
    return energy


def deo_swap(key: jax.Array, t: jax.Array, temps: jax.Array, energies: jax.Array,
             positions: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Non-reversible even/odd swaps of tempered states (seed 000 Eq. 2): at scan t the pairs
    (i, i+1) with i ≡ t (mod 2) swap with probability min(1, exp((1/T_i − 1/T_{i+1})(h_i −
    h_{i+1}))). Returns the positions and energies, rung by rung."""
    rungs = temps.shape[0]
    pair = jnp.arange(rungs - 1)
    log_a = (1.0 / temps[:-1] - 1.0 / temps[1:]) * (energies[:-1] - energies[1:])
    swap = ((pair % 2) == (t % 2)) & (jnp.log(jax.random.uniform(key, (rungs - 1,))) < log_a)
    index = jnp.arange(rungs)
    up = jnp.concatenate([swap, jnp.zeros(1, bool)])  # rung i takes i+1's state
    down = jnp.concatenate([jnp.zeros(1, bool), swap])  # rung i+1 takes i's
    partner = jnp.where(up, index + 1, jnp.where(down, index - 1, index))
    return positions[partner], energies[partner]


def pilot_scan(energy, temps: Array, tune_until: int, state: PilotState, key: Array,
               t: Array) -> tuple[PilotState, Array]:
    """One scan: a random-walk move on every rung (step tuned while t < ``tune_until``), then
    the even (t even) or odd pairs (i, i+1) swap with probability
    min(1, exp((1/T_i − 1/T_{i+1})(h_i − h_{i+1}))). Returns the new state and the energies."""
    k_move, k_acc, k_swap = jax.random.split(key, 3)
    rungs = temps.shape[0]
    proposal = state.position + state.step[:, None] * jax.random.normal(k_move,
                                                                        state.position.shape)
    energy_y = jax.vmap(energy)(proposal)
    log_u = jnp.log(jax.random.uniform(k_acc, (rungs,)))
    accept = log_u < -(energy_y - state.energy) / temps
    position = jnp.where(accept[:, None], proposal, state.position)
    energies = jnp.where(accept, energy_y, state.energy)
    tuned, counted = jax.vmap(tune_step, (0, 0, None, None))(
        state.step, state.moves + accept.astype(jnp.int32), t, PILOT_ACCEPT)
    tuning = t < tune_until
    step = jnp.where(tuning, tuned, state.step)
    moves = jnp.where(tuning, counted, state.moves + accept.astype(jnp.int32))
    position, energies = deo_swap(k_swap, t, temps, energies, position)
    best = jnp.argmin(energies)
    lower = energies[best] < state.lowest
    new = PilotState(position, energies, step, moves,
                     jnp.where(lower, energies[best], state.lowest),
                     jnp.where(lower, position[best], state.lowest_at))
    return new, new.energy


def run_pilot(model: Model, temps: np.ndarray, scans: int, seed: int
              ) -> tuple[np.ndarray, float, np.ndarray, float, float]:
    """The pilot's energies over its second half, (scans − scans//2, J), the lowest energy it
    read and where, its wall seconds and its compile seconds. One compilation; temperatures
    traced."""
    energy = energy_of(model)
    rungs = len(temps)

    def pilot(seed, temperatures):  # the chain's start inside: nothing runs op by op
        k_start, key = jax.random.split(jax.random.PRNGKey(seed))
        start = jnp.asarray(model.init_position(k_start), float)
        positions = jnp.broadcast_to(start, (rungs, start.shape[0]))
        energies = jax.vmap(energy)(positions)
        state = PilotState(positions, energies, 0.1 * jnp.sqrt(temperatures),
                           jnp.zeros(rungs, jnp.int32), energies[0], start)

        def body(state, key_t):
            return pilot_scan(energy, temperatures, scans // 4, state, *key_t)

        state, trace = jax.lax.scan(body, state, (jax.random.split(key, scans),
                                                  jnp.arange(scans)))
        return trace[scans // 2:], state.lowest, state.lowest_at

    t0 = time.perf_counter()
    args = (np.int64(seed), np.asarray(temps, np.float64))
    compiled = compile_lowered(jax.jit(pilot).lower(*args), sampling=False)
    t1 = time.perf_counter()
    trace, lowest, lowest_at = jax.block_until_ready(compiled(*args))
    return (np.asarray(trace), float(lowest), np.asarray(lowest_at), time.perf_counter() - t1,
            t1 - t0)


def local_barrier(energies: np.ndarray) -> np.ndarray:
    """λ̂ per rung: half the Gini mean difference E|h − h′| of its energies (axis 0 draws)."""
    draws = np.sort(np.asarray(energies, dtype=float), axis=0)
    n = draws.shape[0]
    weights = (2.0 * np.arange(1, n + 1) - n - 1)[:, None]
    return np.sum(weights * draws, axis=0) / (n * (n - 1))


def heat_capacity(energies: np.ndarray, temps: np.ndarray) -> np.ndarray:
    """C(T_j) = Var_{T_j}(h)/T_j² per rung."""
    return np.var(np.asarray(energies, dtype=float), axis=0) / np.asarray(temps) ** 2


def top_temperature(temps: np.ndarray, capacity: np.ndarray) -> tuple[float, float]:
    """T_max from the heat capacity (module docstring, 1.) and the hottest melted rung's T
    (NaN when none melted)."""
    melted = np.flatnonzero(capacity > MELT_FACTOR * np.median(capacity))
    if melted.size == 0:
        return TOP_FLOOR, float("nan")
    melt = float(temps[int(melted[-1])])
    return max(melt, TOP_FLOOR), melt


def cumulative_barrier(temps: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Λ̂ from β = 1 to each rung's β = 1/T_j (0 at the first rung): ∫ λ dβ = ∫ λβ d(ln β),
    trapezoid in ln β — exact where λ ∝ 1/β (a Gaussian target's λ(β) = c_d/β), which a
    trapezoid in β on a grid 1.85 apart overestimates by 6 %."""
    log_t = np.log(np.asarray(temps, dtype=float))
    g = np.asarray(lam, dtype=float) / np.asarray(temps, dtype=float)  # λβ
    pieces = 0.5 * (g[1:] + g[:-1]) * (log_t[1:] - log_t[:-1])
    return np.concatenate([[0.0], np.cumsum(pieces)])


def equal_barrier_temperatures(temps: np.ndarray, lam: np.ndarray, t_max: float,
                               levels: int | None = None) -> tuple[np.ndarray, float]:
    """K temperatures from 1 to ``t_max`` at equal Λ̂ (K = max(2, ⌈2Λ̂⌉ + 1) unless ``levels``),
    and Λ̂ = Λ̂(1/t_max). Λ̂ is linear in ln T between rungs."""
    log_t = np.log(np.asarray(temps, dtype=float))
    cumulative = cumulative_barrier(temps, lam)
    total = float(np.interp(np.log(t_max), log_t, cumulative))
    count = max(2, int(np.ceil(2.0 * total)) + 1) if levels is None else int(levels)
    targets = np.linspace(0.0, total, count)
    placed = np.exp(np.interp(targets, cumulative, log_t))
    placed[0], placed[-1] = 1.0, t_max
    return np.maximum.accumulate(placed), total


def energy_ladder(temps: np.ndarray, energies: np.ndarray, placed: np.ndarray,
                  h0: float) -> np.ndarray:
    """H₀ = ``h0`` and H_k = the ``RING_QUANTILE`` quantile of the energies at T_{k−1}
    (interpolated in log T between the pilot's rungs), kept strictly increasing."""
    quantiles = np.quantile(np.asarray(energies, dtype=float), RING_QUANTILE, axis=0)
    log_t = np.log(np.asarray(temps, dtype=float))
    ladder = [float(h0)]
    for t_below in placed[:-1]:
        value = float(np.interp(np.log(t_below), log_t, quantiles))
        ladder.append(max(value, ladder[-1] + 1e-6 * max(1.0, abs(ladder[-1]))))
    return np.asarray(ladder)


class PilotPlacement(NamedTuple):
    """What the pilot measured and placed (before any sampler-specific rounding)."""

    temps: np.ndarray  # the pilot's grid
    energies: np.ndarray  # (draws, rungs)
    lam: np.ndarray  # λ̂ per rung
    t_max: float
    melt: float
    h0: float
    start: np.ndarray  # where the pilot read H₀: every chain's levels start there
    seconds: float
    compile_seconds: float
    cost: float
    scans: int


def measure(model: Model, *, scans: int, seed: int, t_cap: float,
            t_max: float | None = None) -> PilotPlacement:
    """Run the pilot and read off λ̂, T_max (``t_max`` when given) and H₀."""
    temps = np.geomspace(1.0, max(t_cap, t_max or 1.0), PILOT_RUNGS)
    energies, lowest, lowest_at, seconds, compile_seconds = run_pilot(model, temps, scans, seed)
    top, melt = top_temperature(temps, heat_capacity(energies, temps))
    top = min(float(t_max) if t_max is not None else top, float(temps[-1]))
    cost = float(PILOT_RUNGS * (scans + 1))
    return PilotPlacement(temps, energies, local_barrier(energies), top, melt, lowest,
                          lowest_at, seconds, compile_seconds, cost, scans)


def record(placement: PilotPlacement, temperatures: np.ndarray,
           energies: np.ndarray) -> EEPilotRecord:
    """The :class:`EEPilotRecord` of a placement whose ladder is ``temperatures`` and
    ``energies`` (Λ̂ read up to the placed T_max)."""
    _, total = equal_barrier_temperatures(placement.temps, placement.lam,
                                          float(temperatures[-1]), len(temperatures))
    return EEPilotRecord(placement.scans, len(placement.temps), len(temperatures), total,
                         float(temperatures[-1]), placement.melt, float(energies[0]),
                         placement.seconds, placement.compile_seconds, placement.cost)


def place_ladder(placement: PilotPlacement) -> tuple[np.ndarray, np.ndarray]:
    """EE's ladder from a placement: temperatures at equal Λ̂ up to T_max, and the energies."""
    temperatures, _ = equal_barrier_temperatures(placement.temps, placement.lam,
                                                 placement.t_max)
    return temperatures, energy_ladder(placement.temps, placement.energies, temperatures,
                                       placement.h0)
