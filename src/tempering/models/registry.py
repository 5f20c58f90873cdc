"""The built-in models: a plain tuple of specs, each declared by its model's module
(:class:`~tempering.models.base.ModelSpec`). Adding a model is one module exporting ``SPEC`` and one
line below.
"""

from __future__ import annotations

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


def get_model(name: str, **options: Any) -> Model:
    """Build a registered model from keyword options (validated; raises on unknown keys), or a
    user's model ``path/to/file.py:NAME`` (:mod:`tempering.models.user_file`: ``NAME`` is a
    ``Model``, or a function called with the options that returns one)."""
    if is_file_model(name):
        return load_file_model(name, options)
    spec = MODELS.get(name)
    return spec.build(validate_options(spec.options, options, prefix="model"))
