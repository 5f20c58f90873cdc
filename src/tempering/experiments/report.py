"""Shared output helpers of the reproductions: Markdown + CSV tables, and XLA's CPU threading."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def fmt_number(x: float | np.floating | None, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits for a table or a README: a whole number as an
    integer (``2535``), a number with at least ``digits`` digits before the point rounded to an
    integer (``1515``, not ``1514.9469``), others (and magnitudes from 10¹⁵) in ``g`` format
    (``0.5476``, ``1.235e-05``); ``None``, NaN and infinity as ``—``."""
    if x is None or not np.isfinite(x):
        return "—"
    x = float(x)
    if x == 0:
        return "0"
    if abs(x) < 1e15 and (x.is_integer() or abs(x) >= 10 ** (digits - 1)):
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


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
        cells = [fmt_number(v) if isinstance(v, float | np.floating) else str(v) for v in
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
