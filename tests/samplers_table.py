"""The samplers table: one row per registered sampler — the tiny model it runs on in the
registry's checks, the options that keep it small, and whether its rerun (a second compilation,
3–6 s) waits for ``make test-slow`` (in ``make test``: RWM, PT, the changepoint sampler and the
ensemble, one of each kind of model and state; the rerun path itself does not depend on the
sampler). ``tests/samplers/test_registry.py`` runs every row, and a
sampler registered without a row fails there (``test_every_sampler_has_a_row``): adding a sampler
is its module, one registry line and one line here."""

from __future__ import annotations

from typing import Any, NamedTuple

#: The multivariate-Gaussian mean: any sampler with a data axis.
TINY_MVN: tuple[str, dict[str, Any]] = ("mvn_mean", {"n": 20, "dim": 2, "data_seed": 3})


class Row(NamedTuple):
    """A sampler's tiny model ``(name, options)``, its small options, and whether its
    bit-for-bit rerun is marked ``slow``."""

    model: tuple[str, dict[str, Any]] = TINY_MVN
    options: dict[str, Any] = {}
    slow_rerun: bool = False


SAMPLERS_TABLE: dict[str, Row] = {
    "rwm": Row(),
    "hmc": Row(slow_rerun=True),
    "nuts": Row(slow_rerun=True),
    "slice": Row(slow_rerun=True),
    "mala": Row(slow_rerun=True),
    "rj_changepoint": Row(("changepoint", {"k_max": 3}), {"moves": 2}),
    "pt": Row(options={"rungs": 3, "step_size": 0.3}),
    "spt": Row(options={"rungs": 3, "schedule": "fixed"}, slow_rerun=True),  # its pilot: tests/pt
    "tt": Row(options={"rungs": 3, "inner_steps": 2}, slow_rerun=True),
    "stt": Row(options={"rungs": 3, "inner_steps": 2}, slow_rerun=True),
    "tt_approx": Row(options={"sizes": [10, 5]}, slow_rerun=True),
    "st": Row(options={"rungs": 3, "step_size": 0.3}, slow_rerun=True),
    "discretizing_chain": Row(options={"m": 8, "r": 2}, slow_rerun=True),
    "mint": Row(options={"batch": 5}, slow_rerun=True),
    "cmint": Row(options={"batch": 5, "round_epochs": 2, "decay_epochs": 1}, slow_rerun=True),
    "sgld": Row(options={"batch": 5}, slow_rerun=True),
    "sghmc": Row(options={"batch": 5, "num_integration_steps": 2}, slow_rerun=True),
    "ee": Row(options={"levels": 3, "burnin": 4, "stagger": 4, "pilot": 4, "capacity": 8},
              slow_rerun=True),
    "mintee": Row(options={"levels": 3, "batch": 4, "gamma": 1.5, "burnin": 4, "stagger": 4,
                           "pilot": 4, "capacity": 8}, slow_rerun=True),
    "ensemble": Row(("gp_neal2010", {"n": 12}), {"size": 4}),
    "coordinate_rwm": Row(slow_rerun=True),
}
