"""The runs of the Neal (2010) reproduction (seed 004 §3) and what is measured on each.

Every Metropolis-type run gets the same budget of slow evaluations (the paper's fair comparison):
a joint update costs one, a single-variable or ensemble iteration one per slow variable (12 with
η and σ fast, the eigen split; 13 with η alone fast, the Cholesky split, whose slow variables are
log ν and log ψ). NUTS, the baseline a user would pick today, gets the wall-clock seconds of the
grid ensemble with η and σ fast on the same seed, after its own 500-step window adaptation.

On each chain (the first 10 % dropped): the ESS of log σ, log η and mean log ν (ArviZ), per 1000
slow evaluations and per second of sampling; τ of log σ in iterations; the mode switches of log σ
(modes split at the valley of a pilot histogram, with hysteresis so that jitter at the valley is
not counted); the share of draws in the low-σ mode; and the rejection rate of every variable (the
share of iterations that left it unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from tempering.algorithms import get_sampler
from tempering.experiments.neal2010 import paper
from tempering.experiments.timing import TimedChains, time_chains
from tempering.lazy_arviz import arviz
from tempering.models import Model
from tempering.precision import scope

HYSTERESIS = 0.15  # log σ units either side of the valley before a switch counts
BURN_FRACTION = 0.1
NUTS_WARMUP = 500
CHUNKS = 10  # timed chunks per chain


@dataclass(frozen=True)
class Run:
    """One of the reproduction's samplers: its key, label, the paper's figure (0: not in the
    paper), sampler name and options, its slow evaluations per iteration, and whether its budget
    is the grid ensemble's wall clock (NUTS) instead of slow evaluations."""

    key: str
    label: str
    figure: int
    sampler: str
    options: dict[str, Any] = field(default_factory=dict)
    slow_per_iteration: int = 1
    wall_clock: bool = False


def runs(p: int) -> list[Run]:
    """Figs. 2–5's runs and NUTS, for p covariates (the grid-eigen ensemble before NUTS, whose
    wall-clock budget it sets)."""
    nu, eta, sigma, psi = (paper.SINGLE_SCALES[k] for k in
                           ("log_nu", "log_eta", "log_sigma", "log_psi"))
    single = {"fast": "eta_sigma", "scale": nu, "fast_scale": [eta, sigma]}
    out = [Run(f"joint-{s}", f"joint RWM, s = {s}", 2, "rwm", {"step_size": s})
           for s in paper.JOINT_SCALES]
    out += [Run("single", "single-variable RWM", 3, "coordinate_rwm", single, p),
            Run("single+49", f"single-variable RWM + {paper.EXTRA_FAST} fast", 3,
                "coordinate_rwm", {**single, "extra_fast": paper.EXTRA_FAST}, p)]
    for fast, figure, slow, scales in (("eta_sigma", 4, p, nu),
                                       ("eta", 5, p + 1, [nu] * p + [psi])):
        split = "eigen" if fast == "eta_sigma" else "Cholesky"
        for ensemble in ("independent", "exchangeable", "grid"):
            out.append(Run(f"{ensemble}-{split}", f"{ensemble} ensemble, {split}", figure,
                           "ensemble", {"fast": fast, "ensemble": ensemble,
                                        "size": paper.ENSEMBLE_SIZE, "slow_scale": scales,
                                        "scale": paper.EXCHANGEABLE_SCALE}, slow))
    out.append(Run("nuts", "NUTS (same wall clock as the grid ensemble, eigen)", 0, "nuts",
                   wall_clock=True))
    return out


def start_point(p: int) -> np.ndarray:
    """Every chain starts at the prior means: log ν_h = log 0.5, log η = 0, log σ = log 0.5."""
    return np.r_[np.full(p, np.log(0.5)), 0.0, np.log(0.5)][None, :]


def run_metropolis(model: Model, run: Run, budget: int, seed: int, chains: int) -> TimedChains:
    """``chains`` chains (one per seed: chain c's key is ``fold_in(key(seed), c)``) of at most
    ``budget`` slow evaluations each (whole chunks: within 10 iterations of it) from
    :func:`start_point`, compiled once; their time is the mean over chains."""
    algorithm = get_sampler(run.sampler, model, **run.options)
    iterations = budget // run.slow_per_iteration
    iterations = max(CHUNKS, iterations - iterations % CHUNKS)  # never over the budget
    start = np.repeat(start_point(model.dim - 2), chains, axis=0)
    return time_chains(algorithm, start, iterations, CHUNKS, seed, precision=model.precision)


def run_nuts(model: Model, seconds: float, seed: int, warmup_steps: int = NUTS_WARMUP
             ) -> TimedChains:
    """NUTS after ``warmup_steps`` window-adaptation steps, for about ``seconds`` of sampling
    (the time per draw measured on 40 draws first)."""
    algorithm = get_sampler("nuts", model)
    key = jax.random.key(seed)
    with scope(model.precision):  # a built sampler's functions called by hand run there
        state = jax.jit(algorithm.init)(key, start_point(model.dim - 2)[0])
        warmup = jax.jit(algorithm.warmup, static_argnums=3)
        state, params, _ = warmup(key, state, algorithm.params, warmup_steps)
    tuned = algorithm._replace(params=params)
    position = np.asarray(algorithm.position(state))[None, :]
    pilot = time_chains(tuned, position, 40, 1, seed + 1, precision=model.precision)
    draws = int(np.clip(seconds / (sum(pilot.chunk_seconds) / 40), 100, 10**6))
    return time_chains(tuned, position, draws, 10, seed, precision=model.precision)


