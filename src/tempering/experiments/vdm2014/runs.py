"""Timed runs for the vdm2014 reproduction: three chains from θ*, θ*/2, 2θ*, compile time apart
(:func:`tempering.experiments.timing.time_chains`). No warmup is run (the paper's samplers use
fixed step sizes and discard the first half of the draws as burn-in, §2.4).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from tempering import SAMPLERS, get_model, get_sampler
from tempering.algorithms import Algorithm
from tempering.estimators import ess_between_chain, gelman_rubin
from tempering.experiments.timing import time_chains
from tempering.kernels import KERNELS
from tempering.lazy_arviz import arviz
from tempering.models import Model, gp_regression_prior_mean

#: The label of "the inner sampler alone" in the paper's tables (not a sampler's name).
BASE = "base"
#: The paper's names of the inner samplers.
INNER_LABEL = {"rwm": "MH", "hmc": "HMC"}

#: Inner-sampler settings of §4.3: HMC ε = 0.01 with L = 10 (MVN) or 5 (GP); MH σ = 0.1.
HMC_STEPS = {"mvn_mean": 10, "gp_regression": 5}
STEP_SIZE = {"hmc": 0.01, "rwm": 0.1}
#: Ladder of §4.3: M = 6 auxiliary distributions (7 rungs), β_* = 1/8, swaps M..1 ("sweep").
LADDER: dict[str, int | float | str] = {"rungs": 7, "beta_min": 0.125, "inner_steps": 1,
                                        "swap": "sweep", "schedule": "fixed"}
LADDER_RUNGS = 7


def theta_star(model_name: str, dim: int) -> np.ndarray:
    """θ*, the prior mean of the sampler's (unconstrained) parameters (§4, "Sampling procedure").

    GP regression (Eqs. 23-25): the prior mean of the *log*-parameters, E[log ℓ_d] = μ_0 = 0.5,
    E[log σ_f] = ψ(a_f) − log b_f, E[log σ_n] = ψ(a_n) − log b_n. Multivariate Gaussian (Eq. 20):
    the prior mean is 0, which would make θ*, θ*/2 and 2θ* identical, so we use θ* = σ_0 · 1 (one
    prior standard deviation in every coordinate) instead — a deviation from the paper.

    Parameters
    ----------
    model_name
        ``"gp_regression"`` or ``"mvn_mean"``.
    dim
        |θ| (for the GP, D + 2 with D covariates).
    """
    if model_name == "gp_regression":
        return gp_regression_prior_mean(dim - 2)
    return np.ones(dim)


def initial_points(model_name: str, dim: int) -> np.ndarray:
    """The paper's three starting points θ*, θ*/2, 2θ* (§4), shape (3, dim)."""
    star = theta_star(model_name, dim)
    return np.stack([star, star / 2, 2 * star])


@lru_cache(maxsize=16)
def build_model(model_name: str, n: int, dim: int) -> Model:
    """The synthetic data set with ``data_seed=0`` (one seed per sweep, §4.1); ``dim`` is |θ|."""
    data_dim = dim - 2 if model_name == "gp_regression" else dim
    return get_model(model_name, n=n, dim=data_dim, data_seed=0)


def sampler_options(model_name: str, sampler: str, inner: str) -> dict:
    """Options of ``sampler`` ("base" = the inner sampler alone), paper's settings (§4.3)."""
    kernel: dict = {"step_size": STEP_SIZE[inner]}
    if "adapt_step_size" in KERNELS.get(inner).options.model_fields:  # the paper's fixed ε
        kernel["adapt_step_size"] = False
    if "num_steps" in KERNELS.get(inner).options.model_fields:  # HMC's L
        kernel["num_steps"] = HMC_STEPS[model_name]
    if sampler == BASE:
        return kernel
    fields = SAMPLERS.get(sampler).options.model_fields
    ladder = {k: v for k, v in LADDER.items() if k in fields}  # `swap`, `schedule`: PT, SPT
    return {"inner": inner, **ladder, **kernel}


@dataclass
class RunRecord:
    """One timed run: unconstrained draws (C, S, d), cost per draw (C, S) and timings.

    ``chunk_seconds[k]`` is the wall time of chunk k (``chunk_draws`` draws) averaged over the
    chains, which run one after another; ``compile_seconds`` is the ahead-of-time compilation of
    the chunk function (shared by the chains).
    """

    model_name: str
    n: int
    dim: int
    sampler: str
    inner: str
    draws: np.ndarray
    cost: np.ndarray
    chunk_draws: int
    chunk_seconds: list[float]
    compile_seconds: float
    options: dict = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        """Sampling wall time per chain (mean over chains), compilation excluded."""
        return float(np.sum(self.chunk_seconds))

    @property
    def seconds_per_draw(self) -> float:
        """Wall seconds per draw of one chain (compilation excluded)."""
        return self.seconds / self.draws.shape[1]


