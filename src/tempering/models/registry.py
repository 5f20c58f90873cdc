"""The built-in models: a plain tuple of specs, each declared by its model's module
(:class:`~tempering.models.base.ModelSpec`). Adding a model is one module exporting ``SPEC`` and one
line below.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tempering.config import validate_options
from tempering.models import (
    barrier,
    bnn,
    changepoint,
    eggbox,
    gauss_mixture,
    gp_const,
    gp_neal2010,
    gp_regression,
    logistic,
    mixture,
    modes2d,
    mvn_mean,
    scaled_normal,
    spike_slab,
    tied_means,
)
from tempering.models.base import Model, ModelSpec
from tempering.models.user_file import is_file_model, load_file_model
from tempering.numerics import gc_paused
from tempering.precision import checked, scope
from tempering.registry import Registry

MODELS: Registry[ModelSpec] = Registry("model", (
    mvn_mean.SPEC,
    gp_regression.SPEC,
    gp_const.SPEC,
    gp_neal2010.SPEC,
    mixture.SPEC,
    changepoint.SPEC,
    tied_means.SPEC,
    logistic.SPEC,
    bnn.SPEC,
    modes2d.SPEC,
    barrier.SPEC,
    gauss_mixture.SPEC,
    spike_slab.SPEC,
    eggbox.SPEC,
    scaled_normal.SPEC,
))


@gc_paused()  # start-up: Python's collector only slows it (numerics.gc_paused)
def get_model(name: str, **options: Any) -> Model:
    """Build a registered model from keyword options (validated; raises on unknown keys), or a
    user's model ``path/to/file.py:NAME`` (:mod:`tempering.models.user_file`: ``NAME`` is a
    ``Model``, or a function called with the options that returns one).

    The option ``precision`` (``"float32"`` or ``"float64"``) is every model's: the model is
    built in it and its runs compute in it (:mod:`tempering.precision`); by default the spec's
    (``float64`` for the GP models) or, for a file's model, the one the file's model declares.
    A run's spec records it beside the options (:class:`~tempering.run.spec.RunSpec`), so a
    rerun rebuilds the model the same."""
    chosen = options.pop("precision", None)
    if is_file_model(name):
        return _file_model(name, options, chosen)
    spec = MODELS.get(name)
    precision = checked(spec.precision if chosen is None else chosen)
    with scope(precision):
        model = spec.build(validate_options(spec.options, options, prefix="model"))
    return dataclasses.replace(model, precision=precision)


def _file_model(name: str, options: dict[str, Any], chosen: str | None) -> Model:
    """A file's model in the precision chosen, or else the one its model declares (float32 by
    default): the file is loaded in that scope, and loaded again in the model's own precision
    when it declares another (its arrays are then built in it)."""
    precision = checked(chosen or "float32")
    with scope(precision):
        model = load_file_model(name, options)
    if chosen is None and model.precision != precision:
        precision = checked(model.precision)
        with scope(precision):
            model = load_file_model(name, options)
    return dataclasses.replace(model, precision=precision)
