"""Ensemble MCMC's cost per slow evaluation (seed 004, Neal 2010, §3) and its min-ESS per second
on seed 000's GP-ARD against NUTS, the library's and NumPyro's.

**Seconds per slow evaluation**, on ``gp_neal2010`` (Eq. 28, p = 12 covariates, Eq. 27's data) at
n = 100 (the paper's) and n = 500, one chain of each of

- Metropolis (Cholesky): ``coordinate_rwm`` on θ without a split, 14 single-variable updates per
  iteration, each a full log density (one Cholesky of the n × n Σ): 14 slow evaluations;
- Metropolis (eigen): ``coordinate_rwm`` with ``fast="eta_sigma"`` (the paper's Fig. 3 run): 12
  slow updates of log ν, an eigendecomposition each, then log η and log σ on the cached one;
- ensemble (Cholesky): ``ensemble`` with ``fast="eta"``, a grid of K = 49 values of log η, the 13
  slow variables (log ν, log ψ) updated one at a time: 13 slow evaluations, K fast ones each;
- ensemble (eigen): ``fast="eta_sigma"``, a 7 × 7 grid of (log η, log σ), 12 slow evaluations.

Each is timed as a compiled ``lax.scan`` over ``iterations`` of the sampler's step (compiled ahead
and run once untimed), in ``repeats`` rounds with the four interleaved in each round (a change in
machine load hits all alike). Reported is the median over rounds of the seconds of one call over
the slow evaluations the sampler counted (its ``slow_evals``): everything an iteration does (fast
evaluations, the mapping to and from the ensemble) is charged to its slow evaluations, as the
paper's times per iteration are. Ratios are over Metropolis (Cholesky) at the same n, beside the
paper's Intel seconds (R 2.12, n = 100) and their ratios. Targets: the Cholesky ensemble ≤ 1.05×
(paper 1.01×), the eigen ensemble ≤ 1.5× (paper 1.4–1.7×).

**min-ESS per second**, on ``gp_regression`` (SE-ARD, D = 3, n = 256 synthetic points, data seed
0): chains of ``ensemble`` (``fast="eta"``: log σ_f on a grid of K = 49, NUTS on (log ℓ, log ψ)),
of ``nuts``, and of NumPyro's NUTS on the same likelihood, priors and data
(:mod:`~tempering.bench.numpyro_gp`; the two log densities are compared at a point and the gap
printed), 4 chains × (500 warmup + 1000 draws), run one after another in all three. Reported: the
minimum over parameters of ArviZ's bulk ESS, the largest R-hat, and seconds with compilation
excluded and shown apart (the driver compiles ahead; for NumPyro, tracing, lowering and XLA
compilation are read from JAX's monitoring events and subtracted); min-ESS per second of sampling
(the library's ESS/s) and of warmup + sampling, with the ratios ensemble / NumPyro, nuts / NumPyro
and ensemble / nuts (the goal: ensemble ≥ 3× NumPyro).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from tempering import UserInputError, get_model, get_sampler, sample
from tempering.bench import numpyro_gp
from tempering.lazy_arviz import arviz
from tempering.models import Model
from tempering.registry import RunnableSpec

METROPOLIS = "Metropolis (Cholesky)"
#: The paper's Intel seconds per slow evaluation (seed 004 §3, n = 100).
PAPER_SECONDS = {METROPOLIS: 0.0081, "Metropolis (eigen)": 0.0128, "ensemble (Cholesky)": 0.0082,
                 "ensemble (eigen)": 0.0139}
TARGETS = {"ensemble (Cholesky)": 1.05, "ensemble (eigen)": 1.5}
DEFAULT_NS = (100, 500)


@dataclass(frozen=True)
class EssSettings:
    """The min-ESS comparison's problem and run (defaults: the issue's)."""

    n: int = 256
    dim: int = 3
    chains: int = 4
    warmup: int = 500
    draws: int = 1000
    size: int = 49
    chain_method: str = "sequential"
    seed: int = 0


def contenders(size: int) -> dict[str, tuple[str, dict]]:
    """Label ↦ (sampler, options) of the four samplers timed per slow evaluation."""
    return {METROPOLIS: ("coordinate_rwm", {}),
            "Metropolis (eigen)": ("coordinate_rwm", {"fast": "eta_sigma"}),
            "ensemble (Cholesky)": ("ensemble", {"fast": "eta", "size": size}),
            "ensemble (eigen)": ("ensemble", {"fast": "eta_sigma", "size": size})}


def default_iterations(n: int) -> int:
    """Iterations per timed call: about 0.3 s of plain Metropolis at any n."""
    return max(4, round(200 * (100 / n) ** 2))


def timed_loop(model: Model, sampler: str, options: dict,
               iterations: int) -> Callable[[int], tuple[float, float]]:
    """A function of a seed: the seconds of ``iterations`` compiled steps of one chain from a
    prior draw, and the slow evaluations they counted (compiled here, and run once)."""
    algorithm = get_sampler(sampler, model, **options)
    state = algorithm.init(jax.random.key(1), model.init_position(jax.random.key(0)))

    def loop(key, state):
        def body(carry, k):
            state, evals = carry
            state, info = algorithm.step(k, state, algorithm.params)
            return (state, evals + info.stats["slow_evals"]), None

        keys = jax.random.split(key, iterations)
        return jax.lax.scan(body, (state, jnp.zeros(())), keys)[0]

    compiled = jax.jit(loop).lower(jax.random.key(2), state).compile()
    jax.block_until_ready(compiled(jax.random.key(2), state))

    def timed(seed: int) -> tuple[float, float]:
        start = time.perf_counter()
        _, evals = jax.block_until_ready(compiled(jax.random.key(seed), state))
        return time.perf_counter() - start, float(evals)

    return timed


def slow_eval_rows(n: int, size: int, repeats: int, iterations: int) -> list[dict]:
    """One row per contender at data size n: seconds per slow evaluation and the ratio."""
    model = get_model("gp_neal2010", n=n)
    loops = {label: timed_loop(model, sampler, options, iterations)
             for label, (sampler, options) in contenders(size).items()}
    seconds: dict[str, list[float]] = {label: [] for label in loops}
    evals: dict[str, float] = {}
    for r in range(repeats):
        for label, timed in loops.items():
            s, evals[label] = timed(10 + r)
            seconds[label].append(s)
    per_eval = {label: float(np.median(s)) / evals[label] for label, s in seconds.items()}
    return [{"label": label, "n": n, "slow_per_iteration": evals[label] / iterations,
             "seconds": per_eval[label], "ratio": per_eval[label] / per_eval[METROPOLIS],
             "paper_seconds": PAPER_SECONDS[label],
             "paper_ratio": PAPER_SECONDS[label] / PAPER_SECONDS[METROPOLIS]}
            for label in loops]


def print_slow_evals(rows: list[dict], repeats: int, size: int) -> None:
    """The table of seconds per slow evaluation, then one line per target."""
    print(f"| sampler | n | slow evals / iteration | ms per slow evaluation | / {METROPOLIS} | "
          "paper (Intel, n = 100) ms | paper ratio | target |")
    print("|---" * 8 + "|")
    for r in rows:
        cap = f"≤ {TARGETS[r['label']]}×" if r["label"] in TARGETS else ""
        print(f"| {r['label']} | {r['n']} | {r['slow_per_iteration']:.0f} | "
              f"{1e3 * r['seconds']:.4g} | {r['ratio']:.2f}× | {1e3 * r['paper_seconds']:.4g} | "
              f"{r['paper_ratio']:.2f}× | {cap} |")
    for label, target in TARGETS.items():
        cells = ", ".join(f"{r['ratio']:.2f}× at n = {r['n']}" for r in rows if r["label"] == label)
        paper = next(r["paper_ratio"] for r in rows if r["label"] == label)
        print(f"{label} / {METROPOLIS} (K = {size}, median of {repeats}): {cells} "
              f"(target ≤ {target}×; paper {paper:.2f}×)")


def ess_row(label: str, posterior, warmup: float, sampling: float, compile_s: float) -> dict:
    """min bulk-ESS, max R-hat and the rates of one contender from its constrained draws."""
    az = arviz()
    data = posterior if isinstance(posterior, az.InferenceData) else az.from_dict(posterior)
    ess, rhat = az.ess(data), az.rhat(data)
    min_ess = min(float(np.min(ess[v].values)) for v in ess.data_vars)
    return {"label": label, "min_ess": min_ess,
            "max_rhat": max(float(np.max(rhat[v].values)) for v in rhat.data_vars),
            "compile": compile_s, "warmup": warmup, "sampling": sampling,
            "per_second": min_ess / sampling, "per_second_all": min_ess / (warmup + sampling)}


def library_row(label: str, model: Model, sampler: str, options: dict, cfg: EssSettings) -> dict:
    """Run one of the library's samplers with the settings; its :func:`ess_row`."""
    idata = sample(model, get_sampler(sampler, model, **options), key=cfg.seed, draws=cfg.draws,
                   chains=cfg.chains, warmup=cfg.warmup, chain_method=cfg.chain_method,
                   progress=False)
    attrs = idata["posterior"].attrs
    return ess_row(label, idata, float(attrs["wall_seconds_warmup"]),
                   float(attrs["wall_seconds_sampling"]), float(attrs["wall_seconds_compile"]))


