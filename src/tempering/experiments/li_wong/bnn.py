"""Seed 003 §4.3.2, App. C, Fig. 3 and Table 2: a one-hidden-layer Bayesian neural network.

Six methods from one initial network (He initialisation), batch 200, test error after every
epoch (⌈n/m⌉ batches; SGHMC's L Euler steps per batch count as L batches):

- SGD and SGD-momentum: optax on the mean negative log-likelihood of the batch plus an L2 term
  (optax's ``add_decayed_weights(c)``: c θ added to the gradient, i.e. (c/2)‖θ‖²), Table 2's
  learning rates and App. C's c;
- SGLD and SGHMC (BlackJAX through the package's samplers) on the posterior with a fixed N(0, 1)
  prior on every weight (App. C's Gamma hyperpriors need a Gibbs step these samplers lack);
- MINT: Langevin (MALA) proposal on the batch density s μ̂_B with the mini-batch MH test,
  λ = 0.99 τ, a flat prior (App. C); its estimate at epoch i is the mean of all its draws so far
  (§4.3.2) — the current draw's error is shown too;
- CMINT: MINT under the cyclic schedule; its final error is that of the average softmax of its K
  snapshots (and, for comparison, of the averaged parameters).

"Learning rates" are steps on the mean log-likelihood μ̂ (or the mean loss). Each sampler's step
is converted so that its drift is the learning rate times ∇μ̂: SGLD's drift is h ∇(n μ̂), so
h = lr/n; SGHMC in SGD-momentum form (v = ε p) moves v by ε² ∇(n μ̂), so ε = √(lr/n), with
friction α = a/ε for a momentum decay a = 1 − 0.9; MINT-MALA's drift is (ε²/2) ∇(s μ̂), so
ε = √(2 lr/s) (s = n^λ = m^0.99 ≈ 190: ε ≈ 0.048 for the paper's 0.22).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from tempering.algorithms import get_sampler
from tempering.experiments.li_wong import paper
from tempering.experiments.li_wong.loop import Driver
from tempering.models import Model, get_model

SEED = 43
#: SGHMC's momentum decay per Euler step in SGD-momentum form (1 − SGD-M's momentum 0.9).
SGHMC_DECAY = 1.0 - paper.MOMENTUM


@dataclass(frozen=True)
class BnnSettings:
    """Sizes of the BNN part; ``data`` None is the bundled 5 000 MNIST digits."""

    data: str | None
    hidden: int
    batch: int
    epochs: int
    round_epochs: int
    decay_epochs: int
    rounds: int
    sghmc_steps: int
    keep_draws: int


class OptInfo(NamedTuple):
    acceptance_rate: jax.Array
    cost: jax.Array


class OptState(NamedTuple):
    position: jax.Array
    opt: Any


class Optimiser(NamedTuple):
    """An optax optimiser in the shape :class:`~tempering.experiments.li_wong.loop.Driver` runs."""

    init: Any
    step: Any
    position: Any
    params: dict


def optimiser(model: Model, transform: optax.GradientTransformation, batch: int) -> Optimiser:
    """Steps of ``transform`` on −μ̂_B(θ), a fresh batch of ``batch`` points each step."""
    n = model.n_data

    def loss(theta, idx):
        view = jax.tree.map(lambda a: jnp.take(a, idx, axis=0), model.data)
        return -jnp.mean(model.log_lik_terms(theta, view))

    grad = jax.grad(loss)

    def init(key, position):
        del key
        return OptState(position, transform.init(position))

    def step(key, state, params):
        del params
        idx = jax.random.choice(key, n, (batch,), replace=False)
        updates, opt = transform.update(grad(state.position, idx), state.opt, state.position)
        return (OptState(optax.apply_updates(state.position, updates), opt),
                OptInfo(jnp.ones(()), jnp.asarray(batch / n)))

    return Optimiser(init, step, lambda state: state.position, {})


def bnn_models(cfg: BnnSettings) -> dict[str, Model]:
    """The same data under a flat prior (MINT, CMINT, the optimisers) and N(0, 1) (SGLD, SGHMC)."""
    data = cfg.data or "mnist"
    return {prior: get_model("bnn", data=data, hidden=cfg.hidden, prior=prior)
            for prior in ("flat", "gaussian")}


def mint_step(model: Model, cfg: BnnSettings, rate: float) -> tuple[float, float]:
    """(ε, s): MALA's proposal sd for a learning rate ``rate`` on μ̂, ε = √(2 rate / s)."""
    facts = get_sampler("mint", model, batch=cfg.batch, alpha=paper.BNN_ALPHA).facts
    scale = float(facts["scale"])
    return math.sqrt(2.0 * rate / scale), scale


