"""One PNG per target: error against wall seconds for every method (curves from the prefixes of
MCMC chains, one point for a weighted population), and each method's mode shares against the
exact masses (or, for a unimodal target, its |Δ log Z|); and one more, ``<target>-smc-moves.png``,
for SMC's sweep over its moves per stage: its error against the number of moves and against its
seconds, the chosen number marked and the band within noise of the least error shaded.
matplotlib's ``Figure`` (Agg canvas), imported on first use and never through ``pyplot``, so no
global backend changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tempering.bench.multimodal.metrics import Scored
from tempering.bench.multimodal.result import MethodRun
from tempering.bench.multimodal.targets import Target


def _error_panel(ax, target: Target, scored: dict[str, Scored]) -> None:
    for i, (name, s) in enumerate(scored.items()):
        seconds, errors = s.curve
        color = f"C{i}"
        if s.run.progressive:
            ax.plot(seconds, np.maximum(errors, 1e-5), "-", color=color, label=name)
            ax.plot(seconds[-1:], np.maximum(errors[-1:], 1e-5), "o", color=color)
        else:
            ax.plot(seconds, np.maximum(errors, 1e-5), "s", color=color, label=name,
                    markersize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("wall seconds (compilation, pilot and warmup included)")
    ax.set_ylabel(target.error_name())
    ax.set_title("error against time")
    ax.legend(fontsize=8)


def _answer_panel(ax, target: Target, scored: dict[str, Scored]) -> None:
    names = list(scored)
    if target.masses is not None:
        k = len(target.masses)
        width = 0.8 / (len(names) + 1)
        x = np.arange(k)
        ax.bar(x, target.masses, width, color="black", label="exact")
        for i, name in enumerate(names):
            shares = scored[name].shares
            if shares is not None:
                ax.bar(x + (i + 1) * width, shares, width, color=f"C{i}", label=name)
        ax.set_xticks(x + width * len(names) / 2, [str(i) for i in range(k)])
        ax.set_xlabel("mode")
        ax.set_ylabel("share of draws")
        ax.set_title("mode masses")
        ax.legend(fontsize=7)
        return
    errors = [scored[n].log_z_error for n in names]
    ax.bar(np.arange(len(names)), [np.nan if e is None else e for e in errors],
           color=[f"C{i}" for i in range(len(names))])
    ax.set_xticks(np.arange(len(names)), names)
    ax.set_ylabel("|Δ log Z|")
    ax.set_title("evidence error (none: no estimate)")


def plot_target(target: Target, scored: dict[str, Scored], out: Path) -> Path:
    """Write ``out/<target key>.png`` and return its path."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(12, 4.5), layout="constrained")
    left, right = figure.subplots(1, 2)
    _error_panel(left, target, scored)
    _answer_panel(right, target, scored)
    figure.suptitle(target.title, fontsize=10)
    path = Path(out) / f"{target.key}.png"
    figure.savefig(path, dpi=110)
    return path


def plot_sweep(target: Target, run: MethodRun, out: Path) -> Path | None:
    """Write ``out/<target key>-smc-moves.png`` from the sweep in ``run.info`` and return its
    path (``None``: the run has no sweep)."""
    info = run.info
    if "sweep" not in info:
        return None
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullLocator

    moves = np.array([p["moves"] for p in info["sweep"]])
    errors = np.maximum(np.array([p["error"] for p in info["sweep"]]), 1e-5)
    seconds = np.array([p["seconds"]["total"] for p in info["sweep"]])
    chosen = moves == info["moves"]
    band = (float(np.min(errors)), float(np.min(errors)) + info["tolerance"])
    figure = Figure(figsize=(11, 4), layout="constrained")
    for ax, x, label in zip(figure.subplots(1, 2), (moves, seconds),
                            ("RWM moves per particle per stage",
                             "wall seconds (compilation included)"), strict=True):
        ax.axhspan(*band, color="0.85", label="within 2 MC se of the least")
        ax.plot(x, errors, "o-", color="C0", label="SMC")
        ax.plot(x[chosen], errors[chosen], "*", color="C3", markersize=14,
                label=f"chosen: {info['moves']} moves")
        for xi, yi, m in zip(x, errors, moves, strict=True):
            ax.annotate(str(m), (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel(target.error_name())
        ax.legend(fontsize=8)
    left = figure.axes[0]
    left.set_xscale("log")
    left.set_xticks(moves, [str(m) for m in moves])
    left.xaxis.set_minor_locator(NullLocator())
    figure.suptitle(f"SMC's moves per stage: {target.title}", fontsize=10)
    path = Path(out) / f"{target.key}-smc-moves.png"
    figure.savefig(path, dpi=110)
    return path
