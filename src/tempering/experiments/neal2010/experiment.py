"""Reproduction of Neal (2010), *MCMC using ensembles of states for problems with fast and slow
variables such as Gaussian process regression* (seed 004, §3).

``tempering reproduce neal2010 [--quick] --out DIR`` fits model ``gp_neal2010`` (Eq. 28 with its
priors) to Eq. 27's synthetic data (n = 100, p = 12, data seed 1) and runs, on one budget of slow
evaluations (:mod:`~tempering.experiments.neal2010.runs`): joint random-walk Metropolis with
s = 0.25 and 0.35 (Fig. 2), single-variable Metropolis with η and σ fast, with and without 49
extra fast updates (Fig. 3), the independent, exchangeable and grid ensembles with η and σ fast
(eigen split, Fig. 4) and with η alone fast (Cholesky split, Fig. 5), and NUTS on the wall clock
of the grid ensemble. It writes:

- ``modes.png`` and the README's data check: a pilot run's histogram of log σ and the valley
  that splits its two modes (the paper's posterior has σ near 0.5 or much smaller);
- ``fig2.png`` … ``fig5.png``, ``fig_nuts.png``: the traces (first seed);
- ``timing.md/csv``: milliseconds per slow evaluation beside the paper's Intel seconds, and the
  ratios to Cholesky Metropolis;
- ``runs.md/csv`` (medians over seeds) and ``runs_by_seed.csv``: rejection rates beside the
  paper's, mode switches of log σ, the share of the low-σ mode, ESS of log σ, log η and mean
  log ν per 1000 slow evaluations and per second, τ of log σ;
- ``README.md``: where the paper's rankings hold.

``--quick`` spends 24 000 slow evaluations per run on 3 seeds (the paper: 300 000, one run; the
full run here: 5 seeds).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tempering.algorithms import get_sampler
from tempering.experiments.neal2010 import paper, readme
from tempering.experiments.neal2010.plots import plot_sigma_modes, plot_traces
from tempering.experiments.neal2010.runs import (
    Run,
    measure,
    run_metropolis,
    run_nuts,
    runs,
    series,
    sigma_valley,
    start_point,
    thinned_trace,
)
from tempering.experiments.report import single_threaded_xla, write_table
from tempering.experiments.timing import time_chains
from tempering.models import Model, get_model
from tempering.registry import RunnableSpec

DATA_SEED = 1
SEED = 2010


@dataclass(frozen=True)
class Settings:
    """Slow evaluations per run, seeds, the pilot's iterations (grid ensemble, Cholesky), NUTS's
    warmup steps and the number of data points."""

    budget: int
    seeds: int
    pilot: int
    nuts_warmup: int = 500
    n: int = 100


def settings(quick: bool) -> Settings:
    if quick:
        return Settings(budget=24_000, seeds=3, pilot=5000)
    return Settings(budget=paper.SLOW_BUDGET, seeds=5, pilot=20_000)


def pilot_modes(model: Model, cfg: Settings) -> tuple[np.ndarray, dict[str, float] | None]:
    """log σ from four chains of the Cholesky grid ensemble (the cheapest good mixer) and its
    modes (:func:`~tempering.experiments.neal2010.runs.sigma_valley`)."""
    p = model.dim - 2
    run = next(r for r in runs(p) if r.key == "grid-Cholesky")
    algorithm = get_sampler(run.sampler, model, **run.options)
    timed = time_chains(algorithm, np.repeat(start_point(p), 4, axis=0), cfg.pilot, 4, SEED - 1,
                        precision=model.precision)
    log_sigma = np.concatenate([series(d[cfg.pilot // 10:], p)["log_sigma"]
                                for d in timed.draws])
    return log_sigma, sigma_valley(log_sigma)


def run_all(model: Model, cfg: Settings, valley: float | None, traces: dict,
            log=print) -> list[dict[str, dict[str, float]]]:
    """Every run on every seed (seed c is chain c of one compiled run; NUTS, whose tuned
    parameters differ per seed, runs seed by seed); the first seed's traces go to ``traces``."""
    p = model.dim - 2
    by_seed: list[dict[str, dict[str, float]]] = [{} for _ in range(cfg.seeds)]
    for run in runs(p):
        t0 = time.perf_counter()
        if run.wall_clock:
            chains = [run_nuts(model, by_seed[c]["grid-eigen"]["seconds"], SEED + c,
                               cfg.nuts_warmup) for c in range(cfg.seeds)]
            measured = [measure(timed, 0, p, valley) for timed in chains]
            first = chains[0]
        else:
            first = run_metropolis(model, run, cfg.budget, SEED, cfg.seeds)
            measured = [measure(first, c, p, valley) for c in range(cfg.seeds)]
        traces[run.key] = thinned_trace(first, p)
        for c, r in enumerate(measured):
            by_seed[c][run.key] = r
        med = {k: float(np.median([r.get(k, np.nan) for r in measured]))
               for k in ("iterations", "ms_per_slow", "ess_log_sigma", "switches")}
        log(f"  {run.key}: {med['iterations']:.0f} iterations, {med['ms_per_slow']:.3f} ms/slow "
            f"eval, ESS(log σ) {med['ess_log_sigma']:.0f}, switches {med['switches']:.0f} "
            f"(medians over seeds; {time.perf_counter() - t0:.1f} s)")
    return by_seed