def series(draws: np.ndarray, p: int) -> dict[str, np.ndarray]:
    """log σ, log η and mean log ν of one chain's draws (S, p + 2)."""
    return {"log_sigma": draws[:, p + 1], "log_eta": draws[:, p],
            "mean_log_nu": draws[:, :p].mean(axis=1)}


def sigma_valley(log_sigma: np.ndarray, width: float = 0.25,
                 least: float = 0.05) -> dict[str, float] | None:
    """The two modes of log σ in a pilot histogram (bins of ``width``, not smoothed: the
    smaller mode is a shoulder of a few bins) and the deepest valley between the highest peak
    and the next one at least ``least`` of its height (stray bins in a tail are not modes) and
    at least 20 % above the valley; ``None`` if there is no such pair."""
    edges = np.arange(np.floor(log_sigma.min()), np.ceil(log_sigma.max()) + width, width)
    counts, edges = np.histogram(log_sigma, bins=edges)
    heights = counts.astype(float)
    centres = 0.5 * (edges[1:] + edges[:-1])
    peaks = [i for i in range(len(heights)) if heights[i] > 0
             and (i == 0 or heights[i] >= heights[i - 1])
             and (i == len(heights) - 1 or heights[i] > heights[i + 1])]
    peaks = sorted(peaks, key=lambda i: -heights[i])
    for other in [i for i in peaks[1:] if heights[i] >= least * heights[peaks[0]]]:
        lo, hi = sorted((peaks[0], other))
        if hi - lo < 2:
            continue
        valley = lo + int(np.argmin(heights[lo:hi + 1]))
        if heights[valley] < 0.8 * min(heights[lo], heights[hi]):
            return {"valley": float(centres[valley]), "low_peak": float(centres[lo]),
                    "high_peak": float(centres[hi]),
                    "low_share": float(np.mean(log_sigma < centres[valley]))}
    return None


def mode_switches(log_sigma: np.ndarray, valley: float, band: float = HYSTERESIS) -> int:
    """Moves between log σ < valley − band and log σ > valley + band."""
    side = np.where(log_sigma < valley - band, -1, np.where(log_sigma > valley + band, 1, 0))
    visited = side[side != 0]
    return int(np.sum(visited[1:] != visited[:-1]))


def measure(timed: TimedChains, chain: int, p: int, valley: float | None) -> dict[str, float]:
    """The per-chain figures of the module docstring, for chain ``chain`` of ``timed``."""
    az = arviz()
    draws = timed.draws[chain]
    total = draws.shape[0]
    burn = int(BURN_FRACTION * total)
    kept = draws[burn:]
    cost = np.asarray(timed.stats.get("slow_evals", timed.cost))[chain]
    slow = float(np.sum(cost[burn:]))
    seconds = float(np.sum(timed.chunk_seconds)) * (total - burn) / total
    out: dict[str, float] = {"iterations": float(total), "slow_evals": float(np.sum(cost)),
                             "seconds": float(np.sum(timed.chunk_seconds)),
                             "ms_per_slow": 1e3 * float(np.sum(timed.chunk_seconds))
                             / max(float(np.sum(cost)), 1.0),
                             "compile_seconds": timed.compile_seconds}
    for name, values in series(kept, p).items():
        ess = float(az.ess(values[None, :])) if np.ptp(values) > 0 else 0.0
        out[f"ess_{name}"] = ess
        out[f"ess_per_1000_slow_{name}"] = 1000.0 * ess / slow
        out[f"ess_per_s_{name}"] = ess / seconds
    out["tau_log_sigma"] = kept.shape[0] / max(out["ess_log_sigma"], 1e-12)
    rejection = 1.0 - np.mean(np.diff(kept, axis=0) != 0, axis=0)
    out["rejection_min"], out["rejection_max"] = float(rejection.min()), float(rejection.max())
    if valley is not None:
        log_sigma = kept[:, p + 1]
        out["switches"] = float(mode_switches(log_sigma, valley))
        out["switches_per_s"] = out["switches"] / seconds
        out["low_sigma_share"] = float(np.mean(log_sigma < valley))
    return out


def thinned_trace(timed: TimedChains, p: int, points: int = 1000) -> dict[str, np.ndarray]:
    """Every (S/points)-th iteration of mean ν_h, η and σ (Figs. 2–5's quantities)."""
    draws = timed.draws[0]
    step = max(1, draws.shape[0] // points)
    picked = draws[step - 1::step]
    return {"iteration": np.arange(step, step * picked.shape[0] + 1, step),
            "mean_nu": np.exp(picked[:, :p]).mean(axis=1), "eta": np.exp(picked[:, p]),
            "sigma": np.exp(picked[:, p + 1])}
