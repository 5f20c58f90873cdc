"""One ``rich`` table per target: each method's error, |Δ log Z|, modes found per chain, seconds
(total, with compilation and PT's pilot apart), evaluations, its ratios against PT at its
defaults and the seconds it takes to reach SMC's final error (and their ratio to SMC's) — the
rows as plain dicts for the JSON file — and the table of SMC's sweep over its moves per stage."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich import box
from rich.console import Console
from rich.table import Table

from tempering.bench.multimodal.metrics import Scored, comparison, smc_comparison
from tempering.bench.multimodal.targets import Target

COLUMNS = ("method", "{error}", "|ΔlogZ|", "modes/chain", "total s", "compile s", "pilot s",
           "warmup s", "sample s", "other s", "evals", "err÷PT", "s÷PT", "PT→err", "→PT err",
           "s→SMC err", "÷SMC s")
LEGEND = ("Seconds: total = compile (JAX; PT's pilot's included) + pilot (PT's rungs=auto "
          "pilot run) + warmup (adaptation, burn-in) + sample (kept draws) + other (tracing, "
          "building, Python).  err÷PT, s÷PT: this method's error and total seconds over "
          "PT's.  PT→err: the time PT needs to reach (and stay at) this method's final error, "
          "as a multiple of this method's total seconds (< 1: PT gets there first; never: "
          "PT's run ends above it).  →PT err: the same the other way round, over PT's total "
          "seconds.  s→SMC err: the seconds at which this method first reaches SMC's final error "
          "on its error-against-time curve (not reached: its run never does); ÷SMC s: those "
          "seconds over SMC's total.  evals: log-density evaluations, ∇ where each is a "
          "gradient.  Curves of SMC and dynesty are one point (a weighted population has no "
          "prefixes).  SMC's row is its run at the number of moves per stage its sweep chose "
          "(the smallest within 2 Monte-Carlo standard errors of the sweep's least error).")


def _num(value: float | None, fmt: str = ".3f", missing: str = "—") -> str:
    return missing if value is None or not np.isfinite(value) else format(value, fmt)


def _ratio(value: float | None, missing: str = "never") -> str:
    return missing if value is None else f"{value:.2f}×"


def _modes(found: list[int], k: int) -> str:
    if not found:
        return "—"
    low, high = min(found), max(found)
    return f"{low}/{k}" if low == high else f"{low}–{high}/{k}"


def other_seconds(seconds: dict[str, float]) -> float:
    """The total's part outside the named phases: tracing, building, Python."""
    named = sum(seconds.get(k, 0.0) for k in ("compile", "pilot", "warmup", "sampling"))
    return max(seconds["total"] - named, 0.0)


def _evals(scored: Scored) -> str:
    run = scored.run
    if run.evals is None:
        return "—"
    return f"{run.evals:.2g}" + (" ∇" if run.evals_kind == "gradient" else "")


def row(target: Target, scored: Scored, reference: Scored,
        smc: Scored | None = None) -> dict[str, Any]:
    """The JSON-ready row of one method: metrics, seconds, evaluations, ratios against the
    reference, seconds to ``smc``'s final error and their ratio to its seconds, its info."""
    run = scored.run
    return {"target": target.key, "method": run.method, "error": scored.error,
            "error_kind": target.error_name(), "log_z": run.log_z, "log_z_se": run.log_z_se,
            "log_z_exact": target.log_z, "log_z_error": scored.log_z_error,
            "modes_found": scored.modes_found, "n_modes": target.n_modes,
            "shares": None if scored.shares is None else scored.shares.tolist(),
            "seconds": dict(run.seconds), "evals": run.evals, "evals_kind": run.evals_kind,
            "curve": {"seconds": scored.curve[0].tolist(), "error": scored.curve[1].tolist()},
            **comparison(scored, reference), **smc_comparison(scored, smc),
            "info": {k: v for k, v in run.info.items() if k not in ("betas", "acceptance")}}


def target_table(target: Target, scored: dict[str, Scored], reference: str,
                 smc: str | None = None) -> Table:
    """The table of one target; ratios against ``scored[reference]``, seconds to the final error
    of ``scored[smc]`` (when given and present)."""
    ref = scored[reference]
    smc_run = scored.get(smc) if smc is not None else None
    table = Table(title=target.title, box=box.SIMPLE_HEAD, title_justify="left",
                  caption=_caption(target, ref), caption_justify="left")
    for column in COLUMNS:
        table.add_column(column.format(error=target.error_name()),
                         justify="left" if column == "method" else "right", no_wrap=True)
    for name, s in scored.items():
        table.add_row(_label(name, s), *_cells(target, s, ref, reference=name == reference),
                      *_smc_cells(s, smc_run))
    return table


