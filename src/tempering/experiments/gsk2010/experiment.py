"""Reproduction of Gramacy, Samworth & King (2010), *Importance Tempering* (seed 001).

``tempering reproduce gsk2010 [--quick] --out DIR`` runs simulated tempering (ST, seed 001 §2;
:mod:`tempering.algorithms.st.sampler`) with tgp's default ladder (geometric, m = 40 rungs, k_min =
0.1; see :mod:`tempering.experiments.gsk2010.paper`) and compares three estimators built from the
same draws (:mod:`tempering.estimators.importance`): *st* (cold-rung draws only, λ = (1, 0, …, 0)),
*naive* IT (λ_i ∝ W_i, Eq. 2) and *optimal* IT (λ_i ∝ ℓ_i, Proposition 2.1). It writes:

- ``table2_mixture.{md,csv}`` (§3.1, Table 2): the two-normal toy, R independent ST runs; per run
  the Kolmogorov–Smirnov distance sup_x |F̂(x) − F(x)| between the exact mixture CDF F and each
  estimator's weighted empirical CDF F̂ (:func:`weighted_ks`), and the IS ESS; mean and variance
  over runs beside the paper's surviving numbers;
- ``gp_mcycle.{md,csv}``: GP-regression hyperparameters of the motorcycle data (§3.2's data; a
  plain GP, not the paper's treed GP) under ST with an RWM inner kernel: IS ESS per estimator and
  weighted posterior means/sds beside a reference run of the plain adaptive RWM;
- ``changepoint.{md,csv}`` and ``changepoint_ess.{md,csv}``: Green (1995)'s change-point model on
  the coal-mining data sampled by reversible jump (``rj_changepoint``) inside ST (an RJ setting
  like §3.2-§3.3): P(k | data) from the three estimators against the exact P(k)
  (:mod:`tempering.models.changepoint_exact`), and each estimator's ESS;
- ``README.md``: settings, the figures, and where they agree with the paper.

**The toy mixture is our choice.** Eq. 10's parameters were lost in extraction; §3.1 says only
"a mixture of two normals". We take one narrow and one broad component, well apart:

    π(θ) = 0.5 N(θ; 0, 1²) + 0.5 N(θ; 5, 0.1²),

and temper the whole density, π_k ∝ π^k (ST with ``tempering="posterior"``; the toy has no data,
so likelihood and posterior tempering coincide). The inner kernel is the univariate
stepping-out slice sampler (w = 1), robust to the two scales.

The ST sampler is built with :func:`tempering.get_sampler` for every part (``inner =
rj_changepoint`` for the change-point model); the module uses the public API only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from scipy.special import logsumexp

from tempering import get_model, get_sampler, run_chains
from tempering.estimators import (
    WEIGHTS,
    Weights,
    combined_log_weights,
    importance_tempering,
    rung_sums,
)
from tempering.experiments.gsk2010 import paper
from tempering.experiments.gsk2010.paper import ESTIMATORS
from tempering.experiments.gsk2010.readme import write_readme
from tempering.experiments.report import fmt_number, single_threaded_xla, write_table
from tempering.lazy_arviz import arviz
from tempering.models import Model, ParamSpec, changepoint_exact_posterior
from tempering.registry import RunnableSpec
from tempering.summary import it_summary

SEED = 2010
# π(θ) = Σ_j w_j N(θ; μ_j, σ_j²): our choice (Eq. 10 was lost), one broad and one narrow component
MIXTURE_WEIGHTS = (0.5, 0.5)
MIXTURE_MEANS = (0.0, 5.0)
MIXTURE_SDS = (1.0, 0.1)
assert set(ESTIMATORS) == set(WEIGHTS)


@dataclass(frozen=True)
class Settings:
    """Sizes of one reproduction: runs R and draws/warmup of each part; the ladder."""

    toy_runs: int
    toy_draws: int
    toy_warmup: int
    gp_chains: int
    gp_draws: int
    gp_warmup: int
    ref_draws: int
    cp_chains: int
    cp_draws: int
    cp_warmup: int
    rungs: int = paper.LADDER_RUNGS
    beta_min: float = paper.LADDER_BETA_MIN


def settings(quick: bool) -> Settings:
    """Full: 10^5 ST iterations per toy run (what Table 2's ESS of ST, 2535 ≈ 10^5/40, implies),
    R = 50 runs (the paper does not say); ``--quick``: fewer runs and draws."""
    if quick:
        return Settings(toy_runs=8, toy_draws=20_000, toy_warmup=4_000, gp_chains=2,
                        gp_draws=1_500, gp_warmup=400, ref_draws=3_000, cp_chains=2,
                        cp_draws=5_000, cp_warmup=2_000)
    return Settings(toy_runs=50, toy_draws=100_000, toy_warmup=10_000, gp_chains=4,
                    gp_draws=20_000, gp_warmup=4_000, ref_draws=20_000, cp_chains=4,
                    cp_draws=50_000, cp_warmup=10_000)


# --------------------------------------------------------------------------- helpers

def mixture_log_pdf(theta: jax.Array) -> jax.Array:
    """log π(θ) of the toy mixture (normalised)."""
    w, mu, sd = (jnp.asarray(v) for v in (MIXTURE_WEIGHTS, MIXTURE_MEANS, MIXTURE_SDS))
    terms = jnp.log(w) + jax.scipy.stats.norm.logpdf(theta, mu, sd)
    return jax.scipy.special.logsumexp(terms)


def mixture_cdf(x: np.ndarray) -> np.ndarray:
    """F(x) = Σ_j w_j Φ((x − μ_j)/σ_j), the toy mixture's exact CDF."""
    from scipy.stats import norm  # SciPy's statistics (~0.6 s) only when the toy runs

    x = np.asarray(x, dtype=float)
    return sum(w * norm.cdf(x, mu, sd) for w, mu, sd in
               zip(MIXTURE_WEIGHTS, MIXTURE_MEANS, MIXTURE_SDS, strict=True))


def mixture_model() -> Model:
    """The toy as a :class:`Model` on θ ∈ R: flat log prior, U = log π (tempered whole)."""
    return Model(name="normal_mixture_1d", data=jnp.zeros((1,)),
                 log_prior_fn=lambda theta: jnp.zeros(()),
                 log_lik_fn=lambda theta, data: mixture_log_pdf(theta[0]),
                 alpha=1.0, params=(ParamSpec("theta", ()),),
                 constrain_fn=lambda theta: {"theta": theta[0]},
                 init_fn=lambda key: jax.random.normal(key, (1,)),
                 options={"weights": list(MIXTURE_WEIGHTS), "means": list(MIXTURE_MEANS),
                          "sds": list(MIXTURE_SDS)})


def weighted_ks(x: np.ndarray, log_w: np.ndarray, cdf) -> float:
    """sup_x |F̂(x) − F(x)| for the weighted empirical CDF F̂ = Σ_j w̃_j 1{x_j ≤ x}, w̃ ∝ exp(log_w).

    F̂ is a step function, so the supremum is attained at a draw: with the distinct values
    u_1 < … < u_n and F̂(u_i) the weight at or below u_i, D = max_i max(F̂(u_i) − F(u_i),
    F(u_i) − F̂(u_{i−1})) (F continuous). Tied draws (rejected MCMC moves) are merged first, and
    draws of weight 0 (log_w = −∞) dropped. With equal weights this is the one-sample K–S
    statistic of :func:`scipy.stats.kstest`.
    """
    x = np.asarray(x, dtype=float).ravel()
    log_w = np.asarray(log_w, dtype=float).ravel()
    keep = np.isfinite(log_w)
    x, log_w = x[keep], log_w[keep]
    w = np.exp(log_w - logsumexp(log_w))
    values, inverse = np.unique(x, return_inverse=True)
    mass = np.bincount(inverse, weights=w)
    after = np.minimum(np.cumsum(mass), 1.0)
    before = after - mass
    f = cdf(values)
    return float(max(np.max(after - f), np.max(f - before)))


def estimator_log_weights(log_w: np.ndarray, rung: np.ndarray, num_rungs: int
                          ) -> tuple[dict[Weights, np.ndarray], dict[Weights, float], float]:
    """Per estimator, every draw's normalised log weight log(λ_i w_ij / W_i); the IS ESS of each;
    and Σ_i ESS_i."""
    it = importance_tempering(log_w, rung, num_rungs)
    sums = rung_sums(log_w, rung, num_rungs)
    with np.errstate(invalid="ignore"):  # rungs without draws: −∞ − (−∞), never indexed
        weights = {kind: combined_log_weights(log_w, rung, it.lambdas[kind], sums)
                   for kind in ESTIMATORS}
    return weights, {kind: it.ess_of(kind) for kind in ESTIMATORS}, float(np.sum(it.ess_per_rung))


def run_stats(result) -> tuple[np.ndarray, np.ndarray]:
    """(chain, draw) arrays of rungs and log weights of an ST run."""
    stats = result.idata["sample_stats"]
    return np.asarray(stats["rung"].values), np.asarray(stats["log_weight"].values, dtype=float)


# --------------------------------------------------------------------------- §3.1 toy

def run_toy(cfg: Settings, log=print) -> tuple[list[dict], list[dict], dict]:
    """R independent ST runs (one chain each, its own key) on the toy; per-run K–S and ESS."""
    model = mixture_model()
    algorithm = get_sampler("st", model, rungs=cfg.rungs, beta_min=cfg.beta_min,
                            tempering="posterior", inner="slice", width=1.0)
    result = run_chains(model, algorithm, key=SEED, draws=cfg.toy_draws, chains=cfg.toy_runs,
                        warmup=cfg.toy_warmup, progress=False)
    theta = np.asarray(result.idata["posterior"]["theta"].values)
    rung, log_w = run_stats(result)
    per_run: list[dict[str, Any]] = []
    for index in range(cfg.toy_runs):
        weights, ess, sum_ess = estimator_log_weights(log_w[index], rung[index], cfg.rungs)
        row = {"run": index, "n_cold": int(np.sum(rung[index] == 0)),
               "sum_ess_per_rung": sum_ess}
        for kind in ESTIMATORS:
            row[f"ks_{kind}"] = weighted_ks(theta[index], weights[kind], mixture_cdf)
            row[f"ess_{kind}"] = ess[kind]
        per_run.append(row)
    rows: list[dict[str, Any]] = []
    for kind in ESTIMATORS:
        ks_values = np.array([r[f"ks_{kind}"] for r in per_run])
        ess_values = np.array([r[f"ess_{kind}"] for r in per_run])
        ref = paper.TABLE2[kind]
        rows.append({"method": kind, "ess_mean": float(ess_values.mean()),
                     "paper_ess": ref["ess"], "ks_mean": float(ks_values.mean()),
                     "paper_ks_mean": ref["ks_mean"],
                     "ks_var": (float(ks_values.var(ddof=1)) if len(ks_values) > 1
                                else float("nan")),
                     "paper_ks_var": "lost" if ref["ks_var"] is None else ref["ks_var"],
                     "ks_best_count": 0})
    for r in per_run:
        best = min(ESTIMATORS, key=lambda k: r[f"ks_{k}"])
        rows[ESTIMATORS.index(best)]["ks_best_count"] += 1
    extra = {"mean_sum_ess_per_rung": float(np.mean([r["sum_ess_per_rung"] for r in per_run])),
             "mean_n_cold": float(np.mean([r["n_cold"] for r in per_run])),
             "rung_accept": float(np.asarray(
                 result.idata["sample_stats"]["rung_accept_prob"].values).mean())}
    log(f"  toy: {cfg.toy_runs} runs x {cfg.toy_draws} draws; " + ", ".join(
        f"{row['method']} KS {row['ks_mean']:.4f} ESS {row['ess_mean']:.0f}" for row in rows))
    return rows, per_run, extra


TOY_COLUMNS = ("method", "ess_mean", "paper_ess", "ks_mean", "paper_ks_mean", "ks_var",
               "paper_ks_var", "ks_best_count")
TOY_RUN_COLUMNS = ("run", "n_cold", "sum_ess_per_rung", "ks_st", "ks_naive", "ks_optimal",
                   "ess_st", "ess_naive", "ess_optimal")


# --------------------------------------------------------------------------- GP on mcycle

def run_gp(cfg: Settings, log=print) -> tuple[list[dict], dict]:
    """ST (RWM inner, step sizes adapted per rung in the pilot) on the mcycle GP: the three
    estimators' weighted moments and IS ESS, beside a reference run of plain adaptive RWM."""
    import pandas as pd

    az = arviz()
    model = get_model("gp_regression", data="mcycle")
    st = get_sampler("st", model, rungs=cfg.rungs, beta_min=cfg.beta_min, inner="rwm",
                     step_size=0.2, adapt_step_size=True)
    result = run_chains(model, st, key=SEED + 1, draws=cfg.gp_draws, chains=cfg.gp_chains,
                        warmup=cfg.gp_warmup, progress=False)
    summaries = {kind: it_summary(result.idata, kind) for kind in ESTIMATORS}
    ref = run_chains(model, get_sampler("rwm", model, step_size=0.2, adapt_step_size=True),
                     key=SEED + 2, draws=cfg.ref_draws, chains=cfg.gp_chains,
                     warmup=max(100, cfg.ref_draws // 5), progress=False)
    ref_sum = pd.DataFrame(az.summary(ref.idata, kind="all"))
    rows = []
    for name in summaries["optimal"]["params"]:
        row = {"param": name, "ref_mean": float(ref_sum.loc[name, "mean"]),
               "ref_sd": float(ref_sum.loc[name, "sd"]),
               "ref_mcse": float(ref_sum.loc[name, "mcse_mean"])}
        for kind in ESTIMATORS:
            p = summaries[kind]["params"][name]
            row[f"{kind}_mean"], row[f"{kind}_sd"] = p["mean"], p["sd"]
            row[f"{kind}_mcse"] = p["mcse_mean"]
            row[f"{kind}_z"] = ((p["mean"] - row["ref_mean"])
                                / np.hypot(p["mcse_mean"], row["ref_mcse"]))
        rows.append(row)
    it = summaries["optimal"]["it"]
    extra = {"ess_" + kind: it["ess_" + kind] for kind in ESTIMATORS}
    extra |= {"sum_ess_per_rung": it["sum_ess_per_rung"], "draws_total": cfg.gp_chains
              * cfg.gp_draws, "n_cold": int(it["n_per_rung"][0]),
              "rung_accept": float(np.asarray(
                  result.idata["sample_stats"]["rung_accept_prob"].values).mean())}
    log(f"  gp mcycle: IS ESS st {extra['ess_st']:.0f}, naive {extra['ess_naive']:.0f}, "
        f"optimal {extra['ess_optimal']:.0f}")
    return rows, extra


def gp_columns() -> tuple[str, ...]:
    cols = ["param", "ref_mean", "ref_sd", "ref_mcse"]
    for kind in ESTIMATORS:
        cols += [f"{kind}_mean", f"{kind}_sd", f"{kind}_mcse", f"{kind}_z"]
    return tuple(cols)


# --------------------------------------------------------------------------- change point

def run_changepoint(cfg: Settings, log=print) -> tuple[list[dict], list[dict], dict]:
    """P(k | data) from the three estimators against the exact answer, and each one's ESS."""
    model = get_model("changepoint")
    st = get_sampler("st", model, rungs=cfg.rungs, beta_min=cfg.beta_min, inner="rj_changepoint")
    result = run_chains(model, st, key=SEED + 3, draws=cfg.cp_draws,
                        chains=cfg.cp_chains, warmup=cfg.cp_warmup, progress=False)
    k = np.asarray(result.idata["posterior"]["k"].values).astype(int)
    rung, log_w = run_stats(result)
    weights, ess, sum_ess = estimator_log_weights(log_w, rung, cfg.rungs)
    exact = changepoint_exact_posterior(model).prob_k
    probs = {kind: np.bincount(k.ravel(), weights=np.exp(weights[kind]).ravel(),
                               minlength=exact.size)[:exact.size] for kind in ESTIMATORS}
    rows = []
    for j in range(exact.size):
        row = {"k": j, "exact": float(exact[j])}
        row |= {kind: float(probs[kind][j]) for kind in ESTIMATORS}
        rows.append(row)
    ess_rows = []
    for kind in ESTIMATORS:
        ess_rows.append({"method": kind, "ess": ess[kind],
                         "total_variation": 0.5 * float(np.sum(np.abs(probs[kind] - exact))),
                         "max_abs_error": float(np.max(np.abs(probs[kind] - exact)))})
    extra = {"sum_ess_per_rung": sum_ess, "draws_total": int(k.size),
             "n_cold": int(np.sum(rung == 0)),
             "rung_accept": float(np.asarray(
                 result.idata["sample_stats"]["rung_accept_prob"].values).mean())}
    log("  changepoint: " + ", ".join(f"{r['method']} ESS {r['ess']:.0f} TV "
                                      f"{r['total_variation']:.4f}" for r in ess_rows))
    return rows, ess_rows, extra


def run(quick: bool, out: Path, cfg: Settings | None = None, log=print) -> None:
    """Run all three parts with ``settings(quick)`` (or ``cfg``) and write the tables to ``out``."""
    single_threaded_xla()
    cfg = cfg or settings(quick)
    out = Path(out)
    t0 = time.perf_counter()
    log(f"gsk2010: {'quick' if quick else 'full'} run into {out}")
    toy = run_toy(cfg, log)
    write_table(toy[0], TOY_COLUMNS, out / "table2_mixture",
                "Table 2: K-S distance to the exact mixture CDF over R runs, and IS ESS",
                notes="Paper: Gramacy, Samworth & King (2010) Table 2; variances lost in "
                      "extraction. Mixture: 0.5 N(0, 1) + 0.5 N(5, 0.1^2) (our choice).")
    write_table(toy[1], TOY_RUN_COLUMNS, out / "table2_runs", "Table 2, per run")
    gp = run_gp(cfg, log)
    write_table(gp[0], gp_columns(), out / "gp_mcycle",
                "GP hyperparameters of mcycle: weighted ST estimates vs plain RWM",
                notes=" ".join(f"IS ESS {k}: {fmt_number(gp[1]['ess_' + k])}."
                               for k in ESTIMATORS))
    cp = run_changepoint(cfg, log)
    write_table(cp[0], ("k", "exact", *ESTIMATORS), out / "changepoint",
                "Change point (coal): P(k | data) by estimator vs exact")
    write_table(cp[1], ("method", "ess", "total_variation", "max_abs_error"),
                out / "changepoint_ess", "Change point (coal): IS ESS and error by estimator")
    readme = write_readme(out, quick, cfg, time.perf_counter() - t0, toy, gp, cp)
    log(f"gsk2010: wrote {readme} ({(time.perf_counter() - t0) / 60:.1f} min)")


SPEC = RunnableSpec(
    "gsk2010",
    "Gramacy, Samworth & King (2010), importance tempering (seed 001)",
    run,
)
