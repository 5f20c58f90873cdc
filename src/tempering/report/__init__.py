"""One self-contained HTML page for one or more run files (``tempering report``).

The page holds each run's settings (model, sampler and their options, the run's shape, wall
seconds, cost, package versions), its summary (:func:`tempering.summary.summarize`: the
per-parameter table, totals, headline statistics, warnings), ArviZ's trace and rank plots of its
first scalar components, and its sampler's own view, built from the statistics the run declares
(:mod:`tempering.report.sampler_view`); several runs get a comparison table. Images are inline
PNG data URIs and the CSS is inline: no scripts, no request to anything outside the file. Every
string taken from a run file is HTML-escaped.
"""

import tempering.jax_setup  # noqa: F401  # JAX's settings first (the LAPACK rule)
from tempering.report.page import render_page, write_report
from tempering.report.runs import LoadedRun, load_runs

__all__ = ["LoadedRun", "load_runs", "render_page", "write_report"]
