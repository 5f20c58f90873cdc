"""Figures of the report: matplotlib on the Agg backend, each turned into an inline PNG.

A figure becomes a ``data:image/png;base64,...`` URI inside an ``<img>``, so the page needs no
other file and makes no request. Figures are small (80 dpi) and closed as soon as they are
encoded; matplotlib is imported on first use, so importing the package stays cheap.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tempering.report.markup import Html, esc, tag

DPI = 80


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def png_uri(fig: Any) -> str:
    """The figure as a base64 PNG data URI; the figure is closed."""
    plt = pyplot()
    buffer = io.BytesIO()
    try:
        fig.tight_layout()
        fig.savefig(buffer, format="png", dpi=DPI)
    finally:
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def figure(fig: Any, caption: Any, alt: Any | None = None) -> Html:
    """``<figure>`` with the figure inlined and its (escaped) caption."""
    image = Html(f'<img src="{png_uri(fig)}" alt="{esc(alt if alt is not None else caption)}">')
    return tag("figure", Html(image + tag("figcaption", caption)))


def bars(values: ArrayLike, title: str, xlabel: str, ylabel: str = "mean") -> Any:
    """A small bar chart of one value per index (NaN bars are left empty)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.2, 2.6))
    heights = np.nan_to_num(np.ravel(np.asarray(values, dtype=float)), nan=0.0)
    index = np.arange(heights.size)
    ax.bar(index, heights, color="#4c72b0")
    ax.set_xticks(index if heights.size <= 20 else index[:: max(1, heights.size // 10)])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(shorten(title), fontsize=9)
    return fig


def heatmap(values: np.ndarray, title: str, xlabel: str, ylabel: str) -> Any:
    """A small image of a 2-D array of means (rows ``ylabel``, columns ``xlabel``)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.2, 2.8))
    shown = ax.imshow(np.asarray(values, dtype=float), aspect="auto", cmap="viridis",
                      interpolation="nearest")
    fig.colorbar(shown, ax=ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(shorten(title), fontsize=9)
    return fig


def lines(series: np.ndarray, title: str, ylabel: str, labels: Sequence[str],
          step: bool = False) -> Any:
    """One line per row of ``series`` (rows × draws) against the draw index."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.2, 2.6))
    draws = np.arange(series.shape[1])
    for row, label in zip(series, labels, strict=True):
        if step:
            ax.step(draws, row, where="post", label=label, linewidth=0.8)
        else:
            ax.plot(draws, row, label=label, linewidth=0.8)
    ax.set_xlabel("draw")
    ax.set_ylabel(ylabel)
    ax.set_title(shorten(title), fontsize=9)
    if 1 < len(labels) <= 8:
        ax.legend(fontsize=7, loc="best")
    return fig


def shorten(text: str, width: int = 60) -> str:
    """``text`` cut to ``width`` characters for a plot title (the caption has it whole), with
    ``$`` escaped so matplotlib does not read it as mathtext."""
    text = text if len(text) <= width else text[: width - 1] + "…"
    return text.replace("$", r"\$")
