"""One markdown table per case (n): each contender's seconds to an ordering error of 0.05 with
every ordering in every chain, those seconds over SMC's, its final error, the orderings each chain
visited, its phases (compilation apart), its data evaluations and peak memory; under it, the rows
that failed, could not be scored or diverged."""

from __future__ import annotations

from typing import Any

from tempering.bench.tall.report import number, ratio
from tempering.bench.tall_mixture.metrics import LEVEL, ORDERINGS
from tempering.bench.tall_mixture.plan import BASELINE

#: (key, header): the phases, disjoint seconds of the child's clock.
PHASES = (("startup", "start-up"), ("compile", "compile"), ("pilot", "pilot"),
          ("warmup", "warmup"), ("sampling", "sampling"), ("other", "other"))
HEADER = (["contender", "dtype", "draws a chain", f"to {LEVEL:g}, s", f"×{BASELINE}",
           "final error", "orderings per chain"] + [h for _, h in PHASES]
          + ["total, s", "data evaluations", "peak RSS, MB"])
LEGEND = (
    "Each contender a fresh process, cold (persistent compilation caches off).  Target: the "
    "library's mixture, 3 components at −3, 0, 3 (σ = 1, prior N(0, 3²) per mean), n points; "
    f"its {ORDERINGS} label orderings hold 1/{ORDERINGS} of the posterior each.  dtype: the "
    "draws' as the contender returned them.  draws a chain: after warmup (spt, whose draws cost "
    f"a few per cent of pt's, runs 4 × as many).  to {LEVEL:g}: seconds until the ordering error "
    f"of the draws so far stays at or below {LEVEL:g} with every chain having visited every "
    "ordering (ordering error: the largest |frequency of an ordering − 1/6|, every chain's "
    "draws pooled; the draws so far: the first k of every chain; the seconds: start-up + "
    "compile + pilot + warmup + the share k/K of sampling); SMC: its one weighted population, "
    "at its total seconds; \"not reached\": never within the run.  "
    f"×{BASELINE}: over SMC's total seconds in the same table.  final error: all the draws'.  "
    "orderings per chain: how many of the 6 each chain visited (SMC: its population, the "
    "orderings holding weight).  start-up: the process's imports, the model with its data "
    "and the sampler's build less its pilot and compiling; compile: the wall during which JAX "
    "traced, lowered or compiled anything; pilot: the library's rung-placing pilot run less "
    "its compiling; warmup, sampling: less compiling (SMC: all its stages are sampling); "
    "other: the rest of total (the library's InferenceData after the last draw).  data "
    "evaluations: full-data-equivalent log-density (or gradient) evaluations × n, every "
    "chain, pilot and warmup included (the library: its run's cost; NumPyro: its leapfrog "
    "steps; SMC: particles × (moves + 2) per stage).  peak RSS: the process's resident memory "
    "at its peak (ru_maxrss).")


def evaluations(value: float | None) -> str:
    """Data evaluations for the table: 3 significant figures, in powers of ten when large."""
    if value is None:
        return "–"
    return f"{value:,.0f}" if value < 1e6 else f"{value:.2e}"


def _cells(row: dict[str, Any], baseline: dict[str, Any] | None) -> list[str]:
    """The cells after the contender's label, for a row that ran."""
    scored = row.get("scored")
    to_level = scored["to_level"] if scored else None
    reach = ("not scored" if not scored else
             number(to_level) if to_level is not None else "not reached")
    final = "not scored" if not scored else number(scored["error"], 3)
    seen = ",".join(map(str, scored["visited"])) if scored else "–"
    phases = [number(row["phases"].get(key, 0.0)) for key, _ in PHASES]
    passes = row.get("passes")
    drawn = "–" if row["kind"] == "smc" else f"{row['draws']:,}"
    return ([row.get("draws_dtype", "?"), drawn, reach,
             ratio(to_level, baseline["total"] if baseline else None), final, seen] + phases
            + [number(row["total"]), evaluations(None if passes is None else passes * row["n"]),
               number(row["peak_rss_bytes"] / 2**20)])


def table(rows: list[dict[str, Any]]) -> list[str]:
    """The case's markdown table and the lines under it."""
    baseline = next((r for r in rows if r["label"] == BASELINE and r.get("ok")), None)
    lines = ["| " + " | ".join(HEADER) + " |", "|---|---|" + "---:|" * (len(HEADER) - 2)]
    notes: list[str] = []
    for row in rows:
        if not row.get("ok"):
            cells = ["failed"] + ["–"] * (len(HEADER) - 2)
            notes.append(f"  {row['label']}: failed: {row['error']}")
        else:
            cells = _cells(row, baseline)
            if row.get("unscored"):
                notes.append(f"  {row['label']}: {row['unscored']}")
            if not row.get("finite", True):
                notes.append(f"  {row['label']}: non-finite draws (the chains diverged): "
                             "error ∞")
        lines.append("| " + " | ".join([row["label"]] + cells) + " |")
    return lines + [""] + notes
