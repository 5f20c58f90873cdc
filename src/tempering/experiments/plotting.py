"""Matplotlib set-up shared by the reproductions' plot modules (PNG, the Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (imported on first use, so the
    package imports without touching matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(plt: Any, fig: Any, path: Path) -> Path:
    """Lay out, write ``fig`` to ``path`` at 100 dpi, close it; return ``path``."""
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
