"""Rerun every tutorial's runs at the sizes the pages show and redraw ``docs/tutorials/img/*.png``.

From the repository root::

    .venv/bin/python docs/tutorials/figures.py                # every page
    .venv/bin/python docs/tutorials/figures.py pt ee          # some pages (names: see PAGES)
    .venv/bin/python docs/tutorials/figures.py --summaries    # also print `tempering summary`
    .venv/bin/python docs/tutorials/figures.py --keep runs/   # keep the run files (else a temp dir)
    .venv/bin/python docs/tutorials/figures.py --keep runs/ --reuse   # redraw from kept files

Each run is the page's own command line (``tempering sample ...``, run from the repository root,
one at a time), so the figures and the printed summaries are what a reader who copies the pages
gets. ``--summaries`` prints each run's ``tempering summary`` to refresh the pages' excerpts.
The pages' figures are dated; change ``DATE`` when you refresh them. Figures: matplotlib's Agg
backend at 70 dpi, each PNG well under 80 KB.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
IMG = HERE / "img"
DATE = "2026-11-26, 2-core machine"
DPI = 70
TEMPERING = str(Path(sys.executable).with_name("tempering"))

#: Every run: (page, file name, the arguments after ``tempering``, extra summary arguments).
RUNS: list[tuple[str, str, list[str], list[str]]] = [
    ("pt", "pt.nc", ["sample", "--model", "gauss_mixture", "--sampler", "pt", "--chains", "4",
                     "--draws", "1000", "--seed", "1"], []),
    ("tt", "m.nc", ["sample", "--model", "mixture", "--sampler", "stt",
                    "--set", "sampler.inner=rwm", "--set", "sampler.rungs=10",
                    "--set", "sampler.beta_min=0.05", "--chains", "4", "--draws", "2000",
                    "--seed", "2"], []),
    ("tt", "m_tt.nc", ["sample", "--model", "mixture", "--sampler", "tt",
                       "--set", "sampler.rungs=10", "--set", "sampler.beta_min=0.05",
                       "--chains", "4", "--draws", "2000", "--seed", "2"], []),
    ("st", "st.nc", ["sample", "--model", "mvn_mean", "--sampler", "st", "--set", "model.dim=3",
                     "--set", "sampler.rungs=10", "--chains", "2", "--draws", "4000",
                     "--seed", "5"], ["--weights", "optimal"]),
    ("gp", "dc.nc", ["sample", "--model", "gp_regression", "--set", "model.n=100",
                     "--set", "model.dim=2", "--sampler", "discretizing_chain", "--chains", "2",
                     "--draws", "300", "--warmup", "200", "--seed", "3"], []),
    ("gp", "tta.nc", ["sample", "--model", "gp_regression", "--set", "model.n=100",
                      "--set", "model.dim=2", "--sampler", "tt_approx",
                      "--set", "sampler.sizes=80,60", "--chains", "2", "--draws", "300",
                      "--warmup", "200", "--seed", "3"], []),
    ("gp", "gslice.nc", ["sample", "--model", "gp_regression", "--set", "model.n=100",
                         "--set", "model.dim=2", "--sampler", "slice", "--chains", "2",
                         "--draws", "300", "--warmup", "200", "--seed", "3"], []),
    ("minibatch", "nuts.nc", ["sample", "--model", "logistic", "--set", "model.n=1000",
                              "--set", "model.dim=5", "--sampler", "nuts", "--chains", "4",
                              "--draws", "2000", "--seed", "4"], []),
    ("minibatch", "mint.nc", ["sample", "--model", "logistic", "--set", "model.n=1000",
                              "--set", "model.dim=5", "--sampler", "mint",
                              "--set", "sampler.adapt_step_size=true", "--chains", "4",
                              "--draws", "2000", "--seed", "4"], []),
    ("minibatch", "sgld.nc", ["sample", "--model", "logistic", "--set", "model.n=1000",
                              "--set", "model.dim=5", "--sampler", "sgld", "--chains", "4",
                              "--draws", "2000", "--seed", "4"], []),
    ("minibatch", "cmint.nc", ["sample", "--model", "logistic", "--set", "model.n=1000",
                               "--set", "model.dim=5", "--sampler", "cmint",
                               "--set", "sampler.step_size=0.5",
                               "--set", "sampler.round_epochs=10",
                               "--set", "sampler.decay_epochs=1", "--chains", "4",
                               "--draws", "2000", "--seed", "4"], []),
    ("minibatch", "lr.nc", ["sample", "--model", "examples/logistic_regression.py:model",
                            "--set", "model.n=500", "--sampler", "mint",
                            "--set", "sampler.adapt_step_size=true", "--chains", "4",
                            "--draws", "2000", "--seed", "4"], []),
    ("ee", "ee.nc", ["sample", "--model", "modes2d", "--sampler", "ee", "--chains", "8",
                     "--draws", "2000", "--seed", "6"], []),
    ("ensemble", "ens.nc", ["sample", "--model", "gp_neal2010", "--set", "model.n=100",
                            "--sampler", "ensemble", "--set", "sampler.fast=eta",
                            "--chains", "2", "--draws", "2000", "--seed", "7"], []),
    ("ensemble", "crwm.nc", ["sample", "--model", "gp_neal2010", "--set", "model.n=100",
                             "--sampler", "coordinate_rwm", "--set", "sampler.fast=eta",
                             "--chains", "2", "--draws", "2000", "--seed", "7"], []),
    ("numpyro", "s_nuts.nc", ["sample", "--model", "examples/eight_schools.py:model",
                              "--sampler", "nuts", "--chains", "4", "--draws", "1000",
                              "--seed", "8"], []),
    ("numpyro", "s_pt.nc", ["sample", "--model", "examples/eight_schools.py:model",
                            "--sampler", "pt", "--chains", "4", "--draws", "1000",
                            "--seed", "8"], []),
]


def tempering(*args: str, check: bool = True) -> str:
    """Run ``tempering ARGS`` from the repository root; return its stdout. A failure raises, or
    with ``check=False`` comes back as the stdout and the last line of stderr."""
    done = subprocess.run([TEMPERING, *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        if check:
            raise RuntimeError(f"tempering {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        last = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        return f"{done.stdout}FAILED (exit {done.returncode}): {last[0]}\n"
    return done.stdout


def load(runs: Path, name: str):
    import tempering as tp  # imported late: the runs above need no JAX in this process

    return tp.load_run(runs / name)


def pooled(idata, var: str, index: int | None = None) -> np.ndarray:
    """(chains, draws) of a posterior variable (one coordinate of a vector one)."""
    values = idata.posterior[var].values
    return values if index is None else values[..., index]


def save(fig, name: str, title: str) -> None:
    fig.suptitle(f"{title}  (figures from {DATE})", fontsize=9)
    fig.tight_layout()
    path = IMG / name
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    print(f"  wrote {path.relative_to(ROOT)} ({path.stat().st_size / 1024:.0f} KB)")


def mode_bars(ax, shares: np.ndarray, exact: np.ndarray, labels: list[str],
              pooled_se: bool = False) -> None:
    """Each chain's share of draws per mode (dots) against the exact masses (bars); with
    ``pooled_se`` also the chains' mean share ± 2 replicate standard errors (black)."""
    x = np.arange(len(exact))
    ax.bar(x, exact, color="0.85", edgecolor="0.4", label="exact mass")
    width = 0.6 / len(shares)
    for c, row in enumerate(shares):
        ax.plot(x + (c - (len(shares) - 1) / 2) * width, row, "o", ms=4,
                label=f"chain {c}" if len(shares) <= 4 else None)
    if pooled_se:
        se = shares.std(axis=0, ddof=1) / np.sqrt(len(shares))
        ax.errorbar(x, shares.mean(axis=0), yerr=2 * se, fmt="ks", ms=5, capsize=4,
                    label="mean of chains ± 2 SE")
    ax.set_xticks(x, labels)
    ax.set_ylabel("share of draws")
    ax.legend(fontsize=7)


