"""Plots of the seed-000 reproduction (Figs. 1–3), written as PNG with matplotlib's Agg backend."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tempering.experiments.plotting import pyplot, save

TEMPERING = ("stt", "tt", "spt", "pt")
ALL_SAMPLERS = ("base", *TEMPERING)




def _panels_against_n(rows: Sequence[dict], path: Path, group: str, value: str, ylabel: str,
                      base_label: str) -> Path:
    """One log–log panel per value of ``rows[group]``, one line per sampler: ``value`` against N."""
    plt = pyplot()
    groups = list(dict.fromkeys(r[group] for r in rows))
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 4), squeeze=False)
    for ax, name in zip(axes[0], groups, strict=True):
        for s in ALL_SAMPLERS:
            pts = sorted((r["N"], r[value]) for r in rows if r[group] == name and r["sampler"] == s)
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o",
                        label=base_label if s == "base" else s.upper())
        ax.set(xscale="log", yscale="log", xlabel="N", ylabel=ylabel, title=name)
        ax.legend()
    return save(plt, fig, path)


def plot_walltime(rows: Sequence[dict], path: Path) -> Path:
    """Fig. 1: wall seconds per draw (one chain, compilation excluded) against N, per model."""
    return _panels_against_n(sorted(rows, key=lambda r: r["model"]), path, "model",
                             "seconds_per_draw", "seconds per draw", "HMC")


def plot_rhat(rows: Sequence[dict], path: Path) -> Path:
    """Fig. 2: median R-hat against draws (left) and wall seconds (right); dashed line at 1.1."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for s in dict.fromkeys(r["sampler"] for r in rows):
        rs = [r for r in rows if r["sampler"] == s]
        axes[0].plot([r["draws"] for r in rs], [r["median_rhat"] for r in rs], label=s)
        axes[1].plot([r["seconds"] for r in rs], [r["median_rhat"] for r in rs], label=s)
    for ax, xlabel in zip(axes, ("draws per chain", "wall seconds per chain"), strict=True):
        ax.axhline(1.1, ls="--", color="k")
        ax.set(xscale="log", yscale="log", xlabel=xlabel, ylabel="median R-hat")
        ax.legend()
    return save(plt, fig, path)


def plot_ess_vs_n(rows: Sequence[dict], path: Path) -> Path:
    """Fig. 3: median ESS per second against N, one panel per (model, inner, |θ|)."""
    return _panels_against_n(rows, path, "panel", "ess_per_s", "median ESS / s", "inner")
