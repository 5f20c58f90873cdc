"""Seed 003 §4.1, Fig. 1: the mixture of Gaussians with tied means, the ratio of the tempered
posterior's mass near its two modes, from MINT's draws and from an exact grid.

Target. Data x_i ~ ½ N(θ₁, 2) + ½ N(θ₁ + θ₂, 2) drawn at θ* = (0, 1), prior N(0, 10) × N(0, 1).
MINT with batch m = n^τ and λ = ½τ samples, approximately, π_T for T = n^(1−λ). With the prior
left untempered the tempered target is unimodal (../shared/seeds/README.md, errata for 003), so
the runs temper the whole posterior: π_T ∝ (π₀ L)^(1/T) (MINT's ``temper_prior``), which is also
what BlackJAX's SGLD samples at temperature T. The likelihood is invariant under
M(θ₁, θ₂) = (θ₁ + θ₂, −θ₂), so the two modes are θ* and M(θ*) = (1, −1); the tempered prior tilts
their mass ratio by exp(β (log π₀(θ*) − log π₀(M θ*))) = e^(0.05 β) ≈ 1 (the grid computes it
exactly, and the flat-prior ratio, which is 1 by symmetry, as a check of the grid).

Samplers (each run starts from its own prior draw):

- MINT, reading b (Theorem 1's: one shared fresh batch for θ and θ′), RWM proposal with the step
  tuned to acceptance 0.30 by a pilot run (the paper's rule); reading a (the carried estimate,
  §3.2) beside it;
- tempered MCMC: MINT with the batch the whole data set (exact MH on π_T, same T), for the
  contours;
- the paper's controls SGLD and SGHMC at T = 1 (the true posterior), and SGLD at MINT's T (the same
  tempered target): does tempering or the MH test make MINT cross between the modes?

The mode ratio of a run after t iterations is (draws within radius r of θ*) / (draws within r of
M(θ*)); the figure shows its mean over runs with one-SE bars, beside the exact grid ratio.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms import get_sampler
from tempering.experiments.li_wong import paper
from tempering.experiments.li_wong.loop import Driver, pilot_params
from tempering.models import Model, get_model, mode_mass_ratio, tied_means_grid_log_density

SEED = 41
#: SGLD's h and SGHMC's ε² in units of the mean log-likelihood ("learning rates" h n): at T = 1,
#: h n = 0.01 (h P ≈ 0.005 for the per-datum Fisher information ≈ ½ of this model, and the batch
#: gradient's noise, variance h² n² σ²/m per step, below the injected 2h); at MINT's T the
#: injected noise is T times larger, so h n = 0.1 is as accurate.
SG_RATE_COLD = 0.01
SG_RATE = 0.1
#: SGHMC's friction per Euler step in the SGD-momentum form (a = α ε; momentum 1 − a).
SGHMC_FRICTION = 0.1
SGHMC_STEPS = 10


@dataclass(frozen=True)
class TiedSettings:
    """Sizes of the tied-means part (``li_wong.settings`` fills them)."""

    n: int
    batch: int
    iterations: int
    runs: int
    chunks: int
    radius: float
    control_iterations: int
    control_runs: int
    tempered_runs: int
    tempered_iterations: int
    pilot: int
    grid: int
    disc_points: int
    keep: int


def tied_model(cfg: TiedSettings) -> Model:
    return get_model("tied_means", n=cfg.n, data_seed=0, theta_true=list(paper.TIED_THETA_TRUE),
                     noise_var=paper.TIED_NOISE_VAR, prior_var=list(paper.TIED_PRIOR_VAR))


def scaling(cfg: TiedSettings) -> dict[str, float]:
    """τ, λ, s = n^λ, T and β of the MINT runs."""
    tau = math.log(cfg.batch) / math.log(cfg.n)
    lam = paper.TIED_ALPHA * tau
    return {"tau": tau, "lam": lam, "scale": cfg.n**lam, "temperature": cfg.n ** (1 - lam),
            "beta": cfg.n ** (lam - 1)}


def sampler_table(cfg: TiedSettings) -> list[dict[str, Any]]:
    """(label, sampler, options, runs, steps, tune, Euler steps per step) of every run set."""
    sc = scaling(cfg)
    mint = {"batch": cfg.batch, "alpha": paper.TIED_ALPHA, "temper_prior": True,
            "inner": "rwm", "step_size": 0.5, "adapt_step_size": True,
            "target_accept": paper.TARGET_ACCEPT}
    h, h_cold = SG_RATE / cfg.n, SG_RATE_COLD / cfg.n
    eps = math.sqrt(h_cold)
    # the paper's plain SGLD and SGHMC: no control variates (the library's default)
    sghmc = {"batch": cfg.batch, "step_size": eps, "alpha": SGHMC_FRICTION / eps,
             "num_integration_steps": SGHMC_STEPS, "temperature": 1.0,
             "control_variates": False}
    control = (cfg.control_runs, cfg.control_iterations)
    return [
        {"label": "MINT (b)", "name": "mint", "options": mint,
         "runs": cfg.runs, "iterations": cfg.iterations, "tune": True, "per_step": 1},
        # reading a cannot reach 0.30 by shrinking the step (its carried estimate's noise alone
        # rejects): it runs at reading b's tuned step
        {"label": "MINT (a)", "name": "mint", "options": {**mint, "reading": "a"},
         "runs": cfg.runs, "iterations": cfg.iterations, "tune": "MINT (b)", "per_step": 1},
        {"label": "tempered MCMC", "name": "mint",
         "options": {**mint, "batch": cfg.n, "alpha": None, "lam": sc["lam"], "reading": "a"},
         "runs": cfg.tempered_runs, "iterations": cfg.tempered_iterations, "tune": True,
         "per_step": 1},
        {"label": "SGLD, T = 1", "name": "sgld", "options": {
            "batch": cfg.batch, "step_size": h_cold, "temperature": 1.0,
            "control_variates": False}, "runs": control[0],
         "iterations": control[1], "tune": False, "per_step": 1},
        {"label": "SGHMC, T = 1", "name": "sghmc", "options": sghmc, "runs": control[0],
         "iterations": control[1] // SGHMC_STEPS, "tune": False, "per_step": SGHMC_STEPS},
        {"label": "SGLD, MINT's T", "name": "sgld", "options": {
            "batch": cfg.batch, "step_size": h, "temperature": sc["temperature"],
            "control_variates": False},
         "runs": control[0], "iterations": control[1], "tune": False, "per_step": 1},
    ]


def mode_observer(radius: float):
    """θ ↦ (within r of θ*, within r of M(θ*), nearer θ* than M(θ*))."""
    first, second = (jnp.asarray(m) for m in paper.TIED_MODES)

    def observe(theta):
        d1 = jnp.sum((theta - first) ** 2)
        d2 = jnp.sum((theta - second) ** 2)
        return jnp.stack([d1 <= radius**2, d2 <= radius**2, d1 < d2]).astype(float)

    return observe


def run_set(model: Model, spec: dict[str, Any], cfg: TiedSettings, index: int, log,
            tuned: dict[str, Any]) -> dict[str, Any]:
    """One sampler's runs: counts near the modes per chunk, kept draws, acceptance, timing.
    ``spec["tune"]``: True tunes the step by a pilot run, a label reuses that run set's tuned
    parameters (from ``tuned``, which this fills), False keeps the options' step."""
    options = {k: v for k, v in spec["options"].items() if v is not None}
    algorithm = get_sampler(spec["name"], model, **options)
    keys = jax.random.split(jax.random.key(SEED), spec["runs"])
    starts = np.asarray(jax.vmap(model.init_position)(keys))
    params = algorithm.params
    if spec["tune"] is True:
        params = pilot_params(algorithm, starts[0], cfg.pilot, SEED + 1000 + index)
    elif spec["tune"]:
        params = tuned[spec["tune"]]
    tuned[spec["label"]] = params
    chunk = max(1, spec["iterations"] // cfg.chunks)
    driver = Driver(algorithm, mode_observer(cfg.radius), keep=min(cfg.keep, chunk))
    runs = driver.start(starts, SEED + index)
    counts, kept, acc, moves, jumps, seconds = [], [], 0.0, 0.0, 0.0, 0.0
    for _ in range(cfg.chunks):
        runs, tally, wall = driver.advance(runs, params, chunk)
        counts.append(np.asarray(tally.observed))
        kept.append(np.asarray(tally.kept))
        acc += float(np.sum(tally.acceptance))
        moves += float(np.sum(tally.moves))
        jumps += float(np.sum(tally.jump))
        seconds += wall
    steps = runs.steps * spec["runs"]
    log(f"  tied means {spec['label']}: {spec['runs']} runs x {runs.steps} its, acceptance "
        f"{acc / steps:.3f}, {seconds:.1f}s (+{driver.compile_seconds:.1f}s compile)")
    step_size = params.get("step_size") if isinstance(params, dict) else None
    return {"label": spec["label"], "counts": np.stack(counts), "chunk": chunk,
            "kept": np.concatenate(kept, axis=1), "acceptance": acc / steps,
            "mean_jump": jumps / max(moves, 1.0), "seconds": seconds,
            "compile_seconds": driver.compile_seconds, "runs": spec["runs"],
            "draws": runs.steps, "iterations": runs.steps * spec["per_step"],
            "step_size": None if step_size is None else float(np.mean(step_size))}


def ratio_curve(counts: np.ndarray, chunk: int) -> list[dict[str, Any]]:
    """Per chunk end: mean over runs of (hits near θ*)/(hits near M θ*) with its SE, over the
    runs where the denominator is positive, and the pooled ratio of the summed hits."""
    cum = np.cumsum(counts, axis=0)  # (chunks, runs, 3)
    rows = []
    for j in range(cum.shape[0]):
        a, b = cum[j, :, 0], cum[j, :, 1]
        ok = b > 0
        ratios = a[ok] / b[ok]
        k = int(ok.sum())
        rows.append({"iterations": (j + 1) * chunk, "runs_defined": k,
                     "mean_ratio": float(ratios.mean()) if k else float("nan"),
                     "se": float(ratios.std(ddof=1) / math.sqrt(k)) if k > 1 else float("nan"),
                     "pooled_ratio": float(a.sum() / b.sum()) if b.sum() > 0 else float("nan")})
    return rows


def share_row(result: dict[str, Any], grid_ratio: float) -> dict[str, Any]:
    """The summary row of one sampler: shares near each mode, final ratio, runs visiting both."""
    total = result["counts"].sum(axis=0)  # (runs, 3)
    draws = result["draws"]
    last = ratio_curve(result["counts"], result["chunk"])[-1]
    return {"sampler": result["label"], "runs": result["runs"],
            "iterations": result["iterations"],
            "share_near_mode1": float(total[:, 0].sum() / (draws * result["runs"])),
            "share_near_mode2": float(total[:, 1].sum() / (draws * result["runs"])),
            "share_nearer_mode1": float(total[:, 2].sum() / (draws * result["runs"])),
            "runs_visiting_both": int(np.sum((total[:, 0] > 0) & (total[:, 1] > 0))),
            "mean_ratio": last["mean_ratio"], "se": last["se"],
            "pooled_ratio": last["pooled_ratio"], "grid_ratio": grid_ratio,
            "acceptance": result["acceptance"], "step_size": result["step_size"],
            "mean_accepted_jump": result["mean_jump"], "seconds": result["seconds"]}


SHARE_COLUMNS = ("sampler", "runs", "iterations", "share_near_mode1", "share_near_mode2",
                 "share_nearer_mode1", "runs_visiting_both", "mean_ratio", "se",
                 "pooled_ratio", "grid_ratio", "acceptance", "step_size",
                 "mean_accepted_jump", "seconds")
CURVE_COLUMNS = ("sampler", "iterations", "runs_defined", "mean_ratio", "se", "pooled_ratio",
                 "grid_ratio")


def grid_part(model: Model, cfg: TiedSettings) -> dict[str, Any]:
    """Exact tempered densities: the disc-mass ratio (tempered prior, and flat as a check) and
    the log density on a grid for the contours."""
    beta = scaling(cfg)["beta"]
    ratio = mode_mass_ratio(model, beta, beta, cfg.radius, paper.TIED_MODES, cfg.disc_points)
    flat = mode_mass_ratio(model, beta, 0.0, cfg.radius, paper.TIED_MODES, cfg.disc_points)
    g1 = np.linspace(-2.5, 3.5, cfg.grid)
    g2 = np.linspace(-3.0, 3.0, cfg.grid)
    logd = tied_means_grid_log_density(model, beta, beta, g1, g2)
    return {"ratio": ratio, "flat_ratio": flat, "g1": g1, "g2": g2, "log_density": logd}


def run_tied(cfg: TiedSettings, log=print) -> dict[str, Any]:
    """Every tied-means run and the grid: the tables' rows and the plots' arrays."""
    model = tied_model(cfg)
    sc = scaling(cfg)
    log(f"tied means: n = {cfg.n}, m = {cfg.batch}, tau = {sc['tau']:.3f}, lambda = "
        f"{sc['lam']:.3f}, s = {sc['scale']:.2f}, T = {sc['temperature']:.1f}")
    grid = grid_part(model, cfg)
    log(f"  grid ratio {grid['ratio']:.6f} (flat prior {grid['flat_ratio']:.8f})")
    tuned: dict[str, Any] = {}
    results = [run_set(model, spec, cfg, i, log, tuned)
               for i, spec in enumerate(sampler_table(cfg))]
    shares = [share_row(r, grid["ratio"]) for r in results]
    curves = [{"sampler": r["label"], **row, "grid_ratio": grid["ratio"]}
              for r in results if r["label"].startswith("MINT") or "MINT's" in r["label"]
              for row in ratio_curve(r["counts"], r["chunk"])]
    return {"scaling": sc, "grid": grid, "results": results, "shares": shares,
            "curves": curves}
