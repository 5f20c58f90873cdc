"""How long the full vdm2014 reproduction takes, estimated from timings at full size.

``tempering reproduce vdm2014-runtime [--quick] --out DIR`` times the *inner* sampler (HMC or MH
alone, compiled, no Python in the loop) at every full-size (model, N, |θ|, inner) that the full
run uses, and predicts each tempering sampler's time per draw as that time multiplied by the cost
model's ratio (:func:`tempering.experiments.vdm2014.experiment.predicted_ratio`, exact for the
counted likelihood work). The full run's sampling time is then Σ_runs 3 chains × draws × time per
draw. This neglects per-rung overheads that do not scale with N (they matter at small N, where the
runs are cheap anyway) and the compilation of each run's chunk function, which is reported apart as
the inner sampler's compile time times the number of rungs — a rough allowance, since tempering
samplers unroll one kernel per rung.

Writes ``runtime.{md,csv}``; ``--quick`` times fewer steps (noisier, same configurations).
"""

from __future__ import annotations

import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from tempering.algorithms import get_sampler
from tempering.experiments.report import single_threaded_xla, write_table
from tempering.experiments.vdm2014.experiment import full_configs, predicted_ratio, settings
from tempering.experiments.vdm2014.runs import (
    BASE,
    LADDER_RUNGS,
    build_model,
    described,
    initial_points,
    sampler_options,
)
from tempering.registry import RunnableSpec


def time_inner_steps(model_name: str, n: int, dim: int, inner: str, steps: int,
                     repeats: int) -> tuple[float, float]:
    """Seconds per step of the inner sampler alone (best of ``repeats`` runs of ``steps`` steps)
    and the compile time of that jitted loop, started at θ* of the paper."""
    model = build_model(model_name, n, dim)
    algorithm = get_sampler(inner, model, **sampler_options(model_name, "base", inner))
    key = jax.random.key(0)
    state = jax.jit(algorithm.init)(key, jnp.asarray(initial_points(model_name, dim)[0]))

    def loop(key, state):
        def body(state, k):
            state, info = algorithm.step(k, state, algorithm.params)
            return state, info.cost
        return jax.lax.scan(body, state, jax.random.split(key, steps))

    t0 = time.perf_counter()
    compiled = jax.jit(loop).lower(key, state).compile()
    compile_seconds = time.perf_counter() - t0
    best = np.inf
    for r in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(compiled(jax.random.fold_in(key, r), state))
        best = min(best, time.perf_counter() - t0)
    return best / steps, compile_seconds


#: Worker counts for which the full run's spread-out time is estimated.
WORKERS = (1, 2, 4, 8, 16, 32, 64)


def makespan(hours: list[float], workers: int) -> float:
    """Hours until the last of the runs ends when ``workers`` workers take them longest first,
    each the next free worker (LPT list scheduling: within 4/3 of the best possible)."""
    loads = [0.0] * workers
    for h in sorted(hours, reverse=True):
        loads[loads.index(min(loads))] += h
    return max(loads)


def run(quick: bool, out: Path) -> None:
    """Time the inner samplers at full size and write the runtime estimate to ``out``."""
    single_threaded_xla()
    full = settings(False)
    steps, repeats = (4, 2) if quick else (20, 3)
    configs = sorted(full_configs(full))
    groups = sorted({(m, n, d, inner) for m, n, d, _, inner in configs})
    timings = {}
    for i, (model_name, n, dim, inner) in enumerate(groups, 1):
        timings[model_name, n, dim, inner] = time_inner_steps(model_name, n, dim, inner, steps,
                                                              repeats)
        print(f"[{i}/{len(groups)}] {model_name} N={n} |theta|={dim} {inner}: "
              f"{timings[model_name, n, dim, inner][0] * 1e3:.2f} ms/step", flush=True)
    rows, total_s, compile_s = [], 0.0, 0.0
    run_hours: list[float] = []
    for model_name, n, dim, sampler, inner in configs:
        per_step, compile_seconds = timings[model_name, n, dim, inner]
        evals = float(sampler_options(model_name, BASE, inner).get("num_steps", 1))
        ratio = 1.0
        if sampler != BASE:
            algorithm = get_sampler(sampler, build_model(model_name, n, dim),
                                    **sampler_options(model_name, sampler, inner))
            ratio = predicted_ratio(described(algorithm), sampler, evals)
        seconds = 3 * full.draws * per_step * ratio
        total_s += seconds
        run_hours.append(seconds / 3600)
        compile_s += compile_seconds * (1 if sampler == BASE else LADDER_RUNGS)
        rows.append({"model": model_name, "N": n, "dim": dim, "inner": inner,
                     "sampler": sampler, "ms_per_inner_step": per_step * 1e3,
                     "cost_ratio": ratio, "hours": seconds / 3600})
    spread = ", ".join(f"{k}: {makespan(run_hours, k):.1f} h"
                       for k in WORKERS)
    notes = (f"Full run: {len(configs)} runs, 3 chains x {full.draws} draws each. Estimated "
             f"sampling time {total_s / 3600:.1f} h; compilation allowance "
             f"{compile_s / 3600:.1f} h; total about {(total_s + compile_s) / 3600:.1f} h on "
             f"this machine (inner-step timings: best of {repeats} x {steps} steps). Spread "
             f"over k Dask workers (`tempering reproduce vdm2014 --workers k` or `--scheduler`; "
             f"one core each, as fast as this machine's; longest runs first), the sampling "
             f"takes about {spread}.")
    write_table(rows, ("model", "N", "dim", "inner", "sampler", "ms_per_inner_step",
                       "cost_ratio", "hours"), Path(out) / "runtime",
                "Estimated runtime of `tempering reproduce vdm2014` (full)", notes)
    print(notes, flush=True)


SPEC = RunnableSpec("vdm2014-runtime", "the full vdm2014 run time, estimated from timed steps", run)
