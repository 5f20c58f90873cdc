"""Seed 003 §4.2, Fig. 2, Fig. 5 and Table 1: Bayesian logistic regression, MNIST ones v sevens.

- Fig. 2 left (the CLT check): at a fixed θ, t = √m (μ̂_B(θ) − μ(θ)) over many batches B of m
  points drawn without replacement, against a normal of the same mean and variance: skewness,
  excess kurtosis and the Kolmogorov–Smirnov distance. Two θ: a draw from the end of a MINT run
  (the regime MINT works in: per-datum log-likelihoods skewed by a few badly classified points)
  and the initial θ (logits near 0: nearly symmetric terms).
- Fig. 2 right and Fig. 5: test accuracy of each run's current draw against epochs and against
  wall seconds for MINT (m = 100, λ = 0.99 τ, RWM, reading b), tempered MCMC (MINT with the batch
  the whole data set: exact MH on π_T at MINT's T) and MCMC (RWM on the posterior, T = 1); every
  step size tuned to acceptance 0.30 by a pilot run (the paper's rule), the runs vmapped. An epoch
  is ⌈n/m⌉ MINT iterations (the paper: "1/130 epoch is … one mini-batch iteration") and one
  iteration of a full-data sampler.
- Table 1: MINT's constant batch and its accuracy beside the paper's copied batch sizes of the
  test-based methods.
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
from tempering.experiments.li_wong.loop import Driver, log_checkpoints, pilot_params
from tempering.models import Model, get_model

SEED = 42


@dataclass(frozen=True)
class LogisticSettings:
    """Sizes of the logistic part; ``data`` None is the bundled 1 v 7 subset."""

    data: str | None
    batch: int
    epochs: int
    runs: int
    checkpoints: int
    clt_batches: int
    pilot: int


def logistic_model(cfg: LogisticSettings) -> Model:
    if cfg.data is None:
        return get_model("logistic", data="mnist1v7")
    return get_model("logistic", data=cfg.data, digits=[1, 7])


def sampler_table(model: Model, cfg: LogisticSettings) -> list[dict[str, Any]]:
    """MINT, tempered MCMC at MINT's λ, and MCMC: (label, sampler, options, steps per epoch)."""
    tune = {"inner": "rwm", "adapt_step_size": True, "target_accept": paper.TARGET_ACCEPT}
    mint = get_sampler("mint", model, batch=cfg.batch, alpha=paper.LOGISTIC_ALPHA, step_size=0.1,
                       **tune)
    lam = float(mint.facts["lam"])
    per_epoch = -(-model.n_data // cfg.batch)
    return [
        {"label": "MINT", "name": "mint", "options": {
            "batch": cfg.batch, "alpha": paper.LOGISTIC_ALPHA, "step_size": 0.1, **tune},
         "per_epoch": per_epoch},
        {"label": "tempered MCMC", "name": "mint", "options": {
            "batch": model.n_data, "lam": lam, "reading": "a", "step_size": 0.1, **tune},
         "per_epoch": 1},
        {"label": "MCMC", "name": "rwm", "options": {
            "step_size": 0.01, "adapt_step_size": True, "target_accept": paper.TARGET_ACCEPT},
         "per_epoch": 1},
    ]


def accuracy_fn(model: Model):
    """(runs, d) draws ↦ (runs,) test accuracy of each draw on its own."""
    checks = model.predictive_checks
    assert checks is not None
    return jax.jit(jax.vmap(lambda theta: checks(theta[None])["test_accuracy"]))


def run_sampler(model: Model, spec: dict[str, Any], cfg: LogisticSettings, index: int,
                log) -> dict[str, Any]:
    """The runs of one sampler, stopped at log-spaced checkpoints: accuracy per run there."""
    algorithm = get_sampler(spec["name"], model, **spec["options"])
    keys = jax.random.split(jax.random.key(SEED), cfg.runs)
    starts = np.asarray(jax.vmap(model.init_position)(keys))
    params = pilot_params(algorithm, starts[0], cfg.pilot, SEED + 100 + index)
    accuracy = accuracy_fn(model)
    driver = Driver(algorithm)
    runs = driver.start(starts, SEED + index)
    total = cfg.epochs * spec["per_epoch"]
    rows = [_row(spec, 0, 0.0, 0.0, np.asarray(accuracy(jnp.asarray(starts))))]
    acc = cost = moves = jump = seconds = 0.0
    for stop in log_checkpoints(total, cfg.checkpoints):
        runs, tally, wall = driver.advance(runs, params, int(stop) - runs.steps)
        seconds += wall
        acc += float(np.sum(tally.acceptance))
        cost += float(np.mean(tally.cost))
        moves += float(np.sum(tally.moves))
        jump += float(np.sum(tally.jump))
        rows.append(_row(spec, runs.steps, seconds, cost,
                         np.asarray(accuracy(driver.positions(runs)))))
    final = np.asarray(driver.positions(runs))
    checks = model.predictive_checks
    assert checks is not None
    mixture = float(checks(jnp.asarray(final))["test_accuracy"])
    log(f"  logistic {spec['label']}: {cfg.runs} runs x {runs.steps} its ({cfg.epochs} epochs), "
        f"acceptance {acc / (runs.steps * cfg.runs):.3f}, accuracy {rows[-1]['accuracy']:.4f}, "
        f"{seconds:.1f}s (+{driver.compile_seconds:.1f}s compile)")
    return {"label": spec["label"], "rows": rows, "final": final,
            "summary": {"sampler": spec["label"], "runs": cfg.runs, "iterations": runs.steps,
                        "epochs": runs.steps / spec["per_epoch"], "cost": cost,
                        "step_size": float(np.mean(params["step_size"])),
                        "acceptance": acc / (runs.steps * cfg.runs),
                        "mean_accepted_jump": jump / max(moves, 1.0),
                        "paper_accepted_jump": paper.ACCEPTED_STEP[spec["label"]],
                        "accuracy": rows[-1]["accuracy"], "accuracy_se": rows[-1]["se"],
                        "mixture_accuracy": mixture, "seconds": seconds,
                        "compile_seconds": driver.compile_seconds}}


def _row(spec: dict[str, Any], steps: int, seconds: float, cost: float,
         accuracy: np.ndarray) -> dict[str, Any]:
    return {"sampler": spec["label"], "iterations": steps, "epochs": steps / spec["per_epoch"],
            "seconds": seconds, "cost": cost, "accuracy": float(accuracy.mean()),
            "se": float(accuracy.std(ddof=1) / math.sqrt(accuracy.size))
            if accuracy.size > 1 else float("nan")}


CURVE_COLUMNS = ("sampler", "iterations", "epochs", "seconds", "cost", "accuracy", "se")
SUMMARY_COLUMNS = ("sampler", "runs", "iterations", "epochs", "cost", "step_size", "acceptance",
                   "mean_accepted_jump", "paper_accepted_jump", "accuracy", "accuracy_se",
                   "mixture_accuracy", "seconds", "compile_seconds")


def clt_values(model: Model, theta: np.ndarray, batches: int, m: int, seed: int) -> np.ndarray:
    """t = √m (μ̂_B(θ) − μ(θ)) for ``batches`` batches of m drawn without replacement."""
    terms = np.asarray(model.log_lik_terms(jnp.asarray(theta)))
    rng = np.random.default_rng(seed)
    n = terms.shape[0]
    means = np.array([terms[rng.permutation(n)[:m]].mean() for _ in range(batches)])
    return math.sqrt(m) * (means - terms.mean())


def clt_row(label: str, t: np.ndarray, model: Model, theta: np.ndarray, m: int) -> dict[str, Any]:
    """Moments of t, its K–S distance to N(mean, sd) and the sd the finite-population CLT
    predicts, σ_θ √((n − m)/(n − 1))."""
    from scipy import stats

    terms = np.asarray(model.log_lik_terms(jnp.asarray(theta)))
    n = terms.shape[0]
    mean, sd = float(t.mean()), float(t.std(ddof=1))
    return {"theta": label, "batches": t.size, "m": m, "n": n, "mean": mean, "sd": sd,
            "predicted_sd": float(terms.std() * math.sqrt((n - m) / (n - 1))),
            "skewness": float(stats.skew(t)), "excess_kurtosis": float(stats.kurtosis(t)),
            "ks": float(stats.kstest(t, "norm", args=(mean, sd)).statistic),
            "ks_5pct_lilliefors": 0.886 / math.sqrt(t.size),
            "terms_skewness": float(stats.skew(terms))}


CLT_COLUMNS = ("theta", "batches", "m", "n", "mean", "sd", "predicted_sd", "skewness",
               "excess_kurtosis", "ks", "ks_5pct_lilliefors", "terms_skewness")


def table1_rows(mint: dict[str, Any], cfg: LogisticSettings) -> list[dict[str, Any]]:
    """Ours (MINT's constant batch, its accuracy) then the paper's copied rows."""
    rows = [{"method": "MINT (ours)", "batch_mean": float(cfg.batch), "batch_sd": 0.0,
             "test_accuracy": mint["accuracy"], "test_accuracy_final_draws": mint[
                 "mixture_accuracy"], "source": "this run"}]
    for r in paper.TABLE1:
        rows.append({"method": f"{r.method} (paper's, copied)", "batch_mean": r.mean,
                     "batch_sd": "" if r.sd is None else r.sd,
                     "test_accuracy": f"> {paper.LOGISTIC_ACCURACY:.0%} (paper)",
                     "source": r.source})
    return rows


TABLE1_COLUMNS = ("method", "batch_mean", "batch_sd", "test_accuracy",
                  "test_accuracy_final_draws", "source")


def run_logistic(cfg: LogisticSettings, log=print) -> dict[str, Any]:
    """Every logistic run and the CLT check."""
    model = logistic_model(cfg)
    specs = sampler_table(model, cfg)
    mint_facts = get_sampler("mint", model, **specs[0]["options"]).facts
    log(f"logistic: n = {model.n_data} train, {model.attrs['n_test']} test, d = {model.dim}, "
        f"m = {cfg.batch}, lambda = {mint_facts['lam']:.3f}, T = {mint_facts['temperature']:.2f}")
    results = [run_sampler(model, spec, cfg, i, log) for i, spec in enumerate(specs)]
    thetas = {"end of a MINT run": results[0]["final"][0],
              "initial θ": np.asarray(model.init_position(jax.random.key(SEED)))}
    clt, t_values = [], {}
    for j, (label, theta) in enumerate(thetas.items()):
        t = clt_values(model, theta, cfg.clt_batches, paper.CLT_BATCH, SEED + j)
        t_values[label] = t
        clt.append(clt_row(label, t, model, theta, paper.CLT_BATCH))
    log(f"  CLT: skew {clt[0]['skewness']:.3f}, excess kurtosis {clt[0]['excess_kurtosis']:.3f}, "
        f"KS {clt[0]['ks']:.4f}")
    summaries = [r["summary"] for r in results]
    return {"facts": mint_facts, "n": model.n_data, "n_test": model.attrs["n_test"],
            "curves": [row for r in results for row in r["rows"]], "summaries": summaries,
            "clt": clt, "t_values": t_values, "table1": table1_rows(summaries[0], cfg)}