RUN_COLUMNS = ("run", "figure", "iterations", "slow_evals", "rejection", "paper_rejection",
               "switches", "switches_per_s", "low_sigma_share", "ess_per_1000_slow_log_sigma",
               "ess_per_1000_slow_log_eta", "ess_per_1000_slow_mean_log_nu",
               "ess_per_s_log_sigma", "tau_log_sigma", "ms_per_slow")
MEDIAN_OF = ("iterations", "slow_evals", "switches", "switches_per_s", "low_sigma_share",
             "ess_per_1000_slow_log_sigma", "ess_per_1000_slow_log_eta",
             "ess_per_1000_slow_mean_log_nu", "ess_per_s_log_sigma", "tau_log_sigma",
             "ms_per_slow")
PAPER_REJECTION = {"joint-0.25": "joint s=0.25", "joint-0.35": "joint s=0.35",
                   "single": "single-variable", "single+49": "single-variable"}


def run_rows(all_runs: list[Run], by_seed: list[dict]) -> list[dict]:
    """One row per run: medians over seeds, rejection as the range over variables and seeds."""
    rows = []
    for run in all_runs:
        per = [seed[run.key] for seed in by_seed]
        row: dict = {"run": run.label, "figure": run.figure or "—"}
        for name in MEDIAN_OF:
            values = [r[name] for r in per if name in r]
            row[name] = float(np.median(values)) if values else ""
        low, high = min(r["rejection_min"] for r in per), max(r["rejection_max"] for r in per)
        row["rejection"] = "" if run.wall_clock else f"{low:.0%}–{high:.0%}"  # NUTS always moves
        ref = paper.REJECTION.get(PAPER_REJECTION.get(run.key, ""))
        row["paper_rejection"] = "" if ref is None else (
            f"{ref[0]:.0%}" if ref[0] == ref[1] else f"{ref[0]:.0%}–{ref[1]:.0%}")
        rows.append(row)
    return rows


TIMING = (("Cholesky (Metropolis)", "joint-0.25"), ("eigen (Metropolis)", "single"),
          ("ensemble, eigen", "grid-eigen"), ("ensemble, Cholesky", "grid-Cholesky"))


