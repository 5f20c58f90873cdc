"""Plots of the seed-003 reproduction (Figs. 1, 2, 3 and 5), PNG with matplotlib's Agg backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tempering.experiments.plotting import pyplot, save


def _sample_contour(ax, draws: np.ndarray, g1: np.ndarray, g2: np.ndarray, title: str) -> None:
    """Filled contours of a 2-D histogram of ``draws`` (…, 2) on the grid's extent."""
    flat = draws.reshape(-1, 2)
    hist, e1, e2 = np.histogram2d(flat[:, 0], flat[:, 1], bins=40,
                                  range=[[g1[0], g1[-1]], [g2[0], g2[-1]]], density=True)
    centres = (0.5 * (e1[1:] + e1[:-1]), 0.5 * (e2[1:] + e2[:-1]))
    ax.contourf(*centres, hist.T, levels=8, cmap="Blues")
    ax.set(title=f"{title} ({flat.shape[0]} draws)", xlabel="θ₁", ylabel="θ₂")


def plot_fig1(tied: dict[str, Any], path: Path) -> Path:
    """Fig. 1: sample contours of MINT and tempered MCMC, the exact π_T, and the mode ratio."""
    plt = pyplot()
    grid = tied["grid"]
    by_label = {r["label"]: r for r in tied["results"]}
    fig, axes = plt.subplots(1, 4, figsize=(20, 4.5))
    _sample_contour(axes[0], by_label["MINT (b)"]["kept"], grid["g1"], grid["g2"], "MINT")
    _sample_contour(axes[1], by_label["tempered MCMC"]["kept"], grid["g1"], grid["g2"],
                    "tempered MCMC")
    logd = grid["log_density"]
    axes[2].contourf(grid["g1"], grid["g2"], np.exp(logd - logd.max()).T, levels=8,
                     cmap="Greens")
    axes[2].set(title="π_T on the grid (exact)", xlabel="θ₁", ylabel="θ₂")
    for label in dict.fromkeys(r["sampler"] for r in tied["curves"]):
        rows = [r for r in tied["curves"] if r["sampler"] == label]
        x = np.array([r["iterations"] for r in rows], float)
        axes[3].errorbar(x, [r["mean_ratio"] for r in rows], yerr=[r["se"] for r in rows],
                         capsize=2, label=label)
    axes[3].axhline(tied["grid"]["ratio"], ls="--", color="k", label="grid (exact)")
    axes[3].set(xlabel="iterations", ylabel="mode mass ratio (mean ± 1 SE over runs)",
                title="ratio of the masses near the two modes")
    axes[3].legend()
    return save(plt, fig, path)


def _bands(ax, curves: list[dict[str, Any]], x: str, y: str = "accuracy",
           se: str = "se") -> None:
    for label in dict.fromkeys(r["sampler"] for r in curves):
        rows = [r for r in curves if r["sampler"] == label and r[x] > 0]
        xs = np.array([r[x] for r in rows], float)
        ys = np.array([r[y] for r in rows], float)
        err = np.nan_to_num(np.array([r[se] for r in rows], float))
        ax.plot(xs, ys, label=label)
        ax.fill_between(xs, ys - err, ys + err, alpha=0.3)
    ax.set(xscale="log")
    ax.legend()


def plot_fig2(logistic: dict[str, Any], path: Path) -> Path:
    """Fig. 2: the distribution of t against a normal (left); test accuracy against epochs."""
    from scipy import stats

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    label, t = next(iter(logistic["t_values"].items()))
    axes[0].hist(t, bins=60, density=True, alpha=0.6, label=f"t at θ = {label}")
    xs = np.linspace(t.min(), t.max(), 200)
    axes[0].plot(xs, stats.norm.pdf(xs, t.mean(), t.std(ddof=1)), "k--",
                 label="normal, same mean and variance")
    axes[0].set(xlabel="t = √m (μ̂(θ) − μ(θ))", ylabel="density")
    axes[0].legend(fontsize=8)
    _bands(axes[1], logistic["curves"], "epochs")
    axes[1].set(xlabel="epochs", ylabel="test accuracy (mean ± 1 SE over runs)")
    return save(plt, fig, path)


def plot_fig5(logistic: dict[str, Any], path: Path) -> Path:
    """Fig. 5: test accuracy against wall seconds (all runs of a sampler vmapped together)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    _bands(ax, logistic["curves"], "seconds")
    ax.set(xlabel="wall seconds (the runs of a sampler vmapped together)",
           ylabel="test accuracy (mean ± 1 SE over runs)")
    return save(plt, fig, path)


def plot_fig3(bnn: dict[str, Any], path: Path) -> Path:
    """Fig. 3: test error against epochs; MINT's running mean dashed; CMINT's final ensemble
    error as the black dashed line."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label in dict.fromkeys(r["method"] for r in bnn["curves"]):
        rows = [r for r in bnn["curves"] if r["method"] == label]
        epochs = [r["epoch"] for r in rows]
        line = ax.plot(epochs, [r["error"] for r in rows], label=label)[0]
        if "error_running_mean" in rows[0]:
            ax.plot(epochs, [r["error_running_mean"] for r in rows], ls=":",
                    color=line.get_color(), label=f"{label}: mean of draws")
    if bnn["cmint"] is not None:
        ax.axhline(bnn["cmint"]["ensemble_error"], ls="--", color="k",
                   label="CMINT final (mean softmax of snapshots)")
    ax.set(yscale="log", xlabel="epochs", ylabel="test error")
    ax.legend(fontsize=7)
    return save(plt, fig, path)


def plot_fig4(ee: dict[str, Any], path: Path) -> Path:
    """Fig. 4: θ₁'s histogram (MINTEE and the MCMC control), the t-SNE embedding of MINTEE's level-0
    draws coloured by mode, the k-means objective against the number of clusters, and the mass in
    each mode against 1/50."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 4, figsize=(22, 4.8))
    for name, values in ee["theta1"].items():
        if name in ("MINTEE (subsets=fixed)", ee["embedded"]) or name.startswith("MCMC"):
            axes[0].hist(values, bins=80, density=True, alpha=0.5, label=name)
    axes[0].set(title="θ₁ (level 0)", xlabel="θ₁", ylabel="density")
    axes[0].legend(fontsize=8)
    emb = ee["embedding"]
    axes[1].scatter(emb["xy"][:, 0], emb["xy"][:, 1], c=emb["modes"], cmap="tab20", s=4)
    axes[1].set(title=f"t-SNE of {len(emb['xy'])} draws of {ee['embedded']} (colour: mode)")
    axes[2].plot(emb["clusters"], emb["inertia"], "o-")
    axes[2].axvline(50, color="grey", ls=":")
    axes[2].set(title="k-means objective", xlabel="clusters", ylabel="within-cluster SS")
    for name, res in ee["results"].items():
        axes[3].plot(np.arange(1, len(res["masses"]) + 1), res["masses"], ".-", label=name)
    axes[3].axhline(1 / len(next(iter(ee["results"].values()))["masses"]), color="k", ls=":",
                    label="1/50 (exact)")
    axes[3].set(title="mass in each mode", xlabel="mode j (near 2·e_j)", ylabel="share of draws")
    axes[3].legend(fontsize=7)
    return save(plt, fig, path)