#: How each method's step was set (Table 2's "learning rate" and its conversion).
RATE_NOTES = {
    "SGD": f"lr {paper.LEARNING_RATES['SGD']} on the mean loss, L2 c = {paper.L2['SGD']}",
    "SGD-M": f"lr {paper.LEARNING_RATES['SGD-M']}, momentum {paper.MOMENTUM}, L2 c = "
             f"{paper.L2['SGD-M']}",
    "SGLD": f"h = lr/n, lr = {paper.LEARNING_RATES['SGLD']}",
    "SGHMC": f"eps = sqrt(lr/n), lr = {paper.LEARNING_RATES['SGHMC']}, friction a = eps alpha = "
             f"{SGHMC_DECAY:.1f}",
    "MINT": f"MALA eps = sqrt(2 lr/s), lr = {paper.MINT_STEP}",
    "CMINT": f"MALA eps = sqrt(2 lr/s), lr = {paper.MINT_STEP}, then the cyclic schedule",
}


def method_table(models: dict[str, Model], cfg: BnnSettings) -> list[dict[str, Any]]:
    """(label, algorithm, steps per epoch, epochs, whether to keep the running mean)."""
    flat, gauss = models["flat"], models["gaussian"]
    n = flat.n_data
    per_epoch = -(-n // cfg.batch)
    lr = paper.LEARNING_RATES
    eps, _ = mint_step(flat, cfg, paper.MINT_STEP)
    decay = paper.CMINT_RHO_DOWN ** ((cfg.round_epochs - 1) // cfg.decay_epochs)
    sghmc_eps = math.sqrt(lr["SGHMC"] / n)
    mint = {"batch": cfg.batch, "alpha": paper.BNN_ALPHA, "inner": "mala"}
    table = [
        ("SGD", optimiser(flat, optax.chain(optax.add_decayed_weights(paper.L2["SGD"]),
                                            optax.sgd(lr["SGD"])), cfg.batch), per_epoch),
        ("SGD-M", optimiser(flat, optax.chain(optax.add_decayed_weights(paper.L2["SGD-M"]),
                                              optax.sgd(lr["SGD-M"], momentum=paper.MOMENTUM)),
                            cfg.batch), per_epoch),
        # the paper's plain SGLD and SGHMC: no control variates (the library's default)
        ("SGLD", get_sampler("sgld", gauss, batch=cfg.batch, step_size=lr["SGLD"] / n,
                             control_variates=False), per_epoch),
        ("SGHMC", get_sampler("sghmc", gauss, batch=cfg.batch, step_size=sghmc_eps,
                              alpha=SGHMC_DECAY / sghmc_eps,
                              num_integration_steps=cfg.sghmc_steps, control_variates=False),
         max(1, round(per_epoch / cfg.sghmc_steps))),
        ("MINT", get_sampler("mint", flat, step_size=eps, **mint), per_epoch),
        (f"MINT, step x {decay:.3f}", get_sampler("mint", flat, step_size=eps * decay, **mint),
         per_epoch),
        ("CMINT", get_sampler("cmint", flat, step_size=eps, round_epochs=cfg.round_epochs,
                              decay_epochs=cfg.decay_epochs, rho_down=paper.CMINT_RHO_DOWN,
                              rho_up=paper.CMINT_RHO_UP, snapshots=cfg.rounds, **mint),
         per_epoch),
    ]
    cyclic = {"CMINT"}
    return [{"label": label, "algorithm": alg, "per_epoch": spe,
             "epochs": cfg.rounds * cfg.round_epochs if label in cyclic else cfg.epochs,
             "snapshot_every": cfg.round_epochs if label in cyclic else 0,
             "rate": RATE_NOTES[label.split(",")[0]], "mean": label.startswith("MINT")}
            for label, alg, spe in table]


def error_of(model: Model, draws: jax.Array) -> float:
    """Test error of the posterior predictive of ``draws`` (S, d): the mean softmax."""
    checks = model.predictive_checks
    assert checks is not None
    return 1.0 - float(checks(draws)["test_accuracy"])


def run_method(model: Model, spec: dict[str, Any], cfg: BnnSettings, start: np.ndarray,
               log) -> dict[str, Any]:
    """One method for its epochs: errors per epoch, kept draws, CMINT's snapshots."""
    algorithm, epochs = spec["algorithm"], spec["epochs"]
    driver = Driver(algorithm, (lambda theta: theta) if spec["mean"] else None)
    runs = driver.start(start[None], SEED)
    total = jnp.zeros_like(jnp.asarray(start))
    keep_every = max(1, (epochs - epochs // 2) // max(1, cfg.keep_draws))
    rows, kept, snapshots = [], [], []
    acc = seconds = 0.0
    for epoch in range(1, epochs + 1):
        runs, tally, wall = driver.advance(runs, algorithm.params, spec["per_epoch"])
        seconds += wall
        acc += float(tally.acceptance[0])
        theta = driver.positions(runs)
        row = {"method": spec["label"], "epoch": epoch, "seconds": seconds,
               "acceptance": float(tally.acceptance[0]) / spec["per_epoch"],
               "error": error_of(model, theta)}
        if spec["mean"]:
            total = total + tally.observed[0]
            row["error_running_mean"] = error_of(model, (total / runs.steps)[None])
        rows.append(row)
        if epoch > epochs // 2 and (epochs - epoch) % keep_every == 0:
            kept.append(theta[0])
        if spec["snapshot_every"] and epoch % spec["snapshot_every"] == 0:
            snapshots.append(theta[0])
    log(f"  BNN {spec['label']}: {epochs} epochs, error {rows[-1]['error']:.4f}, acceptance "
        f"{acc / runs.steps:.3f}, {seconds:.1f}s (+{driver.compile_seconds:.1f}s compile)")
    return {"label": spec["label"], "rows": rows, "kept": kept, "snapshots": snapshots,
            "acceptance": acc / runs.steps, "seconds": seconds,
            "compile_seconds": driver.compile_seconds, "steps": runs.steps}


def snapshot_summary(model: Model, snapshots: list[jax.Array]) -> dict[str, Any]:
    """CMINT's ensemble: the error of the mean softmax, of the averaged parameters, of each
    snapshot alone, and how far apart the snapshots lie (relative to their size)."""
    stack = jnp.stack(snapshots)
    singles = [error_of(model, s[None]) for s in snapshots]
    diffs = [float(jnp.linalg.norm(a - b) / jnp.linalg.norm(b))
             for i, a in enumerate(snapshots) for b in snapshots[i + 1:]]
    return {"ensemble_error": error_of(model, stack),
            "averaged_params_error": error_of(model, jnp.mean(stack, axis=0)[None]),
            "best_snapshot_error": min(singles), "worst_snapshot_error": max(singles),
            "snapshots": len(snapshots),
            "mean_relative_distance": float(np.mean(diffs)) if diffs else float("nan")}


def table2_row(model: Model, spec: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """Our Table 2 row: the rate and its conversion, the final errors, acceptance and time."""
    last = result["rows"][-1]
    step = spec["algorithm"].params.get("step_size")
    return {"method": spec["label"], "paper_learning_rate": paper.LEARNING_RATES.get(
                spec["label"], paper.MINT_STEP if "MINT" in spec["label"] else ""),
            "conversion": spec["rate"],
            "step_parameter": "" if step is None else float(step),
            "epochs": last["epoch"], "batches_per_epoch": spec["per_epoch"],
            "final_error": last["error"],
            "error_running_mean": last.get("error_running_mean", ""),
            "error_last_half_predictive": error_of(model, jnp.stack(result["kept"]))
            if result["kept"] else "",
            "acceptance": result["acceptance"], "seconds": result["seconds"]}


TABLE2_COLUMNS = ("method", "paper_learning_rate", "conversion", "step_parameter", "epochs",
                  "batches_per_epoch", "final_error", "error_running_mean",
                  "error_last_half_predictive", "acceptance", "seconds")
CURVE_COLUMNS = ("method", "epoch", "seconds", "acceptance", "error", "error_running_mean")
CMINT_COLUMNS = ("snapshots", "ensemble_error", "averaged_params_error", "best_snapshot_error",
                 "worst_snapshot_error", "mean_relative_distance")


def run_bnn(cfg: BnnSettings, log=print) -> dict[str, Any]:
    """Every method from one initial network; Table 2's rows, the curves, CMINT's ensemble."""
    models = bnn_models(cfg)
    flat = models["flat"]
    eps, scale = mint_step(flat, cfg, paper.MINT_STEP)
    log(f"BNN: n = {flat.n_data} train, {flat.attrs['n_test']} test, {flat.dim} parameters, "
        f"batch {cfg.batch}, s = {scale:.1f}, T = {flat.n_data / scale:.1f}, MINT eps = {eps:.4f}")
    start = np.asarray(flat.init_position(jax.random.key(SEED)))
    rows, curves, cmint = [], [], None
    for spec in method_table(models, cfg):
        result = run_method(flat, spec, cfg, start, log)
        curves += result["rows"]
        rows.append(table2_row(flat, spec, result))
        if result["snapshots"]:
            cmint = snapshot_summary(flat, result["snapshots"])
    return {"n": flat.n_data, "n_test": flat.attrs["n_test"], "dim": flat.dim, "scale": scale,
            "eps": eps, "table2": rows, "curves": curves, "cmint": cmint}
