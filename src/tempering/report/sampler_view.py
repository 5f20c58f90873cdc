"""The sampler's own view of a run, driven by what the run declares — never by its sampler's name.

A run file's ``sample_stats`` holds exactly the statistics its sampler declared, each with its
dims and ``meaning``, and its ``headline`` attribute names the statistics the sampler puts forward
(docs/architecture.md, "Algorithm"). From those alone:

* a headline that is a ratio (``per``) of statistics with an extra dim is drawn per index — swap
  acceptance per adjacent pair (PT, SPT), EE-jump acceptance per level;
* a headline that is a running count (``last``) is drawn per chain against the draw — round trips;
* ``replica_at_rung``, where recorded, gives the replica index process (each replica's rung);
* ``rung``, where it is a per-draw scalar, gives the rung index process (ST), and the summary's
  importance-tempering block (``it``) the rung occupation, per-rung IS ESS and λ*;
* every run has ``cost``: its cost per draw per chain;
* every other statistic with extra dims (``rung``, ``pair``, ``level``, ...) gets a small chart
  of its mean per index, titled with its meaning; scalar statistics get their mean and total in
  a table (π / π* evaluations and cache hits, TT acceptance, ...);
* the lines the sampler's spec renders from its own summary (its ``render`` hook), as text.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from tempering.algorithms import SAMPLERS
from tempering.algorithms.base import RUNG, Headline
from tempering.algorithms.pt.stats import REPLICA_AT_RUNG
from tempering.report.figures import bars, figure, heatmap, lines
from tempering.report.markup import Html, fmt, join, paragraph, table, tag
from tempering.summary.checks import run_headlines

if TYPE_CHECKING:
    import arviz as az

#: Chains drawn in per-chain line plots.
MAX_CHAINS = 8
#: Draws shown in the replica index process (more is a solid block of lines).
INDEX_DRAWS = 100


def _meaning(var: xr.DataArray) -> str:
    return str(var.attrs.get("meaning", ""))


def _values(var: xr.DataArray) -> np.ndarray:
    return np.asarray(var.values, dtype=float)


def _chain_labels(n: int) -> list[str]:
    return [f"chain {c}" for c in range(min(n, MAX_CHAINS))]


def ratio_figures(stats: xr.Dataset, headlines: tuple[Headline, ...]) -> tuple[list[Html], set]:
    """Headlines Σ stat / Σ per whose statistics have an extra dim, drawn per index; and the
    statistics they cover."""
    out, covered = [], set()
    for h in headlines:
        if h.per is None or h.stat not in stats or h.per not in stats:
            continue
        num, den = stats[h.stat], stats[h.per]
        if num.ndim != 3 or num.dims != den.dims:
            continue
        counts = _values(den).sum(axis=(0, 1))
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(counts > 0, _values(num).sum(axis=(0, 1)) / counts, np.nan)
        dim = str(num.dims[2])
        fig = bars(ratio, f"{h.label} per {dim}", dim, ylabel=h.label)
        out.append(figure(fig, f"{h.label} per {dim}: Σ {h.stat} / Σ {h.per} over chains and "
                          f"draws ({_meaning(num)}; per {_meaning(den)}). Empty bar: never "
                          "proposed."))
        covered |= {h.stat, h.per}
    return out, covered


def running_count_figures(stats: xr.Dataset, headlines: tuple[Headline, ...]) -> list[Html]:
    """Headlines that are running counts of a scalar statistic, per chain against the draw."""
    out = []
    for h in headlines:
        if not h.last or h.stat not in stats or stats[h.stat].ndim != 2:
            continue
        values = _values(stats[h.stat])[:MAX_CHAINS]
        fig = lines(values, h.label, h.label, _chain_labels(values.shape[0]), step=True)
        out.append(figure(fig, f"{h.label} ({h.stat}: {_meaning(stats[h.stat])}), per chain."))
    return out


def index_process_figures(stats: xr.Dataset) -> list[Html]:
    """The replica index process (PT family: each replica's rung, chain 0) and the rung index
    process (ST: the rung of each chain's draw), where recorded."""
    out = []
    if REPLICA_AT_RUNG.name in stats and stats[REPLICA_AT_RUNG.name].ndim == 3:
        # (draw, rung) → replica, inverted to (replica, draw) → rung
        at_rung = np.asarray(stats[REPLICA_AT_RUNG.name].values)[0, :INDEX_DRAWS]
        rung_of = np.argsort(at_rung, axis=-1).T[:MAX_CHAINS]
        labels = [f"replica {r}" for r in range(rung_of.shape[0])]
        out.append(figure(lines(rung_of, "replica index process (chain 0)", "rung", labels,
                                step=True),
                          f"Replica index process, chain 0, first {rung_of.shape[1]} draws: the "
                          "rung each replica sits on (rung 0 the target); a round trip is "
                          "bottom → top → bottom."))
    if RUNG in stats and stats[RUNG].ndim == 2:
        values = _values(stats[RUNG])[:MAX_CHAINS]
        out.append(figure(lines(values, "rung index process", "rung",
                                _chain_labels(values.shape[0]), step=True),
                          f"Rung of each draw per chain ({_meaning(stats[RUNG])})."))
    return out


def rung_caveat(stats: xr.Dataset) -> str | None:
    """What to say above the trace plots of a run whose every draw may sit at any rung (a
    per-draw scalar ``rung``: ST); ``None`` for any other run."""
    if RUNG in stats and stats[RUNG].ndim == 2:
        return ("Every draw of this run is kept, at whatever rung it was made (its rung is "
                "recorded in sample_stats.rung): the plots show draws of the tempered "
                "distributions too, not only the target's; the summary weights them.")
    return None


def it_figures(summary: dict[str, Any]) -> list[Html]:
    """Rung occupation, per-rung importance-sampling ESS and λ* of a run with rungs."""
    it = summary.get("it")
    if not it:
        return []
    weights = it.get("weights", "optimal")
    return [
        figure(bars(it["n_per_rung"], "rung occupation", "rung", "draws"),
               "Rung occupation: draws at each rung, all chains (rung 0 the target)."),
        figure(bars(it["ess_per_rung"], "per-rung IS ESS", "rung", "ESS"),
               f"Importance-sampling ESS of each rung's draws for the target; combined: "
               f"optimal {fmt(it['ess_optimal'])}, naive {fmt(it['ess_naive'])}, ST only "
               f"{fmt(it['ess_st'])}."),
        figure(bars(it["lambda"], f"λ ({weights})", "rung", "λ"),
               f"Weights λ of the rungs' estimators in the combination ({weights}; λ* for "
               "optimal, seed 001 Proposition 2.1)."),
    ]


def evidence_line(summary: dict[str, Any]) -> Html:
    """Thermodynamic-integration and stepping-stone estimates of a run with rungs."""
    ev = summary.get("evidence")
    if not ev:
        return Html("")
    return paragraph(f"{ev['quantity']}: thermodynamic integration {fmt(ev['ti'])} ± "
                     f"{fmt(ev['ti_mcse'], 2)}, stepping stones {fmt(ev['ss'])} ± "
                     f"{fmt(ev['ss_mcse'], 2)}.")


def cost_figure(stats: xr.Dataset) -> Html:
    """Cost per draw (full-data-equivalent evaluations) per chain; every run records it."""
    values = _values(stats["cost"])[:MAX_CHAINS]
    return figure(lines(values, "cost per draw", "cost", _chain_labels(values.shape[0])),
                  f"Cost per draw ({_meaning(stats['cost'])}), per chain.")


def indexed_figures(stats: xr.Dataset, covered: set) -> list[Html]:
    """Every other statistic with extra dims: its mean per index (a heat map for two dims)."""
    out = []
    for name, var in stats.data_vars.items():
        if var.ndim == 2 or name in covered or var.ndim > 4:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an index that is all NaN
            means = np.nanmean(_values(var), axis=(0, 1))
        dims = [str(d) for d in var.dims[2:]]
        title = f"{name}: {_meaning(var)}"
        fig = (bars(means, title, dims[0]) if len(dims) == 1
               else heatmap(means, title, dims[1], dims[0]))
        out.append(figure(fig, f"{name} (mean per {' × '.join(dims)}): {_meaning(var)}."))
    return out


def scalar_table(stats: xr.Dataset) -> Html:
    """Every scalar statistic's mean, min and max over chains and draws, with its meaning."""
    rows = []
    for name, var in stats.data_vars.items():
        if var.ndim != 2:
            continue
        values = _values(var)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a statistic that is all NaN
            numbers = (np.nanmean(values), np.nanmin(values), np.nanmax(values))
        rows.append((name, *(fmt(float(v)) for v in numbers), _meaning(var)))
    return table(("statistic", "mean", "min", "max", "meaning"), rows, class_="stats")


def spec_lines(summary: dict[str, Any]) -> Html:
    """The lines the run's sampler's spec renders from its own summary (none without a hook, or
    when the sampler is not registered in this process)."""
    spec = SAMPLERS.find(summary["sampler"])
    if spec is None or spec.render is None:
        return Html("")
    return tag("pre", "\n".join(spec.render(summary)))


def sampler_view(idata: az.InferenceData, summary: dict[str, Any]) -> Html:
    """The whole view: the spec's lines, the figures above and the scalar table."""
    stats = idata["sample_stats"]
    headlines = run_headlines(idata)
    ratios, covered = ratio_figures(stats, headlines)
    covered.add(REPLICA_AT_RUNG.name)
    figures = [*ratios, *running_count_figures(stats, headlines), *index_process_figures(stats),
               *it_figures(summary), cost_figure(stats), *indexed_figures(stats, covered)]
    return join([spec_lines(summary), evidence_line(summary),
                 tag("div", join(figures), class_="figures"),
                 tag("h3", "Per-draw statistics"), scalar_table(stats)])
