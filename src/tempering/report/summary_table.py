"""The run's summary as ``tempering summary`` computes it (:func:`tempering.summary.summarize`):
the per-parameter table, the totals, the headline statistics, the predictive checks and the
warnings — the same numbers, as HTML tables instead of rich's."""

from __future__ import annotations

import math
from typing import Any

from tempering.report.markup import Html, bullet_list, fmt, join, key_values, paragraph, table, tag
from tempering.summary.checks import RHAT_MAX

#: Columns of the per-parameter table, as ``tempering summary`` prints them.
COLUMNS = ("mean", "sd", "ess_bulk", "ess_tail", "rhat", "mcse_mean")
#: At most this many parameter rows (the totals cover them all).
MAX_ROWS = 100


def _bad(row: dict[str, Any]) -> bool:
    """Whether the row's R-hat is above the summary's threshold (NaN is not: undefined)."""
    rhat = row.get("rhat", float("nan"))
    return isinstance(rhat, float) and not math.isnan(rhat) and rhat > RHAT_MAX


def params_table(summary: dict[str, Any]) -> Html:
    """The per-parameter table (first :data:`MAX_ROWS` rows; R-hat above 1.01 in red)."""
    params = summary["params"]
    extra = ["ess_is"] if any("ess_is" in row for row in params.values()) else []
    if any(row.get("defined", 1.0) < 1.0 for row in params.values()):
        extra.append("defined")  # the share of draws where a component is defined
    columns = (*COLUMNS, *extra)
    names = list(params)[:MAX_ROWS]
    rows = [(name, *(fmt(params[name].get(c), 4) for c in columns)) for name in names]
    classes = ["bad" if _bad(params[name]) else None for name in names]
    parts = [table(("param", *columns), rows, class_="summary", row_classes=classes)]
    if len(params) > MAX_ROWS:
        parts.append(paragraph(f"First {MAX_ROWS} of {len(params)} parameters; the totals "
                               "cover them all.", class_="note"))
    if "it" in summary:
        parts.append(paragraph("Importance-tempering estimates over every rung: mean and sd "
                               "are weighted, ess_bulk = (sd / MCSE)²; weighted estimates have "
                               "no R-hat or tail ESS.", class_="note"))
    return join(parts)


def totals(summary: dict[str, Any]) -> Html:
    """R-hat max, ESS, wall seconds, cost and the efficiency figures of the run."""
    wall = summary["wall_seconds"]
    return key_values([
        ("R-hat max", fmt(summary["rhat_max"])),
        ("ESS bulk min / median", f"{fmt(summary['ess_bulk_min'])} / "
                                  f"{fmt(summary['ess_bulk_median'])}"),
        ("wall seconds warmup / sampling", f"{fmt(wall['warmup'])} / {fmt(wall['sampling'])}"),
        ("cost (full-data-equivalent evaluations)", fmt(summary["cost_total"])),
        ("ESS per second (sampling)", fmt(summary["ess_per_second"])),
        ("ESS per 1000 cost", fmt(1000 * summary["ess_per_cost"])),
        ("cost per draw", fmt(summary["cost_per_draw"])),
    ], class_="kv totals")


def headline(summary: dict[str, Any]) -> Html:
    """The statistics the sampler puts forward, one row each."""
    values = summary.get("headline") or {}
    if not values:
        return Html("")
    return table(("headline statistic", "value"),
                 [(label, fmt(value)) for label, value in values.items()], class_="headline")


def predictive(summary: dict[str, Any]) -> Html:
    """Test-set checks of a model with a held-out test set."""
    block = summary.get("predictive")
    if not block:
        return Html("")
    return join([tag("h3", "Predictive checks (held-out test set)"),
                 key_values(list(block.items()))])


def warnings_list(summary: dict[str, Any]) -> Html:
    """One item per warning of the summary, or a line saying there are none."""
    found = summary.get("warnings", [])
    if not found:
        return paragraph("No warnings.", class_="note")
    return bullet_list([f"warning: {w}" for w in found], class_="warnings")


def summary_section(summary: dict[str, Any]) -> Html:
    """Everything ``tempering summary`` shows for one run."""
    return join([params_table(summary), totals(summary), headline(summary), predictive(summary),
                 warnings_list(summary)])
