"""Seed 003 §5.3, App. D.2, Fig. 4, Table 3: MINTEE on the 50-mode mixture, beside full-data EE
and plain MCMC.

Target. x_i ~ (1/50) Σ_j N(θ_j, 1), data drawn at θ* = (2, 0, …, 0) (the ``mixture`` model with
``k = 50, spike = 2``). Its exchangeable N(0, 5²) prior keeps every mode 2·e_j at posterior mass
exactly 1/50 (the paper's uniform prior would be improper; :mod:`tempering.models.mixture`), so a
sampler's share of draws per mode (:func:`~tempering.models.mixture.mode_index`) is a known
answer.

Samplers, each one chain started at the origin (the paper's start) with one seed:

- MINTEE with the paper's ladder: K = 7 levels, m_K = 1000 growing by γ = 1.4, α = 0.995
  (T_k = 1, 19.41, …, 103.51 at n = 10⁵), c = 10, p_ee = 0.1, H₀ = h(θ*) (the paper's choice),
  burn-in B per level; ``subsets=fixed`` (level 0 asymptotically exact) and ``subsets=random``
  (the paper's Algorithm 2, approximate);
- EE on the full data at the same temperatures and energy ladder (every level reads all n points:
  the paper's O(K²Nn) against MINTEE's O(Nn));
- plain MCMC: RWM on the posterior (T = 1, full data), the control that stays in its mode.

The inner kernel is RWM with its step size adapted per level towards acceptance 0.3 during the
start-up (the paper uses a Langevin proposal kept at acceptance 0.2–0.5). The stagger S between
levels is its own setting (Algorithm 2 reuses the output length N for it; the seeds' errata).

Reported: the mass in each mode against 1/50 (largest error and total variation), modes visited,
the ESS of the mode indicators (ArviZ's, averaged over visited modes) per data pass of sampling,
Table 3 (percentage of each level's draws per energy ring) beside the paper's, and Fig. 4 (θ₁'s
histogram, a t-SNE embedding of level 0's draws coloured by mode — of the run that visited the most
modes, named in the plot — and the k-means objective against the number of clusters;
scikit-learn's TSNE and KMeans).

Beyond the paper: the same samplers on the ladder continued down to m₁ ≈ n/γ
(:func:`continued_levels`), which closes the paper's temperature gap between levels 0 and 1, and
MINTEE there without its energy shifts (``rebase=False``), which shows what they fix.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jax.numpy as jnp
import numpy as np

from tempering import get_model, get_sampler, sample
from tempering.experiments.li_wong import paper
from tempering.lazy_arviz import arviz
from tempering.models import Model, mode_index

if TYPE_CHECKING:
    import arviz as az

SEED = 3
MASS_COLUMNS = ("sampler", "draws", "modes_visited", "max_mass_error", "total_variation",
                "indicator_ess", "data_passes", "ess_per_data_pass", "startup_data_passes",
                "seconds")
TABLE3_COLUMNS = ("source", "level", "T", "m", "ring_0", "ring_1", "ring_2", "ring_3", "ring_4",
                  "ring_5", "ring_6")
JUMP_COLUMNS = ("sampler", "level", "ee_proposed", "ee_accepted", "mean_accept_prob",
                "local_acceptance")


@dataclass(frozen=True)
class EESettings:
    """Sizes of part 2 (``li_wong.settings`` fills them)."""

    n: int
    top_batch: int
    burnin: int
    stagger: int
    warmup: int
    draws: int
    ee_draws: int
    control_draws: int
    capacity: int
    embed_points: int
    long_draws: int = 0  # draws of the continued-ladder runs (0: ``draws`` / ``ee_draws``)
    control_warmup: int = 2000  # the control's warmup: from the origin it must settle in a mode


def ee_model(cfg: EESettings) -> Model:
    return get_model("mixture", k=paper.EE_K, n=cfg.n, spike=paper.EE_SPIKE)


def ladder_options(cfg: EESettings, model: Model) -> dict[str, Any]:
    """The options EE and MINTEE share: the paper's c, p_ee, levels and H₀ = h(θ*); a pilot of
    B local moves per level (:mod:`tempering.algorithms.equi_energy.warmup`) places and tunes the
    levels."""
    theta_star = jnp.zeros(paper.EE_K).at[0].set(paper.EE_SPIKE)
    return {"levels": paper.EE_LEVELS, "c": paper.EE_C, "p_ee": paper.EE_P_EE,
            "burnin": cfg.burnin, "stagger": cfg.stagger, "capacity": cfg.capacity,
            "pilot": cfg.burnin, "h0": float(-model.log_density(theta_star))}


def continued_levels(n: int, top_batch: int, gamma: float) -> int:
    """The most levels whose batches stay below n: m₁ = ⌊m_K γ^(L−2)⌋ < n. The ladder then
    climbs from T₀ = 1 by factors of about γ, where the paper's K = 7 leaves a gap 1 → 19.4
    (at n = 10⁵) that a level-0 chain in 50 dimensions cannot cross by EE jumps: level 1 seldom
    visits level 0's energies (a χ²₅₀ at T = 19.4 is almost never below 2·c/T of its minimum)."""
    levels = 2
    while top_batch * gamma ** (levels - 1) < n:
        levels += 1
    return levels


