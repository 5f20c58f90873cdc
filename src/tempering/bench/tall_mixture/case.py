"""One case of ``bench tall-mixture`` (n data points): each contender in its own cold child
process (``bench tall``'s :func:`~tempering.bench.tall.spawn.measure`), its draws (and SMC's
weights) read back from files and scored by their orderings — the rows of its table. No reference
run is needed: every ordering's exact mass is 1/6."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from tempering.bench.tall.spawn import measure
from tempering.bench.tall_mixture.metrics import LEVEL, score
from tempering.bench.tall_mixture.plan import Contender, Size
from tempering.bench.tall_mixture.plan import request as make_request

#: The phases before the first draw (the curve's start).
BEFORE = ("startup", "compile", "pilot", "warmup")


def scored_row(row: dict[str, Any], draws: np.ndarray,
               weights: np.ndarray | None) -> dict[str, Any]:
    """``row`` with its scores (:mod:`.metrics`)."""
    phases = row["phases"]
    before = sum(phases.get(key, 0.0) for key in BEFORE)
    found = score(draws, weights, before, phases["sampling"], row["total"])
    return {**row, "scored": found.as_json()}


def progress(row: dict[str, Any]) -> str:
    """One line for a finished row."""
    if not row.get("ok"):
        return f"  {row['label']}: failed after {row['process']:.1f} s: {row['error']}"
    scored = row.get("scored")
    if not scored:
        return f"  {row['label']}: {row['total']:.1f} s, not scored"
    reach = scored["to_level"]
    return (f"  {row['label']}: {row['total']:.1f} s (compile {row['phases']['compile']:.1f}),"
            f" to {LEVEL:g} " + ("not reached" if reach is None else f"{reach:.1f} s")
            + f", final error {scored['error']:.3f}, orderings per chain "
            + ",".join(map(str, scored["visited"])) + f", {row['draws_dtype']}")


def run_one(contender: Contender, size: Size, n: int, folder: str, i: int) -> dict[str, Any]:
    """``contender``'s row on the case: its child's figures and, where it ran, its scores."""
    asked = make_request(contender, size, n)
    asked["draws_path"] = str(Path(folder) / f"{i}.npy")
    asked["weights_path"] = str(Path(folder) / f"{i}.weights.npy")
    row = measure(asked, size.timeout)
    for key in ("draws_path", "weights_path", "runs"):
        row.pop(key, None)
    if row.get("ok"):
        try:
            weights = Path(asked["weights_path"])
            row = scored_row(row, np.load(asked["draws_path"]),
                             np.load(weights) if weights.is_file() else None)
        except Exception as error:  # noqa: BLE001 - a row that cannot be scored says why
            why = str(error).strip().splitlines()
            row["unscored"] = (f"not scored: {type(error).__name__}: "
                               f"{why[0] if why else ''}")[:300]
    return row


def run_case(n: int, size: Size, contenders: list[Contender],
             say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Every contender on the case of ``n`` points, ``size.workers`` children at a time; the
    rows in the contenders' order."""
    rows: list[dict[str, Any]] = []
    with (tempfile.TemporaryDirectory(prefix="tempering-bench-tall-mixture-") as folder,
          ThreadPoolExecutor(size.workers) as pool):
        for row in pool.map(run_one, contenders, [size] * len(contenders),
                            [n] * len(contenders), [folder] * len(contenders),
                            range(len(contenders))):
            rows.append(row)
            say(progress(row))
    return rows