def fig_pt(runs: Path) -> None:
    import tempering as tp
    from tempering.models.gauss_mixture import exact_mode_masses, mode_of

    idata = load(runs, "pt.nc")
    model = tp.get_model("gauss_mixture")
    theta = idata.posterior["theta"].values
    modes = np.asarray(mode_of(theta, model))
    exact = exact_mode_masses(model)
    shares = np.stack([np.bincount(m, minlength=len(exact)) / m.size for m in modes])
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
    for c in range(theta.shape[0]):
        a.plot(theta[c, :, 0], theta[c, :, 1], ".", ms=2, alpha=0.4, label=f"chain {c}")
    a.set_xlabel("theta[0]")
    a.set_ylabel("theta[1]")
    a.set_title("draws (two of ten coordinates)", fontsize=9)
    mode_bars(b, shares, exact, ["+6 e0", "−6 e0", "+6 e1", "−6 e1"])
    b.set_title("share of draws in each mode", fontsize=9)
    save(fig, "pt.png", "pt on gauss_mixture, 4 chains × 1000 draws")


def fig_tt(runs: Path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, (name, label) in zip(axes, [("m.nc", "stt"), ("m_tt.nc", "tt")], strict=True):
        mu0 = pooled(load(runs, name), "mu", 0)
        for c in range(2):
            ax.plot(np.arange(1, 401), mu0[c, 1:401], lw=0.7, alpha=0.8, label=f"chain {c}")
        ax.set_ylim(-2.2, 2.2)
        ax.set_title(f"{label}: trace of mu[0], draws 1–400", fontsize=9)
        ax.set_xlabel("draw")
    axes[0].set_ylabel("mu[0]")
    axes[0].legend(fontsize=7, loc="lower right")
    save(fig, "tt.png", "mixture (modes at mu = (−1, 1) and (1, −1)), 4 chains × 2000 draws")


def fig_st(runs: Path) -> None:
    import tempering as tp

    idata = load(runs, "st.nc")
    it = tp.summarize(idata, weights="optimal")["it"]
    rung = idata.sample_stats["rung"].values
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4))
    a.plot(rung[0, :1000], lw=0.6)
    a.set_xlabel("draw (chain 0, first 1000)")
    a.set_ylabel("rung (0 = target, β = 1)")
    a.invert_yaxis()
    a.set_title("the chain's walk over the ladder", fontsize=9)
    k = np.arange(len(it["lambda"]))
    b.bar(k, it["lambda"], color="tab:blue", label="optimal weight λ_k")
    b.plot(k, np.asarray(it["n_per_rung"]) / np.sum(it["n_per_rung"]), "ko",
           ms=4, label="share of draws")
    b.set_xticks(k, [f"{x:.2f}" for x in it["betas"]], rotation=60, fontsize=7)
    b.set_xlabel("β of the rung")
    b.legend(fontsize=7)
    b.set_title("importance-tempering weights by rung", fontsize=9)
    save(fig, "st.png", "st on mvn_mean (dim 3), 2 chains × 4000 draws")


