"""Built-in models by name, each with a pydantic options class (unknown keys are errors)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from pydantic import BaseModel

from tempering.models import changepoint, gp_const, gp_regression, mixture, mvn_mean
from tempering.models.base import Model


class ModelEntry(NamedTuple):
    options: type[BaseModel]
    build: Callable[[Any], Model]
    summary: str


MODELS: dict[str, ModelEntry] = {
    "mvn_mean": ModelEntry(mvn_mean.MvnMeanOptions, mvn_mean.build,
                           "mean of a multivariate Gaussian, Gaussian prior (seed 000 §4.1)"),
    "gp_regression": ModelEntry(gp_regression.GpRegressionOptions, gp_regression.build,
                                "GP regression hyperparameters, SE-ARD kernel (seed 000 §4.2)"),
    "gp_const": ModelEntry(gp_const.GpConstOptions, gp_const.build,
                           "GP regression, c² + η² exp(−‖x−x′‖²/ρ²) covariance (seed 002 §5.1)"),
    "mixture": ModelEntry(mixture.MixtureOptions, mixture.build,
                          "equal-weight Gaussian mixture, unknown means: K! equal modes"),
    "changepoint": ModelEntry(changepoint.ChangepointOptions, changepoint.build,
                              "Poisson-process rate with k change points, coal data (Green 1995; "
                              "seed 001's RJ setting); sample with rj_changepoint"),
}


def list_models() -> dict[str, ModelEntry]:
    """Every registered model."""
    return dict(MODELS)


def get_model(name: str, **options: Any) -> Model:
    """Build a registered model from keyword options (validated; raises on unknown keys)."""
    from tempering.config import validate_options

    if name not in MODELS:
        from tempering.errors import UserInputError

        raise UserInputError(f"unknown model {name!r} (known: {', '.join(MODELS)})")
    entry = MODELS[name]
    return entry.build(validate_options(entry.options, options, prefix="model"))
