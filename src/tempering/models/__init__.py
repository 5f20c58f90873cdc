"""Models: the ``Model`` contract, the built-in models and their registry."""

from tempering.models.base import Model, ModelSpec, ParamSpec
from tempering.models.changepoint_exact import changepoint_exact_posterior
from tempering.models.gp_regression import gp_regression_prior_mean
from tempering.models.registry import MODELS, get_model

__all__ = ["MODELS", "Model", "ModelSpec", "ParamSpec", "changepoint_exact_posterior",
           "get_model", "gp_regression_prior_mean"]