def ess_rows(cfg: EssSettings) -> tuple[list[dict], str]:
    """The three contenders' rows, and a line on NumPyro (its log density's gap from the
    model's, or that it is not installed)."""
    model = get_model("gp_regression", n=cfg.n, dim=cfg.dim, data_seed=0)
    ensemble = {"fast": "eta", "slow_kernel": "nuts", "size": cfg.size}
    rows = [library_row(f"ensemble (η fast, K = {cfg.size}, NUTS slow)", model, "ensemble",
                        ensemble, cfg),
            library_row("nuts", model, "nuts", {}, cfg)]
    if not numpyro_gp.available():
        return rows, numpyro_gp.NOT_INSTALLED
    x, y = np.asarray(model.data["x"]), np.asarray(model.data["y"])
    theta = np.asarray(model.init_position(jax.random.key(0)))
    gap = abs(numpyro_gp.log_density(x, y, theta) - float(model.log_density(jnp.asarray(theta))))
    out = numpyro_gp.run_nuts(x, y, chains=cfg.chains, warmup=cfg.warmup, draws=cfg.draws,
                              chain_method=cfg.chain_method, seed=cfg.seed)
    rows.append(ess_row("NumPyro NUTS", out["posterior"], out["warmup_seconds"],
                        out["sampling_seconds"], out["compile_seconds"]))
    import numpyro

    return rows, (f"NumPyro {numpyro.__version__}: log density at a prior draw differs from the "
                  f"model's by {gap:.1e}")