def fig_gp(runs: Path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.3))
    for name, label in [("gslice.nc", "slice on π (exact)"), ("dc.nc", "discretizing_chain"),
                        ("tta.nc", "tt_approx (80, 60)")]:
        idata = load(runs, name)
        for ax, (var, i) in zip(axes, [("lengthscale", 0), ("sigma_f", None)], strict=True):
            x = pooled(idata, var, i).ravel()
            ax.hist(x, bins=40, density=True, histtype="step", lw=1.5, label=label)
            ax.set_xlabel(var if i is None else f"{var}[{i}]")
    axes[0].set_ylabel("density")
    axes[0].legend(fontsize=7)
    save(fig, "gp.png", "gp_regression (n 100, dim 2), 2 chains × 300 draws")


def fig_minibatch(runs: Path) -> None:
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.3))
    for name, label in [("nuts.nc", "nuts (exact)"), ("mint.nc", "mint (T ≈ 30)"),
                        ("sgld.nc", "sgld (defaults)")]:
        idata = load(runs, name)
        x = pooled(idata, "theta", 2).ravel()
        a.hist(x, bins=60, density=True, histtype="step", lw=1.5, label=label)
    a.set_xlabel("theta[2]")
    a.set_ylabel("density")
    a.legend(fontsize=7)
    a.set_title("logistic (n 1000, dim 5)", fontsize=9)
    cm = load(runs, "cmint.nc")
    scale = cm.sample_stats["step_scale"].values[0]
    b.plot(scale, lw=0.8)
    snaps = np.flatnonzero(cm.sample_stats["snapshot"].values[0] > 0)
    b.plot(snaps, scale[snaps], "ro", ms=4, label="snapshot")
    b.set_xlabel("draw (chain 0)")
    b.set_ylabel("step-size scale")
    b.set_yscale("log")
    b.legend(fontsize=7)
    b.set_title("cmint's cyclic schedule", fontsize=9)
    save(fig, "minibatch.png", "mini-batch samplers against NUTS, 4 chains × 2000 draws")


