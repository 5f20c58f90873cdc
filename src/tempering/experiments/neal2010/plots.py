"""Figures of the Neal (2010) reproduction: traces laid out as the paper's Figs. 2–5 (every
(S/1000)-th iteration, log axis: mean ν_h red, η green, σ blue), NUTS's trace, and the pilot's
histogram of log σ with the valley that splits its modes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tempering.experiments.plotting import pyplot, save

COLOURS = {"mean_nu": ("red", "mean ν_h"), "eta": ("green", "η"), "sigma": ("blue", "σ")}


def plot_traces(traces: dict[str, dict[str, np.ndarray]], panels: Sequence[tuple[str, str]],
                title: str, path: Path) -> Path:
    """One panel per (run key, label), stacked as in the paper's figures."""
    plt = pyplot()
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 2.6 * len(panels)), squeeze=False)
    for ax, (key, label) in zip(axes[:, 0], panels, strict=True):
        trace = traces[key]
        for name, (colour, legend) in COLOURS.items():
            ax.plot(trace["iteration"], trace[name], ".", ms=2, color=colour, label=legend)
        ax.set(yscale="log", ylim=(1e-3, 1e2), xlabel="iteration", title=label)
    axes[0, 0].legend(loc="upper right", markerscale=4, ncol=3)
    fig.suptitle(title)
    return save(plt, fig, path)


def plot_sigma_modes(log_sigma: np.ndarray, modes: dict[str, float] | None, path: Path) -> Path:
    """The pilot's histogram of log σ and, when there are two modes, the valley between them."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(log_sigma, bins=60, color="0.6")
    if modes is not None:
        ax.axvline(modes["valley"], color="k", ls="--", label="valley (mode split)")
        ax.legend()
    ax.set(xlabel="log σ", ylabel="pilot draws", title="log σ in the pilot run")
    return save(plt, fig, path)