def timed_run(model_name: str, n: int, dim: int, sampler: str, inner: str, draws: int,
              chunks: int, seed: int = 2014) -> RunRecord:
    """Run 3 chains from θ*, θ*/2, 2θ* for ``draws`` draws each, without warmup.

    Parameters
    ----------
    model_name, n, dim
        Model, number of observations N and |θ|.
    sampler
        ``"base"`` (the inner sampler alone), ``"pt"``, ``"spt"``, ``"tt"`` or ``"stt"``.
    inner
        ``"hmc"`` or ``"rwm"`` (the paper's MH).
    draws, chunks
        Draws per chain and the number of equal jitted chunks (``draws`` is rounded up to a
        multiple of ``chunks``).
    seed
        Integer seed; chain c uses ``fold_in(seed, c)``.
    """
    model = build_model(model_name, n, dim)
    name = inner if sampler == BASE else sampler
    algorithm = get_sampler(name, model, **sampler_options(model_name, sampler, inner))
    timed = time_chains(algorithm, initial_points(model_name, dim), draws, chunks, seed,
                        precision=model.precision)
    return RunRecord(model_name, n, dim, sampler, inner, timed.draws, timed.cost,
                     timed.chunk_draws, timed.chunk_seconds, timed.compile_seconds,
                     described(algorithm))


def described(algorithm: Algorithm) -> dict:
    """A run's sampler options and ladder facts in one dict (what the cost model reads:
    ``rung_costs``, ``inner_steps``, ``swap``)."""
    options = {} if algorithm.options is None else algorithm.options.model_dump()
    return {**options, **algorithm.facts}


def efficiency(record: RunRecord) -> dict:
    """Median over dimensions of the paper's diagnostics on the second half of the draws (§2.4).

    Returns a dict with ``ess_eq8`` (median ESS of Eq. 8 over all chains), ``ess_per_s`` (that
    ESS divided by the sampling wall time of the whole run, both halves, compilation excluded),
    ``rhat_eq7`` (median R-hat of Eq. 7), ``converged`` (median R-hat < 1.1, §4),
    ``arviz_ess`` / ``arviz_rhat`` (medians of ArviZ's rank-normalised bulk ESS and R-hat),
    ``seconds``, ``compile_seconds`` and ``cost_per_draw`` (mean counted cost).
    """
    az = arviz()
    half = record.draws.shape[1] // 2
    kept = record.draws[:, half:, :]
    ess = np.asarray(ess_between_chain(kept))
    rhat = np.asarray(gelman_rubin(kept).rhat)
    dataset = az.convert_to_dataset({"theta": kept})
    az_ess = np.asarray(az.ess(dataset)["theta"])
    az_rhat = np.asarray(az.rhat(dataset)["theta"])
    return {
        "ess_eq8": float(np.median(ess)),
        "ess_per_s": float(np.median(ess)) / record.seconds,
        "rhat_eq7": float(np.median(rhat)),
        "converged": bool(np.median(rhat) < 1.1),
        "arviz_ess": float(np.median(az_ess)),
        "arviz_rhat": float(np.median(az_rhat)),
        "seconds": record.seconds,
        "compile_seconds": record.compile_seconds,
        "cost_per_draw": float(record.cost.mean()),
    }


def rhat_trace(record: RunRecord) -> list[tuple[int, float, float]]:
    """Median R-hat (Eq. 7) after each chunk, first half of the draws so far discarded (Fig. 2).

    Returns
    -------
    list of (draws, wall seconds, median R-hat)
        One entry per chunk end with at least 4 draws per chain; wall time excludes compilation.
    """
    out = []
    elapsed = 0.0
    for k, secs in enumerate(record.chunk_seconds):
        elapsed += secs
        s = (k + 1) * record.chunk_draws
        if s < 4:
            continue
        kept = record.draws[:, s // 2:s, :]
        out.append((s, elapsed, float(np.median(gelman_rubin(kept).rhat))))
    return out


class Runner:
    """Runs :func:`timed_run` once per (model, N, |θ|, sampler, inner) and prints progress."""

    def __init__(self, draws: int, chunks: int, log: Callable[[str], None] = print):
        self.draws, self.chunks, self.log = draws, chunks, log
        self.cache: dict[tuple, RunRecord] = {}

    def fan_out(self, configs: Iterable[tuple[str, int, int, str, str]], client: Any) -> None:
        """Run every (model, N, |θ|, sampler, inner) in ``configs`` as a task on the Dask
        ``client``'s workers and keep the records (what the tables then read). The timings are
        each task's own: tasks that share a machine's cores slow each other down."""
        from distributed import as_completed

        todo = sorted(set(configs) - set(self.cache))
        futures = {client.submit(timed_run, *config, self.draws, self.chunks, pure=False): config
                   for config in todo}
        for i, future in enumerate(as_completed(futures), 1):
            config = futures[future]
            self.cache[config] = rec = future.result()
            self.log(f"  [{i}/{len(todo)}] run {' '.join(map(str, config))}: {rec.seconds:.1f}s "
                     f"sampling per chain, compile {rec.compile_seconds:.1f}s (on a worker)")

    def __call__(self, model: str, n: int, dim: int, sampler: str, inner: str) -> RunRecord:
        """The (cached) run of ``sampler`` with ``inner`` on ``model`` of size N, |θ| = ``dim``."""
        key = (model, n, dim, sampler, inner)
        if key not in self.cache:
            t0 = time.perf_counter()
            rec = timed_run(model, n, dim, sampler, inner, self.draws, self.chunks)
            self.cache[key] = rec
            self.log(f"  run {model} N={n} |theta|={dim} {sampler}/{inner}: "
                     f"{rec.seconds:.1f}s sampling per chain, compile {rec.compile_seconds:.1f}s, "
                     f"total {time.perf_counter() - t0:.1f}s")
        return self.cache[key]