def energy_samplers(cfg: EESettings, model: Model,
                    levels: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """MINTEE's and full-data EE's options on one ladder: the paper's 7 levels, or ``levels``
    (m_K = ``cfg.top_batch`` growing by γ, MINTEE's temperatures for both); MINTEE's fixed
    subsets with the energy shifts (``rebase``: the 50-mode mixture's ĥ_k − h is the same at
    every mode)."""
    shared = ladder_options(cfg, model)
    if levels is not None:
        shared["levels"] = levels
    mintee = {**shared, "batch": cfg.top_batch, "gamma": paper.EE_GAMMA,
              "alpha": paper.EE_ALPHA, "rebase": True}
    temperatures = get_sampler("mintee", model, **mintee).facts["temperatures"]
    return mintee, {**shared, "temperatures": temperatures}


def runs(cfg: EESettings, model: Model) -> dict[str, tuple[str, dict[str, Any], int, int]]:
    """name → (sampler, options, kept draws, warmup): the paper's 7-level ladder for MINTEE (both
    subset modes) and EE, the continued ladder (:func:`continued_levels`) for MINTEE (fixed, with
    and without the energy shifts of ``rebase``) and EE, and the MCMC control."""
    mintee, ee = energy_samplers(cfg, model)
    levels = continued_levels(cfg.n, cfg.top_batch, paper.EE_GAMMA)
    long_mintee, long_ee = energy_samplers(cfg, model, levels)
    long = {"draws": cfg.long_draws or cfg.draws, "ee": cfg.long_draws or cfg.ee_draws}
    w = cfg.warmup
    return {"MINTEE (subsets=fixed)": ("mintee", {**mintee, "subsets": "fixed"}, cfg.draws, w),
            "MINTEE (subsets=random)": ("mintee", {**mintee, "subsets": "random"}, cfg.draws, w),
            "EE (full data)": ("ee", ee, cfg.ee_draws, w),
            f"MINTEE (fixed, {levels} levels)": ("mintee", {**long_mintee, "subsets": "fixed"},
                                                  long["draws"], w),
            f"MINTEE (fixed, {levels} levels, unshifted)": (
                "mintee", {**long_mintee, "subsets": "fixed", "rebase": False}, long["draws"], w),
            f"EE (full data, {levels} levels)": ("ee", long_ee, long["ee"], w),
            "MCMC (RWM, T = 1)": ("rwm", {}, cfg.control_draws, max(w, cfg.control_warmup))}


def mode_masses(modes: np.ndarray, k: int) -> np.ndarray:
    """Share of draws in each of the k modes."""
    return np.bincount(modes.reshape(-1), minlength=k) / modes.size


def indicator_ess(modes: np.ndarray, k: int) -> float:
    """Mean over the visited modes of the bulk ESS of 1{mode = j} (one chain: ``modes`` is
    (chain, draw)); 0 when one mode holds every draw."""
    az = arviz()
    values = [float(az.ess(np.asarray(modes == j, dtype=float)))
              for j in range(k) if 0 < np.mean(modes == j) < 1]
    return float(np.mean(values)) if values else 0.0


def ring_shares(idata: az.InferenceData, levels: int) -> np.ndarray:
    """(level, ring) percentages of the kept draws (Table 3's view)."""
    rings = np.asarray(idata["sample_stats"]["energy_ring"].values).reshape(-1, levels)
    return np.stack([100 * np.bincount(np.clip(rings[:, k], 0, levels - 1), minlength=levels)
                     / rings.shape[0] for k in range(levels)])


def _jump_rows(name: str, idata: az.InferenceData) -> list[dict[str, Any]]:
    stats = idata["sample_stats"]
    levels = stats["ee_proposed"].shape[-1]
    proposed = np.asarray(stats["ee_proposed"].values).reshape(-1, levels)
    accepted = np.asarray(stats["ee_accepted"].values).reshape(-1, levels)
    prob = np.asarray(stats["ee_accept_prob"].values).reshape(-1, levels)
    local = np.asarray(stats["local_acceptance"].values).reshape(-1, levels)
    return [{"sampler": name, "level": k, "ee_proposed": int(proposed[:, k].sum()),
             "ee_accepted": int(accepted[:, k].sum()),
             "mean_accept_prob": float(prob[:, k].sum() / max(proposed[:, k].sum(), 1)),
             "local_acceptance": float(np.nanmean(local[:, k]))}
            for k in range(levels)]


def one_run(name: str, sampler: str, options: dict[str, Any], draws: int, warmup: int,
            model: Model, log) -> dict[str, Any]:
    """Run one sampler and measure its mode masses and efficiency."""
    t0 = time.perf_counter()
    algorithm = get_sampler(sampler, model, **options)
    idata = sample(model, algorithm, key=SEED, draws=draws, chains=1, warmup=warmup,
                   init=jnp.zeros(paper.EE_K), progress=False)
    seconds = time.perf_counter() - t0
    mu = np.asarray(idata["posterior"]["mu"].values)
    modes = np.asarray(mode_index(jnp.asarray(mu), paper.EE_SPIKE))
    masses = mode_masses(modes, paper.EE_K)
    attrs = idata["posterior"].attrs
    passes = float(attrs["cost_total"])
    ess = indicator_ess(modes, paper.EE_K)
    row = {"sampler": name, "draws": draws, "modes_visited": int(np.sum(masses > 0)),
           "max_mass_error": float(np.max(np.abs(masses - 1 / paper.EE_K))),
           "total_variation": float(0.5 * np.sum(np.abs(masses - 1 / paper.EE_K))),
           "indicator_ess": ess, "data_passes": passes,
           "ess_per_data_pass": ess / passes if passes else float("nan"),
           "startup_data_passes": float(attrs["cost_warmup"]), "seconds": seconds}
    log(f"  {name}: {row['modes_visited']} modes visited, largest mass error "
        f"{row['max_mass_error']:.4f}, {seconds:.0f} s")
    out = {"row": row, "masses": masses, "theta1": mu[0, :, 0], "mu": mu[0]}
    if "energy_ring" in idata["sample_stats"]:  # an EE-family run
        out["rings"] = ring_shares(idata, len(algorithm.facts["temperatures"]))
        out["jumps"] = _jump_rows(name, idata)
        out["temperatures"] = algorithm.facts["temperatures"]
        out["batches"] = algorithm.facts["batches"]
    return out


def table3_rows(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Our ring percentages per level for every EE-family run, then the paper's."""
    rows = []
    for name, res in results.items():
        if "rings" not in res or len(res["rings"]) != paper.EE_LEVELS:
            continue  # Table 3's view is of the paper's 7-level ladder
        for k, shares in enumerate(res["rings"]):
            rows.append({"source": name, "level": k, "T": float(res["temperatures"][k]),
                         "m": int(res["batches"][k]),
                         **{f"ring_{j}": float(s) for j, s in enumerate(shares)}})
    for k, (t, m, shares) in enumerate(paper.TABLE3):
        rows.append({"source": "paper (Table 3)", "level": k, "T": t, "m": m,
                     **{f"ring_{j}": s for j, s in enumerate(shares)}})
    return rows


def embedding(mu: np.ndarray, points: int) -> dict[str, Any]:
    """A t-SNE embedding of ``points`` evenly spaced draws and the k-means objective against the
    number of clusters (Fig. 4 middle and right; scikit-learn), for each number of clusters below
    the number of distinct draws."""
    from sklearn.cluster import KMeans
    from sklearn.manifold import TSNE

    picked = mu[np.linspace(0, len(mu) - 1, min(points, len(mu))).astype(int)]
    xy = TSNE(n_components=2, perplexity=30.0, init="pca", random_state=0).fit_transform(picked)
    clusters = [10, 20, 30, 40, 45, 50, 55, 60, 70]
    distinct = len(np.unique(picked, axis=0))  # a rejected move repeats its draw
    inertia = [float(KMeans(n_clusters=c, n_init=3, random_state=0).fit(picked).inertia_)
               for c in clusters if c < distinct]
    return {"xy": xy, "modes": np.asarray(mode_index(jnp.asarray(picked), paper.EE_SPIKE)),
            "clusters": clusters[:len(inertia)], "inertia": inertia}


def run_ee(cfg: EESettings, log=print) -> dict[str, Any]:
    """Every run, the tables' rows and Fig. 4's data."""
    model = ee_model(cfg)
    log(f"li-wong ee: 50-mode mixture, n = {cfg.n}")
    results = {name: one_run(name, sampler, options, draws, warmup, model, log)
               for name, (sampler, options, draws, warmup) in runs(cfg, model).items()}
    best = max(results, key=lambda name: (results[name]["row"]["modes_visited"],
                                           -results[name]["row"]["max_mass_error"]))
    return {"results": results, "masses": [r["row"] for r in results.values()],
            "table3": table3_rows(results),
            "jumps": [row for r in results.values() for row in r.get("jumps", [])],
            "embedded": best, "embedding": embedding(results[best]["mu"], cfg.embed_points),
            "theta1": {name: r["theta1"] for name, r in results.items()}, "cfg": cfg}
