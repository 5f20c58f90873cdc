"""Printing a run summary as a rich table, with the lines the sampler's spec renders."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tempering.run.progress import pilot_line


def _fmt(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nan"
    return f"{value:.{digits}g}" if abs(value) < 1e4 else f"{value:.0f}"


def sampler_lines(summary: dict[str, Any]) -> list[str]:
    """The lines the run's sampler's spec renders from its own summary (none without a hook or
    when the sampler is not registered in this process)."""
    from tempering.algorithms import SAMPLERS

    spec = SAMPLERS.find(summary["sampler"])
    return [] if spec is None or spec.render is None else spec.render(summary)


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    """A table of every scalar parameter, then the run's totals, the sampler's lines, its headline
    statistics and one ``warning:`` line per problem found (none for a healthy run)."""
    console = console or Console()
    if "unfinished" in summary:
        part = summary["unfinished"]
        console.print(f"unfinished run: {part['committed_draws']} of {part['planned_draws']} "
                      "draws per chain committed so far (still running, or stopped: `tempering "
                      "resume` continues it)")
    precision = f", {summary['precision']}" if summary.get("precision") else ""
    inner = f" ({summary['inner']} inside)" if summary.get("inner") else ""
    table = Table(title=f"{summary['sampler']}{inner} on {summary['model']}: "
                        f"{summary['chains']} chains × {summary['draws']} draws{precision}")
    for column in ("param", "mean", "sd", "ess_bulk", "ess_tail", "rhat", "mcse_mean"):
        table.add_column(column, justify="left" if column == "param" else "right")
    for name, row in summary["params"].items():
        table.add_row(name, _fmt(row["mean"], 4), _fmt(row["sd"], 3), _fmt(row["ess_bulk"], 4),
                      _fmt(row["ess_tail"], 4), f"{row['rhat']:.3f}", _fmt(row["mcse_mean"], 2))
    console.print(table)
    partial = [name for name, row in summary["params"].items() if row.get("defined", 1.0) < 1.0]
    if partial:
        console.print(f"{len(partial)} components are undefined (NaN) in some draws (unused slots "
                      f"of a variable-dimension model, e.g. {partial[0]}): their mean and sd are "
                      f"over the draws where defined (share: `defined` in --json); no ESS, R-hat "
                      f"or MCSE; the totals below leave them out.")
    wall = summary["wall_seconds"]
    console.print(
        f"R-hat max {summary['rhat_max']:.3f}   ESS bulk min {summary['ess_bulk_min']:.0f}  "
        f"median {summary['ess_bulk_median']:.0f}\n"
        f"wall seconds: warmup {wall['warmup']:.1f}, sampling {wall['sampling']:.1f}   "
        f"cost (full-data evaluations) {summary['cost_total']:.0f}\n"
        f"ESS/s {summary['ess_per_second']:.3g}   ESS per 1000 cost "
        f"{1000 * summary['ess_per_cost']:.3g}   cost per draw {summary['cost_per_draw']:.3g}")
    if "pilot" in summary:
        console.print(pilot_line(summary["pilot"]))
    for note in summary.get("notes", []):
        console.print(f"note: {escape(note)}", soft_wrap=True)
    for line in sampler_lines(summary):
        console.print(line)
    if "it" in summary:
        print_it(summary, console)
    if "predictive" in summary:
        console.print(predictive_line(summary["predictive"]))
    if summary.get("headline"):
        console.print(headline_line(summary["headline"]))
    for warning in summary.get("warnings", []):
        # soft_wrap: each warning stays one line (the terminal folds it, rich does not)
        console.print(f"[bold yellow]warning:[/] {escape(warning)}", soft_wrap=True)


def headline_line(values: dict[str, float]) -> str:
    """The sampler's headline statistics on one line: ``headline: TT accept 0.138, accept 0.3``
    (a whole number, such as a count of round trips, as an integer)."""
    def number(value: float) -> str:
        return str(int(value)) if float(value).is_integer() and value >= 1 else _fmt(value, 3)

    return "headline: " + ", ".join(f"{escape(label)} {number(value)}"
                                    for label, value in values.items())


def predictive_line(block: dict[str, Any]) -> str:
    """The test-set checks of a model with a held-out test set, in one line."""
    if "unavailable" in block:
        return f"predictive checks unavailable: {escape(block['unavailable'])}"
    return (f"test accuracy {block['test_accuracy']:.3f}, test log predictive "
            f"{block['test_log_predictive']:.3g} ({block['draws']} draws, "
            f"{block['n_test']} test points)")


def print_it(summary: dict[str, Any], console: Console) -> None:
    """The importance-tempering and evidence lines of a run with rungs."""
    it, ev = summary["it"], summary["evidence"]
    console.print(
        f"importance tempering ({it['weights']} weights; mean and sd above are weighted, "
        f"ess_bulk = (sd/MCSE)²): IS ESS optimal {_fmt(it['ess_optimal'], 5)}, naive "
        f"{_fmt(it['ess_naive'], 5)}, st {_fmt(it['ess_st'], 5)}; Σ per-rung ESS − 1/4 − 1/T = "
        f"{_fmt(it['bound'], 5)} (bound holds: {it['bound_holds']})\n"
        f"per-rung ESS: {' '.join(_fmt(e, 3) for e in it['ess_per_rung'])}\n"
        f"lambda: {' '.join(f'{v:.3f}' for v in it['lambda'])}\n"
        f"{ev['quantity']}: TI {_fmt(ev['ti'], 6)} ± {_fmt(ev['ti_mcse'], 2)}, stepping stones "
        f"{_fmt(ev['ss'], 6)} ± {_fmt(ev['ss_mcse'], 2)}")