def timing_rows(by_seed: list[dict]) -> list[dict]:
    """Milliseconds per slow evaluation (median over seeds) beside the paper's Intel seconds,
    each as a ratio to Cholesky Metropolis."""
    ours = {name: float(np.median([s[key]["ms_per_slow"] for s in by_seed]))
            for name, key in TIMING}
    base, paper_base = ours[TIMING[0][0]], paper.SECONDS_PER_SLOW[TIMING[0][0]]
    return [{"method": name, "ms_per_slow": ours[name],
             "paper_ms_per_slow": 1e3 * paper.SECONDS_PER_SLOW[name],
             "ratio": ours[name] / base, "paper_ratio": paper.SECONDS_PER_SLOW[name] / paper_base}
            for name, _ in TIMING]


def write_by_seed(by_seed: list[dict], path: Path) -> Path:
    """Every run's figures on every seed, one CSV row each."""
    keys = sorted({k for seed in by_seed for r in seed.values() for k in r})
    lines = [",".join(["seed", "run", *keys])]
    for i, seed in enumerate(by_seed):
        for run, r in seed.items():
            lines.append(",".join([str(i), run, *(f"{r[k]:.6g}" if k in r else "" for k in keys)]))
    path.write_text("\n".join(lines) + "\n")
    return path


def write_figures(traces: dict, all_runs: list[Run], out: Path) -> list[Path]:
    titles = {2: "Fig. 2: joint Metropolis", 3: "Fig. 3: single-variable Metropolis",
              4: "Fig. 4: ensembles, η and σ fast (eigen)",
              5: "Fig. 5: ensembles, η fast (Cholesky)", 0: "NUTS (not in the paper)"}
    written = []
    for figure, title in titles.items():
        panels = [(r.key, r.label) for r in all_runs if r.figure == figure]
        name = f"fig{figure}.png" if figure else "fig_nuts.png"
        written.append(plot_traces(traces, panels, title, out / name))
    return written


def run(quick: bool, out: Path, cfg: Settings | None = None, log=print) -> None:
    """Run the reproduction of seed 004's §3 and write it to ``out`` (``cfg``: the settings of
    ``quick`` unless given)."""
    single_threaded_xla()
    t_start = time.perf_counter()
    cfg = cfg or settings(quick)
    out = Path(out)
    model = get_model("gp_neal2010", data_seed=DATA_SEED, n=cfg.n)
    all_runs = runs(model.dim - 2)
    log(f"Neal (2010): {len(all_runs)} runs x {cfg.seeds} seeds, {cfg.budget} slow "
        f"evaluations each")
    log_sigma, modes = pilot_modes(model, cfg)
    log(f"  pilot: log σ modes {modes}")
    written = [plot_sigma_modes(log_sigma, modes, out / "modes.png")]
    valley = None if modes is None else modes["valley"]
    traces: dict = {}
    by_seed = run_all(model, cfg, valley, traces, log=log)
    written += write_figures(traces, all_runs, out)
    rows = run_rows(all_runs, by_seed)
    timing = timing_rows(by_seed)
    written += write_table(rows, RUN_COLUMNS, out / "runs",
                           f"Runs on {cfg.budget} slow evaluations (medians over {cfg.seeds} "
                           "seeds)", readme.RUNS_NOTE)
    written += write_table(timing, ("method", "ms_per_slow", "paper_ms_per_slow", "ratio",
                                    "paper_ratio"), out / "timing",
                           "Time per slow evaluation", readme.TIMING_NOTE)
    written.append(write_by_seed(by_seed, out / "runs_by_seed.csv"))
    wall = time.perf_counter() - t_start
    written.append(readme.write_readme(out, quick, cfg, wall, modes, by_seed, timing))
    log(f"done in {wall / 60:.1f} min; files written:")
    for path in written:
        log(f"  {path}")


def _run(quick: bool, out: Path) -> None:
    run(quick, out, log=lambda line: print(line, flush=True))


SPEC = RunnableSpec(
    "neal2010",
    "Neal (2010), ensemble MCMC for fast and slow variables, GP regression (seed 004)",
    _run,
)