def _cells(target: Target, s: Scored, ref: Scored, reference: bool) -> list[str]:
    """A row's cells after the method's name."""
    seconds = s.run.seconds
    log_z = "—" if s.log_z_error is None else (
        f"{s.log_z_error:.3f}" + ("" if s.run.log_z_se is None else f" ±{s.run.log_z_se:.2f}"))
    cells = [f"{s.error:.4f}", log_z, _modes(s.modes_found, target.n_modes), f"{s.seconds:.1f}",
             *(_num(seconds.get(k), ".1f") for k in ("compile", "pilot", "warmup", "sampling")),
             f"{other_seconds(seconds):.1f}", _evals(s)]
    if reference:
        return cells + ["—"] * 4
    cmp = comparison(s, ref)
    return cells + [_ratio(cmp["error_ratio"], "—"), f"{cmp['seconds_ratio']:.2f}×",
                    _ratio(cmp["reference_to_this_error"]),
                    _ratio(cmp["this_to_reference_error"])]


def _label(name: str, s: Scored) -> str:
    """The row's name, with SMC's chosen number of moves per stage."""
    moves = s.run.info.get("moves")
    return name if moves is None else f"{name} ({moves} moves)"


def _smc_cells(s: Scored, smc: Scored | None) -> list[str]:
    """Seconds to SMC's final error and their ratio to SMC's total seconds."""
    cmp = smc_comparison(s, smc)
    if smc is None:
        return ["—", "—"]
    seconds = cmp["seconds_to_smc_error"]
    if seconds is None:
        return ["not reached", "—"]
    return [f"{seconds:.1f}", _ratio(cmp["to_smc_error_over_smc"])]


def _caption(target: Target, reference: Scored) -> str:
    """Exact answers and PT's view of the path."""
    parts = [f"exact log Z {target.log_z:.4f}"]
    if target.masses is not None:
        masses = " ".join(f"{m:.3f}" for m in target.masses[:8])
        parts.append(f"mode masses {masses}{' …' if len(target.masses) > 8 else ''}")
    if target.moment_value is not None:
        parts.append(f"E|θ|² = {target.moment_value:g}")
    info = reference.run.info
    if "barrier" in info:
        exact = "" if target.barrier is None else f" (exact Λ {target.barrier:.3f})"
        parts.append(f"{reference.run.method}: {info.get('rungs', '?')} rungs, Λ̂ "
                     f"{info['barrier']:.3f}{exact}, {info.get('round_trips', 0)} round trips")
    return "; ".join(parts)


def sweep_table(target: Target, s: Scored) -> Table | None:
    """SMC's sweep over its moves per stage (``None`` for a run without one): each number's
    error, its Monte-Carlo standard error, |Δ log Z|, stages and seconds, the chosen one marked."""
    info = s.run.info
    if "sweep" not in info:
        return None
    best = min(p["error"] for p in info["sweep"])
    largest = info["moves"] == max(p["moves"] for p in info["sweep"])
    table = Table(title=f"SMC's moves per stage on {target.key}", box=box.SIMPLE_HEAD,
                  title_justify="left", caption_justify="left", caption=(
                      f"chosen: {info['moves']} moves, the smallest within 2 MC se "
                      f"({info['tolerance']:.4f}) of the least error {best:.4f}"
                      + (" (the sweep's largest: more moves may lower it further)"
                         if largest else "")
                      + f"; the sweep took {info['sweep_seconds']:.1f} s in all"))
    for column in ("moves", target.error_name(), "MC se", "|ΔlogZ|", "stages", "total s",
                   "compile s", "sample s", "chosen"):
        table.add_column(column, justify="right", no_wrap=True)
    for p in info["sweep"]:
        seconds = p["seconds"]
        table.add_row(str(p["moves"]), f"{p['error']:.4f}", f"{p['noise']:.4f}",
                      _num(p["log_z_error"]), str(p["stages"]), f"{seconds['total']:.1f}",
                      f"{seconds['compile']:.1f}", f"{seconds['sampling']:.1f}",
                      "✓" if p["moves"] == info["moves"] else "")
    return table


def print_target(console: Console, target: Target, scored: dict[str, Scored],
                 reference: str, smc: str | None = None) -> None:
    """Print one target's table, and SMC's sweep when ``scored[smc]`` has one."""
    console.print()
    console.print(target_table(target, scored, reference, smc))
    sweep = None if smc is None or smc not in scored else sweep_table(target, scored[smc])
    if sweep is not None:
        console.print()
        console.print(sweep)
