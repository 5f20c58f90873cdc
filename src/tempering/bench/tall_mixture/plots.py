"""One PNG per case: every contender's ordering error against wall seconds (its curve over
prefixes of its draws, :func:`tempering.bench.tall_mixture.metrics.curve`; SMC one point),
log-log, with the 0.05 level drawn; a curve is faint where some chain had not yet visited every
ordering. matplotlib's ``Figure`` (Agg canvas), imported on first use and never through
``pyplot``, so no global backend changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tempering.bench.tall.plots import CEILING, FLOOR, log_axes
from tempering.bench.tall_mixture.metrics import LEVEL


def _draw(ax: Any, row: dict[str, Any], colour: str) -> None:
    """``row``'s curve: faint before every chain had every ordering, solid after."""
    scored = row["scored"]
    seconds, errors = (np.asarray(v, float) for v in scored["curve"])
    errors = np.clip(np.nan_to_num(errors, nan=CEILING, posinf=CEILING), FLOOR, CEILING)
    complete = np.asarray(scored["complete"], bool)
    style = "--" if row["label"].startswith("numpyro") else "-"
    if len(seconds) == 1:
        ax.plot(seconds, errors, "*" if complete[0] else "x", color=colour, markersize=11,
                label=row["label"])
        return
    start = int(np.argmax(complete)) if complete.any() else len(seconds)
    never = start == len(seconds)
    ax.plot(seconds[:start + 1], errors[:start + 1], style, color=colour, alpha=0.35,
            label=row["label"] if never else None)
    if not never:
        ax.plot(seconds[start:], errors[start:], style, color=colour, label=row["label"])
    ax.plot(seconds[-1:], errors[-1:], "o", color=colour, alpha=0.35 if never else 1.0)


def plot_case(n: int, rows: list[dict[str, Any]], device: str, out: Path) -> Path:
    """Write ``out/tall-mixture-n<n>.png`` and return its path."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9, 5.5), layout="constrained")
    ax = figure.subplots()
    for i, row in enumerate(rows):
        if row.get("ok") and row.get("scored"):
            _draw(ax, row, f"C{i % 10}")
    log_axes(ax, LEVEL)
    ax.set_xlabel("seconds in a fresh process (start-up, compile, pilot and warmup included)")
    ax.set_ylabel("largest |frequency of an ordering − 1/6|")
    ax.set_title(f"tall mixture, 3 components, n = {n:,}: ordering error against time "
                 f"(faint: some chain still missing an ordering; {device})", fontsize=10)
    ax.legend(fontsize=8)
    path = Path(out) / f"tall-mixture-n{n}.png"
    figure.savefig(path, dpi=110)
    return path
