"""ArviZ's trace and rank plots of the first few scalar components of a run's posterior.

A big model (a neural network's 159 010 weights) would take minutes to plot whole, so the page
shows the first :data:`MAX_COMPONENTS` scalar components whose draws are finite and not constant
(an unused slot of a variable-dimension model is NaN in some draws; a component that never moved
has no density to draw) and says how many it left out. A run that kept draws at every rung (a
position dim such as ``rung`` before the variable's own dims) is plotted at position 0, the
target.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import xarray as xr

from tempering.lazy_arviz import arviz
from tempering.report.figures import figure, pyplot
from tempering.report.markup import Html, join, paragraph
from tempering.summary.params import components

#: Scalar components shown in the trace and rank plots.
MAX_COMPONENTS = 6


def _at_target(name: str, var: xr.DataArray) -> xr.DataArray:
    """``var`` as (chain, draw, *own shape), position dims (not ``{name}_dim...``) at index 0
    (still lazy: nothing is read from the run file)."""
    extra = [d for d in var.dims[2:] if not str(d).startswith(f"{name}_dim")]
    return var.isel({d: 0 for d in extra}) if extra else var


def plotted_components(posterior: xr.Dataset,
                       limit: int = MAX_COMPONENTS) -> tuple[xr.Dataset, int]:
    """The first ``limit`` plottable scalar components as a Dataset of (chain, draw) variables
    named ``name`` or ``name[i,j]``, and the number of scalar components in all. Draws are read
    a block of components at a time, and no more once ``limit`` are picked."""
    picked: dict[str, Any] = {}
    total = 0
    for name, var in posterior.data_vars.items():
        target = _at_target(str(name), var)
        total += int(np.prod(target.shape[2:]))
        if len(picked) >= limit:
            continue  # read nothing more
        for label, series in components(str(name), target):
            if np.all(np.isfinite(series)) and np.ptp(series) > 0:
                picked[label] = (("chain", "draw"), series)
            if len(picked) >= limit:
                break
    return xr.Dataset(picked), total


def _figure_of(axes: Any) -> Any:
    """The figure an ArviZ plot drew on (it returns one axis or an array of them)."""
    return np.ravel(np.asarray(axes, dtype=object))[0].figure


def trace_and_rank(posterior: xr.Dataset, caveat: str | None = None) -> Html:
    """Trace and rank plots (ArviZ, matplotlib Agg) of the plotted components, with a note of
    what was left out and the ``caveat``, if any, about what the draws are."""
    az = arviz()

    data, total = plotted_components(posterior)
    shown = len(data.data_vars)
    if shown == 0:
        return paragraph("No scalar component has finite, varying draws: nothing to plot.",
                         class_="note")
    pyplot()  # the Agg backend before ArviZ draws
    idata = az.InferenceData(posterior=data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = az.plot_trace(idata, compact=False, figsize=(10, 1.7 * shown))
        trace_fig = figure(_figure_of(trace), "Trace plots: kernel density per chain (left) and "
                           "draws against iteration (right).", alt="trace plots")
        columns = min(shown, 3)
        rank = az.plot_rank(idata, grid=(int(np.ceil(shown / columns)), columns),
                            figsize=(10, 2.4 * np.ceil(shown / columns)))
        rank_fig = figure(_figure_of(rank), "Rank plots: histograms of each chain's ranks in "
                          "the pooled draws; flat when the chains agree.", alt="rank plots")
    note = paragraph(f"{shown} of {total} scalar components: the first with finite, varying "
                     "draws." if shown < total else f"All {total} scalar components.",
                     class_="note")
    warning = paragraph(caveat, class_="note") if caveat else Html("")
    return join([note, warning, trace_fig, rank_fig])
