"""One PNG per case: every contender's error against wall seconds (its curve over prefixes of
its draws, :func:`tempering.bench.tall.metrics.curve`), log-log, with the 0.1 sd level drawn.
matplotlib's ``Figure`` (Agg canvas), imported on first use and never through ``pyplot``, so no
global backend changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tempering.bench.tall.metrics import LEVEL

FLOOR = 1e-3  #: errors below this are drawn at it (a log axis has no 0)
CEILING = 1e3  #: and above it (∞ for diverged chains) at it


def log_axes(ax: Any, level: float) -> None:
    """Log-log axes with plain tick labels and the ``level`` drawn: every tall benchmark's
    error-against-seconds plot."""
    from matplotlib.ticker import FuncFormatter

    ax.axhline(level, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    ax.xaxis.set_major_formatter(plain)
    ax.yaxis.set_major_formatter(plain)


def plot_case(n: int, dim: int, rows: list[dict[str, Any]], device: str, out: Path) -> Path:
    """Write ``out/tall-n<n>-d<dim>.png`` and return its path."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9, 5.5), layout="constrained")
    ax = figure.subplots()
    for i, row in enumerate(rows):
        scored = row.get("scored")
        if not row.get("ok") or not scored:
            continue
        seconds, errors = (np.asarray(v, float) for v in scored["curve"])
        errors = np.clip(np.nan_to_num(errors, nan=CEILING, posinf=CEILING), FLOOR, CEILING)
        style = "--" if row["label"].startswith("numpyro") else "-"
        ax.plot(seconds, errors, style, color=f"C{i % 10}", label=row["label"])
        ax.plot(seconds[-1:], errors[-1:], "o", color=f"C{i % 10}")
    log_axes(ax, LEVEL)
    ax.set_xlabel("seconds in a fresh process (start-up, compile, optimiser and warmup included)")
    ax.set_ylabel("largest error of a coefficient's mean or sd, in sds")
    ax.set_title(f"logistic regression, n = {n:,}, d = {dim}: error against time ({device})",
                 fontsize=10)
    ax.legend(fontsize=8)
    path = Path(out) / f"tall-n{n}-d{dim}.png"
    figure.savefig(path, dpi=110)
    return path
