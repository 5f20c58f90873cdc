"""Plots of the seed-000 reproduction (Figs. 1–3), written as PNG with matplotlib's Agg backend."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

TEMPERING = ("stt", "tt", "spt", "pt")
ALL_SAMPLERS = ("base", *TEMPERING)


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_walltime(rows: Sequence[dict], path: Path) -> Path:
    """Fig. 1: wall seconds per draw (one chain, compilation excluded) against N, per model."""
    plt = _plt()
    models = sorted({r["model"] for r in rows})
    fig, axes = plt.subplots(1, len(models), figsize=(5 * len(models), 4), squeeze=False)
    for ax, model in zip(axes[0], models, strict=True):
        for s in ALL_SAMPLERS:
            pts = sorted((r["N"], r["seconds_per_draw"]) for r in rows
                         if r["model"] == model and r["sampler"] == s)
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", label="HMC" if s == "base"
                        else s.upper())
        ax.set(xscale="log", yscale="log", xlabel="N", ylabel="seconds per draw", title=model)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_rhat(rows: Sequence[dict], path: Path) -> Path:
    """Fig. 2: median R-hat against draws (left) and wall seconds (right); dashed line at 1.1."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for s in dict.fromkeys(r["sampler"] for r in rows):
        rs = [r for r in rows if r["sampler"] == s]
        axes[0].plot([r["draws"] for r in rs], [r["median_rhat"] for r in rs], label=s)
        axes[1].plot([r["seconds"] for r in rs], [r["median_rhat"] for r in rs], label=s)
    for ax, xlabel in zip(axes, ("draws per chain", "wall seconds per chain"), strict=True):
        ax.axhline(1.1, ls="--", color="k")
        ax.set(xscale="log", yscale="log", xlabel=xlabel, ylabel="median R-hat")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_ess_vs_n(rows: Sequence[dict], path: Path) -> Path:
    """Fig. 3: median ESS per second against N, one panel per (model, inner, |θ|)."""
    plt = _plt()
    panels = list(dict.fromkeys(r["panel"] for r in rows))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        for s in ALL_SAMPLERS:
            pts = sorted((r["N"], r["ess_per_s"]) for r in rows
                         if r["panel"] == panel and r["sampler"] == s)
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o",
                        label="inner" if s == "base" else s.upper())
        ax.set(xscale="log", yscale="log", xlabel="N", ylabel="median ESS / s", title=panel)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
