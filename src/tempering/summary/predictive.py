"""The run summary's ``predictive`` block: test-set checks of a model with a held-out test set.

A model whose spec declares ``predictive`` (``logistic``, ``bnn``) is rebuilt from the run's
recorded name and options (:func:`~tempering.run.predict.model_from_run`, which also checks that
its data did not change); the run's target draws, thinned evenly to at most ``max_draws``, are
mapped back to θ (these models' ``constrain`` only reshapes θ) and passed to the model's
``predictive_checks``: the posterior predictive p(y*|x*) ≈ (1/S) Σ_s p(y*|x*, θ_s) on the test set,
its accuracy and mean log density per test point. A model that cannot be rebuilt (its data file
moved, say) gives ``{"unavailable": reason}`` rather than failing the whole summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax.numpy as jnp

from tempering.errors import UserInputError
from tempering.models import MODELS
from tempering.precision import scope
from tempering.run.output import run_attr
from tempering.run.predict import model_from_run, posterior_theta_identity

if TYPE_CHECKING:
    import arviz as az

#: At most this many draws enter the predictive average.
MAX_DRAWS = 500


def predictive_summary(idata: az.InferenceData, max_draws: int = MAX_DRAWS) -> dict[str, Any]:
    """``{"predictive": {test_accuracy, test_log_predictive, draws, n_test}}`` for a run of a
    model with predictive checks; ``{}`` for any other run."""
    spec = MODELS.find(run_attr(idata, "model"))
    if spec is None or not spec.predictive:
        return {}
    try:
        model = model_from_run(idata, "the run")
        if model.predictive_checks is None:  # e.g. test_fraction = 0: no test set
            return {}
        theta = posterior_theta_identity(model, idata, max_draws)
    except UserInputError as err:
        return {"predictive": {"unavailable": str(err)}}
    with scope(model.precision):
        checks = model.predictive_checks(jnp.asarray(theta))
    return {"predictive": {
        "test_accuracy": float(checks["test_accuracy"]),
        "test_log_predictive": float(checks["test_log_predictive"]),
        "draws": int(theta.shape[0]),
        "n_test": int(model.attrs.get("n_test", -1)),
    }}
