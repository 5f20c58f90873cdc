"""One markdown table per case (n, d): each contender's seconds to reach 0.1 sd, its final
error, its phases (compilation apart), its data passes and peak memory, and its seconds over
NumPyro NUTS's in the same table; under it, each reference's making and its own error, and the
rows that failed, were skipped or could not be scored."""

from __future__ import annotations

import math
from typing import Any

from tempering.bench.tall.metrics import LEVEL
from tempering.bench.tall.plan import BASELINE

#: (key, header): the phases, disjoint seconds of the child's clock.
PHASES = (("startup", "start-up"), ("compile", "compile"), ("optimise", "optimiser"),
          ("warmup", "warmup"), ("sampling", "sampling"), ("other", "other"))
HEADER = (["contender", "target", "dtype", f"to {LEVEL:g} sd, s", f"×{BASELINE}",
           "final error, sd"] + [h for _, h in PHASES]
          + ["total, s", f"total ×{BASELINE}", "data passes", "peak RSS, MB"])
LEGEND = (
    "Each contender a fresh process, cold (persistent compilation caches off; JAX's memory "
    "preallocation off and float32 matrix products at full precision, "
    "JAX_DEFAULT_MATMUL_PRECISION=highest, unless set: on a GPU the default TensorFloat-32 "
    "products derail float32 NUTS on tall data).  target: what "
    "the draws are scored against (the posterior; "
    "MINT's own tempered law, prior × likelihood^(1/T)).  dtype: the draws' as the contender "
    f"returned them.  to {LEVEL:g} sd: seconds until the error of the draws so far stays at or "
    "below 0.1 (error: the largest error of a coefficient's mean or sd, in the reference's sds; "
    "the draws so far: the first k of every chain; the seconds: start-up + compile + optimiser "
    "+ warmup + the share k/K of sampling); \"not reached\": never within the run.  "
    f"×{BASELINE}: over NumPyro NUTS's in the same table.  final error: all the draws'.  "
    "start-up: the process's imports and the model with its data (the same data-making for "
    "every row); compile: the wall during which JAX traced, lowered or compiled anything after "
    "start-up; optimiser: HMCECS's MAP (BFGS), less its compiling; warmup, sampling: less "
    "compiling; other: the rest of total (the drivers' own work; the library's: mostly "
    "ArviZ's import and the InferenceData after the last draw).  data passes: gradient "
    "evaluations × the points each touched / n, summed over chains, warmup and sampling "
    "included (the library: its run's cost).  peak RSS: the process's resident memory at its "
    "peak (ru_maxrss), data and compiler included.")


def number(value: float | None, digits: int = 2) -> str:
    """A figure for the table: "–" for none, "∞" for infinity, else rounded to its size."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if math.isinf(value):
        return "∞"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.{digits}f}"


def ratio(value: float | None, baseline: float | None) -> str:
    if value is None or baseline is None or baseline <= 0:
        return "–"
    return f"{value / baseline:.2f}×"


def _baseline(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((r for r in rows if r["label"] == BASELINE and r.get("ok")), None)


def _cells(row: dict[str, Any], baseline: dict[str, Any] | None) -> list[str]:
    """The cells after the contender's label and target, for a row that ran."""
    scored = row.get("scored")
    to_level = scored["to_level"] if scored else None
    base_level = (baseline.get("scored") or {}).get("to_level") if baseline else None
    reach = ("not scored" if not scored else
             number(to_level) if to_level is not None else "not reached")
    final = "not scored" if not scored else number(scored["error"], 3)
    phases = [number(row["phases"].get(key, 0.0)) for key, _ in PHASES]
    return ([row.get("draws_dtype", "?"), reach, ratio(to_level, base_level), final] + phases
            + [number(row["total"]), ratio(row["total"], baseline["total"] if baseline
                                           else None),
               number(row.get("passes")), number(row["peak_rss_bytes"] / 2**20)])


def table(rows: list[dict[str, Any]]) -> list[str]:
    """The case's markdown table and the lines under it."""
    baseline = _baseline(rows)
    lines = ["| " + " | ".join(HEADER) + " |", "|---|---|---|" + "---:|" * (len(HEADER) - 3)]
    notes: list[str] = []
    for row in rows:
        target = (row.get("reference") or {}).get("target", "–")
        head = [row["label"], target]
        if row.get("skipped"):
            cells = ["skipped"] + ["–"] * (len(HEADER) - 3)
            notes.append(f"  {row['label']}: {row['skipped']}")
        elif not row.get("ok"):
            cells = ["failed"] + ["–"] * (len(HEADER) - 3)
            notes.append(f"  {row['label']}: failed: {row['error']}")
        else:
            cells = _cells(row, baseline)
            unscored = (row.get("reference") or {}).get("unscored")
            if unscored:
                notes.append(f"  {row['label']}: {unscored}")
            if not row.get("finite", True):
                notes.append(f"  {row['label']}: non-finite draws (the chains diverged): "
                             "error ∞")
        lines.append("| " + " | ".join(head + cells) + " |")
    return lines + [""] + notes


def reference_lines(references: dict[str, dict[str, Any]]) -> list[str]:
    """One line per reference of the case: its target, how it was made, its own error."""
    lines = []
    for found in references.values():
        if found.get("unscored"):
            continue
        lines.append(f"  reference, {found['target']}: {found['method']}; its own Monte-Carlo "
                     f"error ≤ {found['mc_error']:.4f} sd; {found['seconds']:.1f} s"
                     + (" (cached)" if found.get("cached") else ""))
    return lines
