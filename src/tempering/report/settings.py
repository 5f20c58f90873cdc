"""The run's settings as the run file records them: model and sampler with their options, the run's
shape and seed, wall seconds, cost totals and package versions (docs/architecture.md, "Run file").
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tempering.report.markup import Html, join, key_values, tag
from tempering.run.output import run_attr

if TYPE_CHECKING:
    import arviz as az

#: The run's shape, in the order shown.
RUN_ATTRS = ("model", "sampler", "chains", "draws", "warmup", "thin", "seed", "chain_method",
             "created")
#: Wall seconds and cost totals, in the order shown.
WORK_ATTRS = ("wall_seconds_pilot", "wall_seconds_warmup", "wall_seconds_sampling",
              "wall_seconds_compile", "wall_seconds_total", "cost_pilot", "cost_total",
              "cost_warmup")


def _block(title: str, items: list[tuple[Any, Any]]) -> Html:
    """A captioned name/value table, or nothing when there are no items."""
    if not items:
        return Html("")
    return tag("div", join([tag("h4", title), key_values(items)]))


def _mapping(idata: az.InferenceData, name: str) -> list[tuple[Any, Any]]:
    """A dict-valued run attribute as (key, value) pairs (none when absent or not a dict)."""
    value = run_attr(idata, name, {})
    return list(value.items()) if isinstance(value, dict) else []


def run_settings(idata: az.InferenceData, path: Path) -> Html:
    """Tables of the run's settings: run, work, model options and attributes, resolved sampler
    options and facts, package versions."""
    run = [("file", path.name)]
    run += [(name, run_attr(idata, name)) for name in RUN_ATTRS
            if run_attr(idata, name) is not None]
    if run_attr(idata, "init") is not None:
        run.append(("init", "explicit initial positions"))
    work = [(name, run_attr(idata, name)) for name in WORK_ATTRS
            if run_attr(idata, name) is not None]
    blocks = [
        _block("Run", run),
        _block("Wall seconds and cost (full-data-equivalent evaluations)", work),
        _block("Model options", _mapping(idata, "model_options")),
        _block("Model attributes", _mapping(idata, "model_attrs")),
        _block("Sampler options (resolved)", _mapping(idata, "sampler_options")),
        _block("Sampler facts (derived)", _mapping(idata, "sampler_facts")),
        _block("Package versions", _mapping(idata, "versions")),
    ]
    return tag("div", join(blocks), class_="columns")
