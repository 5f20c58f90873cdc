"""The comparison of several runs: one row per run with its efficiency figures, and a flag when
the runs are not of the same model (their ESS then measure different posteriors)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tempering.report.markup import Html, fmt, join, paragraph, table, tag
from tempering.report.runs import LoadedRun
from tempering.run.output import run_attr

#: Columns of the comparison table.
COLUMNS = ("run", "model", "sampler", "chains × draws", "ESS bulk min", "sampling s", "ESS/s",
           "cost", "ESS per 1000 cost", "cost per draw", "R-hat max", "warnings")


def _row(index: int, run: LoadedRun) -> tuple:
    s = run.summary
    link = tag("a", run.path.name, href=f"#run-{index}")
    return (link, s["model"], s["sampler"], f"{s['chains']} × {s['draws']}",
            fmt(s["ess_bulk_min"]), fmt(s["wall_seconds"]["sampling"]), fmt(s["ess_per_second"]),
            fmt(s["cost_total"]), fmt(1000 * s["ess_per_cost"]), fmt(s["cost_per_draw"]),
            fmt(s["rhat_max"]), len(s.get("warnings", [])))


def model_flag(runs: Sequence[LoadedRun]) -> Html:
    """A warning line when the runs are of different models or of one model with different
    options (data, sizes, ...); nothing when they share both."""
    names = sorted({str(run_attr(r.idata, "model")) for r in runs})
    if len(names) > 1:
        return paragraph(f"These runs are of different models ({', '.join(names)}): their ESS "
                         "and R-hat describe different posteriors.", class_="flag")
    options = {json.dumps(run_attr(r.idata, "model_options", {}), sort_keys=True, default=str)
               for r in runs}
    if len(options) > 1:
        return paragraph(f"These runs are of the model {names[0]} with different model options "
                         "(data or sizes): their ESS describe different posteriors.",
                         class_="flag")
    return Html("")


def comparison(runs: Sequence[LoadedRun]) -> Html:
    """The comparison table (ESS/s uses the sampling wall seconds; cost is full-data-equivalent
    likelihood evaluations while sampling) and the model flag."""
    rows = [_row(i, run) for i, run in enumerate(runs)]
    note = paragraph("ESS bulk min is the smallest bulk ESS over parameters; ESS/s divides it "
                     "by the sampling wall seconds (compilation and warmup apart), ESS per 1000 "
                     "cost by the sampling cost in full-data-equivalent evaluations.",
                     class_="note")
    return join([model_flag(runs), table(COLUMNS, rows, class_="comparison"), note])
