"""One PNG per target: error against wall seconds for every method (curves from the prefixes of
MCMC chains, one point for a weighted population), and each method's mode shares against the
exact masses (or, for a unimodal target, its |Δ log Z|). matplotlib's ``Figure`` (Agg canvas),
imported on first use and never through ``pyplot``, so no global backend changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tempering.bench.multimodal.metrics import Scored
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
