"""One case of ``bench tall`` (n rows, d coefficients): its data, each contender in its own
child process, each contender's target and reference, and the scores — the rows of its table.

The parent makes the data once with the library's ``logistic`` model (the children make the same
data themselves: their start-up counts it) only for the references, in float64. A contender that
samples its own tempered law (MINT: prior^κ × likelihood^(1/T)) is scored against that law, read
from the facts its run recorded (``temperature`` T, ``prior_weight`` κ).
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from tempering import get_model
from tempering.bench.tall.laplace import Target, as_float64
from tempering.bench.tall.metrics import LEVEL, score
from tempering.bench.tall.plan import MODEL_OPTIONS, PRIOR_SD, Contender, Size, missing_option
from tempering.bench.tall.plan import request as make_request
from tempering.bench.tall.reference import Reference, reference
from tempering.bench.tall.spawn import measure

POSTERIOR = Target(PRIOR_SD)


def target_of(contender: Contender, row: dict[str, Any]) -> Target:
    """What ``contender``'s draws are scored against: the posterior, or its own tempered law
    from its run's facts."""
    if not contender.tempered:
        return POSTERIOR
    facts = row["info"]["facts"]
    return Target(PRIOR_SD, 1.0 / float(facts["temperature"]),
                  float(facts.get("prior_weight", 1.0)))


def scored_row(row: dict[str, Any], found: Reference, draws: np.ndarray) -> dict[str, Any]:
    """``row`` with its reference's summary and, where the reference has numbers, its scores."""
    row = {**row, "reference": {"target": found.target, "method": found.method,
                                "mc_error": found.mc_error, "unscored": found.unscored}}
    if found.scored:
        phases = row["phases"]
        before = sum(phases[key] for key in ("startup", "compile", "optimise", "warmup"))
        result = score(draws, np.asarray(found.mean), np.asarray(found.sd), before,
                       phases["sampling"])
        row["scored"] = {"error": result.error, "to_level": result.to_level,
                         "curve": [result.curve[0].tolist(), result.curve[1].tolist()]}
        if "map" in row.get("info", {}):  # HMCECS: how far its proxy's centre was
            offset = (np.asarray(row["info"]["map"]) - found.mean) / np.asarray(found.sd)
            row["info"]["map_offset_sd"] = float(np.max(np.abs(offset)))
    return row


def progress(row: dict[str, Any]) -> str:
    """One line for a finished row."""
    if row.get("skipped"):
        return f"  {row['label']}: {row['skipped']}"
    if not row.get("ok"):
        return f"  {row['label']}: failed after {row['process']:.1f} s: {row['error']}"
    scored = row.get("scored")
    if not scored:
        return f"  {row['label']}: {row['total']:.1f} s, not scored"
    reach = scored["to_level"]
    return (f"  {row['label']}: {row['total']:.1f} s (compile {row['phases']['compile']:.1f}),"
            f" to {LEVEL:g} sd " + ("not reached" if reach is None else f"{reach:.1f} s")
            + f", final error {scored['error']:.3f} sd, {row['draws_dtype']}")


def run_case(n: int, dim: int, size: Size, contenders: list[Contender], cache: Path,
             say: Callable[[str], None]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every contender on the case; its rows and its references' summaries (by target).

    Each contender's task runs its child, then scores it (making the reference it needs, one
    at a time): with ``size.workers`` = 1 nothing else runs while a child runs."""
    x, y = as_float64(get_model("logistic", n=n, dim=dim, **MODEL_OPTIONS).data)
    references: dict[str, Reference] = {}
    cached: dict[str, bool] = {}
    lock = threading.Lock()

    def reference_of(target: Target) -> Reference:
        name = target.describe()
        with lock:
            if name not in references:
                references[name], cached[name] = reference(x, y, target, size, cache)
                found = references[name]
                made = "cached" if cached[name] else f"{found.seconds:.1f} s"
                say(f"  reference, {name}: " + (found.unscored or f"{found.method}; own error "
                                                f"{found.mc_error:.4f} sd ({made})"))
            return references[name]

    def task(contender: Contender, folder: str, i: int) -> dict[str, Any]:
        skipped = missing_option(contender)
        if skipped:
            return {"label": contender.label, "ok": False, "skipped": skipped}
        asked = make_request(contender, size, n, dim)
        asked["draws_path"] = str(Path(folder) / f"{i}.npy")
        row = measure(asked, size.timeout)
        row.pop("draws_path", None)
        if row.get("ok"):
            try:
                draws = np.load(asked["draws_path"])
                row = scored_row(row, reference_of(target_of(contender, row)), draws)
            except Exception as error:  # noqa: BLE001 - a row that cannot be scored says why
                why = str(error).strip().splitlines()
                row["reference"] = {"target": "?", "unscored": "not scored: "
                                    f"{type(error).__name__}: {why[0] if why else ''}"[:300]}
        return row

    reference_of(POSTERIOR)
    rows: list[dict[str, Any]] = []
    with (tempfile.TemporaryDirectory(prefix="tempering-bench-tall-") as folder,
          ThreadPoolExecutor(size.workers) as pool):
        for row in pool.map(task, contenders, [folder] * len(contenders),
                            range(len(contenders))):
            rows.append(row)
            say(progress(row))
    summaries = {name: {"target": r.target, "method": r.method, "mc_error": r.mc_error,
                        "seconds": r.seconds, "ess": r.ess, "unscored": r.unscored,
                        "cached": cached[name]} for name, r in references.items()}
    return rows, summaries