def print_ess(rows: list[dict], cfg: EssSettings, numpyro_line: str) -> None:
    """The min-ESS table and the ratio lines."""
    print(f"\nGP-ARD (gp_regression, D = {cfg.dim}, n = {cfg.n}): {cfg.chains} chains × "
          f"({cfg.warmup} warmup + {cfg.draws} draws), chains {cfg.chain_method}; seconds exclude "
          "compilation (shown apart)")
    print(numpyro_line)
    print("| sampler | min bulk-ESS | max R-hat | compile s | warmup s | sampling s | "
          "min-ESS/s (sampling) | min-ESS/s (warmup + sampling) |")
    print("|---" * 8 + "|")
    for r in rows:
        print(f"| {r['label']} | {r['min_ess']:.0f} | {r['max_rhat']:.3f} | {r['compile']:.1f} | "
              f"{r['warmup']:.1f} | {r['sampling']:.1f} | {r['per_second']:.3g} | "
              f"{r['per_second_all']:.3g} |")
    if len(rows) < 3:
        print(f"NumPyro NUTS: {numpyro_gp.NOT_INSTALLED}")
    ens, nuts = rows[0], rows[1]
    numpyro = rows[2] if len(rows) > 2 else None
    for key, what in (("per_second", "sampling"), ("per_second_all", "warmup + sampling")):
        pairs = [("ensemble / nuts", ens, nuts)]
        if numpyro is not None:
            pairs = [("ensemble / NumPyro", ens, numpyro), ("nuts / NumPyro", nuts, numpyro),
                     *pairs]
        cells = ", ".join(f"{name} {a[key] / b[key]:.2f}×" for name, a, b in pairs)
        print(f"min-ESS/s ({what}): {cells}" + (" (goal: ensemble ≥ 3× NumPyro)"
                                                 if numpyro is not None else ""))


def run(n: int | None = None, dim: int | None = None, repeats: int = 3, *,
        size: int = 49, iterations: int | None = None,
        ess: EssSettings | None = None) -> dict[str, list[dict]]:
    """Print both tables; return their rows (``slow_evals``, ``ess``). ``n``: one data size for
    the slow-evaluation timings instead of 100 and 500; ``ess``: the min-ESS comparison's sizes."""
    if dim is not None:
        raise UserInputError("--dim: bench ensemble has no dimension option (gp_neal2010 has 12 "
                             "covariates, the GP-ARD comparison D = 3)")
    for name, value, low in (("n", n, 2), ("repeats", repeats, 1), ("iterations", iterations, 1)):
        if value is not None and int(value) < low:
            raise UserInputError(f"--{name} must be at least {low} (got {value})")
    ns = DEFAULT_NS if n is None else (int(n),)
    cfg = ess or EssSettings()
    print(f"bench ensemble: seconds per slow evaluation on gp_neal2010 (p = 12), one chain, "
          f"after compilation ({jax.default_backend()}, {os.cpu_count()} CPUs visible)")
    slow = [row for m in ns for row in slow_eval_rows(m, size, repeats,
                                                      iterations or default_iterations(m))]
    print_slow_evals(slow, repeats, size)
    rows, line = ess_rows(cfg)
    print_ess(rows, cfg, line)
    return {"slow_evals": slow, "ess": rows}


SPEC = RunnableSpec(
    "ensemble", "seconds per slow evaluation, Metropolis vs the Cholesky and eigen ensembles "
    "(seed 004), and min-ESS/s of ensemble vs nuts vs NumPyro on GP-ARD", run)
