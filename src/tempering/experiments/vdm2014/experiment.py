"""Reproduction of van de Meent, Paige & Wood (2014), *Tempering by Subsampling* (seed 000).

``tempering reproduce vdm2014 [--quick] --out DIR`` writes, beside the paper's numbers:

- ``fig1_cost_ratios.{md,csv}`` and ``fig1_walltime.png``: cost per draw relative to the inner
  sampler (HMC) — predicted from the schedule run (§3.1, Eqs. 10-18, via
  :mod:`tempering.algorithms.cost_model`), counted (``info.cost``) and measured (wall time) —
  next to the paper's Eq. 15-16 values and its measured ratios (§4.4, Fig. 1);
- ``table1.{md,csv}``: GP regression, median ESS (Eq. 8) per second by |θ| (Table 1);
- ``table2.{md,csv}``: multivariate Gaussian, median ESS per second by dimension (Table 2);
- ``fig2_rhat.{csv,png}``: median R-hat (Eq. 7) against draws and wall time (Fig. 2);
- ``fig3_ess_vs_n.{csv,png}``: ESS per second against N (Fig. 3);
- ``README.md``: settings, timings and a comparison of rankings.

Runs are cached by (model, N, |θ|, sampler, inner) so figures and tables that need the same run
share it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tempering import dask_client
from tempering.algorithms import SAMPLERS, paper_cost_ratios
from tempering.experiments.report import single_threaded_xla, write_table
from tempering.experiments.vdm2014 import paper
from tempering.experiments.vdm2014.plots import (
    ALL_SAMPLERS,
    plot_ess_vs_n,
    plot_rhat,
    plot_walltime,
)
from tempering.experiments.vdm2014.readme import write_readme
from tempering.experiments.vdm2014.runs import (
    BASE,
    HMC_STEPS,
    INNER_LABEL,
    Runner,
    efficiency,
    rhat_trace,
)
from tempering.registry import RunnableSpec


@dataclass(frozen=True)
class Settings:
    """Sizes of one reproduction (see :func:`settings`). Dimensions are |θ|."""

    draws: int
    chunks: int
    fig13_mvn_ns: tuple[int, ...]
    fig13_mvn_dim: int
    fig13_gp_hmc_ns: tuple[int, ...]
    fig13_gp_hmc_dim: int
    fig13_gp_mh_ns: tuple[int, ...]
    fig13_gp_mh_dim: int
    table1_n: int
    table1_dims_hmc: tuple[int, ...]
    table1_dims_mh: tuple[int, ...]
    table2_n_hmc: int
    table2_n_mh: int
    table2_dims: tuple[int, ...]
    fig2_dim: int


def settings(quick: bool) -> Settings:
    """The paper's settings (§4.1-4.7), or the reduced ``--quick`` ones.

    The paper does not state its number of draws; the full run uses 4000 per chain (2000 kept).
    """
    if quick:
        return Settings(draws=200, chunks=4, fig13_mvn_ns=(64, 128), fig13_mvn_dim=10,
                        fig13_gp_hmc_ns=(32, 64), fig13_gp_hmc_dim=5, fig13_gp_mh_ns=(64,),
                        fig13_gp_mh_dim=5, table1_n=64, table1_dims_hmc=(5,), table1_dims_mh=(5,),
                        table2_n_hmc=128, table2_n_mh=128, table2_dims=(5, 10), fig2_dim=5)
    return Settings(draws=4000, chunks=40, fig13_mvn_ns=(64, 128, 256, 512, 1024, 2048),
                    fig13_mvn_dim=50, fig13_gp_hmc_ns=(64, 128, 256, 512, 1024),
                    fig13_gp_hmc_dim=15, fig13_gp_mh_ns=(64, 128, 256, 512, 1024),
                    fig13_gp_mh_dim=20, table1_n=512, table1_dims_hmc=(5, 10, 15, 20, 25),
                    table1_dims_mh=(5, 10, 15, 20), table2_n_hmc=1024, table2_n_mh=256,
                    table2_dims=(5, 10, 50, 100), fig2_dim=20)


# --------------------------------------------------------------------------- cost (Fig. 1)

def predicted_ratio(record_options: dict, sampler: str, evals_per_step: float) -> float:
    """Cost per draw relative to the inner sampler predicted by the cost model (§3.1, Eqs. 10-18).

    Uses the ladder's actual rung costs ``options["rung_costs"]`` (c_m = (N_m/N)^α, Eq. 10) in
    the sampler spec's ``predicted_cost`` (PT/SPT: ``pt_iteration_costs``, TT/STT:
    ``tt_iteration_cost``), divided by the inner sampler's cost per draw (``evals_per_step``
    evaluations at c_0 = 1). The base sampler is 1.
    """
    if sampler == BASE:
        return 1.0
    predicted = SAMPLERS.get(sampler).predicted_cost
    assert predicted is not None, f"{sampler} declares no cost model"
    return float(predicted(record_options, evals_per_step) / evals_per_step)


def cost_rows(runner: Runner, model: str, ns: Iterable[int], dim: int,
              samplers: Sequence[str] = ALL_SAMPLERS) -> list[dict]:
    """Fig. 1 / §4.4 rows: predicted, counted and measured cost ratios vs HMC, paper's beside.

    ``counted`` is the mean recorded cost per draw divided by the inner sampler's L evaluations;
    ``measured`` the wall time per draw divided by HMC's at the same N. ``paper_eq`` is
    :func:`paper_cost_ratios` (Eqs. 15-18, M = 6, β_* = 1/8), ``paper_quoted`` the values the text
    quotes from it, ``paper_measured`` the paper's measured ratios (§4.4).
    """
    alpha = 3.0 if model == "gp_regression" else 1.0
    eq = paper_cost_ratios(6, 0.125, alpha)
    evals = float(HMC_STEPS[model])
    rows = []
    for n in ns:
        base = runner(model, n, dim, BASE, "hmc")
        for s in samplers:
            rec = runner(model, n, dim, s, "hmc")
            rows.append({
                "model": model, "alpha": alpha, "N": n, "dim": dim, "sampler": s,
                "predicted": predicted_ratio(rec.options, s, evals),
                "counted": float(rec.cost.mean()) / evals,
                "measured": rec.seconds_per_draw / base.seconds_per_draw,
                "seconds_per_draw": rec.seconds_per_draw,
                "paper_eq": 1.0 if s == BASE else eq[s],
                "paper_quoted": paper.QUOTED_EQ_RATIOS[alpha].get(s, ""),
                "paper_measured": "" if s == BASE else paper.MEASURED_COST_RATIOS[model][s],
            })
    return rows


COST_COLUMNS = ("model", "alpha", "N", "dim", "sampler", "predicted", "counted", "measured",
                "seconds_per_draw", "paper_eq", "paper_quoted", "paper_measured")


# --------------------------------------------------------------------------- ESS tables

def efficiency_rows(runner: Runner, table: str, model: str, n: int, dims: Iterable[int],
                    inner: str, samplers: Sequence[str] = ALL_SAMPLERS) -> list[dict]:
    """Table 1/2 rows: our median ESS/s (Eq. 8, §2.4) beside the paper's, per |θ| and sampler.

    ``ess_per_s`` is marked with ``*`` in ``flag`` where the median R-hat (Eq. 7) is ≥ 1.1 (the
    paper's star); ``ess_per_cost`` divides the same ESS by the counted cost of one chain's draws
    (full-data evaluations), a hardware-independent figure.
    """
    rows = []
    for dim in dims:
        for s in samplers:
            rec = runner(model, n, dim, s, inner)
            eff = efficiency(rec)
            ref = paper.paper_value(table, inner, dim, s)
            name = INNER_LABEL[inner] if s == BASE else s.upper()
            rows.append({
                "inner": INNER_LABEL[inner], "N": n, "theta_dim": dim,
                "sampler": name, "ess_per_s": eff["ess_per_s"],
                "flag": "" if eff["converged"] else "*",
                "paper_ess_per_s": "" if ref is None else ref[0],
                "paper_flag": "" if ref is None else ("*" if ref[1] else ""),
                "ess_eq8": eff["ess_eq8"], "rhat_eq7": eff["rhat_eq7"],
                "arviz_ess": eff["arviz_ess"], "arviz_rhat": eff["arviz_rhat"],
                "ess_per_cost": eff["ess_eq8"] / float(rec.cost.sum(axis=1).mean()),
                "seconds": eff["seconds"], "compile_seconds": eff["compile_seconds"],
            })
    return rows


EFF_COLUMNS = ("inner", "N", "theta_dim", "sampler", "ess_per_s", "flag", "paper_ess_per_s",
               "paper_flag", "ess_eq8", "rhat_eq7", "arviz_ess", "arviz_rhat", "ess_per_cost",
               "seconds", "compile_seconds")


def rhat_rows(runner: Runner, n: int, dim: int, inner: str = "hmc") -> list[dict]:
    """Fig. 2 rows: median R-hat (Eq. 7) after each chunk, for every sampler (GP, §4.5)."""
    rows = []
    for s in ALL_SAMPLERS:
        for draws, secs, rhat in rhat_trace(runner("gp_regression", n, dim, s, inner)):
            rows.append({"sampler": "HMC" if s == BASE else s.upper(), "N": n,
                         "theta_dim": dim, "draws": draws, "seconds": secs, "median_rhat": rhat})
    return rows


def ess_vs_n_rows(runner: Runner, panel: str, model: str, ns: Iterable[int], dim: int,
                  inner: str) -> list[dict]:
    """Fig. 3 rows: median ESS/s (Eq. 8) against N for one panel (§4.6)."""
    rows = []
    for n in ns:
        for s in ALL_SAMPLERS:
            eff = efficiency(runner(model, n, dim, s, inner))
            rows.append({"panel": panel, "model": model, "inner": inner, "N": n,
                         "theta_dim": dim, "sampler": s, "ess_per_s": eff["ess_per_s"],
                         "rhat_eq7": eff["rhat_eq7"], "arviz_ess": eff["arviz_ess"]})
    return rows


def full_configs(full: Settings) -> set[tuple[str, int, int, str, str]]:
    """Every distinct run (model, N, |θ|, sampler, inner) that the full reproduction makes."""
    configs = set()
    for n in full.fig13_mvn_ns:
        configs |= {("mvn_mean", n, full.fig13_mvn_dim, s, "hmc") for s in ALL_SAMPLERS}
    for n in full.fig13_gp_hmc_ns:
        configs |= {("gp_regression", n, full.fig13_gp_hmc_dim, s, "hmc") for s in ALL_SAMPLERS}
    for n in full.fig13_gp_mh_ns:
        configs |= {("gp_regression", n, full.fig13_gp_mh_dim, s, "rwm") for s in ALL_SAMPLERS}
    for inner, dims in (("hmc", full.table1_dims_hmc), ("rwm", full.table1_dims_mh)):
        configs |= {("gp_regression", full.table1_n, d, s, inner) for d in dims
                    for s in ALL_SAMPLERS}
    for inner, n in (("hmc", full.table2_n_hmc), ("rwm", full.table2_n_mh)):
        configs |= {("mvn_mean", n, d, s, inner) for d in full.table2_dims for s in ALL_SAMPLERS}
    return configs


def run(quick: bool, out: Path, workers: int | None = None, scheduler: str | None = None) -> None:
    """Run the reproduction of seed 000 (Tables 1-2, Figs. 1-3) and write it to ``out``.

    Parameters
    ----------
    quick
        Use the reduced settings of :func:`settings` (minutes instead of hours).
    out
        Existing output directory.
    workers, scheduler
        With either, every run is first made as a task on a Dask cluster — a loopback one with
        ``workers`` processes, or the one at ``scheduler`` — and the tables read the records.
    """
    single_threaded_xla()
    t_start = time.perf_counter()
    out = Path(out)
    cfg = settings(quick)
    runner = Runner(cfg.draws, cfg.chunks)
    written: list[Path] = []
    if workers is not None or scheduler is not None:
        print(f"[0/5] {len(full_configs(cfg))} runs as tasks on Dask", flush=True)
        with dask_client(workers, scheduler) as client:
            runner.fan_out(full_configs(cfg), client)

    print("[1/5] Fig. 1: cost per draw vs N (MVN and GP, HMC inner sampler)", flush=True)
    cost = (cost_rows(runner, "mvn_mean", cfg.fig13_mvn_ns, cfg.fig13_mvn_dim)
            + cost_rows(runner, "gp_regression", cfg.fig13_gp_hmc_ns, cfg.fig13_gp_hmc_dim))
    written += write_table(cost, COST_COLUMNS, out / "fig1_cost_ratios",
                           "Fig. 1 / §4.4: cost per draw relative to HMC",
                           "predicted: cost model with the ladder's rung costs; counted: recorded "
                           "cost / L; measured: wall time per draw / HMC's; paper_eq: Eqs. 15-18; "
                           "paper_quoted: §4.4 text; paper_measured: §4.4 (mvn at its largest N, "
                           "GP at N = 1024).")
    written.append(plot_walltime(cost, out / "fig1_walltime.png"))

    print("[2/5] Table 1: GP regression, ESS/s by |theta| (HMC and MH)", flush=True)
    t1 = (efficiency_rows(runner, "table1", "gp_regression", cfg.table1_n, cfg.table1_dims_hmc,
                          "hmc")
          + efficiency_rows(runner, "table1", "gp_regression", cfg.table1_n, cfg.table1_dims_mh,
                            "rwm"))
    written += write_table(t1, EFF_COLUMNS, out / "table1",
                           f"Table 1: GP regression, N = {cfg.table1_n}, median ESS/s",
                           "Paper: N = 512. `*`: median R-hat ≥ 1.1.")

    print("[3/5] Table 2: multivariate Gaussian, ESS/s by dimension", flush=True)
    t2 = (efficiency_rows(runner, "table2", "mvn_mean", cfg.table2_n_hmc, cfg.table2_dims, "hmc")
          + efficiency_rows(runner, "table2", "mvn_mean", cfg.table2_n_mh, cfg.table2_dims,
                            "rwm"))
    written += write_table(t2, EFF_COLUMNS, out / "table2",
                           "Table 2: multivariate Gaussian, median ESS/s",
                           "Paper: N = 1024 (HMC), N = 256 (MH). `*`: median R-hat ≥ 1.1.")

    print(f"[4/5] Fig. 2: median R-hat vs draws and time (GP, |theta|={cfg.fig2_dim})",
          flush=True)
    rh = rhat_rows(runner, cfg.table1_n, cfg.fig2_dim)
    written.append(write_table(rh, ("sampler", "N", "theta_dim", "draws", "seconds",
                                    "median_rhat"), out / "fig2_rhat", "Fig. 2 data")[1])
    (out / "fig2_rhat.md").unlink()
    written.append(plot_rhat(rh, out / "fig2_rhat.png"))

    print("[5/5] Fig. 3: ESS/s vs N", flush=True)
    f3 = (ess_vs_n_rows(runner, f"MVN, HMC, |θ|={cfg.fig13_mvn_dim}", "mvn_mean",
                        cfg.fig13_mvn_ns, cfg.fig13_mvn_dim, "hmc")
          + ess_vs_n_rows(runner, f"GP, MH, |θ|={cfg.fig13_gp_mh_dim}", "gp_regression",
                          cfg.fig13_gp_mh_ns, cfg.fig13_gp_mh_dim, "rwm")
          + ess_vs_n_rows(runner, f"GP, HMC, |θ|={cfg.fig13_gp_hmc_dim}", "gp_regression",
                          cfg.fig13_gp_hmc_ns, cfg.fig13_gp_hmc_dim, "hmc"))
    written.append(write_table(f3, ("panel", "model", "inner", "N", "theta_dim", "sampler",
                                    "ess_per_s", "rhat_eq7", "arviz_ess"),
                               out / "fig3_ess_vs_n", "Fig. 3 data")[1])
    (out / "fig3_ess_vs_n.md").unlink()
    written.append(plot_ess_vs_n(f3, out / "fig3_ess_vs_n.png"))

    wall = time.perf_counter() - t_start
    written.append(write_readme(out, quick, cfg, wall, cost, t1, t2))
    print(f"done in {wall / 60:.1f} min; files written:", flush=True)
    for path in written:
        print(f"  {path}")


SPEC = RunnableSpec(
    "vdm2014",
    "van de Meent, Paige & Wood (2014), tempering by subsampling (seed 000)",
    run,
    fans_out=True,
)
