"""Models: the ``Model`` contract and the built-in models."""

from tempering.models.base import Model, ParamSpec, finite_or_neg_inf
from tempering.models.registry import MODELS, get_model, list_models

__all__ = ["MODELS", "Model", "ParamSpec", "finite_or_neg_inf", "get_model", "list_models"]