def fig_ee(runs: Path) -> None:
    import tempering as tp
    from tempering.models.modes2d import modes2d_posterior, nearest_mode

    idata = load(runs, "ee.nc")
    model = tp.get_model("modes2d")
    exact, centres, _ = modes2d_posterior(model)
    theta = idata.posterior["theta"].values
    modes = np.asarray(nearest_mode(theta, centres))
    shares = np.stack([np.bincount(m, minlength=len(exact)) / m.size for m in modes])
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
    for c in range(theta.shape[0]):
        a.plot(theta[c, :, 0], theta[c, :, 1], ".", ms=2, alpha=0.3)
    a.set_xlabel("theta[0]")
    a.set_ylabel("theta[1]")
    a.set_title("draws (colour: chain)", fontsize=9)
    mode_bars(b, shares, exact, [f"({x:.1f}, {y:.1f})" for x, y in centres], pooled_se=True)
    b.set_title("each chain's share of draws per mode", fontsize=9)
    save(fig, "ee.png", "ee on modes2d, 8 chains × 2000 draws")


def fig_ensemble(runs: Path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.3), sharey=True)
    for ax, (name, label) in zip(axes, [("ens.nc", "ensemble"), ("crwm.nc", "coordinate_rwm")],
                                 strict=True):
        sigma = pooled(load(runs, name), "sigma")
        for c in range(sigma.shape[0]):
            ax.plot(sigma[c], lw=0.5, alpha=0.8, label=f"chain {c}")
        ax.set_yscale("log")
        ax.set_xlabel("draw")
        ax.set_title(f"{label}: trace of sigma", fontsize=9)
    axes[0].set_ylabel("sigma (noise sd)")
    axes[0].legend(fontsize=7)
    save(fig, "ensemble.png", "gp_neal2010 (n 100), split eta, 2 chains × 2000 draws, same cost")


def fig_numpyro(runs: Path) -> None:
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.3))
    for name, label in [("s_nuts.nc", "nuts"), ("s_pt.nc", "pt")]:
        idata = load(runs, name)
        tau = pooled(idata, "tau").ravel()
        a.hist(np.log(tau), bins=50, density=True, histtype="step", lw=1.5, label=label)
        mu = pooled(idata, "mu").ravel()
        b.hist(mu, bins=50, density=True, histtype="step", lw=1.5, label=label)
    a.set_xlabel("log tau")
    a.set_ylabel("density")
    b.set_xlabel("mu")
    a.legend(fontsize=7)
    save(fig, "eight_schools.png", "eight schools, 4 chains × 1000 draws")


PAGES: dict[str, Callable[[Path], None]] = {
    "pt": fig_pt, "tt": fig_tt, "st": fig_st, "gp": fig_gp, "minibatch": fig_minibatch,
    "ee": fig_ee, "ensemble": fig_ensemble, "numpyro": fig_numpyro,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help=f"some of {', '.join(PAGES)} (default: all)")
    parser.add_argument("--summaries", action="store_true", help="print each run's summary")
    parser.add_argument("--keep", type=Path, help="write the run files here (kept)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: redraw from the run files already there")
    args = parser.parse_args()
    pages = args.pages or list(PAGES)
    unknown = sorted(set(pages) - set(PAGES))
    if unknown:
        parser.error(f"no page {', '.join(unknown)}; the pages: {', '.join(PAGES)}")
    if args.reuse and not args.keep:
        parser.error("--reuse needs --keep DIR")
    IMG.mkdir(exist_ok=True)
    runs = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="tutorials-"))
    runs.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    try:
        for page in pages:
            for _, name, cmd, summary_args in (r for r in RUNS if r[0] == page):
                t0 = time.perf_counter()
                if not (args.reuse and (runs / name).is_file()):
                    tempering(*cmd, "--out", str(runs / name), "--no-progress")
                    print(f"[{page}] tempering {' '.join(cmd)}: "
                          f"{time.perf_counter() - t0:.0f} s", flush=True)
                if args.summaries:
                    print(tempering("summary", str(runs / name), *summary_args, check=False))
            PAGES[page](runs)
    finally:
        if not args.keep:
            shutil.rmtree(runs, ignore_errors=True)
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
