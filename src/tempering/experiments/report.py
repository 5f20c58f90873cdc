"""Shared output helpers of the reproductions: Markdown + CSV tables, and XLA's CPU threading."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def fmt_number(x: float | None, digits: int = 4) -> str:
    if x is None or not np.isfinite(x):
        return "—"
    return f"{x:.{digits}g}" if abs(x) < 1e-3 else f"{x:.{digits}f}"


def write_table(rows: Sequence[dict], columns: Sequence[str], stem: Path, title: str,
                notes: str = "") -> tuple[Path, Path]:
    """Write ``rows`` as ``stem.csv`` (all keys of ``columns``) and ``stem.md`` (Markdown).

    Returns
    -------
    (Path, Path)
        The Markdown and CSV paths.
    """
    csv_path, md_path = stem.with_suffix(".csv"), stem.with_suffix(".md")
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: row.get(c, "") for c in columns})
    lines = [f"# {title}", "", "| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns)]
    for row in rows:
        cells = [fmt_number(v) if isinstance(v, float) else str(v) for v in
                 (row.get(c, "") for c in columns)]
        lines.append("| " + " | ".join(cells) + " |")
    if notes:
        lines += ["", notes]
    md_path.write_text("\n".join(lines) + "\n")
    return md_path, csv_path


def single_threaded_xla() -> None:
    """Ask XLA's CPU backend for single-threaded Eigen (effective only before JAX's first use).

    On a small machine shared with other jobs, XLA's multi-threaded Eigen kernels (used above a size
    threshold, e.g. N = 128) were up to ~10x slower per evaluation than single-threaded ones in our
    tests, and made timings erratic.
    """
    flag = "--xla_cpu_multi_thread_eigen=false"
    current = os.environ.get("XLA_FLAGS", "")
    if flag not in current:
        os.environ["XLA_FLAGS"] = f"{current} {flag}".strip()
